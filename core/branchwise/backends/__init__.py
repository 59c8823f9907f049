"""Where the searchable index lives: `local/` (FAISS beside the SQLite database) or `qdrant/`
(a shared server). Each backend has a searcher (a `search.HybridSearch`) and a vector store
(what the indexer writes); `backend.py` holds their protocol and the choice between them."""

from branchwise.backends.backend import Backend, VectorStore

__all__ = ["Backend", "VectorStore"]
