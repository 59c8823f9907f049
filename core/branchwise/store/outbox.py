"""What a shared vector backend publishes from: the outbox of versions whose point or
visibility changed (filled in each index run's transaction, so a crash between the commit
and the publishing loses nothing), FTS5's term statistics and the term counts last sent."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from branchwise.store.batches import in_batches, marks
from branchwise.store.database import Database


class Outbox(Database):
    def mark_unpublished(self, version_rows: Iterable[int], point: bool = False) -> None:
        """Record versions whose visibility changed (`point`: or which are new or gone) since
        a shared vector backend last published. A database that never published keeps no
        outbox: its first publishing sends all."""
        if self.meta("publishing") is None:
            return
        for batch in in_batches(sorted(set(version_rows))):
            self.conn.execute(
                f"INSERT INTO unpublished SELECT id, version_id, ? FROM versions WHERE id IN ({marks(len(batch))}) "
                "ON CONFLICT (version_row) DO UPDATE SET point = max(point, excluded.point)",
                (int(point), *batch),
            )

    def mark_everything_unpublished(self) -> None:
        """Every version is to be sent again; from now on every index run fills the outbox."""
        self.set_meta("publishing", "1")
        self.conn.execute(
            "INSERT INTO unpublished SELECT id, version_id, 1 FROM versions WHERE true "
            "ON CONFLICT (version_row) DO UPDATE SET point = 1"
        )

    def unpublished(self, limit: int) -> list[tuple[int, str, int]]:
        """The next (version row, version id, point) entries of the outbox."""
        return self.conn.execute(
            "SELECT version_row, version_id, point FROM unpublished ORDER BY version_row LIMIT ?", (limit,)
        ).fetchall()

    def published(self, version_rows: Sequence[int]) -> None:
        """The server acknowledged these entries: they leave the outbox."""
        for batch in in_batches(version_rows):
            self.conn.execute(f"DELETE FROM unpublished WHERE version_row IN ({marks(len(batch))})", batch)

    # what a point's payload says about branches ----------------------------------------------

    def live_entries(self, version_rows: Sequence[int]) -> list[tuple[int, str, str | None, int, int]]:
        """(version row, branch, blob, start, end) of every live entry of these versions."""
        found: list[tuple[int, str, str | None, int, int]] = []
        for batch in in_batches(version_rows):
            found += self.conn.execute(
                "SELECT l.version_row, b.name, l.blob, l.start_line, l.end_line FROM live l "
                f"JOIN branches b ON b.id = l.branch_id WHERE l.version_row IN ({marks(len(batch))})",
                batch,
            ).fetchall()
        return found

    def tombstone_entries(self, version_rows: Sequence[int]) -> list[tuple]:
        """(version row, branch, deleted at, last commit, blob, start, end, when) of every
        tombstone of these versions, oldest first."""
        found: list[tuple] = []
        for batch in in_batches(version_rows):
            found += self.conn.execute(
                "SELECT t.version_row, b.name, t.commit_sha, t.last_commit, t.blob, t.start_line, t.end_line, t.at "
                f"FROM tombstones t JOIN branches b ON b.id = t.branch_id WHERE t.version_row IN ({marks(len(batch))}) "
                "ORDER BY t.at, t.id",
                batch,
            ).fetchall()
        return found

    # lexical statistics ----------------------------------------------------------------------

    def vocabulary(self) -> tuple[int, dict[str, tuple[int, int]]]:
        """FTS5's own statistics: documents, and per term (documents holding it, occurrences)."""
        self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.lexical_terms USING fts5vocab(main, lexical, row)")
        documents = self.conn.execute("SELECT COUNT(*) FROM lexical").fetchone()[0]
        return documents, {term: (docs, total) for term, docs, total in
                           self.conn.execute("SELECT term, doc, cnt FROM temp.lexical_terms")}

    def published_terms(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT term, documents FROM published_terms"))

    def set_published_terms(self, changed: dict[str, int], gone: Iterable[str]) -> None:
        self.conn.executemany("INSERT OR REPLACE INTO published_terms VALUES (?, ?)", changed.items())
        self.conn.executemany("DELETE FROM published_terms WHERE term = ?", [(t,) for t in gone])

    def forget_published_terms(self) -> None:
        self.conn.execute("DELETE FROM published_terms")
