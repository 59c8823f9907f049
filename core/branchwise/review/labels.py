"""Reviewer labels: a human's decision about one version, kept for every later query.

A reviewer who has decided that a chunk is only a reference for an idea, or must never reach a
model, should not have to decide again tomorrow. A note may stand alone, without a label: the
version keeps its default handling (`effective_label`), and the note travels with it as a
labelled one's does (bundles, exports, `labels list`). Labels are keyed by (repository, version id):
the version id hashes identity and content, so a label follows the exact text it was given for
and lapses by itself when the code changes. They live in the index's SQLite database (the
caller passes the connection) and travel between indexes as a small TOML file.

This module also states the default handling of each verdict, so that the bundle and the
statistics agree on what counts as a reviewer's override.
"""

from __future__ import annotations

import getpass
import os
import re
import sqlite3
import tempfile
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from branchwise.errors import UsageError
from branchwise.models import Identity, Label, Result, Verdict, version_id
from branchwise.review import labelfile
from branchwise.search import pins
from branchwise.store import labels as store_labels
from branchwise.store import pins as store_pins

IDENTITY_FIELDS = ("path", "language", "symbol_type", "qualified_name")


@dataclass(frozen=True)
class LabelRecord:
    """One stored label or note, with what it was given for (label None: a note alone)."""

    repository: str
    version_id: str
    path: str
    language: str
    symbol_type: str
    qualified_name: str
    content_hash: str
    label: Label | None
    note: str
    reviewer: str
    labelled_at: str


def ensure_schema(conn: sqlite3.Connection) -> None:
    """The labels and pins tables in a database that is not an index (an index database has them)."""
    store_labels.ensure_labels_table(conn)
    store_pins.ensure_pins_table(conn)


# default handling ----------------------------------------------------------------------------


def default_label(result: Result) -> Label:
    """How a result is handled when no reviewer has labelled it (by its verdict)."""
    if result.verdict is Verdict.EXCLUDED:
        return Label.EXCLUDE
    if result.history:  # other branches' and deleted code: for the idea, unless a reviewer says use
        return Label.REFERENCE_ONLY  # a copy moved unchanged too: --scope all adds, never changes
    if result.moved_unchanged:  # the branch's own code, current at its new place
        return Label.USE
    if result.verdict in (Verdict.DELETED, Verdict.UNVERIFIABLE):
        return Label.REFERENCE_ONLY
    return Label.USE


def effective_label(result: Result) -> Label:
    return result.label or default_label(result)


def is_override(result: Result) -> bool:
    """True when a reviewer's label differs from the default handling of the verdict."""
    return result.label is not None and result.label is not default_label(result)


def parse_label(value: Label | str) -> Label:
    try:
        return Label(value)
    except ValueError:
        choices = ", ".join(label.value for label in Label)
        raise UsageError(f"unknown label {value!r} (choose {choices})") from None


# storage -------------------------------------------------------------------------------------


def set_label(
    conn: sqlite3.Connection,
    repository: str,
    target: Result | Mapping,
    label: Label | str | None,
    note: str = "",
    reviewer: str | None = None,
    labelled_at: str | None = None,
) -> str:
    """Label one version (a Result, or a mapping with identity fields and content_hash), with
    a note or without; with `label` None the note stands alone, and with no note either
    nothing is kept for the version.

    Returns the version id; labelling it again replaces the earlier label and note.
    """
    label = None if label is None else parse_label(label)
    identity, content_hash = _identity_of(repository, target)
    vid = version_id(identity, content_hash)
    if label is None and not note:
        store_labels.delete_label(conn, repository, vid)
        return vid
    store_labels.put_label(conn, (
        repository, vid, identity.path, identity.language, identity.symbol_type,
        identity.qualified_name, content_hash, None if label is None else label.value, note,
        _default_reviewer() if reviewer is None else reviewer,
        labelled_at or datetime.now(timezone.utc).isoformat(timespec="seconds"),
    ))
    return vid


def clear_label(conn: sqlite3.Connection, repository: str, target: Result | Mapping | str) -> bool:
    """Remove the label and note of a version (a Result, a mapping, or a version id); True if
    it had either."""
    vid = target if isinstance(target, str) else version_id(*_identity_of(repository, target))
    return store_labels.delete_label(conn, repository, vid)


def labels_for(conn: sqlite3.Connection, repository: str, version_ids: Iterable[str]) -> dict[str, Label]:
    return {vid: Label(label) for vid, label in _column_for(conn, "label", repository, version_ids).items()}


def notes_for(conn: sqlite3.Connection, repository: str, version_ids: Iterable[str]) -> dict[str, str]:
    """The reviewers' notes on versions, labelled or not (empty notes left out): `BundleContext.notes`."""
    return {vid: note for vid, note in _column_for(conn, "note", repository, version_ids).items() if note}


def _column_for(conn: sqlite3.Connection, column: str, repository: str, version_ids: Iterable[str]) -> dict[str, str]:
    return store_labels.label_values(conn, column, repository, list(dict.fromkeys(version_ids)))


def apply_labels(conn: sqlite3.Connection, results: list[Result]) -> list[Result]:
    """Fill `Result.label` from the stored labels (None where unlabelled, a note alone too), in place."""
    by_repository: dict[str, list[Result]] = {}
    for result in results:
        by_repository.setdefault(result.identity.repository, []).append(result)
    for repository, group in by_repository.items():
        found = labels_for(conn, repository, (r.version_id for r in group))
        for result in group:
            result.label = found.get(result.version_id)
    return results


def list_labels(conn: sqlite3.Connection, repository: str) -> list[LabelRecord]:
    return [_record(row) for row in store_labels.label_rows(conn, repository)]


def label_record(conn: sqlite3.Connection, repository: str, vid: str) -> LabelRecord | None:
    """The stored label of one version, whole (reviewer and time too), or None."""
    row = store_labels.label_row(conn, repository, vid)
    return None if row is None else _record(row)


def restore_label(conn: sqlite3.Connection, repository: str, vid: str, record: LabelRecord | None) -> None:
    """Put a version's label back exactly as `label_record` read it (None: no label), so an
    undo leaves the labels table as it was, reviewer and time included."""
    if record is None:
        store_labels.delete_label(conn, repository, vid)
        return
    store_labels.put_label(conn, (
        record.repository, record.version_id, record.path, record.language, record.symbol_type,
        record.qualified_name, record.content_hash, record.label and record.label.value, record.note, record.reviewer,
        record.labelled_at,
    ))


def _record(row: tuple) -> LabelRecord:
    repository, vid, path, language, symbol_type, qualified_name, content_hash, label, note, reviewer, at = row
    return LabelRecord(repository, vid, path, language, symbol_type, qualified_name, content_hash,
                       None if label is None else Label(label), note, reviewer, at)


# TOML exchange -------------------------------------------------------------------------------


def export_labels(conn: sqlite3.Connection, repository: str, path: Path,
                  allows: Callable[[str], bool] | None = None) -> int:
    """Write the repository's labels (with `allows`, those of paths it allows) as `[[label]]`
    tables (a note alone: a table without `label`), and its pins as `[[pin]]` tables; returns
    how many tables were written."""
    records = [r for r in list_labels(conn, repository) if allows is None or allows(r.path)]
    document = {
        "repository": repository,
        "label": [_table(r) for r in records],
    }
    pinned = [p for p in pins.list_pins(conn, repository) if allows is None or allows(p.path)]
    if pinned:  # an empty array would be written inline, outside the subset labelfile reads fast
        document["pin"] = pins.export_tables(pinned)
    import tomli_w  # here: a search reads labels and never writes them

    write_atomically(Path(path), tomli_w.dumps(document).encode("utf-8"))
    return len(records)


def _table(record: LabelRecord) -> dict[str, str]:
    """One `[[label]]` table; a note alone has no `label` key (TOML has no null)."""
    table = {"path": record.path, "qualified_name": record.qualified_name, "symbol_type": record.symbol_type,
             "language": record.language, "content_hash": record.content_hash}
    if record.label is not None:
        table["label"] = record.label.value
    return table | {"note": record.note, "reviewer": record.reviewer, "labelled_at": record.labelled_at}


def import_labels(conn: sqlite3.Connection, repository: str, path: Path,
                  allows: Callable[[str], bool] | None = None) -> int:
    """Read a labels file into `repository` (the file's own `repository` key is informative).

    Every entry is checked (a repository-relative path, a sha256 content hash, a known label
    or, without one, a note that stands alone,
    an ISO 8601 date, and, with `allows`, a path the importing user may read) and all of them
    land in one transaction, so a bad entry or a killed import leaves the labels as they were. Version ids are recomputed from identity + content_hash, so a file from another
    index of the same code applies as is. Returns how many labels were stored.
    """
    path = Path(path)
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    reviewer = _default_reviewer()

    def rows_of(entries):
        for number, entry in enumerate(entries, start=1):
            yield _row(path, number, entry, repository, allows, now, reviewer)

    def pin_rows(tables: list) -> list[tuple]:
        return pins.import_rows(str(path), tables, repository, allows, now, reviewer, repository_relative)

    try:
        try:
            with path.open(encoding="utf-8", newline="") as lines:  # read as it is stored, line by line
                tables: list = []
                return _store_all(conn, rows_of(labelfile.label_tables(lines, tables)), lambda: pin_rows(tables))
        except labelfile.NotExportFormat:
            tables = []
            entries = labelfile.toml_label_tables(path.read_text(encoding="utf-8"), tables)
    except OSError as error:
        raise UsageError(f"cannot read labels file {path}: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"bad labels file {path}: {error}") from None
    if not isinstance(entries, list):
        raise UsageError(f"bad labels file {path}: 'label' must be an array of tables ([[label]])")
    return _store_all(conn, rows_of(entries), lambda: pin_rows(tables))


def _store_all(conn: sqlite3.Connection, rows: Iterable[tuple], pin_rows: Callable[[], list[tuple]]) -> int:
    """Insert every row in one transaction; the rows are checked as they come, and the first
    bad one (or a kill) rolls all of them back, so nothing is held in memory but the file.
    The pins (read while the labels stream by) are checked and stored in the same transaction."""
    stored = 0

    def counted():
        nonlocal stored
        for row in rows:
            stored += 1
            yield row

    store_labels.put_labels(conn, counted(), pins=pin_rows)
    return stored


def write_atomically(path: Path, data: bytes, private: bool = False) -> None:
    """Replace `path` with `data` in one step; the parent directory must already exist.

    The file gets the mode the umask gives a new file (as `open` would), or owner-only (0600)
    when it is `private`: for files that could hold a secret (see docs/guarantees-and-security.md).
    """
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"directory does not exist: {parent}")
    if path.is_dir():
        raise UsageError(f"{path} is a directory")
    fd, temp = tempfile.mkstemp(dir=parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        if not private:
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask, read without changing it where the system allows (Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


# helpers -------------------------------------------------------------------------------------


def _identity_of(repository: str, target: Result | Mapping) -> tuple[Identity, str]:
    if isinstance(target, Result):
        i = target.identity
        return Identity(repository, i.path, i.language, i.symbol_type, i.qualified_name), target.content_hash
    return Identity(repository, *(target[name] for name in IDENTITY_FIELDS)), target["content_hash"]


#: the longest note or reviewer name a labels file may carry
MAX_TEXT = 10_000
_SHA256 = re.compile(r"[0-9a-f]{64}")


def _row(path: Path, number: int, entry: object, repository: str, allows: Callable[[str], bool] | None,
         now: str, reviewer: str) -> tuple:
    """One checked entry as a row of the labels table (UsageError naming the entry otherwise)."""
    def bad(message: str) -> UsageError:
        return UsageError(f"bad labels file {path}: label #{number}: {message}")

    if not isinstance(entry, dict):
        raise bad("is not a table")
    for name in (*IDENTITY_FIELDS, "content_hash"):
        if not isinstance(entry.get(name), str) or not entry[name]:
            raise UsageError(f"bad labels file {path}: label #{number} lacks {name!r}")
    for name in ("note", "reviewer", "labelled_at"):
        if name in entry and (not isinstance(entry[name], str) or len(entry[name]) > MAX_TEXT):
            raise bad(f"{name!r} must be a string of at most {MAX_TEXT} characters")
    note = entry.get("note", "")
    if "label" not in entry and not note:  # a table without a label is a note alone
        raise UsageError(f"bad labels file {path}: label #{number} lacks 'label' (or a 'note' alone)")
    file_path = entry["path"]
    if not repository_relative(file_path):
        raise bad(f"path {file_path!r} is not a path inside the repository")
    if allows is not None and not allows(file_path):
        raise bad(f"path {file_path!r} is outside what you may read")
    try:
        label = None if "label" not in entry else parse_label(entry["label"])
    except UsageError as error:
        raise bad(str(error)) from None
    if not _SHA256.fullmatch(entry["content_hash"]):
        raise bad(f"content_hash {entry['content_hash']!r} is not a sha256 (64 lowercase hexadecimal digits)")
    labelled_at = entry.get("labelled_at") or now
    try:
        when = datetime.fromisoformat(labelled_at)
    except ValueError:
        raise bad(f"labelled_at {labelled_at!r} is not an ISO 8601 date") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    identity = Identity(repository, *(entry[name] for name in IDENTITY_FIELDS))
    return (repository, version_id(identity, entry["content_hash"]), *(entry[name] for name in IDENTITY_FIELDS),
            entry["content_hash"], None if label is None else label.value, note,
            entry.get("reviewer", reviewer), when.isoformat(timespec="seconds"))


def repository_relative(path: str) -> bool:
    """A `/`-separated path inside a repository: not absolute, no `..` or empty part, no NUL."""
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and "\0" not in path and ".." not in parts and "" not in parts


def _default_reviewer() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in the environment or the password database
        return ""


def member_labels(conn: sqlite3.Connection, repository: str, path: str, qualified_name: str) -> list[tuple[str, Label, str]]:
    """Labels on symbols inside `qualified_name` in `path`: (qualified name, label, labelled text).

    The text is the labelled version's, from the index, so that the bundle can find it inside
    the enclosing symbol's text; labels on versions the index no longer holds are skipped.
    """
    rows = store_labels.member_label_rows(conn, repository, path, qualified_name)
    return [(name, Label(label), text) for name, label, text in rows]


#: who labels or pins when no name is given: the OS user
default_reviewer = _default_reviewer
