"""The embedded backend: the FAISS file beside the SQLite database (vectors.py), searched
together with the database's live sets and FTS5 table (searcher.py)."""
