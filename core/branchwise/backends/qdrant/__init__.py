"""The Qdrant backend: one shared index on a Qdrant server, written by one job, read by a team.

Three collections (names start with the configured prefix, default `branchwise`):

- `<prefix>-versions-<model>`: one point per version, its id the version id's first 128 bits
  as a UUID. Vector `dense` is the vector FAISS would hold (version_vectors.py), `static` the
  static stage's (when the index has one, published before the transformer's); sparse vector
  `lexical` holds the BM25 term weights of the words FTS5 would index (lexical_sparse.py).
  The payload carries everything a result and its verification need (identity, text, signature, docstring, path class, blob and lines, first seen), `dirs` (the
  path's prefixes at `/` boundaries, for `--path-prefix` and access prefixes), `symbol_words`
  (the name channel) and the visibility: `branches` (the branches whose live set holds the
  version), `live` ({branch: [blob, start, end]}) and `gone` ({branch: [deleted at, last commit,
  blob, start, end, when]}).
- `<prefix>-terms-<model>`: vector-less points, one per lexical term: how many versions hold
  it (FTS5's own count), from which a reader computes the query's IDF weights.
- `<prefix>-branches`: vector-less points, one per indexed branch (commit, indexed_at), and
  one per publishing database (its uid, its document count and the average document length
  its BM25 weights use).

Branch visibility is a payload filter on `branches`, rewritten in place (set_payload) for
the versions whose live-set membership changed; per-query id lists were measured against it
(bench/qdrant_search.py, bench/results/): a live set of a large branch is hundreds of
thousands of ids sent with every query, where the payload filter is one keyword condition
that the server's payload index and filter-aware HNSW serve directly.

The writer publishes from its SQLite database's outbox (`unpublished`, filled in each index
run's transaction), so a crash between the database commit and the publishing only delays
the publishing to the next run (publisher.py). Readers never need the database (searcher.py).
connection.py holds the client and the names both share. docs/qdrant.md is the user's guide.
"""

from branchwise.backends.qdrant.connection import close_clients, drop_collections
from branchwise.backends.qdrant.publisher import QdrantPublisher
from branchwise.backends.qdrant.searcher import QdrantSearcher

__all__ = ["QdrantPublisher", "QdrantSearcher", "close_clients", "drop_collections"]
