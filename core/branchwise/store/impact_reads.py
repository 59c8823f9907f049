"""What a branch diff's impact context reads: the base's live code that may name changed
symbols (one FTS5 match for a batch of names), where it lives, and the base's classes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from branchwise.store.batches import in_batches, marks
from branchwise.store.database import Database


class ImpactReads(Database):
    def live_rows_matching(self, branch_id: int, match: str) -> list[tuple[int, str | None, int, int]]:
        """A branch's live versions whose lexical document matches `match`: (version row, blob,
        start line, end line), by version row."""
        return self.conn.execute(
            "SELECT l.version_row, l.blob, l.start_line, l.end_line FROM lexical "
            "JOIN live l ON l.version_row = lexical.rowid "
            "WHERE lexical MATCH ? AND l.branch_id = ? ORDER BY l.version_row",
            (match, branch_id),
        ).fetchall()

    def live_classes(self, branch_id: int, symbol_types: Iterable[str]) -> list[tuple[str, str, str]]:
        """(qualified name, signature, language) of a branch's live classes and other types."""
        types = sorted(set(symbol_types))
        return self.conn.execute(
            "SELECT i.qualified_name, v.signature, i.language FROM live l "
            "JOIN identities i ON i.id = l.identity_id JOIN versions v ON v.id = l.version_row "
            f"WHERE l.branch_id = ? AND i.symbol_type IN ({marks(len(types))})",
            (branch_id, *types),
        ).fetchall()

    def live_version_rows(self, branch_id: int, paths: Sequence[str]) -> dict[tuple[str, str, str, str], int]:
        """(path, language, symbol type, qualified name) -> live version row, for `paths`."""
        found: dict[tuple[str, str, str, str], int] = {}
        for batch in in_batches(sorted(set(paths))):
            for path, language, symbol_type, name, row in self.conn.execute(
                "SELECT i.path, i.language, i.symbol_type, i.qualified_name, l.version_row FROM live l "
                f"JOIN identities i ON i.id = l.identity_id WHERE l.branch_id = ? AND i.path IN ({marks(len(batch))})",
                (branch_id, *batch),
            ):
                found[(path, language, symbol_type, name)] = row
        return found

    def version_rows_by_id(self, version_ids: Sequence[str]) -> dict[str, int]:
        """version id -> version row, for the ids that are stored."""
        found: dict[str, int] = {}
        for batch in in_batches(list(version_ids)):
            found.update(self.conn.execute(
                f"SELECT version_id, id FROM versions WHERE version_id IN ({marks(len(batch))})", batch))
        return found
