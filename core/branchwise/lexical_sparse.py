"""The lexical channel as sparse vectors, for a backend without SQLite FTS5 (Qdrant).

It reproduces what FTS5 computes for `lexical.fts_columns` documents: the same words,
unicode61-style tokens with the Porter stemmer, and per term the BM25 saturation of its
column-weighted frequency (FTS5's bm25() with `COLUMN_WEIGHTS`). The document side carries
those weights; the query side is 1 per term; the engine multiplies in each term's inverse
document frequency over the collection (Qdrant's `Modifier.IDF`, computed at query time, so it
stays right as the corpus grows). Two differences from FTS5 remain: Qdrant's IDF is
ln(1 + (N - n + 0.5) / (n + 0.5)) where FTS5 omits the 1 +, and a quoted multi-word term
matches its words anywhere rather than as a phrase.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from functools import lru_cache

from branchwise.lexical import COLUMN_WEIGHTS, query_terms

K1, B = 1.2, 0.75  # FTS5's bm25() constants
_TOKEN = re.compile(r"[^\W_]+")


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer  # the qdrant extra's dependency; Porter's original algorithm, as FTS5

    return snowballstemmer.stemmer("porter")


@lru_cache(maxsize=65536)
def _stem(token: str) -> str:
    return _stemmer().stemWord(token)


def tokens(text: str) -> list[str]:
    """Lower-cased alphanumeric runs, stemmed: what FTS5's `porter unicode61` makes of text."""
    return [_stem(t) for t in _TOKEN.findall(text.lower())]


def term_id(term: str) -> int:
    """A stable 32-bit index for a term (sparse vector indices are unsigned 32-bit)."""
    return int.from_bytes(hashlib.blake2b(term.encode(), digest_size=4).digest(), "little")


def document_terms(columns: tuple[str, ...]) -> tuple[Counter, int]:
    """Column-weighted term frequencies of a document, and its length in tokens."""
    weighted: Counter = Counter()
    length = 0
    for weight, text in zip(COLUMN_WEIGHTS, columns):
        column_tokens = tokens(text)
        length += len(column_tokens)
        for token in column_tokens:
            weighted[token] += weight
    return weighted, length


def document_vector(columns: tuple[str, ...], average_length: float) -> tuple[list[int], list[float]]:
    """(indices, values) of a document: BM25-saturated weighted frequencies, IDF left to the engine."""
    weighted, length = document_terms(columns)
    norm = K1 * (1 - B + B * length / max(average_length, 1.0))
    by_id: dict[int, float] = {}
    for term, frequency in weighted.items():
        index = term_id(term)
        by_id[index] = by_id.get(index, 0.0) + frequency * (K1 + 1) / (frequency + norm)
    indices = sorted(by_id)
    return indices, [by_id[i] for i in indices]


def query_vector(question: str, name_only: bool = False) -> tuple[list[int], list[float]] | None:
    """(indices, values) of a question's terms, or None when nothing in it is searchable."""
    stems = query_stems(question, name_only)
    if not stems:
        return None
    indices = sorted({term_id(s) for s in stems})
    return indices, [1.0] * len(indices)


def query_stems(question: str, name_only: bool = False) -> list[str]:
    """The stemmed words of a question; `name_only`: only as `lexical.name_query` would use."""
    terms = query_terms(question)
    if name_only:
        terms = [t for t in terms if "_" not in t]
        if not 1 < len(terms) <= 4:
            return []
    stems: list[str] = []
    for term in terms:
        for stem in tokens(term):
            if stem not in stems:
                stems.append(stem)
    return stems
