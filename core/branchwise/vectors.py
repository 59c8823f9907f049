"""The FAISS side of the index: one vector per version row, searched within a live set.

Vectors are derived data. A version's vector is its symbol text's embedding plus a small
share of its file path's embedding (both cached in SQLite by model and text hash), so a
renamed file or a moved function reuses its symbol embedding. The FAISS file records the
store generation it was built for; when it is missing, corrupt or behind, it is rebuilt
from SQLite, which makes an interrupted index run harmless.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import faiss
import numpy as np

from branchwise.store import Store


def combine(symbol: np.ndarray, path: np.ndarray, path_weight: float) -> np.ndarray:
    """The searchable vector of a version: symbol + weighted path, re-normalised."""
    mixed = symbol + path_weight * path
    norms = np.linalg.norm(mixed, axis=-1, keepdims=True)
    return (mixed / np.where(norms == 0, 1, norms)).astype(np.float32)


def _slug(model: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in model)


class VectorIndex:
    """Exact inner-product search over version rows, restricted to an allowed id set."""

    def __init__(self, store: Store, model: str, dim: int, path_weight: float):
        self.store = store
        self.model = model
        self.dim = dim
        self.path_weight = path_weight
        self.file = store.index_dir / f"vectors-{_slug(model)}.faiss"
        self.meta_file = self.file.with_suffix(".json")
        self.index = self._load() or self.rebuild()

    # persistence --------------------------------------------------------------------------

    def _load(self) -> faiss.Index | None:
        try:
            meta = json.loads(self.meta_file.read_text())
            if meta.get("generation") != self.store.generation() or meta.get("dim") != self.dim:
                return None
            index = faiss.read_index(str(self.file))
        except (OSError, ValueError, RuntimeError):
            return None
        return index if index.ntotal == meta.get("count") else None

    def save(self) -> None:
        """Atomically replace the FAISS file and its generation record."""
        tmp = self.file.with_suffix(".faiss.tmp")
        faiss.write_index(self.index, str(tmp))
        os.replace(tmp, self.file)
        meta = {"generation": self.store.generation(), "count": int(self.index.ntotal), "dim": self.dim}
        tmp_meta = self.meta_file.with_suffix(".json.tmp")
        tmp_meta.write_text(json.dumps(meta))
        os.replace(tmp_meta, self.meta_file)

    def rebuild(self) -> faiss.Index:
        """Recompute every version's vector from the SQLite embedding cache."""
        self.index = faiss.IndexIDMap2(faiss.IndexFlatIP(self.dim))
        rows = self.store.conn.execute("SELECT id FROM versions ORDER BY id").fetchall()
        ids = [row[0] for row in rows]
        for start in range(0, len(ids), 20000):
            self.add(ids[start : start + 20000])
        if self.store.index_dir.exists():
            self.save()
        return self.index

    # updates ------------------------------------------------------------------------------

    def vectors_for(self, version_rows: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """(ids, vectors) for the given version rows whose embeddings are cached."""
        if not version_rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.dim), dtype=np.float32)
        found_ids, symbol_vecs, path_vecs = [], [], []
        conn = self.store.conn
        for start in range(0, len(version_rows), 900):
            chunk = version_rows[start : start + 900]
            marks = ",".join("?" * len(chunk))
            query = f"""
                SELECT v.id, s.vector, p.vector FROM versions v
                JOIN embeddings s ON s.model = ? AND s.key = v.embed_key
                JOIN embeddings p ON p.model = ? AND p.key = v.path_key
                WHERE v.id IN ({marks})"""
            for row_id, symbol, path in conn.execute(query, (self.model, self.model, *chunk)):
                found_ids.append(row_id)
                symbol_vecs.append(np.frombuffer(symbol, dtype=np.float32))
                path_vecs.append(np.frombuffer(path, dtype=np.float32))
        if not found_ids:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self.dim), dtype=np.float32)
        vectors = combine(np.vstack(symbol_vecs), np.vstack(path_vecs), self.path_weight)
        return np.asarray(found_ids, dtype=np.int64), vectors

    def add(self, version_rows: list[int]) -> None:
        ids, vectors = self.vectors_for(version_rows)
        if len(ids):
            self.index.add_with_ids(vectors, ids)

    def remove(self, version_rows: list[int]) -> None:
        if version_rows:
            self.index.remove_ids(np.asarray(version_rows, dtype=np.int64))

    # search -------------------------------------------------------------------------------

    def search(self, query: np.ndarray, allowed: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Top-k version rows by inner product, among `allowed` only (filter before ranking)."""
        if len(allowed) == 0 or self.index.ntotal == 0:
            return []
        selector = faiss.IDSelectorBatch(np.ascontiguousarray(allowed, dtype=np.int64))
        params = faiss.SearchParameters(sel=selector)
        scores, ids = self.index.search(query.reshape(1, -1).astype(np.float32), k, params=params)
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0]) if i >= 0]
