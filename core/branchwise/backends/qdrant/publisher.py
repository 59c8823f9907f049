"""The index job's side of the Qdrant backend: publish the database's outbox to the server.

Every index run records, in its own transaction, which versions it added, removed, or moved
in or out of a live set (the `unpublished` table). `save` sends them: new points (vector,
sparse vector, payload), visibility payloads rewritten in place, deletions; then the term
counts and branch records. A row leaves the outbox only once Qdrant acknowledged it.
"""

from __future__ import annotations

import uuid

from branchwise.backends.qdrant.connection import (STATIC_VECTOR, branches_collection, client_for, path_prefixes,
                                                   point_id, qdrant_models, record_id, scroll_all, talking,
                                                   terms_collection, vector_names, versions_collection)
from branchwise.backends.version_vectors import version_vectors
from branchwise.errors import BranchwiseError
from branchwise.lexical import fts_columns
from branchwise.search import lexical_sparse
from branchwise.store import Store

BATCH = 256
#: re-send every point's BM25 weights when the average document length moves this much
AVERAGE_DRIFT = 0.05


class QdrantPublisher:
    """The indexer's vector store for Qdrant: publishes the database's outbox to the server."""

    def __init__(self, backend, store: Store, model: str, dim: int, path_weight: float,
                 static: tuple[str, int] | None = None):
        """`static`: the static stage's model and dimension; its vectors ride on the same points
        (named vector `static`), so one outbox publishes both stages."""
        self.backend = backend
        self.store = store
        self.model = model
        self.dim = dim
        self.static = static
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
            self.store.mark_everything_unpublished()
        self.save()

    # publishing -------------------------------------------------------------------------

    def _publish(self) -> None:
        models = qdrant_models()
        created = self._ensure_collections(models)
        self._check_ownership(models)
        record = None if created else self._publisher_record()
        if record is None:  # a new collection, or one this database never wrote: send all
            with self.store.transaction():
                self.store.mark_everything_unpublished()
                self.store.forget_published_terms()
            average = None
        else:
            average = record["average_length"]
        documents, counts = self.store.vocabulary()
        today = sum(total for _docs, total in counts.values()) / max(documents, 1)
        if average is not None and abs(today / average - 1) > AVERAGE_DRIFT:
            with self.store.transaction():  # BM25 weights drifted from FTS5's: send them again
                self.store.mark_everything_unpublished()
            average = None
        average = today if average is None else average
        while rows := self.store.unpublished(BATCH):
            self._publish_batch(models, rows, average)
            self.store.published([r[0] for r in rows])
        self._publish_terms(models, counts)
        self._publish_branches(models)
        self.client.upsert(self.branches, [models.PointStruct(
            id=record_id("publisher", self._store_uid()), vector={},
            payload={"kind": "publisher", "store": self._store_uid(), "model": self.model,
                     "static_model": self.static[0] if self.static else None,
                     "documents": documents, "average_length": average},
        )], wait=True)

    def _publish_terms(self, models, counts: dict[str, tuple[int, int]]) -> None:
        """Send the document counts that changed since the last publishing (and drop gone terms)."""
        published = self.store.published_terms()
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
            self.store.set_published_terms(changed, gone)

    def _ensure_collections(self, models) -> bool:
        """Create missing collections; True when the versions collection is new (or was lost).
        A collection made without the static stage's vector is made again when one is wanted."""
        if self.static and self.client.collection_exists(self.versions) \
                and STATIC_VECTOR not in vector_names(self.client, self.versions):
            self.client.delete_collection(self.versions)
        created = not self.client.collection_exists(self.versions)
        if created:
            vectors = {"dense": models.VectorParams(size=self.dim, distance=models.Distance.DOT)}
            if self.static:
                vectors[STATIC_VECTOR] = models.VectorParams(size=self.static[1], distance=models.Distance.DOT)
            self.client.create_collection(
                self.versions, vectors_config=vectors, sparse_vectors_config={"lexical": models.SparseVectorParams()},
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
        found = self.client.retrieve(self.branches, [record_id("publisher", self._store_uid())], with_payload=True)
        if not found or found[0].payload.get("model") != self.model:
            return None
        return found[0].payload

    def _publish_batch(self, models, rows: list[tuple[int, str, int]], average: float) -> None:
        version_rows = [r[0] for r in rows]
        records = self._records(version_rows)
        visibility = self._visibility(version_rows)
        empty: dict = {"branches": [], "live": {}, "gone": {}}
        full = [row for row, _vid, point in rows if point and row in records]
        named = self._named_vectors(full)
        operations = []
        points = []
        for row in full:
            if row not in named:  # no stage has embedded it yet: published once one has
                continue
            payload, columns = records[row]
            indices, values = lexical_sparse.document_vector(columns, average)
            points.append(models.PointStruct(
                id=point_id(payload["version_id"]),
                vector={**named[row], "lexical": models.SparseVector(indices=indices, values=values)},
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

    def _named_vectors(self, version_rows: list[int]) -> dict[int, dict[str, list[float]]]:
        """Per version row, the vectors its stages have made: `dense` (the transformer's) and,
        with a static stage, `static`."""
        stages = [("dense", self.model, self.dim)] + ([(STATIC_VECTOR, *self.static)] if self.static else [])
        named: dict[int, dict[str, list[float]]] = {}
        for name, model, dim in stages:
            ids, vectors = version_vectors(self.store, model, dim, self.path_weight, version_rows)
            for row, vector in zip(ids.tolist(), vectors):
                named.setdefault(row, {})[name] = vector.tolist()
        return named

    def _records(self, version_rows: list[int]) -> dict[int, tuple[dict, tuple[str, ...]]]:
        """Per version row: the payload fields that never change, and its lexical columns."""
        out = {}
        indexed = self.store.lexical_documents(version_rows)  # the very documents FTS5 ranks locally
        for row, v in self.store.version_records(version_rows).items():
            columns = indexed.get(row) or fts_columns(v.qualified_name, v.signature, v.docstring, v.text, v.path)
            out[row] = ({
                "repository": v.repository, "path": v.path, "language": v.language, "symbol_type": v.symbol_type,
                "qualified_name": v.qualified_name, "version_id": v.version_id, "content_hash": v.content_hash,
                "text": v.text, "signature": v.signature, "docstring": v.docstring, "parent": v.parent,
                "path_class": v.path_class, "class_reason": v.class_reason, "first_branch": v.first_branch,
                "first_commit": v.first_commit, "blob": v.blob, "start_line": v.start_line, "end_line": v.end_line,
                "created_at": v.created_at, "imports": v.imports, "dirs": path_prefixes(v.path),
                "symbol_words": sorted(set(lexical_sparse.tokens(columns[0]))),
            }, columns)
        return out

    def _visibility(self, version_rows: list[int]) -> dict[int, dict]:
        out: dict[int, dict] = {}
        for row, branch, blob, start, end in self.store.live_entries(version_rows):
            entry = out.setdefault(row, {"branches": [], "live": {}, "gone": {}})
            entry["branches"].append(branch)
            entry["live"][branch] = [blob, start, end]
        for row, branch, deleted_at, last_commit, blob, start, end, at in self.store.tombstone_entries(version_rows):
            entry = out.setdefault(row, {"branches": [], "live": {}, "gone": {}})
            entry["gone"][branch] = [deleted_at, last_commit, blob, start, end, at]  # the latest wins
        for entry in out.values():
            entry["branches"].sort()
        return out

    def _branch_records(self, models, repositories: list[str]) -> list:
        if not repositories:
            return []
        return list(scroll_all(self.client, self.branches, models.Filter(must=[
            models.FieldCondition(key="kind", match=models.MatchValue(value="branch")),
            models.FieldCondition(key="repository", match=models.MatchAny(any=repositories)),
        ]), with_payload=True))

    def _check_ownership(self, models) -> None:
        """Refuse to write a repository that another index directory publishes: two databases
        would overwrite each other's points and visibility."""
        repositories = [name for _id, name in self.store.repository_ids()]
        for record in self._branch_records(models, repositories):
            if record.payload.get("store") != self._store_uid():
                raise BranchwiseError(
                    f"repository {record.payload['repository']!r} in {self.backend.describe()} is published "
                    "from another index directory; one index job writes a repository (give a second one "
                    "its own qdrant_collection)")

    def _publish_branches(self, models) -> None:
        """Branch records of this database's repositories: upsert the indexed, drop the pruned."""
        wanted = {}
        for repo_id, repository in self.store.repository_ids():
            for row in self.store.branches(repo_id):
                wanted[record_id("branch", repository, row.name)] = {
                    "kind": "branch", "repository": repository, "name": row.name,
                    "commit": row.commit_sha, "indexed_at": row.indexed_at, "store": self._store_uid(),
                }
        repositories = [name for _id, name in self.store.repository_ids()]
        stale = [p.id for p in self._branch_records(models, repositories) if str(p.id) not in wanted]
        if wanted:
            self.client.upsert(self.branches, [models.PointStruct(id=i, vector={}, payload=p)
                                               for i, p in wanted.items()], wait=True)
        if stale:
            self.client.delete(self.branches, models.PointIdsList(points=stale), wait=True)
