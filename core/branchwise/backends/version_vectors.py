"""The searchable vector of a version, computed from the SQLite embedding cache.

Every vector backend (FAISS on disk, Qdrant on a server) stores the same vector per version:
its symbol text's embedding plus a small share of its file path's embedding, re-normalised.
Both are cached in SQLite by model and text hash, so a renamed file or a moved function
reuses its symbol embedding, and a backend can always be rebuilt without the model.
"""

from __future__ import annotations

import numpy as np

from branchwise.store import Store


def combine(symbol: np.ndarray, path: np.ndarray, path_weight: float) -> np.ndarray:
    """The searchable vector of a version: symbol + weighted path, re-normalised."""
    mixed = symbol + path_weight * path
    norms = np.linalg.norm(mixed, axis=-1, keepdims=True)
    return (mixed / np.where(norms == 0, 1, norms)).astype(np.float32)


def version_vectors(
    store: Store, model: str, dim: int, path_weight: float, version_rows: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """(ids, vectors) for those of `version_rows` whose embeddings are cached."""
    found_ids, symbol_vecs, path_vecs = [], [], []
    for row_id, symbol, path in store.embedding_pairs(model, version_rows):
        found_ids.append(row_id)
        symbol_vecs.append(np.frombuffer(symbol, dtype=np.float32))
        path_vecs.append(np.frombuffer(path, dtype=np.float32))
    if not found_ids:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dim), dtype=np.float32)
    vectors = combine(np.vstack(symbol_vecs), np.vstack(path_vecs), path_weight)
    return np.asarray(found_ids, dtype=np.int64), vectors
