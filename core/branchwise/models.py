"""The shared vocabulary of branchwise: identities, chunks, versions and verdicts.

Every other module speaks in these types, so they live in one small module with no
dependencies beyond the standard library. Their names and JSON fields are the CLI's contract.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import Enum


class Verdict(str, Enum):
    """Outcome of use-time verification (machine names are a public contract)."""

    CURRENT = "current"
    UNCHANGED_OLDER = "unchanged-older"
    CHANGED = "changed"
    DELETED = "deleted"
    EXCLUDED = "excluded"
    UNVERIFIABLE = "unverifiable"


class Label(str, Enum):
    """A reviewer's decision about one version; persists across queries."""

    USE = "use"
    REFERENCE_ONLY = "reference-only"
    EXCLUDE = "exclude"


class PathClass(str, Enum):
    """What kind of file a chunk comes from; decides whether it may be used."""

    SOURCE = "source"
    TEST = "test"
    FIXTURE = "fixture"
    GENERATED = "generated"
    BACKUP = "backup"
    VENDORED = "vendored"
    DOCS = "docs"


@dataclass(frozen=True)
class PathMarks:
    """What a commit's `.gitattributes` says about some files' classes (git/pathrules.py).

    `classes`: path -> (class, reason) for files marked `linguist-generated`, `-diff` or
    `linguist-vendored`; `not_vendored`: files marked `linguist-vendored=false` (or
    `-linguist-vendored`), which a well-known vendored folder does not make vendored.
    """

    classes: dict[str, tuple[PathClass, str]] = field(default_factory=dict)
    not_vendored: frozenset[str] = frozenset()

    def only(self, path: str) -> PathMarks:
        """The marks of one file (what a parsing worker is handed with it)."""
        return PathMarks({path: self.classes[path]} if path in self.classes else {},
                         frozenset({path}) & self.not_vendored)


#: Path classes whose chunks never take a usable result's place (verdict `excluded`).
EXCLUDED_CLASSES = frozenset(
    {PathClass.FIXTURE, PathClass.GENERATED, PathClass.BACKUP, PathClass.VENDORED}
)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, order=True)
class Identity:
    """A symbol's stable identity: it survives edits elsewhere in its file."""

    repository: str
    path: str
    language: str
    symbol_type: str
    qualified_name: str

    def key(self) -> str:
        """A single string form, used to hash versions and to index identities."""
        return "\x1f".join(
            (self.repository, self.path, self.language, self.symbol_type, self.qualified_name)
        )


def version_id(identity: Identity, content_hash: str) -> str:
    """Id of one content of one identity: equal bodies on two branches share it."""
    return sha256_hex(f"{identity.key()}\x1e{content_hash}".encode())


@dataclass
class Chunk:
    """One symbol (or module/file remainder) cut from one file by the chunker.

    `text` is exactly lines `start_line..end_line` (1-based, inclusive) of the file,
    decoded for display; `content_hash` is the sha256 of those lines' bytes as stored, except
    for a container whose members are chunks of their own: its `skeleton` (its lines with each
    member's replaced by a marker line) and member signatures are hashed instead, so a member's
    body edit is the member's new version alone (chunking/outline_key.py).
    """

    identity: Identity
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    signature: str
    docstring: str
    parent: Identity | None
    imports: tuple[str, ...]
    text: str
    content_hash: str
    embedding_text: str
    path_class: PathClass = PathClass.SOURCE
    class_reason: str = ""
    skeleton: str | None = None
    #: sha256 of the lines' bytes (the `content_hash` of every chunk but an outline-keyed
    #: container; such a container's key before containers were keyed by their outline)
    lines_hash: str = ""

    @property
    def version_id(self) -> str:
        return version_id(self.identity, self.content_hash)

    @property
    def stored_text(self) -> str:
        """The text the index keeps: one copy of any line, so a container keeps its skeleton."""
        return self.text if self.skeleton is None else self.skeleton

    def has_hash(self, content_hash: str) -> bool:
        """Is this the content `content_hash` names (also as recorded before outline keys)?"""
        return content_hash in (self.content_hash, self.lines_hash)


@dataclass
class FileChunks:
    """Everything the chunker learned from one file: its chunks, or why it was skipped."""

    path: str
    language: str | None
    chunks: list[Chunk] = field(default_factory=list)
    skipped: str | None = None  # reason when the file yields no chunks on purpose
    path_class: PathClass = PathClass.SOURCE
    class_reason: str = ""


@dataclass
class Result:
    """One search hit with its provenance, later completed by verification.

    `branch`, `commit`, `start_line`, `end_line` and `text` describe the code as indexed;
    the `current_*` fields describe it as found in the verification target when it differs.
    """

    rank: int
    score: float
    identity: Identity
    branch: str
    commit: str
    start_line: int
    end_line: int
    indexed_at: str  # ISO 8601, when the branch was indexed at `commit`
    content_hash: str
    text: str
    blob: str | None  # git blob id of the file at `commit`
    version_id: str
    signature: str = ""
    docstring: str = ""
    parent: str | None = None  # qualified name of the enclosing symbol
    imports: tuple[str, ...] = ()  # the file's import statements this symbol uses
    path_class: PathClass = PathClass.SOURCE
    class_reason: str = ""
    history: bool = False  # not in the queried branch's live set (--scope all)
    history_note: str = ""  # e.g. "deleted on main at 9f3c1ab"
    #: history the queried branch never had (no indexed commit of it held this identity)
    never_on_branch: bool = False
    verdict: Verdict | None = None
    reason: str = ""
    current_path: str | None = None
    current_start_line: int | None = None
    current_end_line: int | None = None
    current_text: str | None = None
    label: Label | None = None
    #: 1-based position in each ranking channel's list (None: that channel did not rank it)
    dense_rank: int | None = None
    lexical_rank: int | None = None
    name_rank: int | None = None
    static_rank: int | None = None
    #: a pinned symbol of the queried branch, moved to the top of the candidates (pins.py)
    pinned: bool = False
    #: what `text` is: "full" (the symbol's lines), "outline" (a container's signature, docstring,
    #: fields and member signatures) or "signature"; the verdict describes that text (views.py)
    text_kind: str = "full"
    #: a container's members whose text differs between the indexed version and the target
    changed_members: tuple[str, ...] = ()
    #: verification found the text unchanged at another place than the indexed one (the
    #: `current_*` fields say where); see docs/verification.md, "Moved code"
    moved: bool = False
    #: the verified views by kind (views.View), filled by verification; not part of the JSON
    views: dict = field(default_factory=dict, repr=False)

    @property
    def path(self) -> str:
        return self.identity.path

    @property
    def moved_unchanged(self) -> bool:
        """Gone from its indexed place but found unchanged elsewhere: the branch's own result is
        `current` (or `unchanged-older`) at `current_path`, a history copy stays `deleted`."""
        return self.moved and self.current_path is not None

    def to_json(self) -> dict:
        """The `search --json` result object of the CLI contract."""
        data = {
            "rank": self.rank,
            "score": round(float(self.score), 6),
            "repository": self.identity.repository,
            "path": self.identity.path,
            "language": self.identity.language,
            "symbol_type": self.identity.symbol_type,
            "qualified_name": self.identity.qualified_name,
            "branch": self.branch,
            "commit": self.commit,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "indexed_at": self.indexed_at,
            "content_hash": self.content_hash,
            "verdict": self.verdict.value if self.verdict else None,
            "reason": self.reason,
            "text": self.text,
            "path_class": self.path_class.value,
            "class_reason": self.class_reason,
            "blob": self.blob,
            "version_id": self.version_id,
            "label": self.label.value if self.label else None,
            "signature": self.signature,
            "parent_qualified_name": self.parent,
            "imports": list(self.imports),
            "dense_rank": self.dense_rank,
            "lexical_rank": self.lexical_rank,
            "name_rank": self.name_rank,
            "static_rank": self.static_rank,
            "pinned": self.pinned,
            "text_kind": self.text_kind,
        }
        if self.changed_members:
            data["changed_members"] = list(self.changed_members)
        if self.history:
            data["history"] = self.history_note or True
        if self.current_path is not None:
            data.update(
                current_path=self.current_path,
                current_start_line=self.current_start_line,
                current_end_line=self.current_end_line,
                current_text=self.current_text,
            )
        return data
