"""The Qdrant backend: one shared index on a Qdrant server, written by one job, read by a team.

Two collections (names start with the configured prefix, default `branchwise`):

- `<prefix>-versions-<model>`: one point per version, its id the version id's first 128 bits
  as a UUID. Vector `dense` is the vector FAISS would hold (version_vectors.py); sparse vector
  `lexical` holds the BM25 term weights of the words FTS5 would index (lexical_sparse.py). The payload carries everything a result and its verification need
  (identity, text, signature, docstring, path class, blob and lines, first seen), `dirs` (the
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
the publishing to the next run. Readers never need the database.
"""

from __future__ import annotations

import atexit
import os
import uuid
import warnings
from contextlib import contextmanager
from typing import Any

import numpy as np

from branchwise import lexical_sparse
from branchwise.errors import BranchwiseError, UsageError
from branchwise.lexical import fts_columns
from branchwise.models import Identity, PathClass, Result
from branchwise.search import BranchInfo, HybridSearch, SearchRequest
from branchwise.store import Store
from branchwise.version_vectors import version_vectors

BATCH = 256
#: re-send every point's BM25 weights when the average document length moves this much
AVERAGE_DRIFT = 0.05
_NAMESPACE = uuid.UUID("6c1d2f0e-3b5a-4c57-9d1e-b2a9f0c4e7aa")
_clients: dict[str, Any] = {}


def _models():
    try:
        from qdrant_client import models
    except ImportError:
        raise UsageError("the qdrant backend needs qdrant-client: pip install 'branchwise[qdrant]'") from None
    return models


def client_for(backend) -> Any:
    """One client per server or local directory per process (local mode locks its directory)."""
    where = backend.qdrant_url or backend.qdrant_path
    if where not in _clients:
        _models()
        from qdrant_client import QdrantClient

        if not _clients:
            atexit.register(close_clients)  # before interpreter teardown, which local mode dislikes
        with talking(backend):
            if backend.qdrant_url:
                _clients[where] = QdrantClient(url=backend.qdrant_url, api_key=os.environ.get("QDRANT_API_KEY"),
                                               timeout=120)
            else:
                _clients[where] = QdrantClient(path=backend.qdrant_path)
    return _clients[where]


def close_clients(where: str | None = None) -> None:
    """Close the client of one server or folder (None: every client), e.g. before another
    process opens the same local folder, and at exit."""
    for key in [where] if where is not None else list(_clients):
        client = _clients.pop(key, None)
        if client is not None:
            client.close()


def drop_collections(url: str, prefix: str) -> None:
    """Delete every collection whose name starts with `prefix-` on a server (test clean-up)."""
    from qdrant_client import QdrantClient

    client = QdrantClient(url=url, api_key=os.environ.get("QDRANT_API_KEY"))
    for collection in client.get_collections().collections:
        if collection.name.startswith(prefix + "-"):
            client.delete_collection(collection.name)
    client.close()


@contextmanager
def talking(backend):
    """Turn the client's errors (server down, refused, local folder locked) into one line."""
    from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

    where = backend.qdrant_url or backend.qdrant_path
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*[Ll]ocal mode.*")
            yield
    except (ResponseHandlingException, UnexpectedResponse, ConnectionError, TimeoutError) as error:
        raise BranchwiseError(f"Qdrant at {where}: {_first_line(error)}") from None
    except RuntimeError as error:  # local mode: the folder is in use by another process
        if "already accessed" in str(error):
            raise BranchwiseError(f"Qdrant folder {where} is in use by another process") from None
        raise


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def versions_collection(prefix: str, model: str) -> str:
    return f"{prefix}-versions-" + "".join(c if c.isalnum() or c in "-_" else "_" for c in model)


def terms_collection(prefix: str, model: str) -> str:
    return versions_collection(prefix, model).replace("-versions-", "-terms-", 1)


def branches_collection(prefix: str) -> str:
    return f"{prefix}-branches"


def point_id(version_id: str) -> str:
    return str(uuid.UUID(hex=version_id[:32]))


def _record_id(*parts: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, "\x1f".join(parts)))


def path_prefixes(path: str) -> list[str]:
    """`src/shop/orders.py` -> src, src/, src/shop, src/shop/, src/shop/orders.py."""
    parts = path.split("/")
    out = []
    for i in range(1, len(parts)):
        head = "/".join(parts[:i])
        out += [head, head + "/"]
    return out + [path]


# writing ----------------------------------------------------------------------------------


class QdrantPublisher:
    """The indexer's vector store for Qdrant: publishes the database's outbox to the server."""

    def __init__(self, backend, store: Store, model: str, dim: int, path_weight: float):
        self.backend = backend
        self.store = store
        self.model = model
        self.dim = dim
        self.path_weight = path_weight
        self.client = client_for(backend)
        self.versions = versions_collection(backend.collection, model)
        self.terms = terms_collection(backend.collection, model)
        self.branches = branches_collection(backend.collection)
        self.local = backend.qdrant_url is None

    # VectorStore: the outbox already holds the changes, `save` publishes them
    def add(self, version_rows: list[int]) -> None:
        pass

    def remove(self, version_rows: list[int]) -> None:
        pass

    def save(self) -> None:
        with talking(self.backend):
            self._publish()

    def rebuild(self) -> None:
        with self.store.transaction():
            self._mark_everything()
        self.save()

    # publishing -------------------------------------------------------------------------

    def _publish(self) -> None:
        models = _models()
        created = self._ensure_collections(models)
        self._check_ownership(models)
        record = None if created else self._publisher_record()
        if record is None:  # a new collection, or one this database never wrote: send all
            with self.store.transaction():
                self._mark_everything()
                self.store.conn.execute("DELETE FROM published_terms")
            average = None
        else:
            average = record["average_length"]
        documents, counts = self._vocabulary()
        today = sum(total for _docs, total in counts.values()) / max(documents, 1)
        if average is not None and abs(today / average - 1) > AVERAGE_DRIFT:
            with self.store.transaction():  # BM25 weights drifted from FTS5's: send them again
                self._mark_everything()
            average = None
        average = today if average is None else average
        conn = self.store.conn
        while True:
            rows = conn.execute(
                "SELECT version_row, version_id, point FROM unpublished ORDER BY version_row LIMIT ?", (BATCH,)
            ).fetchall()
            if not rows:
                break
            self._publish_batch(models, rows, average)
            marks = ",".join("?" * len(rows))
            conn.execute(f"DELETE FROM unpublished WHERE version_row IN ({marks})", [r[0] for r in rows])
        self._publish_terms(models, counts)
        self._publish_branches(models)
        self.client.upsert(self.branches, [models.PointStruct(
            id=_record_id("publisher", self._store_uid()), vector={},
            payload={"kind": "publisher", "store": self._store_uid(), "model": self.model,
                     "documents": documents, "average_length": average,
                     "generation": self.store.generation()},
        )], wait=True)

    def _vocabulary(self) -> tuple[int, dict[str, tuple[int, int]]]:
        """FTS5's own statistics: documents, and per term (documents holding it, occurrences)."""
        conn = self.store.conn
        conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.lexical_terms USING fts5vocab(main, lexical, row)")
        documents = conn.execute("SELECT COUNT(*) FROM lexical").fetchone()[0]
        return documents, {term: (docs, total) for term, docs, total in
                           conn.execute("SELECT term, doc, cnt FROM temp.lexical_terms")}

    def _publish_terms(self, models, counts: dict[str, tuple[int, int]]) -> None:
        """Send the document counts that changed since the last publishing (and drop gone terms)."""
        conn = self.store.conn
        published = dict(conn.execute("SELECT term, documents FROM published_terms"))
        changed = {t: docs for t, (docs, _total) in counts.items() if published.get(t) != docs}
        gone = [t for t in published if t not in counts]
        items = list(changed.items())
        for start in range(0, len(items), 1000):
            part = items[start : start + 1000]
            self.client.upsert(self.terms, [models.PointStruct(
                id=lexical_sparse.term_id(term), vector={}, payload={"term": term, "documents": docs},
            ) for term, docs in part], wait=True)
        if gone:
            self.client.delete(self.terms, models.PointIdsList(points=sorted({lexical_sparse.term_id(t) for t in gone})),
                               wait=True)
        with self.store.transaction():
            conn.executemany("INSERT OR REPLACE INTO published_terms VALUES (?, ?)", changed.items())
            conn.executemany("DELETE FROM published_terms WHERE term = ?", [(t,) for t in gone])

    def _mark_everything(self) -> None:
        self.store.set_meta("publishing", "1")  # from now on every index run fills the outbox
        self.store.conn.execute(
            "INSERT INTO unpublished SELECT id, version_id, 1 FROM versions WHERE true "
            "ON CONFLICT (version_row) DO UPDATE SET point = 1"
        )

    def _ensure_collections(self, models) -> bool:
        """Create missing collections; True when the versions collection is new (or was lost)."""
        created = not self.client.collection_exists(self.versions)
        if created:
            self.client.create_collection(
                self.versions,
                vectors_config={"dense": models.VectorParams(size=self.dim, distance=models.Distance.DOT)},
                sparse_vectors_config={"lexical": models.SparseVectorParams()},
            )
            if not self.local:  # local mode has no payload indexes (it scans)
                for field in ("repository", "branches", "language", "symbol_type", "path_class", "dirs",
                              "symbol_words", "path", "qualified_name"):
                    self.client.create_payload_index(self.versions, field, models.PayloadSchemaType.KEYWORD)
        if created and self.client.collection_exists(self.terms):
            self.client.delete_collection(self.terms)
        if not self.client.collection_exists(self.terms):
            self.client.create_collection(self.terms, vectors_config={})
        if not self.client.collection_exists(self.branches):
            self.client.create_collection(self.branches, vectors_config={})
            if not self.local:
                for field in ("kind", "repository", "model"):
                    self.client.create_payload_index(self.branches, field, models.PayloadSchemaType.KEYWORD)
        return created

    def _store_uid(self) -> str:
        uid = self.store.meta("store_uid")
        if uid is None:
            uid = str(uuid.uuid4())
            self.store.set_meta("store_uid", uid)
        return uid

    def _publisher_record(self) -> dict | None:
        found = self.client.retrieve(self.branches, [_record_id("publisher", self._store_uid())], with_payload=True)
        if not found or found[0].payload.get("model") != self.model:
            return None
        return found[0].payload

    def _publish_batch(self, models, rows: list[tuple[int, str, int]], average: float) -> None:
        version_rows = [r[0] for r in rows]
        records = self._records(version_rows)
        visibility = self._visibility(version_rows)
        empty = {"branches": [], "live": {}, "gone": {}}
        full = [row for row, _vid, point in rows if point and row in records]
        ids, vectors = version_vectors(self.store, self.model, self.dim, self.path_weight, full)
        operations = []
        points = []
        for row, vector in zip(ids.tolist(), vectors):
            payload, columns = records[row]
            indices, values = lexical_sparse.document_vector(columns, average)
            points.append(models.PointStruct(
                id=point_id(payload["version_id"]),
                vector={"dense": vector.tolist(), "lexical": models.SparseVector(indices=indices, values=values)},
                payload={**payload, **visibility.get(row, empty)},
            ))
        if points:
            operations.append(models.UpsertOperation(upsert=models.PointsList(points=points)))
        for row, version_id, point in rows:
            if row in records and not point:
                operations.append(models.SetPayloadOperation(set_payload=models.SetPayload(
                    payload=visibility.get(row, empty), points=[point_id(version_id)])))
        gone = [point_id(version_id) for row, version_id, _point in rows if row not in records]
        if gone:
            operations.append(models.DeleteOperation(delete=models.PointIdsList(points=gone)))
        if operations:
            self.client.batch_update_points(self.versions, operations, wait=True)

    def _records(self, version_rows: list[int]) -> dict[int, tuple[dict, tuple[str, ...]]]:
        """Per version row: the payload fields that never change, and its lexical columns."""
        marks = ",".join("?" * len(version_rows))
        out = {}
        for (row, version_id, content_hash, text, signature, docstring, parent, path_class, class_reason,
             first_branch, first_commit, blob, start, end, created_at, path, language, symbol_type,
             qualified_name, repository) in self.store.conn.execute(
            "SELECT v.id, v.version_id, v.content_hash, v.text, v.signature, v.docstring, v.parent, "
            "v.path_class, v.class_reason, v.first_branch, v.first_commit, v.blob, v.start_line, "
            "v.end_line, v.created_at, i.path, i.language, i.symbol_type, i.qualified_name, r.name "
            "FROM versions v JOIN identities i ON i.id = v.identity_id "
            f"JOIN repositories r ON r.id = i.repo_id WHERE v.id IN ({marks})",
            version_rows,
        ):
            columns = fts_columns(qualified_name, signature, docstring, text, path)
            out[row] = ({
                "repository": repository, "path": path, "language": language, "symbol_type": symbol_type,
                "qualified_name": qualified_name, "version_id": version_id, "content_hash": content_hash,
                "text": text, "signature": signature, "docstring": docstring, "parent": parent,
                "path_class": path_class, "class_reason": class_reason, "first_branch": first_branch,
                "first_commit": first_commit, "blob": blob, "start_line": start, "end_line": end,
                "created_at": created_at, "dirs": path_prefixes(path),
                "symbol_words": sorted(set(lexical_sparse.tokens(columns[0]))),
            }, columns)
        return out

    def _visibility(self, version_rows: list[int]) -> dict[int, dict]:
        marks = ",".join("?" * len(version_rows))
        out: dict[int, dict] = {}
        for row, branch, blob, start, end in self.store.conn.execute(
            "SELECT l.version_row, b.name, l.blob, l.start_line, l.end_line FROM live l "
            f"JOIN branches b ON b.id = l.branch_id WHERE l.version_row IN ({marks})",
            version_rows,
        ):
            entry = out.setdefault(row, {"branches": [], "live": {}, "gone": {}})
            entry["branches"].append(branch)
            entry["live"][branch] = [blob, start, end]
        for row, branch, deleted_at, last_commit, blob, start, end, at in self.store.conn.execute(
            "SELECT t.version_row, b.name, t.commit_sha, t.last_commit, t.blob, t.start_line, t.end_line, t.at "
            f"FROM tombstones t JOIN branches b ON b.id = t.branch_id WHERE t.version_row IN ({marks}) "
            "ORDER BY t.at, t.id",
            version_rows,
        ):
            entry = out.setdefault(row, {"branches": [], "live": {}, "gone": {}})
            entry["gone"][branch] = [deleted_at, last_commit, blob, start, end, at]  # the latest wins
        for entry in out.values():
            entry["branches"].sort()
        return out

    def _branch_records(self, models, repositories: list[str]) -> list:
        if not repositories:
            return []
        return list(_scroll(self.client, self.branches, models.Filter(must=[
            models.FieldCondition(key="kind", match=models.MatchValue(value="branch")),
            models.FieldCondition(key="repository", match=models.MatchAny(any=repositories)),
        ]), with_payload=True))

    def _check_ownership(self, models) -> None:
        """Refuse to write a repository that another index directory publishes: two databases
        would overwrite each other's points and visibility."""
        repositories = [name for (name,) in self.store.conn.execute("SELECT name FROM repositories")]
        for record in self._branch_records(models, repositories):
            if record.payload.get("store") != self._store_uid():
                raise BranchwiseError(
                    f"repository {record.payload['repository']!r} in {self.backend.describe()} is published "
                    "from another index directory; one index job writes a repository (give a second one "
                    "its own qdrant_collection)")

    def _publish_branches(self, models) -> None:
        """Branch records of this database's repositories: upsert the indexed, drop the pruned."""
        wanted = {}
        for repo_id, repository in self.store.conn.execute("SELECT id, name FROM repositories"):
            for row in self.store.branches(repo_id):
                wanted[_record_id("branch", repository, row["name"])] = {
                    "kind": "branch", "repository": repository, "name": row["name"],
                    "commit": row["commit_sha"], "indexed_at": row["indexed_at"], "store": self._store_uid(),
                }
        repositories = [name for (name,) in self.store.conn.execute("SELECT name FROM repositories")]
        stale = [p.id for p in self._branch_records(models, repositories) if str(p.id) not in wanted]
        if wanted:
            self.client.upsert(self.branches, [models.PointStruct(id=i, vector={}, payload=p)
                                               for i, p in wanted.items()], wait=True)
        if stale:
            self.client.delete(self.branches, models.PointIdsList(points=stale), wait=True)


def _scroll(client, collection: str, query_filter, with_payload: bool = False, limit: int = 1000):
    offset = None
    while True:
        points, offset = client.scroll(collection, scroll_filter=query_filter, limit=limit, offset=offset,
                                       with_payload=with_payload, with_vectors=False)
        yield from points
        if offset is None:
            return


# reading ----------------------------------------------------------------------------------


class QdrantSearcher(HybridSearch):
    """Search over the server's payloads only: no local database is read."""

    def __init__(self, backend, repository: str, config, embedder):
        super().__init__()
        self.backend = backend
        self.repository = repository
        self.config = config
        self.embedder = embedder
        self.client = client_for(backend)
        self.models = _models()
        self.versions = versions_collection(backend.collection, embedder.name)
        self.terms = terms_collection(backend.collection, embedder.name)
        self.branches_name = branches_collection(backend.collection)
        self._payloads: dict[str, dict] = {}
        with talking(backend):
            if not self.client.collection_exists(self.versions):
                raise UsageError(f"no branchwise index for model {embedder.name} in {backend.describe()}: "
                                 "run `branchwise index` with the same backend first")
            self._branches = self._load_branches()
        if not self._branches:
            raise UsageError(f"repository {repository!r} is not in {backend.describe()}")

    def _load_branches(self) -> dict[str, BranchInfo]:
        m = self.models
        records = _scroll(self.client, self.branches_name, m.Filter(must=[
            m.FieldCondition(key="kind", match=m.MatchValue(value="branch")),
            m.FieldCondition(key="repository", match=m.MatchValue(value=self.repository)),
        ]), with_payload=True)
        infos = [BranchInfo(0, p.payload["name"], p.payload["commit"], p.payload["indexed_at"]) for p in records]
        return {info.name: info for info in sorted(infos, key=lambda b: b.name)}

    def branches(self) -> list[BranchInfo]:
        with talking(self.backend):
            self._branches = self._load_branches()
        return list(self._branches.values())

    def search(self, request: SearchRequest) -> list[Result]:
        self._payloads.clear()  # results are built from this search's own answers
        return super().search(request)  # (its `branch` lookup reloads the branch records)

    # the allowed set, as a filter the server applies inside its search ------------------

    def _scope(self, branch: BranchInfo, request: SearchRequest):
        m = self.models
        must = [m.FieldCondition(key="repository", match=m.MatchValue(value=self.repository))]
        if request.scope == "branch":
            must.append(m.FieldCondition(key="branches", match=m.MatchValue(value=branch.name)))
        for field, value in (("language", request.language), ("symbol_type", request.symbol_type),
                             ("path_class", request.path_class)):
            if value:
                must.append(m.FieldCondition(key=field, match=m.MatchValue(value=value)))
        if request.path_prefix:
            must.append(m.FieldCondition(key="dirs", match=m.MatchValue(value=request.path_prefix)))
        if request.allowed_prefixes is not None:
            must.append(m.FieldCondition(key="dirs", match=m.MatchAny(any=list(request.allowed_prefixes) or [""])))
        return m.Filter(must=must)

    def _query(self, query, using: str, query_filter, depth: int) -> list[tuple[str, float]]:
        params = self.models.SearchParams(hnsw_ef=self.config.qdrant_hnsw_ef, exact=self.config.qdrant_exact)
        with talking(self.backend):
            points = self.client.query_points(self.versions, query=query, using=using, query_filter=query_filter,
                                              search_params=params, limit=depth, with_payload=True).points
        for point in points:
            self._payloads[str(point.id)] = point.payload
        return [(str(point.id), float(point.score)) for point in points]

    def _version_ids(self, keys: list[str]) -> dict[str, str]:
        return {key: self._payloads[key]["version_id"] for key in keys}

    def _dense(self, vector: np.ndarray, scope, depth: int) -> list[tuple[str, float]]:
        return self._query(vector.astype(np.float32).tolist(), "dense", scope, depth)

    def _lexical(self, question: str, scope, depth: int) -> list[tuple[str, float]]:
        query = self._weighted(lexical_sparse.query_stems(question))
        return self._query(query, "lexical", scope, depth) if query else []

    def _names(self, question: str, scope, depth: int) -> list[tuple[str, float]]:
        """Symbols whose own name holds every word of the question, ranked as `_lexical` ranks."""
        m = self.models
        stems = lexical_sparse.query_stems(question, name_only=True)
        query = self._weighted(lexical_sparse.query_stems(question)) if stems else None
        if not query:
            return []
        named = m.Filter(must=[scope, *(m.FieldCondition(key="symbol_words", match=m.MatchValue(value=s))
                                        for s in stems)])
        return self._query(query, "lexical", named, depth)

    def _weighted(self, stems: list[str]):
        """The query's sparse vector: each known term weighted by its IDF, as FTS5's bm25 does."""
        if not stems:
            return None
        m = self.models
        ids = sorted({lexical_sparse.term_id(s) for s in stems})
        with talking(self.backend):
            counts = {int(p.id): p.payload["documents"] for p in self.client.retrieve(self.terms, ids, with_payload=True)}
            documents = sum(p.payload.get("documents", 0) for p in _scroll(self.client, self.branches_name, m.Filter(
                must=[m.FieldCondition(key="kind", match=m.MatchValue(value="publisher")),
                      m.FieldCondition(key="model", match=m.MatchValue(value=self.embedder.name))]),
                with_payload=True))
        known = [i for i in ids if i in counts]
        if not known:
            return None
        return m.SparseVector(indices=known, values=[lexical_sparse.idf(documents, counts[i]) for i in known])

    # results ------------------------------------------------------------------------------

    def _result(self, key: str, score: float, branch: BranchInfo) -> Result:
        p = self._payloads[key]
        result = Result(
            rank=0, score=score,
            identity=Identity(p["repository"], p["path"], p["language"], p["symbol_type"], p["qualified_name"]),
            branch=p["first_branch"], commit=p["first_commit"], start_line=p["start_line"], end_line=p["end_line"],
            indexed_at=p["created_at"], content_hash=p["content_hash"], text=p["text"], blob=p["blob"],
            version_id=p["version_id"], signature=p["signature"], docstring=p["docstring"], parent=p["parent"],
            path_class=PathClass(p["path_class"]), class_reason=p["class_reason"],
        )
        self._locate(result, p, branch)
        return result

    def _locate(self, result: Result, payload: dict, branch: BranchInfo) -> None:
        """Where this version was indexed: the queried branch, another branch, or history."""
        live, gone = payload.get("live") or {}, payload.get("gone") or {}
        if live:
            if branch.name in live:
                name = branch.name
            else:  # the most recently indexed branch that has it
                name = max(live, key=lambda b: self._branches[b].indexed_at if b in self._branches else "")
                result.history, result.history_note = True, f"on {name}"
            info = self._branches.get(name)
            result.branch = name
            if info is not None:
                result.commit, result.indexed_at = info.commit, info.indexed_at
            result.blob, result.start_line, result.end_line = live[name]
            return
        result.history = True
        if gone:
            name = branch.name if branch.name in gone else max(gone, key=lambda b: gone[b][5])
            deleted_at, last_commit, blob, start, end, at = gone[name]
            result.branch, result.commit, result.indexed_at = name, last_commit, at
            result.blob, result.start_line, result.end_line = blob, start, end
            result.history_note = f"removed on {name} at {deleted_at[:7]}"
        else:
            result.history_note = f"first seen on {result.branch}"

    def parent_signature(self, result: Result) -> str | None:
        if not result.parent:
            return None
        m = self.models
        with talking(self.backend):
            candidates = list(_scroll(self.client, self.versions, m.Filter(must=[
                m.FieldCondition(key="repository", match=m.MatchValue(value=self.repository)),
                m.FieldCondition(key="path", match=m.MatchValue(value=result.path)),
                m.FieldCondition(key="qualified_name", match=m.MatchValue(value=result.parent)),
            ]), with_payload=True, limit=100))
        if not candidates:
            return None
        return max(candidates, key=lambda p: p.payload["created_at"]).payload["signature"]

    def live_set(self, branch: str) -> list[dict]:
        """A branch's live set from the payloads (what `inspect` prints)."""
        info = self.branch(branch)
        m = self.models
        rows = []
        with talking(self.backend):
            for point in _scroll(self.client, self.versions, m.Filter(must=[
                m.FieldCondition(key="repository", match=m.MatchValue(value=self.repository)),
                m.FieldCondition(key="branches", match=m.MatchValue(value=branch)),
            ]), with_payload=True):
                p = point.payload
                _blob, start, end = p["live"][branch]
                rows.append({"path": p["path"], "qualified_name": p["qualified_name"],
                             "symbol_type": p["symbol_type"], "language": p["language"],
                             "content_hash": p["content_hash"], "start_line": start, "end_line": end,
                             "path_class": p["path_class"], "commit": info.commit})
        rows.sort(key=lambda r: (r["path"], r["start_line"], r["qualified_name"]))
        return rows
