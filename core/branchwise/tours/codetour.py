"""CodeTour interchange: `.tour` files (JSON, line-based steps) in and out.

Teams already keep CodeTour walkthroughs for their editors. Importing anchors each line-based
step on the innermost symbol that holds the line at the tour's `ref` (or HEAD), so the
walkthrough can be checked and fixed from then on; exporting writes the current lines back,
so the editor extension keeps working and gets corrected line numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

from branchwise.chunking import chunk_file
from branchwise.errors import UsageError
from branchwise.gitrepo import GitRepo
from branchwise.labels import write_atomically
from branchwise.symbols import innermost_at
from branchwise.tours.check import TourCheck
from branchwise.tours.tourfile import Step, Tour


def read_codetour(path: Path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"no CodeTour file at {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UsageError(f"cannot read CodeTour file {path}: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise UsageError(f"{path} is not a CodeTour file (no `steps` list)")
    return data


def import_codetour(repo: GitRepo, data: dict, rules=None) -> tuple[Tour, list[str]]:
    """A tour from CodeTour data, and one message per step that could not be anchored."""
    ref = data.get("ref") or "HEAD"
    commit = repo.resolve(ref)
    tour = Tour(title=str(data.get("title") or "Imported tour"), description=str(data.get("description", "")))
    skipped: list[str] = []
    cache: dict[str, list] = {}
    for number, raw in enumerate(data["steps"], 1):
        if not isinstance(raw, dict):
            skipped.append(f"step {number}: not an object")
            continue
        path, line = raw.get("file"), _line_of(raw)
        if not isinstance(path, str) or line is None:
            skipped.append(f"step {number}: no file and line to anchor on")
            continue
        path = path[2:] if path.startswith("./") else path
        if path not in cache:
            blob = repo.blob_at(commit, path)
            cache[path] = [] if blob is None else chunk_file(repo.name, path, repo.read_blob(blob), rules).chunks
        chunk = innermost_at(cache[path], line)
        if chunk is None:
            skipped.append(f"step {number}: no symbol holds {path}:{line} at {ref}")
            continue
        tour.steps.append(Step(
            note=str(raw.get("description", "")), path=path, qualified_name=chunk.identity.qualified_name,
            symbol_type=chunk.identity.symbol_type, language=chunk.identity.language,
            start_line=chunk.start_line, end_line=chunk.end_line, content_hash=chunk.content_hash,
            commit=commit,
        ))
    return tour, skipped


def export_codetour(check: TourCheck) -> dict:
    """CodeTour data with each step at its current lines (decayed steps keep their last ones)."""
    steps = []
    for item in check.steps:
        path = item.path or item.step.path
        line = item.start_line or item.step.start_line
        if path is None or line is None:
            continue
        steps.append({"file": path, "line": line, "description": item.step.note,
                      "title": item.qualified_name or item.step.qualified_name or ""})
    return {"$schema": "https://aka.ms/codetour-schema", "title": check.tour.title,
            "description": check.tour.description, "ref": check.target_commit, "steps": steps}


def write_codetour(data: dict, out: Path) -> None:
    write_atomically(Path(out), (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


def _line_of(step: dict) -> int | None:
    line = step.get("line")
    if line is None and isinstance(step.get("selection"), dict):
        line = (step["selection"].get("start") or {}).get("line")
    return line if isinstance(line, int) and line >= 1 else None
