"""The writes of a re-chunking (branchwise/index/rechunk.py): live entries by file, tombstones and
labels and pins moved from identities an older chunker cut to the ones that replace them."""

from __future__ import annotations

from collections.abc import Sequence

from branchwise.store.batches import in_batches, marks
from branchwise.store.database import Database
from branchwise.store.pins import PIN_COLUMNS


class RechunkWrites(Database):
    def live_file_entries(self, branch_id: int) -> list[tuple]:
        """A branch's live entries: (identity row, path, language, symbol type, qualified name,
        version row, content hash, blob, start, end)."""
        return self.conn.execute(
            "SELECT l.identity_id, i.path, i.language, i.symbol_type, i.qualified_name, l.version_row, "
            "v.content_hash, l.blob, l.start_line, l.end_line FROM live l "
            "JOIN identities i ON i.id = l.identity_id JOIN versions v ON v.id = l.version_row "
            "WHERE l.branch_id = ? ORDER BY i.path", (branch_id,)).fetchall()

    def tombstones_of(self, version_rows: Sequence[int]) -> list[tuple]:
        """(tombstone id, branch row, path, version row, blob, start, end) of these versions' tombstones."""
        found: list[tuple] = []
        for batch in in_batches(list(version_rows)):
            found += self.conn.execute(
                "SELECT t.id, t.branch_id, i.path, t.version_row, t.blob, t.start_line, t.end_line "
                "FROM tombstones t JOIN identities i ON i.id = t.identity_id "
                f"WHERE t.version_row IN ({marks(len(batch))})", batch).fetchall()
        return found

    def replace_tombstone(self, tombstone_id: int, successors: Sequence[tuple[int, int, int, int]]) -> None:
        """Tombstone `tombstone_id` becomes one per (identity row, version row, start, end), the
        same deletion of the same code; an identity the branch has a tombstone of keeps that one."""
        for identity_id, version_row, start, end in successors:
            self.conn.execute(
                "INSERT INTO tombstones (branch_id, identity_id, version_row, commit_sha, last_commit, blob, "
                "start_line, end_line, at) SELECT branch_id, ?, ?, commit_sha, last_commit, blob, ?, ?, at "
                "FROM tombstones t WHERE id = ? AND NOT EXISTS (SELECT 1 FROM tombstones o WHERE "
                "o.branch_id = t.branch_id AND o.identity_id = ? AND o.version_row = ?)",
                (identity_id, version_row, start, end, tombstone_id, identity_id, version_row))
        self.conn.execute("DELETE FROM tombstones WHERE id = ?", (tombstone_id,))

    def live_identities(self, branch_id: int) -> set[int]:
        return {row[0] for row in self.conn.execute("SELECT identity_id FROM live WHERE branch_id = ?", (branch_id,))}

    def unreferenced(self, version_rows: Sequence[int]) -> list[int]:
        """Those of `version_rows` in no live set and no tombstone."""
        found: list[int] = []
        for batch in in_batches(list(version_rows)):
            found += [row[0] for row in self.conn.execute(
                f"SELECT v.id FROM versions v WHERE v.id IN ({marks(len(batch))}) "
                "AND NOT EXISTS (SELECT 1 FROM live l WHERE l.version_row = v.id) "
                "AND NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.version_row = v.id)", batch)]
        return found

    def labelled_versions(self, repository: str) -> set[str]:
        return {row[0] for row in self.conn.execute("SELECT version_id FROM labels WHERE repository = ?",
                                                    (repository,))}

    def move_label(self, repository: str, version_id: str, successors: Sequence[tuple[str, ...]]) -> None:
        """The label of `version_id` now labels each successor (version id, path, language,
        symbol type, qualified name, content hash); a label a successor has already wins."""
        for successor in successors:
            self.conn.execute(
                "INSERT OR IGNORE INTO labels SELECT repository, ?, ?, ?, ?, ?, ?, label, note, reviewer, "
                "labelled_at FROM labels WHERE repository = ? AND version_id = ?",
                (*successor, repository, version_id))
        self.conn.execute("DELETE FROM labels WHERE repository = ? AND version_id = ?", (repository, version_id))

    def pins_of(self, repository: str) -> list[tuple]:
        """Every pin of a repository, in PIN_COLUMNS order."""
        return self.conn.execute(f"SELECT {', '.join(PIN_COLUMNS)} FROM pins WHERE repository = ?",
                                 (repository,)).fetchall()

    def move_pin(self, repository: str, branch: str, identity: Sequence[str],
                 successors: Sequence[Sequence[str]]) -> None:
        """The pin of `identity` (path, language, symbol type, qualified name) on `branch` now
        pins each successor identity; a pin a successor has already wins."""
        where = "repository = ? AND branch = ? AND path = ? AND language = ? AND symbol_type = ? AND qualified_name = ?"
        for successor in successors:
            self.conn.execute(
                "INSERT OR IGNORE INTO pins SELECT repository, branch, ?, ?, ?, ?, note, reviewer, pinned_at "
                f"FROM pins WHERE {where}", (*successor, repository, branch, *identity))
        self.conn.execute(f"DELETE FROM pins WHERE {where}", (repository, branch, *identity))
