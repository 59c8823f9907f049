"""Reviewer pins' rows, keyed by (repository, branch, path, language, symbol type, qualified
name). Like the labels' functions, they take the connection."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence

from branchwise.store.batches import marks
from branchwise.store.schema import SCHEMA

PIN_COLUMNS = ("repository", "branch", "path", "language", "symbol_type", "qualified_name", "note", "reviewer",
               "pinned_at")


_INSERT = f"INSERT OR REPLACE INTO pins VALUES ({marks(len(PIN_COLUMNS))})"


def ensure_pins_table(conn: sqlite3.Connection) -> None:
    """Create the pins table (alone, for a database that is not an index)."""
    statement = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS pins"):SCHEMA.index("CREATE TABLE IF NOT EXISTS labels")]
    with conn:
        conn.execute(statement.strip().rstrip(";"))


def put_pin(conn: sqlite3.Connection, values: Sequence[object]) -> None:
    """Store a pin (values in PIN_COLUMNS order), replacing an earlier pin of the symbol."""
    with conn:
        conn.execute(_INSERT, tuple(values))


def put_pins_in_transaction(conn: sqlite3.Connection, rows: Iterable[Sequence[object]]) -> None:
    """Store pins inside a transaction the caller holds (`labels.put_labels`)."""
    conn.executemany(_INSERT, (tuple(row) for row in rows))


def delete_pin(conn: sqlite3.Connection, repository: str, branch: str, identity: Sequence[str]) -> bool:
    """Remove the pin of (path, language, symbol_type, qualified_name) on `branch`."""
    with conn:
        cursor = conn.execute(
            "DELETE FROM pins WHERE repository = ? AND branch = ? AND path = ? AND language = ? "
            "AND symbol_type = ? AND qualified_name = ?", (repository, branch, *identity))
    return cursor.rowcount > 0


def pin_rows(conn: sqlite3.Connection, repository: str, branch: str | None = None) -> list[tuple]:
    """The pins of a repository (of one branch), in PIN_COLUMNS order, by branch, path and name.
    An index made before pins existed, opened read-only, has no table: no pins."""
    where, values = ("repository = ?", (repository,)) if branch is None else (
        "repository = ? AND branch = ?", (repository, branch))
    try:
        return conn.execute(f"SELECT * FROM pins WHERE {where} ORDER BY branch, path, qualified_name",
                            values).fetchall()
    except sqlite3.OperationalError as error:
        if "no such table" in str(error):
            return []
        raise
