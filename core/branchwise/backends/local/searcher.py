"""The local backend's searcher: SQLite (records, live sets, FTS5) and the FAISS file.

It supplies `HybridSearch` with the allowed set as version rows, the dense ranking from
FAISS (the allowed set as an ID selector) and the lexical and name rankings from FTS5 (the
allowed set as a row filter).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from branchwise.backends.local.vectors import VectorIndex
from branchwise.config import Config
from branchwise.embedding import Embedder
from branchwise.errors import UsageError
from branchwise.lexical import COLUMN_WEIGHTS, fts_query, name_query
from branchwise.models import Identity, PathClass, Result
from branchwise.search import BranchInfo, HybridSearch, SearchRequest, place_history, place_live
from branchwise.store import Store


@dataclass(frozen=True)
class AllowedRows:
    """One search's allowed set: its version rows (for FAISS) and the number of the fill of
    the temporary table that holds the same rows for FTS5, which only `_scope` writes."""

    rows: np.ndarray
    fill: int


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
        self._fills = 0  # fills of temp.allowed so far; an AllowedRows names the one it owns

    @property
    def vectors(self) -> VectorIndex:
        if self._vectors is None:
            self._vectors = VectorIndex(
                self.store, self.embedder.name, self.embedder.dim, self.config.path_weight,
                self.config.flat_max_vectors,
            )
        return self._vectors

    def branches(self) -> list[BranchInfo]:
        return [BranchInfo(r["id"], r["name"], r["commit_sha"], r["indexed_at"])
                for r in self.store.branches(self.repo_id)]

    # the search ---------------------------------------------------------------------------

    def _scope(self, branch: BranchInfo, request: SearchRequest) -> AllowedRows:
        """Version rows visible to this request, also written to temp.allowed for FTS5."""
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
        self._fills += 1
        return AllowedRows(np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows)), self._fills)

    def _version_ids(self, keys: list[int]) -> dict[int, str]:
        marks = ",".join("?" * len(keys))
        return dict(self.conn.execute(f"SELECT id, version_id FROM versions WHERE id IN ({marks})", keys))

    def _dense(self, vector: np.ndarray, allowed: AllowedRows, depth: int) -> list[tuple[int, float]]:
        return self.vectors.search(vector, allowed.rows, depth)

    def _lexical(self, question: str, allowed: AllowedRows, depth: int) -> list[tuple[int, float]]:
        return self._bm25(fts_query(question), allowed, depth)

    def _names(self, question: str, allowed: AllowedRows, depth: int) -> list[tuple[int, float]]:
        """Symbols whose own name holds every word of the question, ranked as `_lexical` ranks."""
        names = name_query(question)
        return self._bm25(fts_query(question), allowed, depth, within=names) if names else []

    def _bm25(self, match: str | None, allowed: AllowedRows, depth: int,
              within: str | None = None) -> list[tuple[int, float]]:
        """BM25 over names, signatures, docstrings, code words and paths, within the allowed set
        (and among the rows matching `within`)."""
        if match is None:
            return []
        if allowed.fill != self._fills:
            raise RuntimeError("temp.allowed holds another search's allowed set")
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
         blob, start, end, created_at, imports) = self.conn.execute(
            "SELECT v.version_id, v.content_hash, v.text, v.signature, v.docstring, v.parent, v.path_class, "
            "v.class_reason, i.path, i.language, i.symbol_type, i.qualified_name, i.id, v.first_branch, "
            "v.first_commit, v.blob, v.start_line, v.end_line, v.created_at, v.imports "
            "FROM versions v JOIN identities i ON i.id = v.identity_id WHERE v.id = ?",
            (version_row,),
        ).fetchone()
        result = Result(
            rank=0, score=score,
            identity=Identity(self.repository, path, language, symbol_type, qualified_name),
            branch=first_branch, commit=first_commit, start_line=start, end_line=end,
            indexed_at=created_at, content_hash=content_hash, text=text, blob=blob,
            version_id=version_id, signature=signature, docstring=docstring, parent=parent,
            imports=tuple(imports.splitlines()), path_class=PathClass(path_class), class_reason=class_reason,
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
        row = self._parent(result)
        return row[0] if row else None

    def parent_text(self, result: Result) -> str | None:
        """The text of a result's enclosing symbol (for a class outline around a lone method)."""
        row = self._parent(result)
        return row[1] if row else None

    def _parent(self, result: Result) -> tuple[str, str] | None:
        if not result.parent:
            return None
        return self.conn.execute(
            "SELECT v.signature, v.text FROM identities i JOIN versions v ON v.identity_id = i.id "
            "WHERE i.repo_id = ? AND i.path = ? AND i.qualified_name = ? ORDER BY v.id DESC LIMIT 1",
            (self.repo_id, result.path, result.parent),
        ).fetchone()

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
