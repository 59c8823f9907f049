"""The teammate's side of the Qdrant backend: search over the server's payloads only.

The same pipeline as the local backend (search.HybridSearch): the allowed set is a Qdrant
filter applied inside each search, the dense, lexical and name rankings come from the
server, and every result is built from its point's payload, so no local database is read.
"""

from __future__ import annotations

import numpy as np

from branchwise.backends.qdrant.connection import (STATIC_VECTOR, branches_collection, client_for, qdrant_models,
                                                   scroll_all, talking, terms_collection, vector_names,
                                                   versions_collection)
from branchwise.errors import UsageError
from branchwise.models import Identity, PathClass, Result
from branchwise.search import lexical_sparse
from branchwise.search.coverage import Coverage
from branchwise.search.hybrid import BranchInfo, HybridSearch, SearchRequest, place_history, place_live


class QdrantSearcher(HybridSearch):
    """Search over the server's payloads only: no local database is read."""

    def __init__(self, backend, repository: str, config, embedder, static=None):
        super().__init__()
        self.backend = backend
        self.repository = repository
        self.config = config
        self.embedder = embedder
        self.static = None  # set below when the collection carries this static model's vectors
        self.client = client_for(backend)
        self.models = qdrant_models()
        self.versions = versions_collection(backend.collection, embedder.name)
        self.terms = terms_collection(backend.collection, embedder.name)
        self.branches_name = branches_collection(backend.collection)
        self._payloads: dict[str, dict] = {}
        self._documents: int | None = None  # versions behind the lexical statistics
        with talking(backend):
            if not self.client.collection_exists(self.versions):
                raise UsageError(f"no branchwise index for model {embedder.name} in {backend.describe()}: "
                                 "run `branchwise index` with the same backend first")
            self._branches = self._load_branches()
            if static is not None and STATIC_VECTOR in vector_names(self.client, self.versions) \
                    and static.name in self._published_static_models():
                self.static = static
        if not self._branches:
            raise UsageError(f"repository {repository!r} is not in {backend.describe()}")
        self._counts: dict[tuple[str, str, str], Coverage] = {}

    def _published_static_models(self) -> set[str]:
        """The static models the publishers of this collection's vectors embedded with."""
        m = self.models
        return {p.payload.get("static_model") for p in scroll_all(self.client, self.branches_name, m.Filter(must=[
            m.FieldCondition(key="kind", match=m.MatchValue(value="publisher")),
            m.FieldCondition(key="model", match=m.MatchValue(value=self.embedder.name))]), with_payload=True)}

    def _load_branches(self) -> dict[str, BranchInfo]:
        m = self.models
        records = scroll_all(self.client, self.branches_name, m.Filter(must=[
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
        self._documents = None
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

    def _static(self, vector: np.ndarray, scope, depth: int) -> list[tuple[str, float]]:
        return self._query(vector.astype(np.float32).tolist(), STATIC_VECTOR, scope, depth)

    # coverage: how many of the branch's points carry each stage's vector ------------------

    def coverage(self, branch: BranchInfo) -> Coverage | None:
        """Counted only with a static stage: then every published version has a point from the
        first stage on; without one a version is published once embedded, so the server holds
        nothing to count the rest by (unknown, as before)."""
        return None if self.static is None else self._coverage_of(branch, "dense")

    def static_coverage(self, branch: BranchInfo) -> Coverage | None:
        return None if self.static is None else self._coverage_of(branch, STATIC_VECTOR)

    def _coverage_of(self, branch: BranchInfo, vector: str) -> Coverage:
        """Points of the branch's live set with `vector`, of all its points (counted once per
        indexed commit: the writer publishes a commit's vectors before its branch record)."""
        key = (branch.name, branch.commit, vector)
        if key not in self._counts:
            m = self.models
            live = [m.FieldCondition(key="repository", match=m.MatchValue(value=self.repository)),
                    m.FieldCondition(key="branches", match=m.MatchValue(value=branch.name))]
            with talking(self.backend):
                total = self.client.count(self.versions, count_filter=m.Filter(must=live), exact=True).count
                embedded = self.client.count(self.versions, count_filter=m.Filter(
                    must=[*live, m.HasVectorCondition(has_vector=vector)]), exact=True).count
            coverage = Coverage(embedded, total)
            if not coverage.complete:
                return coverage  # the writer may be embedding: count again next time
            self._counts[key] = coverage
        return self._counts[key]

    def _without_vector(self, keys: set, channel: str = "dense") -> set:
        vector = STATIC_VECTOR if channel == "static" else "dense"
        if not keys:
            return set()
        with talking(self.backend):
            points = self.client.retrieve(self.versions, sorted(keys), with_payload=False, with_vectors=[vector])
        return {str(p.id) for p in points if not (p.vector or {}).get(vector)}

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
            if self._documents is None:  # once per search, for the lexical and the name channel
                self._documents = sum(p.payload.get("documents", 0) for p in scroll_all(
                    self.client, self.branches_name, m.Filter(must=[
                        m.FieldCondition(key="kind", match=m.MatchValue(value="publisher")),
                        m.FieldCondition(key="model", match=m.MatchValue(value=self.embedder.name))]),
                    with_payload=True))
        documents = self._documents
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
            imports=tuple(p.get("imports", "").splitlines()),
            path_class=PathClass(p["path_class"]), class_reason=p["class_reason"],
        )
        self._locate(result, p, branch)
        return result

    def _locate(self, result: Result, payload: dict, branch: BranchInfo) -> None:
        """Where this version was indexed: the queried branch, another branch, or history."""
        live, gone = payload.get("live") or {}, payload.get("gone") or {}
        if live:
            # the queried branch if it has it, else the most recently indexed one that does
            name = branch.name if branch.name in live else max(
                live, key=lambda b: self._branches[b].indexed_at if b in self._branches else "")
            info = self._branches.get(name)
            commit, indexed_at = (info.commit, info.indexed_at) if info else (result.commit, result.indexed_at)
            return place_live(result, branch.name, name, commit, indexed_at, tuple(live[name]))
        if not gone:
            return place_history(result, None)
        name = branch.name if branch.name in gone else max(gone, key=lambda b: gone[b][5])
        place_history(result, (name, *gone[name]))

    def parent_signature(self, result: Result) -> str | None:
        payload = self._parent(result)
        return payload["signature"] if payload else None

    def parent_text(self, result: Result) -> str | None:
        payload = self._parent(result)
        return payload["text"] if payload else None

    def _parent(self, result: Result) -> dict | None:
        if not result.parent:
            return None
        m = self.models
        with talking(self.backend):
            candidates = list(scroll_all(self.client, self.versions, m.Filter(must=[
                m.FieldCondition(key="repository", match=m.MatchValue(value=self.repository)),
                m.FieldCondition(key="path", match=m.MatchValue(value=result.path)),
                m.FieldCondition(key="qualified_name", match=m.MatchValue(value=result.parent)),
            ]), with_payload=True, limit=100))
        if not candidates:
            return None
        return max(candidates, key=lambda p: p.payload["created_at"]).payload

    def live_set(self, branch: str) -> list[dict]:
        """A branch's live set from the payloads (what `inspect` prints)."""
        info = self.branch(branch)
        m = self.models
        rows = []
        with talking(self.backend):
            for point in scroll_all(self.client, self.versions, m.Filter(must=[
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
