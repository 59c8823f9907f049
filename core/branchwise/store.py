"""The index's source of truth: one SQLite database (WAL) per index directory.

It holds repositories, branches with their indexed commit, symbol identities, versions
(one row per distinct content of an identity, shared by every branch that has it), each
branch's live set, tombstones, the embedding cache and the record of index runs. The FAISS
file beside it is derived from this database and can always be rebuilt from it.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from branchwise.errors import BranchwiseError, UsageError

DB_FILE = "index.sqlite3"
SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS repositories (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, path TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS branches (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL REFERENCES repositories(id),
    name TEXT NOT NULL, commit_sha TEXT NOT NULL, commit_time TEXT NOT NULL,
    indexed_at TEXT NOT NULL, UNIQUE (repo_id, name));
CREATE TABLE IF NOT EXISTS identities (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, path TEXT NOT NULL,
    language TEXT NOT NULL, symbol_type TEXT NOT NULL, qualified_name TEXT NOT NULL,
    UNIQUE (repo_id, path, language, symbol_type, qualified_name));
CREATE INDEX IF NOT EXISTS identities_path ON identities (repo_id, path);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY, version_id TEXT NOT NULL UNIQUE,
    identity_id INTEGER NOT NULL REFERENCES identities(id),
    content_hash TEXT NOT NULL, text TEXT NOT NULL, signature TEXT NOT NULL,
    docstring TEXT NOT NULL, parent TEXT, embedding_text TEXT NOT NULL,
    embed_key TEXT NOT NULL, path_key TEXT NOT NULL,
    path_class TEXT NOT NULL, class_reason TEXT NOT NULL,
    first_branch TEXT NOT NULL, first_commit TEXT NOT NULL, blob TEXT,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, created_at TEXT NOT NULL,
    imports TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS versions_identity ON versions (identity_id);
CREATE INDEX IF NOT EXISTS versions_content ON versions (content_hash);
CREATE TABLE IF NOT EXISTS live (
    branch_id INTEGER NOT NULL, identity_id INTEGER NOT NULL, version_row INTEGER NOT NULL,
    blob TEXT, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    PRIMARY KEY (branch_id, identity_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS live_version ON live (version_row);
CREATE TABLE IF NOT EXISTS tombstones (
    id INTEGER PRIMARY KEY, branch_id INTEGER NOT NULL, identity_id INTEGER NOT NULL,
    version_row INTEGER NOT NULL, commit_sha TEXT NOT NULL, last_commit TEXT NOT NULL,
    blob TEXT, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS tombstones_version ON tombstones (version_row);
CREATE TABLE IF NOT EXISTS skipped_files (
    branch_id INTEGER NOT NULL, path TEXT NOT NULL, reason TEXT NOT NULL,
    PRIMARY KEY (branch_id, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL, key TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, branch TEXT NOT NULL,
    commit_sha TEXT NOT NULL, started TEXT NOT NULL, finished TEXT NOT NULL,
    summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS unpublished (
    version_row INTEGER PRIMARY KEY, version_id TEXT NOT NULL, point INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS published_terms (term TEXT PRIMARY KEY, documents INTEGER NOT NULL) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS lexical USING fts5 (
    symbol, name, signature, docstring, code, path, tokenize = 'porter unicode61');
"""


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
    path = path or "(the index)"
    if isinstance(error, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return BranchwiseError(f"index database {path} is busy: another process holds it "
                               f"(waited {BUSY_TIMEOUT_SECONDS:g}s); try again when it has finished")
    if isinstance(error, sqlite3.OperationalError) and "readonly" in text.replace("-", "").replace(" ", ""):
        return BranchwiseError(f"index database {path} is read-only here: this command must write it")
    if isinstance(error, sqlite3.OperationalError) and "unable to open" in text:
        return BranchwiseError(f"index database {path} cannot be opened: {text}")
    return BranchwiseError(f"index database {path} is damaged: {text} "
                           "(re-create it with `branchwise index --index NEWDIR`)")


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def require_index(index_dir: Path) -> None:
    """Refuse (exit 2) an index directory that holds no index: a reader must not create one."""
    if not (Path(index_dir) / DB_FILE).exists():
        raise UsageError(f"no index at {index_dir}; run branchwise index first")


class Store:
    """A connection to one index database, with the queries every module shares."""

    def __init__(self, index_dir: Path, *, create: bool = True):
        self.index_dir = Path(index_dir)
        path = self.index_dir / DB_FILE
        if not create:
            require_index(self.index_dir)
        #: an index directory this process may not write is opened read-only: it can be searched
        self.read_only = path.exists() and not (os.access(self.index_dir, os.W_OK) and os.access(path, os.W_OK))
        if not self.read_only:
            make_index_dir(self.index_dir)
        try:
            self.conn = self._connect(path)
            if not self.read_only:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            if self.read_only:
                self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            else:
                self.conn.executescript(SCHEMA)
            self._check_schema_version()
            self._add_missing_columns()
        except sqlite3.DatabaseError as error:
            raise database_error(error, path) from None
        if not self.read_only:
            from branchwise import labels

            labels.ensure_schema(self.conn)

    def _connect(self, path: Path) -> sqlite3.Connection:
        # the review app calls the core from worker threads, one at a time (it serialises them)
        options = {"timeout": BUSY_TIMEOUT_SECONDS, "isolation_level": None, "check_same_thread": False}
        if not self.read_only:
            return sqlite3.connect(path, **options)
        uri = f"file:{quote(str(path.resolve()))}?mode=ro"
        try:
            conn = sqlite3.connect(uri, uri=True, **options)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:  # a WAL database whose -shm cannot be created here
            return sqlite3.connect(f"{uri}&immutable=1", uri=True, **options)

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
        """Columns added since schema 1, filled with their default in an older database."""
        columns = {row[1] for row in self.conn.execute("PRAGMA table_info(versions)")}
        if "imports" not in columns:  # the file's imports a symbol uses, one per line
            self.conn.execute("ALTER TABLE versions ADD COLUMN imports TEXT NOT NULL DEFAULT ''")

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self):
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

    # the outbox of a shared backend ------------------------------------------------------

    def mark_unpublished(self, version_rows, point: bool = False) -> None:
        """Record versions whose visibility changed (`point`: or which are new or gone) since
        a shared vector backend last published; written in the index run's transaction, so
        a crash between the commit and the publishing loses nothing (see qdrant/).
        A database that never published keeps no outbox: its first publishing sends all."""
        if self.meta("publishing") is None:
            return
        rows = sorted(set(version_rows))
        for start in range(0, len(rows), 900):
            chunk = rows[start : start + 900]
            self.conn.execute(
                f"INSERT INTO unpublished SELECT id, version_id, ? FROM versions WHERE id IN "
                f"({','.join('?' * len(chunk))}) ON CONFLICT (version_row) "
                "DO UPDATE SET point = max(point, excluded.point)",
                (int(point), *chunk),
            )

    # repositories and branches --------------------------------------------------------------

    def repo_id(self, name: str, path: str | None = None) -> int | None:
        row = self.conn.execute("SELECT id FROM repositories WHERE name = ?", (name,)).fetchone()
        if row:
            if path is not None:
                self.conn.execute("UPDATE repositories SET path = ? WHERE id = ?", (path, row[0]))
            return row[0]
        if path is None:
            return None
        return self.conn.execute(
            "INSERT INTO repositories (name, path) VALUES (?, ?)", (name, path)
        ).lastrowid

    def repositories(self) -> list[tuple[str, str]]:
        return self.conn.execute("SELECT name, path FROM repositories ORDER BY name").fetchall()

    def branch(self, repo_id: int, name: str) -> sqlite3.Row | None:
        self.conn.row_factory = sqlite3.Row
        try:
            return self.conn.execute(
                "SELECT * FROM branches WHERE repo_id = ? AND name = ?", (repo_id, name)
            ).fetchone()
        finally:
            self.conn.row_factory = None

    def branches(self, repo_id: int) -> list[sqlite3.Row]:
        self.conn.row_factory = sqlite3.Row
        try:
            return self.conn.execute(
                "SELECT * FROM branches WHERE repo_id = ? ORDER BY name", (repo_id,)
            ).fetchall()
        finally:
            self.conn.row_factory = None

    def skipped_files(self, branch_id: int) -> list[tuple[str, str]]:
        """The files an index run left out of a branch, with the reason, by path."""
        return self.conn.execute(
            "SELECT path, reason FROM skipped_files WHERE branch_id = ? ORDER BY path", (branch_id,)
        ).fetchall()

    # live sets --------------------------------------------------------------------------------

    def live_symbols(self, branch_id: int, paths) -> list[tuple]:
        """A branch's live versions in `paths`: (path, language, symbol_type, qualified_name,
        start_line, end_line, content_hash, text, path_class, class_reason), by path and line."""
        paths = sorted(set(paths))
        rows: list[tuple] = []
        for start in range(0, len(paths), 500):
            chunk = paths[start : start + 500]
            rows += self.conn.execute(
                "SELECT i.path, i.language, i.symbol_type, i.qualified_name, l.start_line, l.end_line, "
                "v.content_hash, v.text, v.path_class, v.class_reason FROM live l "
                "JOIN identities i ON i.id = l.identity_id JOIN versions v ON v.id = l.version_row "
                f"WHERE l.branch_id = ? AND i.path IN ({','.join('?' * len(chunk))})",
                (branch_id, *chunk),
            ).fetchall()
        return sorted(rows, key=lambda row: (row[0], row[4], row[3]))

    # re-keying a version ----------------------------------------------------------------------

    def rekey_version(self, row: int, new_version_id: str, content_hash: str, text: str) -> int:
        """Give the version in `row` another key (the same content, hashed another way) and the
        text the index keeps for it. When another row holds that key already they are one
        version: live sets and tombstones move to that row, this row goes. Labels follow the
        version. Returns the row that holds it now."""
        old_id = self.conn.execute("SELECT version_id FROM versions WHERE id = ?", (row,)).fetchone()[0]
        self.conn.execute("UPDATE OR IGNORE labels SET version_id = ?, content_hash = ? WHERE version_id = ?",
                          (new_version_id, content_hash, old_id))
        holder = self.conn.execute("SELECT id FROM versions WHERE version_id = ?", (new_version_id,)).fetchone()
        if holder is not None:
            self.mark_unpublished([row], point=True)
            for table in ("live", "tombstones"):
                self.conn.execute(f"UPDATE {table} SET version_row = ? WHERE version_row = ?", (holder[0], row))
            self.conn.execute("DELETE FROM lexical WHERE rowid = ?", (row,))
            self.conn.execute("DELETE FROM versions WHERE id = ?", (row,))
            return holder[0]
        self.conn.execute("UPDATE versions SET version_id = ?, content_hash = ?, text = ? WHERE id = ?",
                          (new_version_id, content_hash, text, row))
        return row


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
