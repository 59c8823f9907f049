"""Usage memory: which versions the sessions keep taking as `use`, and are they still current.

A snippet that every task ends up using deserves to be offered first rather than found again
each time. The statistics log already has one record per session; a session that took results
as `use` lists them in its record's `used` field:

- an export (the CLI's, the review app's) or an MCP `context_bundle`: the chunks the bundle
  included in its use section (what its manifest lists with `section: "use"`);
- a review: the results the reviewer explicitly labelled `use`;
- a plain search lists none: being found is not being used.

`most_used` counts them per (branch, version) across sessions; the caller then verifies each
version again now (a remembered verdict would be as stale as the index can be), so the list
says which of the favourite snippets are still current and which to re-read or pin anew.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from branchwise.display import escape_controls
from branchwise.models import Identity, Label, PathClass, Result
from branchwise.wording import plural

USED_FIELDS = ("version_id", "path", "language", "symbol_type", "qualified_name", "content_hash", "commit")


def bundle_uses(results: list[Result], entries: Iterable[Mapping]) -> list[Result]:
    """The results a bundle included in its use section (`entries`: its manifest's results)."""
    included = {e.get("version_id") for e in entries if e.get("included") and e.get("section") == "use"}
    return [r for r in results if r.version_id in included]


def review_uses(results: Iterable[Result]) -> list[Result]:
    """The results a reviewer explicitly labelled `use` (a default `use` is no decision)."""
    return [r for r in results if r.label is Label.USE]


def most_used(records: Iterable[Mapping], branch: str | None = None) -> list[dict]:
    """One row per (branch, version) taken as `use`, most sessions first (ties: most recent).

    Each row: the version's identity, commit and hash as last used, `times_used` (sessions),
    `by_kind` (sessions per kind), `first_used`, `last_used`. Malformed entries are skipped:
    the log is a file anyone may have edited.
    """
    rows: dict[tuple[str, str], dict] = {}
    for record in records:
        session_branch = record.get("branch")
        if not isinstance(session_branch, str) or (branch is not None and session_branch != branch):
            continue
        seen: set[str] = set()
        for entry in record.get("used") or []:
            if not _well_formed(entry) or entry["version_id"] in seen:
                continue
            seen.add(entry["version_id"])
            row = rows.get((session_branch, entry["version_id"]))
            if row is None:
                row = rows[(session_branch, entry["version_id"])] = {
                    **{name: entry[name] for name in USED_FIELDS}, "branch": session_branch,
                    "times_used": 0, "by_kind": Counter(), "first_used": record.get("time"),
                    "last_used": record.get("time"), "_entry": entry,
                }
            row["times_used"] += 1
            row["by_kind"][record.get("kind") or "?"] += 1
            row["last_used"] = record.get("time") or row["last_used"]
    ordered = sorted(rows.values(), key=lambda r: (r["last_used"] or ""), reverse=True)
    ordered.sort(key=lambda r: r["times_used"], reverse=True)
    for row in ordered:
        row["by_kind"] = dict(row["by_kind"].most_common())
    return ordered


def _well_formed(entry: object) -> bool:
    return isinstance(entry, dict) and all(isinstance(entry.get(name), str) and entry[name] for name in USED_FIELDS)


def verify_row(row: dict, verifier, repository: str) -> None:
    """Add the version's verdict on its branch now (`verifier`: None when the branch is gone)."""
    entry = row.pop("_entry")
    if verifier is None:
        row.update(verdict=None, reason=f"branch {row['branch']} no longer exists")
        return
    result = _as_result(entry, row["branch"], repository)
    verifier.verify([result])
    row.update(verdict=result.verdict.value if result.verdict else None, reason=result.reason)
    if result.current_path is not None:
        row.update(current_path=result.current_path, current_start_line=result.current_start_line,
                   current_end_line=result.current_end_line)


def _as_result(entry: Mapping, branch: str, repository: str) -> Result:
    identity = Identity(repository, entry["path"], entry["language"], entry["symbol_type"], entry["qualified_name"])
    start, end = entry.get("start_line"), entry.get("end_line")
    try:
        path_class = PathClass(entry.get("path_class") or PathClass.SOURCE.value)
    except ValueError:
        path_class = PathClass.SOURCE
    blob = entry.get("blob")
    return Result(rank=0, score=0.0, identity=identity, branch=branch, commit=entry["commit"],
                  start_line=start if isinstance(start, int) else 0, end_line=end if isinstance(end, int) else 0,
                  indexed_at="", content_hash=entry["content_hash"], text="",
                  blob=blob if isinstance(blob, str) else None, version_id=entry["version_id"], path_class=path_class)


def pin_key(row: Mapping) -> tuple[str, str, str, str]:
    return (row["path"], row["language"], row["symbol_type"], row["qualified_name"])


def render_used(report: dict) -> str:
    """`stats --used` for a terminal: count, verdict now, where, and the pin marker."""
    rows = report["used"]
    where = f" on {report['branch']}" if report["branch"] else ""
    if not rows:
        return (f"No version of {report['repository']}{where} was taken as `use` yet "
                "(exports, MCP bundles and `use` labels in reviews count).")
    lines = [f"Versions most often taken as `use` in {report['repository']}{where} "
             f"({plural(report['sessions'], 'session')}; verdicts checked now):",
             f"  {'uses':>4}  {'verdict now':<16} {'branch':<14} {'pin':<3}  symbol"]
    for row in rows:
        pin = "pin" if row.get("pinned") else ""
        verdict = row["verdict"] or "unknown"
        moved = f" -> {row['current_path']}" if row.get("current_path") not in (None, row["path"]) else ""
        lines.append(escape_controls(
            f"  {row['times_used']:>4}  {verdict:<16} {row['branch']:<14} {pin:<3}  {row['path']}::{row['qualified_name']}"
            f" @ {row['commit'][:7]}{moved}"))
    return "\n".join(lines)
