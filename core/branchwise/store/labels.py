"""Reviewer labels' rows, keyed by (repository, version id). The functions take the
connection, so the labels module can work on any database with the labels table."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence

from branchwise.store.batches import in_batches, marks
from branchwise.store.pins import put_pins_in_transaction
from branchwise.store.schema import SCHEMA

LABEL_COLUMNS = ("repository", "version_id", "path", "language", "symbol_type", "qualified_name", "content_hash",
                 "label", "note", "reviewer", "labelled_at")


def ensure_labels_table(conn: sqlite3.Connection) -> None:
    """Create the labels table (alone, for a database that is not an index)."""
    statement = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS labels"):]
    with conn:
        conn.execute(statement.strip().rstrip(";"))


def put_label(conn: sqlite3.Connection, values: Sequence[object]) -> None:
    """Store a label (values in LABEL_COLUMNS order), replacing the version's earlier one."""
    with conn:
        conn.execute(f"INSERT OR REPLACE INTO labels VALUES ({marks(len(LABEL_COLUMNS))})", tuple(values))


def put_labels(conn: sqlite3.Connection, rows: Iterable[Sequence[object]],
               pins: Callable[[], Iterable[Sequence[object]]] | None = None) -> None:
    """Store every row (LABEL_COLUMNS order) in one transaction: an exception from the rows'
    iterator, or a kill, rolls all of them back, so the caller may check rows as they come.
    `pins`, called once the label rows are stored, gives pin rows for the same transaction."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany(f"INSERT OR REPLACE INTO labels VALUES ({marks(len(LABEL_COLUMNS))})", rows)
        if pins is not None:
            put_pins_in_transaction(conn, pins())
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def delete_label(conn: sqlite3.Connection, repository: str, version_id: str) -> bool:
    with conn:
        cursor = conn.execute("DELETE FROM labels WHERE repository = ? AND version_id = ?", (repository, version_id))
    return cursor.rowcount > 0


def label_values(conn: sqlite3.Connection, column: str, repository: str, version_ids: Sequence[str]) -> dict[str, str]:
    """version id -> the value of `column` (label or note) of the labelled ones among them."""
    if column not in LABEL_COLUMNS:
        raise ValueError(f"no label column {column!r}")
    found: dict[str, str] = {}
    for batch in in_batches(version_ids):
        found.update(conn.execute(
            f"SELECT version_id, {column} FROM labels WHERE repository = ? AND version_id IN ({marks(len(batch))})",
            (repository, *batch),
        ))
    return found


def label_row(conn: sqlite3.Connection, repository: str, version_id: str) -> tuple | None:
    """The stored label of one version (LABEL_COLUMNS order), None when it has none."""
    return conn.execute("SELECT * FROM labels WHERE repository = ? AND version_id = ?",
                        (repository, version_id)).fetchone()


def label_rows(conn: sqlite3.Connection, repository: str) -> list[tuple]:
    """Every label of a repository, in LABEL_COLUMNS order, by path and name."""
    return conn.execute(
        "SELECT * FROM labels WHERE repository = ? ORDER BY path, qualified_name, labelled_at", (repository,)
    ).fetchall()


def member_label_rows(conn: sqlite3.Connection, repository: str, path: str, qualified_name: str) -> list[tuple]:
    """(qualified name, label, labelled version's text) of labels on symbols inside
    `qualified_name` in `path` whose version the index still holds."""
    return conn.execute(
        "SELECT l.qualified_name, l.label, v.text FROM labels l JOIN versions v ON v.version_id = l.version_id "
        "WHERE l.repository = ? AND l.path = ? AND substr(l.qualified_name, 1, ?) = ?",
        (repository, path, len(qualified_name) + 1, qualified_name + "."),
    ).fetchall()
