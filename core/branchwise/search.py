"""Branch-filtered hybrid search: dense and lexical rankings over one live set, fused.

The allowed set (the branch's live set, or every version of the repository for
`scope="all"`, narrowed by the filters) is fixed *before* ranking: FAISS gets it as an ID
selector and FTS5 as a row filter, so another branch's code can neither appear nor push a
visible result out of the top k. Generated, backup, fixture and vendored code never takes a
usable result's place: it is listed after the usable results, marked for exclusion.

`HybridSearch` is that pipeline, shared by every backend; `Searcher` runs it over the local
SQLite database and FAISS, `qdrant.QdrantSearcher` over a Qdrant server's payloads.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any

import numpy as np

from branchwise.config import Config
from branchwise.embedding import Embedder
from branchwise.errors import UsageError
from branchwise.lexical import COLUMN_WEIGHTS, fts_query, name_query
from branchwise.models import EXCLUDED_CLASSES, Identity, PathClass, Result
from branchwise.ranking import RankingSettings, fuse, prior_factor, role_of, wanted_roles
from branchwise.store import Store
from branchwise.vectors import VectorIndex

MODES = ("fused", "dense", "lexical")


@dataclass
class SearchRequest:
    query: str
    branch: str
    top_k: int = 10
    scope: str = "branch"  # "branch" or "all"
    language: str | None = None
    path_prefix: str | None = None
    symbol_type: str | None = None
    path_class: str | None = None
    mode: str = "fused"
    #: what the access file lets the user read (None: everything); narrows the allowed set
    allowed_prefixes: tuple[str, ...] | None = None


@dataclass
class BranchInfo:
    id: int
    name: str
    commit: str
    indexed_at: str


class HybridSearch:
    """Dense, lexical and name rankings over one allowed set, fused and turned into results.

    A backend supplies the branch records, the allowed set (`_scope`, fixed before any
    ranking), the three rankings over it and the result of a ranked key.
    """

    repository: str
    config: Config
    embedder: Embedder

    def __init__(self) -> None:
        self._query_vectors: dict[str, np.ndarray] = {}

    def search(self, request: SearchRequest) -> list[Result]:
        if request.mode not in MODES:
            raise UsageError(f"unknown ranking mode {request.mode!r} (choose from {', '.join(MODES)})")
        if request.scope not in ("branch", "all"):
            raise UsageError(f"unknown scope {request.scope!r} (choose branch or all)")
        branch = self.branch(request.branch)
        scope = self._scope(branch, request)
        depth = max(50, request.top_k * 5)
        rankings = {}
        if request.mode in ("fused", "dense"):
            rankings["dense"] = self._dense(self._query_vector(request.query), scope, depth)
        if request.mode in ("fused", "lexical"):
            rankings["lexical"] = self._lexical(request.query, scope, depth)
        if request.mode == "fused":
            rankings["name"] = self._names(request.query, scope, depth)
        rankings = {channel: self._settle_ties(ranking) for channel, ranking in rankings.items()}
        return self._assemble(self._ranked(request.query, rankings, branch), branch, request)

    def _ranked(self, question: str, rankings: dict[str, list[tuple[Any, float]]],
                branch: BranchInfo) -> list[Result]:
        """The fused candidates as results, each scored with the role prior and carrying its
        per-channel ranks, best first (ties keep the fusion's order)."""
        settings = self.ranking_settings
        wanted = wanted_roles(question)
        results = []
        for item in fuse(rankings, settings):
            result = self._result(item.key, item.score, branch)
            role = role_of(result.path, result.path_class.value, result.identity.language,
                           result.identity.qualified_name)
            result.score = item.score * prior_factor(role, wanted, settings)
            result.dense_rank = item.ranks.get("dense")
            result.lexical_rank = item.ranks.get("lexical")
            result.name_rank = item.ranks.get("name")
            results.append(result)
        results.sort(key=lambda r: r.score, reverse=True)
        return results

    @property
    def ranking_settings(self) -> RankingSettings:
        return self.config.ranking_settings()

    def _query_vector(self, query: str) -> np.ndarray:
        """The query's embedding, remembered: the review app asks again on every branch switch."""
        cache = self._query_vectors
        if query not in cache:
            if len(cache) >= 256:
                cache.pop(next(iter(cache)))
            cache[query] = self.embedder.embed([query])[0]
        return cache[query]

    def _settle_ties(self, ranking: list[tuple[Any, float]]) -> list[tuple[Any, float]]:
        """Equal scores (a function copied to another file, say) in version-id order, so every
        backend ranks alike; scores equal to 5 decimals count as equal (engines round apart)."""
        ids = self._version_ids([key for key, _score in ranking])
        return sorted(ranking, key=lambda item: (-round(item[1], 5), ids[item[0]]))

    # what a backend supplies ----------------------------------------------------------------

    def _version_ids(self, keys: list[Any]) -> dict[Any, str]:
        """The version id of each ranked key."""
        raise NotImplementedError

    def branches(self) -> list[BranchInfo]:
        raise NotImplementedError

    def branch(self, name: str) -> BranchInfo:
        for info in self.branches():
            if info.name == name:
                return info
        indexed = ", ".join(b.name for b in self.branches()) or "none"
        raise UsageError(f"branch {name!r} of {self.repository} is not indexed (indexed: {indexed})")

    def _scope(self, branch: BranchInfo, request: SearchRequest) -> Any:
        raise NotImplementedError

    def _dense(self, vector: np.ndarray, scope: Any, depth: int) -> list[tuple[Any, float]]:
        raise NotImplementedError

    def _lexical(self, question: str, scope: Any, depth: int) -> list[tuple[Any, float]]:
        raise NotImplementedError

    def _names(self, question: str, scope: Any, depth: int) -> list[tuple[Any, float]]:
        raise NotImplementedError

    def _result(self, key: Any, score: float, branch: BranchInfo) -> Result:
        raise NotImplementedError

    def parent_signature(self, result: Result) -> str | None:
        """The signature line of a result's enclosing symbol (for bundle headers)."""
        raise NotImplementedError

    def live_set(self, branch: str) -> list[dict]:
        """A branch's live set, sorted by path and line (what `inspect` prints)."""
        raise NotImplementedError

    # turning ranked keys into results -------------------------------------------------------

    def _assemble(self, ranked: list[Result], branch: BranchInfo, request: SearchRequest) -> list[Result]:
        usable: list[Result] = []
        excluded: list[Result] = []
        seen: set[Identity] = set()
        history_slots = max(1, request.top_k // 2)
        for result in ranked:
            if len(usable) >= request.top_k:
                break
            if result.identity in seen:  # --scope all: one version per identity, the best
                continue
            if result.history:
                if history_slots == 0:  # history informs, it never crowds out current code
                    continue
                history_slots -= 1
            seen.add(result.identity)
            if result.path_class in EXCLUDED_CLASSES:
                if len(excluded) < request.top_k:
                    excluded.append(result)
            else:
                usable.append(result)
        ordered = usable + excluded
        for rank, result in enumerate(ordered, 1):
            result.rank = rank
        return ordered


class Searcher(HybridSearch):
    """The local backend: SQLite (records, live sets, FTS5) and FAISS; the model loads once."""



    def __init__(self, store: Store, repository: str, config: Config, embedder: Embedder):
        super().__init__()
        self.store = store
        self.conn = store.conn
        self.repository = repository
        self.config = config
        self.embedder = embedder
        self.repo_id = store.repo_id(repository)
        if self.repo_id is None:
            raise UsageError(f"repository {repository!r} is not in the index at {store.index_dir}")
        self._vectors: VectorIndex | None = None

    @property
    def vectors(self) -> VectorIndex:
        if self._vectors is None:
            self._vectors = VectorIndex(
                self.store, self.embedder.name, self.embedder.dim, self.config.path_weight
            )
        return self._vectors

    def branches(self) -> list[BranchInfo]:
        return [BranchInfo(r["id"], r["name"], r["commit_sha"], r["indexed_at"])
                for r in self.store.branches(self.repo_id)]

    # the search ---------------------------------------------------------------------------

    def _scope(self, branch: BranchInfo, request: SearchRequest) -> np.ndarray:
        """Version rows visible to this request, also left in temp.allowed for FTS5."""
        if request.scope == "branch":
            base = (
                "SELECT l.version_row FROM live l JOIN identities i ON i.id = l.identity_id "
                "JOIN versions v ON v.id = l.version_row WHERE l.branch_id = ?"
            )
            params: list = [branch.id]
        else:
            base = (
                "SELECT v.id FROM versions v JOIN identities i ON i.id = v.identity_id "
                "WHERE i.repo_id = ?"
            )
            params = [self.repo_id]
        for column, value in (
            ("i.language", request.language),
            ("i.symbol_type", request.symbol_type),
            ("v.path_class", request.path_class),
        ):
            if value:
                base += f" AND {column} = ?"
                params.append(value)
        if request.path_prefix:
            base += " AND substr(i.path, 1, ?) = ?"
            params += [len(request.path_prefix), request.path_prefix]
        if request.allowed_prefixes is not None:
            clauses = ["substr(i.path, 1, ?) = ?"] * len(request.allowed_prefixes)
            base += f" AND ({' OR '.join(clauses) or '0'})"
            params += [part for prefix in request.allowed_prefixes for part in (len(prefix), prefix)]
        self.conn.execute("CREATE TEMP TABLE IF NOT EXISTS allowed (id INTEGER PRIMARY KEY)")
        self.conn.execute("DELETE FROM temp.allowed")
        self.conn.execute(f"INSERT OR IGNORE INTO temp.allowed {base}", params)
        rows = self.conn.execute("SELECT id FROM temp.allowed").fetchall()
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

    def _version_ids(self, keys: list[int]) -> dict[int, str]:
        marks = ",".join("?" * len(keys))
        return dict(self.conn.execute(f"SELECT id, version_id FROM versions WHERE id IN ({marks})", keys))

    def _dense(self, vector: np.ndarray, allowed: np.ndarray, depth: int) -> list[tuple[int, float]]:
        return self.vectors.search(vector, allowed, depth)

    def _lexical(self, question: str, allowed: np.ndarray, depth: int) -> list[tuple[int, float]]:
        return self._bm25(fts_query(question), depth)

    def _names(self, question: str, allowed: np.ndarray, depth: int) -> list[tuple[int, float]]:
        """Symbols whose own name holds every word of the question, ranked as `_lexical` ranks."""
        names = name_query(question)
        return self._bm25(fts_query(question), depth, within=names) if names else []

    def _bm25(self, match: str | None, depth: int, within: str | None = None) -> list[tuple[int, float]]:
        """BM25 over names, signatures, docstrings, code words and paths, within the allowed set
        (and among the rows matching `within`)."""
        if match is None:
            return []
        weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
        narrower = " AND rowid IN (SELECT rowid FROM lexical WHERE lexical MATCH ?)" if within else ""
        rows = self.conn.execute(
            f"SELECT rowid, bm25(lexical, {weights}) AS rank FROM lexical "
            f"WHERE lexical MATCH ? AND rowid IN (SELECT id FROM temp.allowed){narrower} ORDER BY rank LIMIT ?",
            (match, *([within] if within else []), depth),
        ).fetchall()
        return [(row_id, -rank) for row_id, rank in rows]

    # turning rows into results ------------------------------------------------------------

    def _result(self, version_row: int, score: float, branch: BranchInfo) -> Result:
        (version_id, content_hash, text, signature, docstring, parent, path_class, class_reason,
         path, language, symbol_type, qualified_name, identity_id, first_branch, first_commit,
         blob, start, end, created_at) = self.conn.execute(
            "SELECT v.version_id, v.content_hash, v.text, v.signature, v.docstring, v.parent, v.path_class, "
            "v.class_reason, i.path, i.language, i.symbol_type, i.qualified_name, i.id, v.first_branch, "
            "v.first_commit, v.blob, v.start_line, v.end_line, v.created_at "
            "FROM versions v JOIN identities i ON i.id = v.identity_id WHERE v.id = ?",
            (version_row,),
        ).fetchone()
        result = Result(
            rank=0, score=score,
            identity=Identity(self.repository, path, language, symbol_type, qualified_name),
            branch=first_branch, commit=first_commit, start_line=start, end_line=end,
            indexed_at=created_at, content_hash=content_hash, text=text, blob=blob,
            version_id=version_id, signature=signature, docstring=docstring, parent=parent,
            path_class=PathClass(path_class), class_reason=class_reason,
        )
        self._locate(result, version_row, identity_id, branch)
        return result

    def _locate(self, result: Result, version_row: int, identity_id: int, branch: BranchInfo) -> None:
        """Where this version was indexed: the queried branch, another branch, or history."""
        rows = self.conn.execute(
            "SELECT b.id, b.name, b.commit_sha, b.indexed_at, l.blob, l.start_line, l.end_line "
            "FROM live l JOIN branches b ON b.id = l.branch_id "
            "WHERE l.version_row = ? ORDER BY b.id = ? DESC, b.indexed_at DESC",
            (version_row, branch.id),
        ).fetchall()
        if rows:
            _branch_id, name, commit, indexed_at, blob, start, end = rows[0]
            return place_live(result, branch.name, name, commit, indexed_at, (blob, start, end))
        place_history(result, self.conn.execute(
            "SELECT b.name, t.commit_sha, t.last_commit, t.blob, t.start_line, t.end_line, t.at "
            "FROM tombstones t JOIN branches b ON b.id = t.branch_id WHERE t.version_row = ? "
            "ORDER BY t.branch_id = ? DESC, t.at DESC LIMIT 1",
            (version_row, branch.id),
        ).fetchone())

    # context for bundles --------------------------------------------------------------------

    def parent_signature(self, result: Result) -> str | None:
        """The signature line of a result's enclosing symbol, from the same branch's live set."""
        if not result.parent:
            return None
        row = self.conn.execute(
            "SELECT v.signature FROM identities i JOIN versions v ON v.identity_id = i.id "
            "WHERE i.repo_id = ? AND i.path = ? AND i.qualified_name = ? ORDER BY v.id DESC LIMIT 1",
            (self.repo_id, result.path, result.parent),
        ).fetchone()
        return row[0] if row else None


    def live_set(self, branch: str) -> list[dict]:
        info = self.branch(branch)
        rows = self.conn.execute(
            "SELECT i.path, i.qualified_name, i.symbol_type, i.language, v.content_hash, "
            "l.start_line, l.end_line, v.path_class FROM live l "
            "JOIN identities i ON i.id = l.identity_id JOIN versions v ON v.id = l.version_row "
            "WHERE l.branch_id = ? ORDER BY i.path, l.start_line, i.qualified_name",
            (info.id,),
        ).fetchall()
        keys = ("path", "qualified_name", "symbol_type", "language", "content_hash",
                "start_line", "end_line", "path_class")
        return [dict(zip(keys, r), commit=info.commit) for r in rows]


def place_live(result: Result, queried: str, name: str, commit: str, indexed_at: str, where: tuple) -> None:
    """The version is live on branch `name` (blob, start, end): history unless it is the queried one."""
    result.branch, result.commit, result.indexed_at = name, commit, indexed_at
    result.blob, result.start_line, result.end_line = where
    if name != queried:
        result.history, result.history_note = True, f"on {name}"


def place_history(result: Result, tombstone: tuple | None) -> None:
    """The version is live nowhere: where it was last seen (branch, deleted at, last commit,
    blob, start, end, when), or only where it was first indexed."""
    result.history = True
    if tombstone is None:
        result.history_note = f"first seen on {result.branch}"
        return
    name, deleted_at, last_commit, blob, start, end, at = tombstone
    result.branch, result.commit, result.indexed_at = name, last_commit, at
    result.blob, result.start_line, result.end_line = blob, start, end
    result.history_note = f"removed on {name} at {deleted_at[:7]}"
