"""The connection to one index database (SQLite, WAL): opening it, transactions, meta
values, and the repositories and branches every other store module refers to."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

from branchwise.errors import BranchwiseError
from branchwise.store.records import BRANCH_COLUMNS, BranchRecord
from branchwise.store.schema import SCHEMA, SCHEMA_VERSION

DB_FILE = "index.sqlite3"


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Database:
    """A connection to one index database, with the meta, repository and branch records."""

    def __init__(self, index_dir: Path, *, create: bool = True):
        self.index_dir = Path(index_dir)
        path = self.index_dir / DB_FILE
        if not create and not path.exists():
            raise BranchwiseError(f"no index at {self.index_dir} (run `branchwise index` first)")
        self.index_dir.mkdir(parents=True, exist_ok=True)
        try:
            # the review app calls the core from worker threads, one at a time (it serialises them)
            self.conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.executescript(SCHEMA)
            self._check_schema_version()
            self._add_missing_columns()
        except sqlite3.DatabaseError as error:
            raise BranchwiseError(f"index database {path} is unreadable: {error}") from None

    def _check_schema_version(self) -> None:
        found = self.meta("schema_version")
        if found is None:
            self.set_meta("schema_version", SCHEMA_VERSION)
        elif found != SCHEMA_VERSION:
            raise BranchwiseError(
                f"index at {self.index_dir} has schema {found}, this branchwise needs "
                f"{SCHEMA_VERSION}: re-create it with `branchwise index --index NEWDIR`"
            )

    def _add_missing_columns(self) -> None:
        """Columns added since schema 1, filled with their default in an older database."""
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(versions)")}
        if "imports" not in columns:  # the file's imports a symbol uses, one per line
            self.conn.execute("ALTER TABLE versions ADD COLUMN imports TEXT NOT NULL DEFAULT ''")

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: either all of it lands or none of it does."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # meta -------------------------------------------------------------------------------

    def meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def generation(self) -> int:
        """Bumped by every committed change to versions; the FAISS file records the one it matches."""
        return int(self.meta("generation") or 0)

    def bump_generation(self) -> None:
        self.set_meta("generation", str(self.generation() + 1))

    # repositories and branches --------------------------------------------------------------

    def repo_id(self, name: str) -> int | None:
        row = self.conn.execute("SELECT id FROM repositories WHERE name = ?", (name,)).fetchone()
        return row[0] if row else None

    def add_repository(self, name: str, path: str) -> int:
        """The repository's row, added when it is new; its path is updated to `path`."""
        found = self.repo_id(name)
        if found is not None:
            self.conn.execute("UPDATE repositories SET path = ? WHERE id = ?", (path, found))
            return found
        return self.conn.execute("INSERT INTO repositories (name, path) VALUES (?, ?)", (name, path)).lastrowid or 0

    def repositories(self) -> list[tuple[str, str]]:
        return self.conn.execute("SELECT name, path FROM repositories ORDER BY name").fetchall()

    def repository_ids(self) -> list[tuple[int, str]]:
        return self.conn.execute("SELECT id, name FROM repositories ORDER BY id").fetchall()

    def branch(self, repo_id: int, name: str) -> BranchRecord | None:
        row = self.conn.execute(
            f"SELECT {BRANCH_COLUMNS} FROM branches WHERE repo_id = ? AND name = ?", (repo_id, name)
        ).fetchone()
        return BranchRecord(*row) if row else None

    def branches(self, repo_id: int) -> list[BranchRecord]:
        return [BranchRecord(*row) for row in self.conn.execute(
            f"SELECT {BRANCH_COLUMNS} FROM branches WHERE repo_id = ? ORDER BY name", (repo_id,))]


def default_index_dir(git_dir: Path) -> Path:
    """Without `--index`, a repository's index lives inside its git directory."""
    return Path(git_dir) / "branchwise"


def resolve_index_dir(index: str | os.PathLike[str] | None, git_dir: Path | None) -> Path:
    if index is not None:
        return Path(index).expanduser().resolve()
    if git_dir is None:
        raise BranchwiseError("no index directory: pass --index DIR or --repo REPO")
    return default_index_dir(git_dir)
