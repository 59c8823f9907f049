"""The records the store hands out: one type for a version, one for a branch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields


@dataclass(frozen=True)
class BranchRecord:
    id: int
    repo_id: int
    name: str
    commit_sha: str
    commit_time: str
    indexed_at: str
    #: the ref the branch was taken from ("refs/heads/x", "refs/remotes/origin/x"); "" when
    #: indexed before refs were recorded
    ref: str = ""


BRANCH_COLUMNS = "id, repo_id, name, commit_sha, commit_time, indexed_at, ref"


@dataclass(frozen=True)
class VersionRecord:
    """One stored version with its identity: where it was first indexed, and its text."""

    row: int
    version_id: str
    identity_id: int
    repository: str
    path: str
    language: str
    symbol_type: str
    qualified_name: str
    content_hash: str
    text: str
    signature: str
    docstring: str
    parent: str | None
    path_class: str
    class_reason: str
    first_branch: str
    first_commit: str
    blob: str | None
    start_line: int
    end_line: int
    created_at: str
    imports: str  # the file's imports the symbol uses, one per line

    @classmethod
    def of_row(cls, row: Sequence) -> VersionRecord:
        """The record of a `VERSION_SELECT` row. A search makes one per candidate, and the
        frozen dataclass's `__init__` (one `object.__setattr__` per field) took twice as long."""
        record = object.__new__(cls)
        record.__dict__.update(zip(_VERSION_FIELDS, row))
        return record


_VERSION_FIELDS = tuple(field.name for field in fields(VersionRecord))


#: the select list and joins of a VersionRecord, in its field order
VERSION_SELECT = (
    "SELECT v.id, v.version_id, v.identity_id, r.name, i.path, i.language, i.symbol_type, i.qualified_name, "
    "v.content_hash, v.text, v.signature, v.docstring, v.parent, v.path_class, v.class_reason, "
    "v.first_branch, v.first_commit, v.blob, v.start_line, v.end_line, v.created_at, v.imports "
    "FROM versions v JOIN identities i ON i.id = v.identity_id JOIN repositories r ON r.id = i.repo_id"
)
