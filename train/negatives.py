"""One hard negative per pair: the code text BM25 ranks highest for the question, not its own.

In-batch negatives are random code and mostly easy; a lexical neighbour from the same
corpus (a function sharing the question's words) is the mistake a dense model must learn
not to make. Scored with Okapi BM25 over split identifiers and words, the way the product's
lexical channel tokenises.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np

_TOKEN = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")
K1, B = 1.2, 0.75
_STOP = frozenset("the a an of to in for and or is are be by on with this that it as from if at".split())


def tokens(text: str) -> list[str]:
    return [t for t in (w.lower() for w in _TOKEN.findall(text)) if t not in _STOP and len(t) > 1]


def hard_negatives(queries: list[str], codes: list[str], names: list[str],
                   files: list[str] | None = None) -> list[int]:
    """For each query i, the index of the best BM25 match among `codes` whose symbol name
    differs from names[i] (an override of the same method may well answer the question too);
    i itself when nothing else shares a word.

    With `files`, the match is taken from query i's own file (files[i]) when one there shares
    a word: a sibling in the same file is the neighbour search most often ranks above the
    answer; the library's best match otherwise."""
    from scipy.sparse import csr_matrix

    vocabulary: dict[str, int] = {}
    rows, cols, counts = [], [], []
    lengths = np.zeros(len(codes))
    for row, code in enumerate(codes):
        bag = Counter(tokens(code))
        lengths[row] = sum(bag.values())
        for word, count in bag.items():
            rows.append(row)
            cols.append(vocabulary.setdefault(word, len(vocabulary)))
            counts.append(count)
    tf = csr_matrix((np.asarray(counts, dtype=np.float64), (rows, cols)), shape=(len(codes), len(vocabulary)))
    df = np.bincount(np.asarray(cols), minlength=len(vocabulary))
    idf = np.log(1 + (len(codes) - df + 0.5) / (df + 0.5))
    norm = K1 * (1 - B + B * lengths / max(lengths.mean(), 1))
    tf = tf.tocoo()
    weights = tf.data * (K1 + 1) / (tf.data + norm[tf.row]) * idf[tf.col]
    scores_matrix = csr_matrix((weights, (tf.row, tf.col)), shape=tf.shape).T.tocsr()  # word x code
    by_file: dict[str, list[int]] = {}
    for j, file in enumerate(files or ()):
        by_file.setdefault(file, []).append(j)
    out = []
    for i, query in enumerate(queries):
        ids = sorted({vocabulary[w] for w in tokens(query) if w in vocabulary})
        if not ids:
            out.append(i)
            continue
        scores = np.asarray(scores_matrix[ids].sum(axis=0)).ravel()
        scores[i] = -math.inf
        best = _best(scores, by_file[files[i]], names, i) if files is not None else i
        if best == i:
            best = _best(scores, np.argsort(-scores)[:8], names, i)
        out.append(best)
    return out


def _best(scores, candidates, names: list[str], i: int) -> int:
    """The highest-scoring candidate that shares a word and is not a symbol of i's name."""
    for j in sorted((int(j) for j in candidates), key=lambda j: -scores[j]):
        if scores[j] > 0 and _short(names[j]) != _short(names[i]):
            return j
    return i


def _short(qualified_name: str) -> str:
    return qualified_name.rsplit(".", 1)[-1]


def negatives_per_source(pairs: list, own_file: bool = False) -> list[int]:
    """For each pair (train.mine.Pair), the index of its hard negative among the pairs of the
    same source: same language, same conventions."""
    out = list(range(len(pairs)))
    for name in dict.fromkeys(p.source for p in pairs):
        rows = [i for i, p in enumerate(pairs) if p.source == name]
        found = hard_negatives([pairs[i].query for i in rows], [pairs[i].code for i in rows],
                               [pairs[i].qualified_name for i in rows],
                               [pairs[i].path for i in rows] if own_file else None)
        for i, j in zip(rows, found):
            out[i] = rows[j]
    return out
