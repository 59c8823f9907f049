"""Reorder the head of a fused ranking by what each candidate's docstring says it does.

The fused ranking finds the right neighbourhood: on real repositories the answer is in the
top 10 for 92-99% of questions, but a sibling of the same file (the method next to it, its
class, a helper) is often above it. A chunk's vector mixes its name, signature, docstring and
body, and siblings share most of that; their docstrings are what tells them apart in words,
the way a question is written ("exactly n args" against "at least n args").

So the first `doc_depth` results of a fused ranking are rescored with the question's cosine
similarity to each one's description (the same model as the dense channel): its docstring
(a leading symbol name, as Go writes it, left out), or for code without one its name in
words, the shortest description its author gave:

    score + doc_weight x best score x similarity x the candidate's role prior

(a test's docstring lifts it no more than its words did). Nothing below the head moves, and
the head stays above it, so scores still fall with rank. The descriptions' vectors are made
at search time (a handful of short texts) and remembered per searcher.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from branchwise.chunking.embedding_text import description
from branchwise.models import Result

#: docstring vectors a searcher remembers (a warm MCP server meets the same symbols again)
CACHE_SIZE = 4096


def rescored(scores: list[float], similarities: list[float | None], weight: float,
             priors: list[float] | None = None) -> list[float]:
    """The head's scores (best first) with the docstring bonus: + weight x best x similarity x
    the result's role prior (a negative similarity counts as none, a missing docstring gets none)."""
    best = scores[0] if scores else 0.0
    priors = priors or [1.0] * len(scores)
    return [score + weight * best * max(0.0, similarity) * prior if similarity is not None else score
            for score, similarity, prior in zip(scores, similarities, priors)]


class DocstringReranker:
    """Rescores a ranking's head by docstring similarity; keeps the vectors it has made."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray]):
        self._embed = embed
        self._vectors: dict[str, np.ndarray] = {}

    def rerank(self, query_vector: np.ndarray, results: list[Result], weight: float, depth: int,
               prior: Callable[[Result], float] = lambda _result: 1.0) -> list[Result]:
        """`results` (best first) with the first `depth` rescored and reordered; `prior` is the
        role prior already in each result's score, applied to its bonus too (a test's docstring
        lifts it no more than its words did)."""
        head = results[:depth]
        if weight <= 0 or len(head) < 2 or head[0].score <= 0:
            return results
        texts = [description(r.docstring, r.identity.qualified_name) for r in head]
        vectors = self._vectors_of([t for t in texts if t])
        query = query_vector / (np.linalg.norm(query_vector) or 1.0)
        similarities = [float(np.dot(query, vectors[t])) if t else None for t in texts]
        priors = [prior(r) for r in head]
        for result, score in zip(head, rescored([r.score for r in head], similarities, weight, priors)):
            result.score = score
        return sorted(head, key=lambda r: r.score, reverse=True) + results[depth:]

    def _vectors_of(self, texts: list[str]) -> dict[str, np.ndarray]:
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing and len(self._vectors) + len(missing) > CACHE_SIZE:
            self._vectors.clear()
            missing = list(dict.fromkeys(texts))
        if missing:
            for text, vector in zip(missing, self._embed(missing)):
                self._vectors[text] = vector / (np.linalg.norm(vector) or 1.0)
        return {t: self._vectors[t] for t in texts}
