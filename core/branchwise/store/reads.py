"""What the local backend reads: a search's allowed set, FTS5 rankings within it, version
records, where a version is live or was last seen, a branch's live set, and the cached
embeddings that make up a version's vector."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Sequence

from branchwise.store.batches import in_batches, marks
from branchwise.store.database import Database
from branchwise.store.records import VERSION_SELECT, VersionRecord


#: names for keep_rows' tables, unique in the process (a connection's temporary tables are its own)
_KEPT_TABLES = itertools.count(1)


def _among(allowed: Sequence[int], kept: str | None) -> tuple[str, tuple]:
    """An `IN (...)` subquery of the allowed rows and its parameters: the kept table, or the list."""
    if kept is not None:
        return f"SELECT row FROM temp.{kept}", ()
    return "SELECT value FROM json_each(?)", (json.dumps(list(allowed)),)


class SearchReads(Database):
    # the allowed set --------------------------------------------------------------------------

    def allowed_rows(
        self,
        branch_id: int | None,
        repo_id: int,
        language: str | None = None,
        symbol_type: str | None = None,
        path_class: str | None = None,
        path_prefix: str | None = None,
        allowed_prefixes: Sequence[str] | None = None,
    ) -> list[int]:
        """The version rows a search may rank, ascending: a branch's live set, or with
        `branch_id` None every version of the repository; narrowed by the filters and the
        readable path prefixes."""
        if branch_id is not None:
            base = (
                "SELECT DISTINCT l.version_row FROM live l JOIN identities i ON i.id = l.identity_id "
                "JOIN versions v ON v.id = l.version_row WHERE l.branch_id = ?"
            )
            params: list = [branch_id]
        else:
            base = "SELECT v.id FROM versions v JOIN identities i ON i.id = v.identity_id WHERE i.repo_id = ?"
            params = [repo_id]
        for column, value in (("i.language", language), ("i.symbol_type", symbol_type), ("v.path_class", path_class)):
            if value:
                base += f" AND {column} = ?"
                params.append(value)
        if path_prefix:
            base += " AND substr(i.path, 1, ?) = ?"
            params += [len(path_prefix), path_prefix]
        if allowed_prefixes is not None:
            clauses = ["substr(i.path, 1, ?) = ?"] * len(allowed_prefixes)
            base += f" AND ({' OR '.join(clauses) or '0'})"
            params += [part for prefix in allowed_prefixes for part in (len(prefix), prefix)]
        return [row[0] for row in self.conn.execute(f"{base} ORDER BY 1", params)]

    def keep_rows(self, rows: Sequence[int]) -> str:
        """`rows` in a temporary table of this connection, named by the return value: an allowed
        set that several questions use (a warm server's branch) is tested there by its primary
        key, where a JSON list is parsed into a new lookup for each statement."""
        name = f"allowed_{next(_KEPT_TABLES)}"
        self.conn.execute(f"CREATE TEMP TABLE {name} (row INTEGER PRIMARY KEY)")
        self.conn.execute(f"INSERT INTO temp.{name} SELECT value FROM json_each(?)", (json.dumps(list(rows)),))
        return name

    def forget_rows(self, table: str) -> None:
        self.conn.execute(f"DROP TABLE IF EXISTS temp.{table}")

    def bm25(self, match: str, weights: Sequence[float], depth: int, allowed: Sequence[int],
             within: str | None = None, kept: str | None = None) -> list[tuple[int, float]]:
        """FTS5 BM25 over the version rows `allowed` (held in the table `kept` when given: see
        keep_rows), and among the rows matching `within`: (version row, score), best first,
        the score higher for a better match."""
        columns = ", ".join(str(w) for w in weights)
        narrower = " AND rowid IN (SELECT rowid FROM lexical WHERE lexical MATCH ?)" if within else ""
        among, rows_param = _among(allowed, kept)
        # `+rowid` keeps the allowed set a filter on the matches: as an index constraint FTS5
        # would run the whole match once per allowed row
        rows = self.conn.execute(
            f"SELECT rowid, bm25(lexical, {columns}) AS rank FROM lexical WHERE lexical MATCH ? "
            f"AND +rowid IN ({among}){narrower} ORDER BY rank LIMIT ?",
            (match, *rows_param, *([within] if within else []), depth),
        ).fetchall()
        return [(row_id, -rank) for row_id, rank in rows]

    def named(self, names: Sequence[str], allowed: Sequence[int], depth: int, kept: str | None = None) -> list[int]:
        """The version rows among `allowed` (or the table `kept`) whose symbol is named one of
        `names` exactly: its own (last) name, or its qualified name ending with a dotted one;
        overloads (`#2`) too."""
        patterns: list[str] = []
        for name in names:
            escaped = "".join(f"[{c}]" if c in "*?[" else c for c in name)
            patterns += [escaped, f"{escaped}#*", f"*.{escaped}", f"*.{escaped}#*"]
        clauses = " OR ".join(["i.qualified_name GLOB ?"] * len(patterns))
        among, rows_param = _among(allowed, kept)
        rows = self.conn.execute(
            "SELECT v.id FROM versions v JOIN identities i ON i.id = v.identity_id "
            f"WHERE v.id IN ({among}) AND ({clauses}) ORDER BY v.id LIMIT ?",
            (*rows_param, *patterns, depth),
        ).fetchall()
        return [row[0] for row in rows]

    def paths_of(self, allowed: Sequence[int], kept: str | None = None) -> dict[int, str]:
        """The path of each version row among `allowed` (or the table `kept`)."""
        among, rows_param = _among(allowed, kept)
        return dict(self.conn.execute(
            "SELECT v.id, i.path FROM versions v JOIN identities i ON i.id = v.identity_id "
            f"WHERE v.id IN ({among})", rows_param))

    # versions ---------------------------------------------------------------------------------

    def version_ids(self, version_rows: Sequence[int]) -> dict[int, str]:
        found: dict[int, str] = {}
        for batch in in_batches(version_rows):
            found.update(self.conn.execute(
                f"SELECT id, version_id FROM versions WHERE id IN ({marks(len(batch))})", batch))
        return found

    def version_records(self, version_rows: Sequence[int]) -> dict[int, VersionRecord]:
        found: dict[int, VersionRecord] = {}
        for batch in in_batches(version_rows):
            for row in self.conn.execute(f"{VERSION_SELECT} WHERE v.id IN ({marks(len(batch))})", batch):
                found[row[0]] = VersionRecord.of_row(row)
        return found

    def lexical_documents(self, version_rows: Sequence[int]) -> dict[int, tuple[str, ...]]:
        """The lexical columns each version was indexed with (a class's hold its whole text)."""
        found: dict[int, tuple[str, ...]] = {}
        for batch in in_batches(version_rows):
            for row in self.conn.execute(
                "SELECT rowid, symbol, name, signature, docstring, code, path FROM lexical "
                f"WHERE rowid IN ({marks(len(batch))})", batch,
            ):
                found[row[0]] = tuple(row[1:])
        return found

    def version_record(self, version_row: int) -> VersionRecord:
        return VersionRecord.of_row(self.conn.execute(f"{VERSION_SELECT} WHERE v.id = ?", (version_row,)).fetchone())

    def has_versions(self) -> bool:
        return self.conn.execute("SELECT 1 FROM versions LIMIT 1").fetchone() is not None

    def every_version(self) -> list[VersionRecord]:
        """Every stored version, grouped by the blob and file it came from."""
        return [VersionRecord.of_row(row) for row in self.conn.execute(f"{VERSION_SELECT} ORDER BY v.blob, i.path")]

    def all_version_rows(self) -> list[int]:
        return [row[0] for row in self.conn.execute("SELECT id FROM versions ORDER BY id")]

    def embedding_pairs(self, model: str, version_rows: Sequence[int]) -> list[tuple[int, bytes, bytes]]:
        """(version row, symbol text's embedding, file path's embedding) of the rows whose two
        embeddings are cached for `model`."""
        found: list[tuple[int, bytes, bytes]] = []
        for batch in in_batches(version_rows):
            found += self.conn.execute(
                "SELECT v.id, s.vector, p.vector FROM versions v "
                "JOIN embeddings s ON s.model = ? AND s.key = v.embed_key "
                "JOIN embeddings p ON p.model = ? AND p.key = v.path_key "
                f"WHERE v.id IN ({marks(len(batch))})",
                (model, model, *batch),
            ).fetchall()
        return found

    def parent_symbol(self, repo_id: int, path: str, parent: str) -> tuple[str, str] | None:
        """(signature, text) of the latest version of the symbol `parent` in the same file."""
        return self.conn.execute(
            "SELECT v.signature, v.text FROM identities i JOIN versions v ON v.identity_id = i.id "
            "WHERE i.repo_id = ? AND i.path = ? AND i.qualified_name = ? ORDER BY v.id DESC LIMIT 1",
            (repo_id, path, parent),
        ).fetchone()

    # where a version is ----------------------------------------------------------------------

    def live_places(self, version_row: int, prefer_branch: int) -> list[tuple[str, str, str, str | None, int, int]]:
        """Where a version is live: (branch, commit, indexed at, blob, start, end), the branch
        `prefer_branch` first, then the most recently indexed."""
        return self.conn.execute(
            "SELECT b.name, b.commit_sha, b.indexed_at, l.blob, l.start_line, l.end_line "
            "FROM live l JOIN branches b ON b.id = l.branch_id "
            "WHERE l.version_row = ? ORDER BY b.id = ? DESC, b.indexed_at DESC",
            (version_row, prefer_branch),
        ).fetchall()

    def live_places_of(self, version_rows: Sequence[int], prefer_branch: int) -> dict[int, list[tuple]]:
        """`live_places` of each row, read in batches (a row live nowhere has an empty list)."""
        found: dict[int, list[tuple]] = {row: [] for row in version_rows}
        for batch in in_batches(version_rows):
            for row in self.conn.execute(
                "SELECT l.version_row, b.name, b.commit_sha, b.indexed_at, l.blob, l.start_line, l.end_line "
                "FROM live l JOIN branches b ON b.id = l.branch_id "
                f"WHERE l.version_row IN ({marks(len(batch))}) ORDER BY b.id = ? DESC, b.indexed_at DESC",
                (*batch, prefer_branch),
            ):
                found[row[0]].append(tuple(row[1:]))
        return found

    def last_tombstone(self, version_row: int, prefer_branch: int) -> tuple | None:
        """Where a version was last deleted: (branch, deleted at, last commit, blob, start,
        end, when), on `prefer_branch` if it was deleted there."""
        return self.conn.execute(
            "SELECT b.name, t.commit_sha, t.last_commit, t.blob, t.start_line, t.end_line, t.at "
            "FROM tombstones t JOIN branches b ON b.id = t.branch_id WHERE t.version_row = ? "
            "ORDER BY t.branch_id = ? DESC, t.at DESC LIMIT 1",
            (version_row, prefer_branch),
        ).fetchone()

    def ever_left(self, version_row: int, branch_id: int) -> bool:
        """Whether the identity of a version was ever deleted from a branch: a tombstone there
        after a commit of the branch that had it. A branch indexed for the first time from
        another branch's live set tombstones what it never had at its first commit (the last
        commit is that commit itself); that is not a deletion."""
        return self.conn.execute(
            "SELECT EXISTS (SELECT 1 FROM tombstones WHERE branch_id = ? AND last_commit != commit_sha "
            "AND identity_id = (SELECT identity_id FROM versions WHERE id = ?))",
            (branch_id, version_row),
        ).fetchone()[0] == 1

    def live_symbols(self, branch_id: int, paths: Iterable[str]) -> list[tuple]:
        """A branch's live versions in `paths`: (path, language, symbol_type, qualified_name,
        start_line, end_line, content_hash, text, path_class, class_reason), by path and line."""
        rows: list[tuple] = []
        for batch in in_batches(sorted(set(paths))):
            rows += self.conn.execute(
                "SELECT i.path, i.language, i.symbol_type, i.qualified_name, l.start_line, l.end_line, "
                "v.content_hash, v.text, v.path_class, v.class_reason FROM live l "
                "JOIN identities i ON i.id = l.identity_id JOIN versions v ON v.id = l.version_row "
                f"WHERE l.branch_id = ? AND i.path IN ({marks(len(batch))})",
                (branch_id, *batch),
            ).fetchall()
        return sorted(rows, key=lambda row: (row[0], row[4], row[3]))

    def live_set(self, branch_id: int) -> list[tuple]:
        """A branch's live entries: (path, qualified name, symbol type, language, content hash,
        start, end, path class), sorted by path and line."""
        return self.conn.execute(
            "SELECT i.path, i.qualified_name, i.symbol_type, i.language, v.content_hash, "
            "l.start_line, l.end_line, v.path_class FROM live l "
            "JOIN identities i ON i.id = l.identity_id JOIN versions v ON v.id = l.version_row "
            "WHERE l.branch_id = ? ORDER BY i.path, l.start_line, i.qualified_name",
            (branch_id,),
        ).fetchall()
