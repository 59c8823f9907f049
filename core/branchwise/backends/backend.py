"""Where the searchable index lives: FAISS beside the database, or a shared Qdrant server.

The SQLite database in the index directory stays the writer's source of truth either way
(identities, versions, live sets, the embedding cache). The vector backend holds what a
search ranks: with FAISS, one file of vectors, the rest read from SQLite; with Qdrant, one
point per version carrying everything a result and its verification need, so a teammate
with only a checkout and the server's address can search, verify and export.

The choice is read from the resolved `Config` (command line, environment, config.toml).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from branchwise.errors import UsageError

if TYPE_CHECKING:
    from branchwise.config import Config
    from branchwise.embedding import Embedder
    from branchwise.search.hybrid import HybridSearch
    from branchwise.store import Store


class VectorStore(Protocol):
    """What the indexer needs of a vector backend."""

    def add(self, version_rows: list[int]) -> None:
        """New versions whose embeddings are cached."""

    def remove(self, version_rows: list[int]) -> None:
        """Versions garbage-collected from the database."""

    def save(self) -> None:
        """Make the changes durable once per command (FAISS: the file, if it changed; Qdrant:
        publish the outbox, and everything to a new or lost collection)."""

    def rebuild(self) -> object:
        """Recompute everything from the database."""


class VectorStores:
    """Several dense stages' vector stores as one (the transformer's and the static model's):
    what the indexer adds, removes, saves and rebuilds happens to each; each store takes only
    the versions whose embeddings its own model has cached."""

    def __init__(self, stores: list[VectorStore]):
        self.stores = stores

    def add(self, version_rows: list[int]) -> None:
        for store in self.stores:
            store.add(version_rows)

    def remove(self, version_rows: list[int]) -> None:
        for store in self.stores:
            store.remove(version_rows)

    def save(self) -> None:
        for store in self.stores:
            store.save()

    def rebuild(self) -> object:
        return [store.rebuild() for store in self.stores]


class NoVectors:
    """A vector store with nothing of its own to do: the static stage's on Qdrant (its vectors
    ride on the transformer stage's points, which that publisher sends), and a migration's,
    which rebuilds every vector from the database afterwards (index/rechunk.py)."""

    def add(self, version_rows: list[int]) -> None:
        pass

    def remove(self, version_rows: list[int]) -> None:
        pass

    def save(self) -> None:
        pass

    def rebuild(self) -> object:
        return None


@dataclass(frozen=True)
class Backend:
    kind: str = "faiss"
    qdrant_url: str | None = None
    qdrant_path: str | None = None
    collection: str = "branchwise"
    api_key: str | None = field(default=None, repr=False)

    @classmethod
    def resolve(cls, config: "Config") -> "Backend":
        """The backend the resolved settings name (see config.py for their precedence)."""
        if config.backend == "faiss":
            return cls()
        url, path = config.qdrant_url, config.qdrant_path
        if not url and not path:
            raise UsageError("the qdrant backend needs --qdrant-url URL (a server) or --qdrant-path DIR "
                             "(local mode), or qdrant_url in the index's config.toml")
        return cls("qdrant", url or None, str(os.path.abspath(path)) if path else None,
                   config.qdrant_collection, config.qdrant_api_key)

    def describe(self) -> str:
        if self.kind == "faiss":
            return "faiss"
        return f"qdrant at {self.qdrant_url or self.qdrant_path} (collections {self.collection}-*)"

    # factories ----------------------------------------------------------------------------

    def vector_store(
        self, store: "Store", embedder: "Embedder", path_weight: float, flat_max: int | None = None,
        static: "Embedder | None" = None,
    ) -> VectorStore:
        """The transformer stage's store (with Qdrant, also the carrier of `static`'s vectors)."""
        if self.kind == "faiss":
            from branchwise.backends.local.vectors import FLAT_MAX, VectorIndex

            return VectorIndex(store, embedder.name, embedder.dim, path_weight, flat_max or FLAT_MAX)
        from branchwise.backends.qdrant import QdrantPublisher

        return QdrantPublisher(self, store, embedder.name, embedder.dim, path_weight,
                               (static.name, static.dim) if static is not None else None)

    def static_vector_store(self, store: "Store", static: "Embedder", path_weight: float,
                            flat_max: int | None = None) -> VectorStore:
        """The static stage's store: its own FAISS file, or on Qdrant nothing of its own (its
        vectors ride on the transformer stage's points, which its publisher sends)."""
        if self.kind == "faiss":
            return self.vector_store(store, static, path_weight, flat_max)
        return NoVectors()

    def searcher(self, store: "Store", repository: str, config: "Config", embedder: "Embedder",
                 static: "Embedder | None" = None) -> "HybridSearch":
        """`static`: the static stage's embedder (None: no static stage)."""
        if self.kind == "faiss":
            from branchwise.backends.local.searcher import Searcher

            return Searcher(store, repository, config, embedder, static)
        from branchwise.backends.qdrant import QdrantSearcher

        return QdrantSearcher(self, repository, config, embedder, static)
