"""The IVF path, exercised at a size CI can afford by lowering the flat/IVF threshold.

Above the threshold the index is an inverted file and a filtered query probes more lists the
narrower its allowed set is. Its recall@10 against an exact scan of the same allowed set must
stay high for a wide filter (a big branch) and a narrow one (a path prefix, a small branch).
"""

from __future__ import annotations

import faiss
import numpy as np
import pytest

from branchwise.backends.local.vectors import build_index, nlist_for, search_index

DIM, COUNT, QUERIES = 64, 4000, 40
FLAT_MAX = 1000  # lowered from the production default so that COUNT vectors build an IVF index


@pytest.fixture(scope="module")
def corpus() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Clustered unit vectors (ids 1..COUNT) and queries near the same clusters."""
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(48, DIM))
    members = centres[rng.integers(0, len(centres), COUNT)] + 0.6 * rng.normal(size=(COUNT, DIM))
    queries = centres[rng.integers(0, len(centres), QUERIES)] + 0.6 * rng.normal(size=(QUERIES, DIM))
    members /= np.linalg.norm(members, axis=1, keepdims=True)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    ids = np.arange(1, COUNT + 1, dtype=np.int64)
    return ids, members.astype(np.float32), queries.astype(np.float32)


def exact_top(vectors: np.ndarray, ids: np.ndarray, allowed: np.ndarray, query: np.ndarray, k: int) -> set[int]:
    mask = np.isin(ids, allowed)
    scores = vectors[mask] @ query
    return set(ids[mask][np.argsort(-scores)[:k]].tolist())


@pytest.mark.parametrize("share", [0.6, 0.02])
def test_filtered_ivf_recall_against_exact_search(corpus, share):
    ids, vectors, queries = corpus
    index = build_index(DIM, ids, vectors, flat_max=FLAT_MAX)
    assert isinstance(index, faiss.IndexIVF) and index.nlist == nlist_for(COUNT, FLAT_MAX) > 1
    allowed = np.sort(np.random.default_rng(11).choice(ids, int(COUNT * share), replace=False))
    recalls = []
    for query in queries:
        got = [i for i, _ in search_index(index, query, allowed, 10)]
        assert set(got) <= set(allowed.tolist())  # never a vector outside the allowed set
        recalls.append(len(set(got) & exact_top(vectors, ids, allowed, query, 10)) / 10)
    assert np.mean(recalls) >= 0.95, np.mean(recalls)


def test_below_the_threshold_the_index_is_exact(corpus):
    ids, vectors, _ = corpus
    assert not isinstance(build_index(DIM, ids, vectors, flat_max=COUNT), faiss.IndexIVF)
