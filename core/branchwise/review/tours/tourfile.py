"""A tour on disk: a TOML file of ordered steps anchored on symbols, kept in the repository.

Line-anchored walkthroughs decay as soon as code is added above a step; a step anchored on a
symbol identity (path + qualified name), with the content hash and lines it was last seen
with, can be checked and re-anchored like a search result. A step may instead anchor on a
query, answered on the branch at check time.

    title = "Order cancellation"
    description = "From the HTTP handler to the refund"

    [[steps]]
    path = "src/orders/services/order_service.py"
    qualified_name = "OrderService.cancel_order"
    note = "Cancellation starts here."
    start_line = 41
    end_line = 58
    content_hash = "9f3c..."
    commit = "..."            # where the step was last seen (optional)

A step written by hand names `path` and `qualified_name` and nothing else: it is anchored at
the tour file's own last commit (see check.py). Steps imported from CodeTour may also be a whole
file (`path` alone), a `directory`, or a note with no code (`note` alone).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path

import tomli_w

from branchwise.errors import UsageError
from branchwise.review.labels import write_atomically
from branchwise.structured import loads_toml

TOURS_DIR = Path(".branchwise") / "tours"
#: step keys in the order they are written
STEP_KEYS = ("path", "qualified_name", "query", "directory", "note", "symbol_type", "language",
             "start_line", "end_line", "content_hash", "commit")


@dataclass
class Step:
    note: str = ""
    path: str | None = None
    qualified_name: str | None = None
    query: str | None = None
    directory: str | None = None
    symbol_type: str | None = None
    language: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    content_hash: str | None = None
    commit: str | None = None

    @property
    def kind(self) -> str:
        """`symbol`, `query`, `file` (a whole file), `directory` or `note` (no code)."""
        if self.query is not None:
            return "query"
        if self.directory is not None:
            return "directory"
        if self.path is not None:
            return "symbol" if self.qualified_name is not None else "file"
        return "note"

    @property
    def anchor(self) -> str:
        kind = self.kind
        if kind == "query":
            return f"query {self.query!r}"
        if kind == "directory":
            return f"{self.directory} (directory)"
        if kind == "file":
            return f"{self.path} (whole file)"
        if kind == "note":
            return "note"
        return f"{self.path} ({self.qualified_name})"

    def to_toml(self) -> dict:
        return {key: getattr(self, key) for key in STEP_KEYS if getattr(self, key) not in (None, "")}


@dataclass
class Tour:
    title: str
    description: str = ""
    steps: list[Step] = field(default_factory=list)
    path: Path | None = None  # the file it was read from or will be written to

    def to_toml(self) -> dict:
        return {"title": self.title, "description": self.description,
                "steps": [step.to_toml() for step in self.steps]}

    def save(self, path: Path | None = None) -> Path:
        chosen = path or self.path
        if chosen is None:
            raise UsageError(f"tour {self.title!r}: no file to save it to")
        target = Path(chosen)
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, tomli_w.dumps(self.to_toml()).encode("utf-8"))
        self.path = target
        return target


def resolve_tour_path(tour: str, work_tree: Path | None) -> Path:
    """A tour argument: a file path, or a name under the repository's `.branchwise/tours/`."""
    given = Path(tour)
    if given.exists() or given.suffix == ".toml" and given.parent != Path("."):
        return given
    if work_tree is not None:
        name = tour if tour.endswith(".toml") else f"{tour}.toml"
        return work_tree / TOURS_DIR / name
    return given


def load_tour(path: Path) -> Tour:
    try:
        data = loads_toml(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"no tour at {path}") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise UsageError(f"cannot read tour {path}: {error}") from None
    if not isinstance(data.get("title", ""), str) or not isinstance(data.get("steps", []), list):
        raise UsageError(f"tour {path}: `title` must be a string and `steps` a list of tables")
    steps = [_step(path, number, entry) for number, entry in enumerate(data.get("steps", []), 1)]
    return Tour(title=data.get("title") or Path(path).stem, description=str(data.get("description", "")),
                steps=steps, path=Path(path))


def _step(path: Path, number: int, entry: object) -> Step:
    where = f"tour {path}, step {number}"
    if not isinstance(entry, dict):
        raise UsageError(f"{where}: a step must be a table")
    unknown = set(entry) - {f.name for f in fields(Step)}
    if unknown:
        raise UsageError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    for key in ("start_line", "end_line"):
        if key in entry and (not isinstance(entry[key], int) or entry[key] < 1):
            raise UsageError(f"{where}: {key} must be a positive integer")
    for key in set(entry) - {"start_line", "end_line"}:
        if not isinstance(entry[key], str):
            raise UsageError(f"{where}: {key} must be a string")
    step = Step(**entry)
    anchors = [key for key in ("path", "query", "directory") if getattr(step, key) is not None]
    if len(anchors) > 1 or (step.qualified_name is not None and step.path is None):
        raise UsageError(f"{where}: anchor a step on `path` + `qualified_name`, on a `query`, "
                         "on a file (`path`) or a `directory`, or give it only a `note`")
    if step.kind == "note" and not step.note.strip():
        raise UsageError(f"{where}: a step needs an anchor or a note")
    for key in ("path", "directory"):
        value = getattr(step, key)
        if value is not None and not in_repository(value):
            raise UsageError(f"{where}: {key} {value!r} is not a path inside the repository")
    return step


def in_repository(path: str) -> bool:
    """Whether a step's path names something inside the repository (relative, no `..`)."""
    normal = path.replace("\\", "/")
    return bool(normal.strip()) and not normal.startswith("/") and ".." not in normal.split("/") and "\0" not in normal
