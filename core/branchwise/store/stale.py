"""Stale records: index entries that failed a verification, one by one, until re-parsed.

When a result of a branch's own live set comes back `changed` or `deleted`, the index record
behind it no longer describes the code it is used with, and it should be rebuilt. Readers
(search, review, export, the MCP server) append one line per such failure to
`<index_dir>/stale.jsonl`, without taking the index's write lock, the way the statistics log
is written. The next index run of that branch, which holds the lock, re-parses exactly the
flagged files (even when the branch tip did not move) and appends a `reparsed` line for each,
which settles every failure of that file recorded before it. At the end of the run the file
is compacted to the failures still pending, so it does not grow with every failure ever met.

A failure line: {"kind": "failure", "repository", "branch", "version_id", "path",
"qualified_name", "verdict", "reason", "time", "uncommitted"}; a settling line: {"kind": "reparsed",
"repository", "branch", "path", "commit", "time"}.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Container, Iterable
from datetime import datetime, timezone
from pathlib import Path

from branchwise.models import Result, Verdict

STALE_FILE = "stale.jsonl"
FAILED = (Verdict.CHANGED, Verdict.DELETED)


def stale_path(index_dir: Path) -> Path:
    return Path(index_dir) / STALE_FILE


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def failures_of(results: Iterable[Result], branch: str) -> list[Result]:
    """The results whose own index record failed: live on `branch`, now changed or deleted.

    History (other branches, deleted code) is expected to differ and flags nothing.
    """
    return [r for r in results if r.verdict in FAILED and not r.history and r.branch == branch]


def record_failures(index_dir: Path, repository: str, branch: str, results: Iterable[Result],
                    uncommitted: Callable[[], Container[str]] = frozenset) -> list[dict]:
    """Append one failure line per failed result (see `failures_of`) and return them.

    A failure in a file with uncommitted edits (`uncommitted()`: the work tree's dirty paths when
    the branch is checked out, asked only when some result failed, which most answers have not)
    is marked `"uncommitted": true`: the index holds committed code, so re-indexing cannot
    settle it; committing, then indexing, does.
    """
    failed = failures_of(results, branch)
    dirty = uncommitted() if failed else frozenset()
    lines = [
        {"kind": "failure", "repository": repository, "branch": branch, "version_id": r.version_id,
         "path": r.path, "qualified_name": r.identity.qualified_name, "verdict": r.verdict and r.verdict.value,
         "reason": r.reason, "time": _now(), "uncommitted": r.path in dirty}
        for r in failed
    ]
    _append(index_dir, lines)
    return lines


def record_reparsed(index_dir: Path, repository: str, branch: str, paths: Iterable[str], commit: str) -> None:
    """Settle every failure recorded so far for these files of `branch` (called by index runs)."""
    when = _now()
    _append(index_dir, [{"kind": "reparsed", "repository": repository, "branch": branch, "path": path,
                         "commit": commit, "time": when} for path in sorted(set(paths))])


def pending(index_dir: Path, repository: str | None = None, branch: str | None = None) -> list[dict]:
    """Unsettled failures, the latest per (repository, branch, version), oldest first."""
    open_failures: dict[tuple, dict] = {}
    for line in _lines(index_dir):
        if repository is not None and line.get("repository") != repository:
            continue
        if branch is not None and line.get("branch") != branch:
            continue
        where = (line.get("repository"), line.get("branch"))
        if line.get("kind") == "failure":
            open_failures[(*where, line.get("version_id"))] = line
        elif line.get("kind") == "reparsed":
            for key in [k for k, f in open_failures.items() if k[:2] == where and f.get("path") == line.get("path")]:
                del open_failures[key]
    return sorted(open_failures.values(), key=lambda f: f.get("time") or "")


def compact(index_dir: Path) -> int:
    """Rewrite the file with only the failures still pending (called by index runs, under the
    write lock); returns how many lines were dropped.

    Readers append without the lock, so a line appended while the file is rewritten could be
    lost; the rewrite re-reads when the file grew meanwhile, and a failure lost anyway is
    recorded again by the next search that meets it.
    """
    path = stale_path(index_dir)
    for _attempt in range(3):
        if not path.exists():
            return 0
        size = path.stat().st_size
        lines = _lines(index_dir)
        kept = pending(index_dir)
        if len(kept) == len(lines):
            return 0
        text = "".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in kept)
        temp = path.with_name(f".{STALE_FILE}.tmp")
        temp.write_text(text, encoding="utf-8")
        if path.stat().st_size == size:
            os.replace(temp, path)
            return len(lines) - len(kept)
        temp.unlink(missing_ok=True)
    return 0


def pending_paths(index_dir: Path, repository: str, branch: str) -> set[str]:
    return {f["path"] for f in pending(index_dir, repository, branch) if isinstance(f.get("path"), str)}


def _append(index_dir: Path, lines: list[dict]) -> None:
    if not lines or not Path(index_dir).is_dir():
        return
    with stale_path(index_dir).open("a", encoding="utf-8") as log:
        log.write("".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in lines))


def _lines(index_dir: Path) -> list[dict]:
    path = stale_path(index_dir)
    if not path.exists():
        return []
    found = []
    for text in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            line = json.loads(text)
        except json.JSONDecodeError:
            continue  # a torn last line from a killed writer: the rest still counts
        if isinstance(line, dict):
            found.append(line)
    return found
