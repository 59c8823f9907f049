"""The local backend's searcher: SQLite (records, live sets, FTS5) and the FAISS file.

It supplies `HybridSearch` with the allowed set as version rows, the dense ranking from
FAISS (the allowed set as an ID selector) and the lexical and name rankings from FTS5 (the
allowed set as a row filter).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from branchwise.backends.local.vectors import VectorIndex
from branchwise.config import Config
from branchwise.embedding import Embedder
from branchwise.errors import UsageError
from branchwise.lexical import COLUMN_WEIGHTS, fts_query, name_query
from branchwise.models import Identity, PathClass, Result
from branchwise.search.coverage import Coverage
from branchwise.search.file_channel import FileMeans
from branchwise.search.hybrid import BranchInfo, HybridSearch, SearchRequest, place_history, place_live
from branchwise.search.question_shape import shape_of
from branchwise.store import Store, VersionRecord


#: allowed sets a searcher keeps between questions (a warm server asks many of one branch)
SCOPES_KEPT = 4
#: candidates' records, live places and version ids a searcher keeps while the index is
#: unchanged: at most this many rows, and records whose texts hold at most KEPT_TEXT_CHARS
ROWS_KEPT = 4096
KEPT_TEXT_CHARS = 16_000_000


@dataclass
class AllowedRows:
    """One search's allowed set: its version rows as FAISS takes them and as FTS5 takes them,
    and, once a second question uses it, the temporary table FTS5 tests them in (reads.keep_rows)."""

    rows: np.ndarray
    ids: list[int]
    kept: str | None = None
    #: the mean vector of each file, and the vector index's state they were made from
    files: tuple[tuple, FileMeans] | None = None


class Searcher(HybridSearch):
    """The local backend: SQLite (records, live sets, FTS5) and FAISS; the model loads once."""

    def __init__(self, store: Store, repository: str, config: Config, embedder: Embedder,
                 static: Embedder | None = None):
        super().__init__()
        self.store = store
        self.repository = repository
        self.config = config
        self.embedder = embedder
        self.static = static
        repo_id = store.repo_id(repository)
        if repo_id is None:
            raise UsageError(f"repository {repository!r} is not in the index at {store.index_dir}")
        self.repo_id: int = repo_id
        self._indexes: dict[str, VectorIndex] = {}  # model identity -> its loaded vectors
        self._coverage: dict[tuple[str, int, int], Coverage] = {}
        self._scopes: OrderedDict[tuple, AllowedRows] = OrderedDict()  # see _scope
        self._known: dict[tuple[int, int], tuple[VersionRecord, list]] = {}  # see _kept
        self._known_ids: dict[int, str] = {}  # see _kept
        self._known_chars = 0  # the kept records' texts
        self._known_stamp: tuple | None = None

    def _index(self, embedder: Embedder) -> VectorIndex:
        if embedder.name not in self._indexes:
            self._indexes[embedder.name] = VectorIndex(
                self.store, embedder.name, embedder.dim, self.config.path_weight, self.config.flat_max_vectors)
        return self._indexes[embedder.name]

    @property
    def vectors(self) -> VectorIndex:
        """The transformer stage's vectors (the dense channel)."""
        return self._index(self.embedder)

    @property
    def static_vectors(self) -> VectorIndex:
        """The static stage's vectors (the static channel)."""
        assert self.static is not None
        return self._index(self.static)

    def branches(self) -> list[BranchInfo]:
        return [BranchInfo(r.id, r.name, r.commit_sha, r.indexed_at) for r in self.store.branches(self.repo_id)]

    def coverage(self, branch: BranchInfo) -> Coverage:
        """The branch's dense coverage (the transformer stage's)."""
        return self._coverage_of(branch, self.embedder.name)

    def static_coverage(self, branch: BranchInfo) -> Coverage | None:
        return None if self.static is None else self._coverage_of(branch, self.static.name)

    def _coverage_of(self, branch: BranchInfo, model: str) -> Coverage:
        """A stage's coverage of the branch, counted once per store generation: from the vector
        index when it is loaded and holds this generation (a version has a vector once both
        of its embeddings are cached, see version_vectors.py), else from the embedding cache
        (two lookups per version: about 0.1 s at 18,000 versions)."""
        generation = self.store.generation()
        key = (model, branch.id, generation)
        if key not in self._coverage:
            if any(k[2] != generation for k in self._coverage):
                self._coverage.clear()
            vectors = self._indexes.get(model)
            if vectors is not None and vectors.generation == generation:
                live = np.unique(np.asarray(self.store.live_rows(branch.id), dtype=np.int64))
                self._coverage[key] = Coverage(int(np.isin(live, vectors.ids()).sum()), len(live))
            else:
                embedded, total = self.store.live_coverage(branch.id, model)
                self._coverage[key] = Coverage(embedded, total)
        return self._coverage[key]

    def _without_vector(self, keys: set, channel: str = "dense") -> set:
        embedder = self.static if channel == "static" else self.embedder
        assert embedder is not None, "no static stage"
        model = embedder.name
        return keys - set(self.store.embedded_versions(model, sorted(keys))) if keys else set()

    # the search ---------------------------------------------------------------------------

    def _scope(self, branch: BranchInfo, request: SearchRequest) -> AllowedRows:
        """Version rows visible to this request, kept for the next questions while the index
        generation, the branch and the filters are the same (a big branch's live set costs
        milliseconds to read); from the second question on, in a temporary table."""
        prefixes = None if request.allowed_prefixes is None else tuple(request.allowed_prefixes)
        key = (self.store.generation(), branch.id if request.scope == "branch" else None, branch.commit,
               request.language, request.symbol_type, request.path_class, request.path_prefix, prefixes)
        scope = self._scopes.get(key)
        if scope is not None:
            self._scopes.move_to_end(key)
            if scope.kept is None:
                scope.kept = self.store.keep_rows(scope.ids)
            return scope
        rows = self.store.allowed_rows(
            key[1], self.repo_id, language=request.language, symbol_type=request.symbol_type,
            path_class=request.path_class, path_prefix=request.path_prefix, allowed_prefixes=request.allowed_prefixes,
        )
        scope = self._scopes[key] = AllowedRows(np.fromiter(rows, dtype=np.int64, count=len(rows)), rows)
        while len(self._scopes) > SCOPES_KEPT:
            _key, old = self._scopes.popitem(last=False)
            if old.kept is not None:
                self.store.forget_rows(old.kept)
        return scope

    def _version_ids(self, keys: list[int]) -> dict[int, str]:
        known = self._kept()[1]
        missing = [key for key in keys if key not in known]
        if missing:
            known.update(self.store.version_ids(missing))
        return {key: known[key] for key in keys}

    def _dense(self, vector: np.ndarray, allowed: AllowedRows, depth: int) -> list[tuple[int, float]]:
        return self.vectors.search(vector, allowed.rows, depth)

    def _static(self, vector: np.ndarray, allowed: AllowedRows, depth: int) -> list[tuple[int, float]]:
        return self.static_vectors.search(vector, allowed.rows, depth)

    def _dense_many(self, vectors: np.ndarray, allowed: AllowedRows, depth: int) -> list[list[tuple[int, float]]]:
        return self.vectors.search_many(vectors, allowed.rows, depth)

    def _lexical(self, question: str, allowed: AllowedRows, depth: int) -> list[tuple[int, float]]:
        return self._bm25(fts_query(question), allowed, depth)

    def _names(self, question: str, allowed: AllowedRows, depth: int) -> list[tuple[int, float]]:
        """Symbols whose own name holds every word of the question, ranked as `_lexical` ranks;
        for a question that is only a name, the symbols of exactly that name come first."""
        names = name_query(question)
        ranked = self._bm25(fts_query(question), allowed, depth, within=names) if names else []
        shape = shape_of(question)
        if not shape.bare:
            return ranked
        exact = self.store.named(sorted(shape.names), allowed.ids, depth, allowed.kept)
        first = set(exact)
        return [(row, 1e6) for row in exact] + [(row, score) for row, score in ranked if row not in first]

    def _file_ranks(self, vector: np.ndarray, allowed: AllowedRows) -> dict[str, int]:
        """The files of the allowed set by the question's similarity to their chunks' mean
        vector (file_channel.py), the means kept with the allowed set while the vectors stand."""
        vectors = self.vectors
        stamp = (vectors.generation, vectors.index.ntotal)
        if allowed.files is None or allowed.files[0] != stamp:
            paths = self.store.paths_of(allowed.ids, allowed.kept)
            allowed.files = (stamp, FileMeans(vectors.stored(), paths, vectors.dim))
        return allowed.files[1].ranks(vector)

    def _bm25(self, match: str | None, allowed: AllowedRows, depth: int,
              within: str | None = None) -> list[tuple[int, float]]:
        """BM25 over names, signatures, docstrings, code words and paths, within the allowed set
        (and among the rows matching `within`)."""
        if match is None:
            return []
        return self.store.bm25(match, COLUMN_WEIGHTS, depth, allowed.ids, within, allowed.kept)

    # turning rows into results ------------------------------------------------------------

    def _result(self, version_row: int, score: float, branch: BranchInfo) -> Result:
        return self._made(self.store.version_record(version_row), self.store.live_places(version_row, branch.id),
                          score, branch)

    def _results(self, scored: list[tuple[int, float]], branch: BranchInfo) -> list[Result]:
        """Every candidate's record and live places, read in two statements for the rows this
        searcher has not read since the index last changed (see `_kept`)."""
        known = self._kept()[0]
        missing = [row for row, _score in scored if (branch.id, row) not in known]
        if missing:
            records, places = self.store.version_records(missing), self.store.live_places_of(missing, branch.id)
            for row in missing:
                known[branch.id, row] = (records[row], places[row])
                self._known_chars += len(records[row].text)
        return [self._made(*known[branch.id, row], score, branch) for row, score in scored]

    def _kept(self) -> tuple[dict[tuple[int, int], tuple[VersionRecord, list]], dict[int, str]]:
        """What this searcher read of its candidates, kept while the index and its branches
        are unchanged (a warm server meets the same symbols question after question; `prune`
        forgets a branch without a new generation): (branch, row) -> (record, live places),
        and row -> version id."""
        stamp = (self.store.generation(), tuple((b.id, b.commit, b.indexed_at) for b in self.branches()))
        full = len(self._known) + len(self._known_ids) > ROWS_KEPT or self._known_chars > KEPT_TEXT_CHARS
        if self._known_stamp != stamp or full:
            self._known.clear()
            self._known_ids.clear()
            self._known_chars = 0
            self._known_stamp = stamp
        return self._known, self._known_ids

    def _made(self, v: VersionRecord, places: list, score: float, branch: BranchInfo) -> Result:
        result = Result(
            rank=0, score=score,
            identity=Identity(self.repository, v.path, v.language, v.symbol_type, v.qualified_name),
            branch=v.first_branch, commit=v.first_commit, start_line=v.start_line, end_line=v.end_line,
            indexed_at=v.created_at, content_hash=v.content_hash, text=v.text, blob=v.blob,
            version_id=v.version_id, signature=v.signature, docstring=v.docstring, parent=v.parent,
            imports=tuple(v.imports.splitlines()), path_class=PathClass(v.path_class), class_reason=v.class_reason,
        )
        self._locate(result, v.row, branch, places)
        return result

    def _locate(self, result: Result, version_row: int, branch: BranchInfo, places: list) -> None:
        """Where this version was indexed (`places`: its live places, the queried branch's
        first): the queried branch, another branch, or history."""
        if places:
            name, commit, indexed_at, blob, start, end = places[0]
            place_live(result, branch.name, name, commit, indexed_at, (blob, start, end))
        else:
            place_history(result, self.store.last_tombstone(version_row, branch.id))
        if result.history and not self.store.ever_left(version_row, branch.id):
            result.never_on_branch = True

    # context for bundles --------------------------------------------------------------------

    def parent_signature(self, result: Result) -> str | None:
        """The signature line of a result's enclosing symbol, from the same branch's live set."""
        row = self._parent(result)
        return row[0] if row else None

    def parent_text(self, result: Result) -> str | None:
        """The text of a result's enclosing symbol (for a class outline around a lone method)."""
        row = self._parent(result)
        return row[1] if row else None

    def _parent(self, result: Result) -> tuple[str, str] | None:
        if not result.parent:
            return None
        return self.store.parent_symbol(self.repo_id, result.path, result.parent)

    def live_set(self, branch: str) -> list[dict]:
        info = self.branch(branch)
        rows = self.store.live_set(info.id)
        keys = ("path", "qualified_name", "symbol_type", "language", "content_hash",
                "start_line", "end_line", "path_class")
        return [dict(zip(keys, r), commit=info.commit) for r in rows]
