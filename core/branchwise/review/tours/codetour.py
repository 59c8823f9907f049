"""CodeTour interchange: `.tour` files (JSON, line-based steps) in and out.

Teams already keep CodeTour walkthroughs for their editors. Importing anchors each line-based
step on the innermost symbol that holds the line at the tour's `ref` (or HEAD), so the
walkthrough can be checked and fixed from then on, and keeps CodeTour's file, directory and
text steps as such; exporting writes the current lines back, so the editor extension keeps
working and gets corrected line numbers, and says which steps decayed.
"""

from __future__ import annotations

import json
from pathlib import Path

from branchwise.chunking import chunk_file
from branchwise.errors import UsageError
from branchwise.git.repo import GitRepo
from branchwise.review.labels import write_atomically
from branchwise.review.tours.check import TourCheck
from branchwise.review.tours.tourfile import Step, Tour, in_repository
from branchwise.structured import loads_json
from branchwise.verify.symbols import innermost_at


def read_codetour(path: Path) -> dict:
    """A CodeTour file's data, its steps checked for the types CodeTour gives them."""
    try:
        data = loads_json(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"no CodeTour file at {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UsageError(f"cannot read CodeTour file {path}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise UsageError(f"{path} is not a CodeTour file (no `steps` list)")
    for key in ("title", "description", "ref"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise UsageError(f"CodeTour file {path}: `{key}` must be a string")
    for number, step in enumerate(data["steps"], 1):
        problem = _step_problem(step)
        if problem:
            raise UsageError(f"CodeTour file {path}, step {number}: {problem}")
    return data


def import_codetour(repo: GitRepo, data: dict, rules=None) -> tuple[Tour, list[str]]:
    """A tour from CodeTour data (checked by `read_codetour`), and one message per step left out.

    A step on a line becomes a step on the innermost symbol holding that line at the tour's
    `ref` (or HEAD); a line no symbol holds, or a step on a file without a line, becomes a
    whole-file step; a directory step stays one; a step with only a title and description
    becomes a note. Only a step whose file is not in the repository at `ref` is left out.
    """
    ref = data.get("ref") or "HEAD"
    commit = repo.resolve(ref)
    tour = Tour(title=str(data.get("title") or "Imported tour"), description=str(data.get("description", "")))
    skipped: list[str] = []
    cache: dict[str, list | None] = {}
    for number, raw in enumerate(data["steps"], 1):
        note = _note_of(raw)
        if raw.get("uri") is not None:
            skipped.append(f"step {number}: a uri step ({raw['uri']}) points outside the repository")
            continue
        if raw.get("directory") is not None:
            tour.steps.append(Step(note=note, directory=_relative(raw["directory"]).rstrip("/")))
            continue
        if raw.get("file") is None:
            tour.steps.append(Step(note=note))
            continue
        path, line = _relative(raw["file"]), _line_of(raw)
        if path not in cache:
            blob = repo.blob_at(commit, path)
            cache[path] = None if blob is None else chunk_file(repo.name, path, repo.read_blob(blob), rules).chunks
        chunks = cache[path]
        if chunks is None:
            skipped.append(f"step {number}: no file {path} at {ref}")
            continue
        chunk = innermost_at(chunks, line) if line is not None else None
        if chunk is None:
            tour.steps.append(Step(note=note, path=path, start_line=line, commit=commit))
            continue
        tour.steps.append(Step(
            note=note, path=path, qualified_name=chunk.identity.qualified_name,
            symbol_type=chunk.identity.symbol_type, language=chunk.identity.language,
            start_line=chunk.start_line, end_line=chunk.end_line, content_hash=chunk.content_hash,
            commit=commit,
        ))
    if data["steps"] and not tour.steps:
        raise UsageError(f"no step of the CodeTour could be imported ({skipped[0]})")
    return tour, skipped


def export_codetour(check: TourCheck) -> tuple[dict, list[str]]:
    """CodeTour data with each step at its current lines, and one warning per decayed step.

    A step whose code is gone (nowhere to point at) is left out; a step whose code changed is
    kept at its current lines, its title marked, since CodeTour has no place for a verdict.
    """
    steps, warnings = [], []
    for item in check.steps:
        kind = item.step.kind
        if kind == "note":
            steps.append(_without_empty({"title": _title(item.step.note), "description": item.step.note}))
            continue
        if item.decayed and item.path is None:
            warnings.append(f"left out step {item.number} ({item.verdict.value}): {item.step.anchor}: {item.reason}")
            continue
        if kind == "directory":
            steps.append({"directory": item.step.directory, "description": item.step.note})
            continue
        entry: dict = {"file": item.path, "description": item.step.note}
        line = item.start_line or item.step.start_line
        if line is not None:
            entry["line"] = line
        title = item.qualified_name or ""
        if item.decayed:
            warnings.append(f"step {item.number} is {item.verdict.value} ({item.reason}): exported at "
                            f"its current place, title marked")
            title = f"[{item.verdict.value}] {title}".rstrip()
        entry["title"] = title
        steps.append(entry)
    data = {"$schema": "https://aka.ms/codetour-schema", "title": check.tour.title,
            "description": check.tour.description, "ref": check.target_commit, "steps": steps}
    return data, warnings


def write_codetour(data: dict, out: Path) -> None:
    write_atomically(Path(out), (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def _step_problem(step: object) -> str | None:
    """What is wrong with one CodeTour step's shape (None when nothing is)."""
    if not isinstance(step, dict):
        return "a step must be an object"
    for key in ("file", "directory", "uri", "title", "description"):
        if step.get(key) is not None and not isinstance(step[key], str):
            return f"`{key}` must be a string"
    for key in ("file", "directory"):
        if isinstance(step.get(key), str) and not in_repository(_relative(step[key]) or "."):
            return f"{key} {step[key]!r} is outside the repository"
    line = step.get("line")
    if line is not None and (not isinstance(line, int) or isinstance(line, bool) or line < 1):
        return "`line` must be a positive integer"
    selection = step.get("selection")
    if selection is not None and (not isinstance(selection, dict) or not isinstance(selection.get("start"), dict)
                                  or not _positive(selection["start"].get("line"))):
        return "`selection` must have a `start` with a positive `line`"
    if step.get("file") is None and (line is not None or selection is not None):
        return "a `line` needs a `file`"
    return None


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _relative(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def _note_of(step: dict) -> str:
    title, description = step.get("title") or "", step.get("description") or ""
    if title and description and not step.get("file") and not step.get("directory"):
        return f"{title}\n\n{description}"
    return description or title


def _title(note: str) -> str:
    return note.strip().splitlines()[0] if note.strip() else ""


def _without_empty(entry: dict) -> dict:
    return {key: value for key, value in entry.items() if value} or {"description": ""}


def _line_of(step: dict) -> int | None:
    line = step.get("line")
    if line is None and isinstance(step.get("selection"), dict):
        line = (step["selection"].get("start") or {}).get("line")
    return line if isinstance(line, int) and line >= 1 else None
