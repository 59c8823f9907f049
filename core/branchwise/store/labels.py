"""Reviewer labels' rows, keyed by (repository, version id). The functions take the
connection, so the labels module can work on any database with the labels table.

A row holds a label, a note, or both: a note alone has label NULL (see schema.py)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence

from branchwise.store.batches import in_batches, marks
from branchwise.store.pins import put_pins_in_transaction
from branchwise.store.schema import SCHEMA

LABEL_COLUMNS = ("repository", "version_id", "path", "language", "symbol_type", "qualified_name", "content_hash",
                 "label", "note", "reviewer", "labelled_at")


_CREATE = "CREATE TABLE IF NOT EXISTS labels"


def ensure_labels_table(conn: sqlite3.Connection) -> None:
    """Create the labels table (alone, for a database that is not an index), or widen an
    older one (`allow_notes_alone`)."""
    with conn:
        conn.execute(_labels_statement())
    allow_notes_alone(conn)


def _labels_statement() -> str:
    return SCHEMA[SCHEMA.index(_CREATE):].strip().rstrip(";")


def allow_notes_alone(conn: sqlite3.Connection) -> bool:
    """Widen a labels table made before a note could stand alone (label NOT NULL) to the
    schema's, keeping every row as it is; True when it did. One transaction: a kill leaves
    the old table whole, and a second process opening the index meanwhile finds it done."""
    if not _label_required(conn):
        return False
    conn.execute("BEGIN IMMEDIATE")
    try:
        widened = _label_required(conn)
        if widened:
            columns = ", ".join(LABEL_COLUMNS)
            conn.execute(_labels_statement().replace(_CREATE, "CREATE TABLE labels_widened", 1))
            conn.execute(f"INSERT INTO labels_widened ({columns}) SELECT {columns} FROM labels")
            conn.execute("DROP TABLE labels")
            conn.execute("ALTER TABLE labels_widened RENAME TO labels")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return widened


def _label_required(conn: sqlite3.Connection) -> bool:
    """True for a labels table whose label column is NOT NULL (made before notes stood alone)."""
    return any(row[1] == "label" and row[3] for row in conn.execute("PRAGMA table_info(labels)"))


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
    """version id -> the value of `column` (label or note) of those among them that have one
    (a note alone has no label)."""
    if column not in LABEL_COLUMNS:
        raise ValueError(f"no label column {column!r}")
    found: dict[str, str] = {}
    for batch in in_batches(version_ids):
        found.update(conn.execute(
            f"SELECT version_id, {column} FROM labels WHERE repository = ? AND {column} IS NOT NULL "
            f"AND version_id IN ({marks(len(batch))})",
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
    """(qualified name, label, labelled version's text) of labels (not notes alone) on symbols inside
    `qualified_name` in `path` whose version the index still holds."""
    return conn.execute(
        "SELECT l.qualified_name, l.label, v.text FROM labels l JOIN versions v ON v.version_id = l.version_id "
        "WHERE l.repository = ? AND l.label IS NOT NULL AND l.path = ? AND substr(l.qualified_name, 1, ?) = ?",
        (repository, path, len(qualified_name) + 1, qualified_name + "."),
    ).fetchall()
