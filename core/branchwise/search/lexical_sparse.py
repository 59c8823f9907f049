"""The lexical channel as sparse vectors, for a backend without SQLite FTS5 (Qdrant).

It computes what FTS5's bm25() computes for `lexical.fts_columns` documents, so that both
backends rank alike: the same words, unicode61-style tokens with the Porter stemmer, per term
the BM25 saturation of its column-weighted frequency (`COLUMN_WEIGHTS`) on the document side,
and on the query side each term's inverse document frequency in FTS5's form, from document
counts the writer publishes (taken from FTS5's own vocabulary). The score, a sparse dot
product, is then FTS5's bm25 score. Two approximations remain: the average document length
is the one of the first publishing (FTS5 uses today's), and a quoted multi-word term matches
its words anywhere rather than as a phrase.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import defaultdict
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


def document_terms(columns: tuple[str, ...]) -> tuple[dict[str, float], int]:
    """Column-weighted term frequencies of a document, and its length in tokens."""
    weighted: defaultdict[str, float] = defaultdict(float)
    length = 0
    for weight, text in zip(COLUMN_WEIGHTS, columns):
        column_tokens = tokens(text)
        length += len(column_tokens)
        for token in column_tokens:
            weighted[token] += weight
    return weighted, length


def document_vector(columns: tuple[str, ...], average_length: float) -> tuple[list[int], list[float]]:
    """(indices, values) of a document: BM25-saturated weighted frequencies (IDF: query side)."""
    weighted, length = document_terms(columns)
    norm = K1 * (1 - B + B * length / max(average_length, 1.0))
    by_id: dict[int, float] = {}
    for term, frequency in weighted.items():
        index = term_id(term)
        by_id[index] = by_id.get(index, 0.0) + frequency * (K1 + 1) / (frequency + norm)
    indices = sorted(by_id)
    return indices, [by_id[i] for i in indices]


def idf(documents: int, containing: int) -> float:
    """FTS5's inverse document frequency, with its floor for terms in most documents."""
    value = math.log((documents - containing + 0.5) / (containing + 0.5)) if documents else 0.0
    return value if value > 0 else 1e-6


def query_stems(question: str, name_only: bool = False) -> list[str]:
    """The stemmed words of a question; `name_only`: only as `lexical.name_query` would use."""
    terms = query_terms(question, spellings=not name_only)
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
