"""The connection to one index database (SQLite, WAL): opening it, transactions, meta
values, and the repositories and branches every other store module refers to."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from branchwise.errors import BranchwiseError, UsageError
from branchwise.store.labels import allow_notes_alone
from branchwise.store.records import BRANCH_COLUMNS, BranchRecord
from branchwise.store.schema import SCHEMA, SCHEMA_VERSION

DB_FILE = "index.sqlite3"

#: how long a command waits for another process's lock on the database before saying "busy"
BUSY_TIMEOUT_SECONDS = 30.0


def make_index_dir(index_dir: Path) -> None:
    """Create the index directory (and parents), or say in one line why it cannot be."""
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UsageError(f"the index directory {index_dir} is a file (or under one)") from None
    except OSError as error:
        raise UsageError(f"cannot create the index directory {index_dir}: {error.strerror or error}") from None
    if not os.access(index_dir, os.W_OK):
        raise UsageError(f"the index directory {index_dir} is not writable")


def database_error(error: sqlite3.DatabaseError, path: Path | None = None) -> BranchwiseError:
    """One line for a database failure: busy (another process holds it), read-only, or damaged."""
    text = str(error)
    where = path or "(the index)"
    if isinstance(error, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return BranchwiseError(f"index database {where} is busy: another process holds it "
                               f"(waited {BUSY_TIMEOUT_SECONDS:g}s); try again when it has finished")
    if isinstance(error, sqlite3.OperationalError) and "readonly" in text.replace("-", "").replace(" ", ""):
        return BranchwiseError(f"index database {where} is read-only here: this command must write it")
    if isinstance(error, sqlite3.OperationalError) and "unable to open" in text:
        return BranchwiseError(f"index database {where} cannot be opened: {text}")
    return BranchwiseError(f"index database {where} is damaged: {text} "
                           "(re-create it with `branchwise index --index NEWDIR`)")


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def require_index(index_dir: Path) -> None:
    """Refuse (exit 2) an index directory that holds no index: a reader must not create one."""
    if not (Path(index_dir) / DB_FILE).exists():
        raise UsageError(f"no index at {index_dir}; run branchwise index first")


#: bytes per database page of a new index: an embedding row (a 384-float vector, 1.5 KB, in a
#: table without rowid) fits in an 8 KB page, where with 4 KB pages every row spilled its tail
#: to an overflow page of its own (the embedding cache took three times its size, and every
#: write of it three times the I/O)
PAGE_SIZE = 8192


class Database:
    """A connection to one index database, with the meta, repository and branch records."""

    def __init__(self, index_dir: Path, *, create: bool = True):
        self.index_dir = Path(index_dir)
        path = self.index_dir / DB_FILE
        if not create:
            require_index(self.index_dir)
        #: an index directory this process may not write is opened read-only: it can be searched
        self.read_only = path.exists() and not (os.access(self.index_dir, os.W_OK) and os.access(path, os.W_OK))
        if not self.read_only:
            make_index_dir(self.index_dir)
        new = not path.exists()
        self._held = threading.local()
        try:
            self.conn = self._connect(path)
            if new:  # settable only before the first table; see PAGE_SIZE
                self.conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            if not self.read_only:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
                self.conn.execute("PRAGMA wal_autocheckpoint = 0")  # see `checkpoint`
            self.conn.execute("PRAGMA foreign_keys=ON")
            if self.read_only:
                self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            else:
                self.conn.executescript(SCHEMA)
            self._check_schema_version()
            self._add_missing_columns()
        except sqlite3.DatabaseError as error:
            raise database_error(error, path) from None

    def _connect(self, path: Path) -> sqlite3.Connection:
        # the review app calls the core from worker threads, one at a time (it serialises them)
        timeout, same_thread = BUSY_TIMEOUT_SECONDS, False
        if not self.read_only:
            return sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=same_thread)
        uri = f"file:{quote(str(path.resolve()))}?mode=ro"
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None, check_same_thread=same_thread)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:  # a WAL database whose -shm cannot be created here
            return sqlite3.connect(f"{uri}&immutable=1", uri=True, timeout=timeout, isolation_level=None,
                                   check_same_thread=same_thread)

    def check_integrity(self) -> None:
        """Raise (exit 1, one line) unless SQLite finds the whole database sound."""
        try:
            found = [row[0] for row in self.conn.execute("PRAGMA integrity_check(5)")]
        except sqlite3.DatabaseError as error:
            raise database_error(error, self.index_dir / DB_FILE) from None
        if found != ["ok"]:
            raise BranchwiseError(
                f"index database {self.index_dir / DB_FILE} is damaged ({found[0]}): nothing was changed; "
                "re-create it with `branchwise index --index NEWDIR`")

    def _check_schema_version(self) -> None:
        found = self.meta("schema_version")
        if found is None and self.read_only:
            raise BranchwiseError(f"index at {self.index_dir} is read-only and not initialised")
        if found is None:
            self.set_meta("schema_version", SCHEMA_VERSION)
        elif found != SCHEMA_VERSION:
            raise BranchwiseError(
                f"index at {self.index_dir} has schema {found}, this branchwise needs "
                f"{SCHEMA_VERSION}: re-create it with `branchwise index --index NEWDIR`"
            )

    def _add_missing_columns(self) -> None:
        """Columns added since schema 1, filled with their default in an older database, and
        the labels table widened for a note alone (store/labels.py)."""
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(versions)")}
        if "imports" not in columns:  # the file's imports a symbol uses, one per line
            self.conn.execute("ALTER TABLE versions ADD COLUMN imports TEXT NOT NULL DEFAULT ''")
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(branches)")}
        if "ref" not in columns:  # the ref a branch was taken from
            self.conn.execute("ALTER TABLE branches ADD COLUMN ref TEXT NOT NULL DEFAULT ''")
        if not self.read_only:  # a note without a label (an older index's rows all kept)
            allow_notes_alone(self.conn)

    def close(self) -> None:
        self.conn.close()

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file, as far as readers allow.

        A writer calls this when it is done (and the embedding stage every so many batches)
        instead of SQLite's automatic checkpoint after any commit that finds the log past
        1,000 pages: after a branch's bulk load that was every commit of the embedding
        stage, each with its two fsyncs (4 of the stdlib's 6 seconds of embedding overhead)."""
        if not self.read_only:
            self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

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

    @contextmanager
    def held(self) -> Iterator[None]:
        """Within the block (in this thread), the generation and each repository's branches are
        read once, at their first use: one question's steps agree on them, and a warm MCP
        answer read the branches six times and the generation five. A reader's block: a write
        inside it would not be seen by the reads it holds."""
        if getattr(self._held, "answers", None) is not None:
            yield
            return
        self._held.answers = {}
        try:
            yield
        finally:
            self._held.answers = None

    def _once(self, key: object, read):
        answers = getattr(self._held, "answers", None)
        if answers is None:
            return read()
        if key not in answers:
            answers[key] = read()
        return answers[key]

    def generation(self) -> int:
        """Bumped by every committed change to versions; the FAISS file records the one it matches."""
        return self._once("generation", lambda: int(self.meta("generation") or 0))

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

    def skipped_files(self, branch_id: int) -> list[tuple[str, str]]:
        """The files an index run left out of a branch, with the reason, by path."""
        return self.conn.execute(
            "SELECT path, reason FROM skipped_files WHERE branch_id = ? ORDER BY path", (branch_id,)
        ).fetchall()

    def branches(self, repo_id: int) -> list[BranchRecord]:
        return list(self._once(("branches", repo_id), lambda: [BranchRecord(*row) for row in self.conn.execute(
            f"SELECT {BRANCH_COLUMNS} FROM branches WHERE repo_id = ? ORDER BY name", (repo_id,))]))


def default_index_dir(git_dir: Path) -> Path:
    """Without `--index`, a repository's index lives inside its git directory."""
    return Path(git_dir) / "branchwise"


def resolve_index_dir(index: str | os.PathLike[str] | None, git_dir: Path | None) -> Path:
    if index is not None:
        resolved = Path(index).expanduser().resolve()
        if resolved.exists() and not resolved.is_dir():
            raise UsageError(f"--index {index} is not a directory")
        return resolved
    if git_dir is None:
        raise BranchwiseError("no index directory: pass --index DIR or --repo REPO")
    return default_index_dir(git_dir)
