"""The failure-statistics log: how often retrieved code turned out stale, and where.

Each session records how many results were used and how many had gone stale, because the
trend says more than one session: a ratio that keeps rising,
or one that is simply high, means the index has fallen behind and should be rebuilt. Each
search, export, review or MCP tool call appends one JSON line to `<index_dir>/stats.jsonl`; `summarize` turns
the log into a trend, breakdowns and a recommendation, and `render_text` draws them.

A failure is a result presented as usable on the queried branch that turned out `changed`,
`deleted` or `unverifiable`. Not failures: history the user asked for (`--scope all`: other
branches, deleted code), which is shown as history; code that moved unchanged, which is
`current` at its new place; `excluded` results, which never compete for use.

    failure ratio = failures / (results that are neither excluded nor history)

Re-indexing is recommended only when it would change that figure: a failure counts towards
the recommendation when its result was indexed at an older commit than the verification
target. Failures of an index already at the target (uncommitted edits in the work tree)
are reported, but re-indexing commits cannot remove them. For one repository, the index's
state against its branch tips then decides, in `status`'s words (advice.py).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path

from branchwise.config import Config
from branchwise.display import escape_controls
from branchwise.errors import UsageError
from branchwise.models import Result, Verdict
from branchwise.review.labels import default_label, is_override
from branchwise.search.access import Restriction
from branchwise.wording import plural

STATS_FILE = "stats.jsonl"
KINDS = ("export", "review", "search", "mcp")
FAILURES = (Verdict.CHANGED, Verdict.DELETED, Verdict.UNVERIFIABLE)
_SPARKS = "▁▂▃▄▅▆▇█"
_BAR_WIDTH = 20
_SHOWN_SESSIONS = 12


def stats_path(index_dir: Path) -> Path:
    return Path(index_dir) / STATS_FILE


# recording -----------------------------------------------------------------------------------


def record_session(
    index_dir: Path,
    kind: str,
    repository: str,
    branch: str,
    index_commit: str | None,
    index_age_seconds: float | None,
    results: list[Result],
    overrides: Iterable[Mapping] | None = None,
    target_commit: str | None = None,
    used: Iterable[Result] = (),
) -> dict | None:
    """Append one session's record to the log and return it (None when the log is read-only).

    `overrides` lists the reviewer's departures from the default handling; when None they are
    taken from the results' labels (see `branchwise.review.labels.is_override`). `used`: the results
    the session took as `use` (a bundle's use section, a review's `use` labels), counted by
    `branchwise stats --used` (see usage.py).
    """
    if kind not in KINDS:
        raise UsageError(f"unknown session kind {kind!r} (choose {', '.join(KINDS)})")
    index_dir = Path(index_dir)
    if not index_dir.is_dir():
        raise UsageError(f"no index directory at {index_dir}")
    record = session_record(kind, repository, branch, index_commit, index_age_seconds, results, overrides,
                            target_commit, used)
    line = (json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
    try:  # one write of the whole line to a descriptor opened for appending (a text file object
        # costs more to make than the write, and splits a line over 8 KiB into several writes)
        log = os.open(stats_path(index_dir), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            os.write(log, line)
        finally:
            os.close(log)
    except OSError:  # a read-only index directory is still searchable; its log stays as it was
        return None
    return record


def session_record(
    kind: str,
    repository: str,
    branch: str,
    index_commit: str | None,
    index_age_seconds: float | None,
    results: list[Result],
    overrides: Iterable[Mapping] | None = None,
    target_commit: str | None = None,
    used: Iterable[Result] = (),
) -> dict:
    """One session's record (what `record_session` appends), without writing it."""
    verdicts = Counter(r.verdict.value if r.verdict else "unverified" for r in results)
    failures = [r for r in results if is_failure(r)]
    considered = sum(r.verdict is not Verdict.EXCLUDED and not r.history for r in results)
    fixable = [r for r in failures if target_commit is None or r.commit != target_commit]
    return {
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "kind": kind,
        "repository": repository,
        "branch": branch,
        "index_commit": index_commit,
        "index_age_seconds": index_age_seconds,
        "results": len(results),
        "considered": considered,
        "failures": len(failures),
        "failure_ratio": round(len(failures) / considered, 4) if considered else None,
        "target_commit": target_commit,
        "index_behind": None if target_commit is None or index_commit is None else index_commit != target_commit,
        "reindexable_failures": len(fixable),
        "reindex_ratio": round(len(fixable) / considered, 4) if considered else None,
        "history": sum(r.history for r in results),
        "moved_unchanged": sum(r.moved_unchanged for r in results),
        "verdicts": dict(sorted(verdicts.items())),
        "reasons": dict(Counter(reason_key(r) for r in failures).most_common()),
        "directories": dict(Counter(directory_of(r.path) for r in failures).most_common()),
        "overrides": list(overrides) if overrides is not None else _label_overrides(results),
        "commits": dict(Counter(r.commit for r in results if r.commit).most_common()),
        "used": [used_entry(r) for r in used],
    }


def used_entry(result: Result) -> dict:
    """What the log keeps of a version taken as `use`: enough to verify it again later."""
    i = result.identity
    return {"version_id": result.version_id, "path": i.path, "language": i.language, "symbol_type": i.symbol_type,
            "qualified_name": i.qualified_name, "content_hash": result.content_hash, "branch": result.branch,
            "commit": result.commit, "blob": result.blob, "start_line": result.start_line,
            "end_line": result.end_line, "path_class": result.path_class.value}


def reason_key(result: Result) -> str:
    """A failure's reason without its specifics (lines, paths), so that reasons can be counted."""
    verdict = result.verdict.value if result.verdict else "unverified"
    key = f"{verdict}: {result.reason.split(';')[0].strip()}"
    return f"{key} (found moved)" if "moved to" in result.reason else key


def is_failure(result: Result) -> bool:
    """Presented as usable on the branch and found stale (see the module docstring)."""
    return not result.history and result.verdict in FAILURES and not result.moved_unchanged


def directory_of(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else "(root)"


def deepest_directories(counts: Mapping[str, int], at_least: int) -> dict[str, int]:
    """Failures per directory, each counted at its deepest ancestor holding >= `at_least`.

    `counts` maps the directory of each failure to how many; a directory's total includes
    its subdirectories. Failures under no directory with enough of them stay where they are.
    """
    totals: Counter[str] = Counter()
    for directory, n in counts.items():
        for ancestor in _ancestors(directory):
            totals[ancestor] += n
    placed: Counter[str] = Counter()
    for directory, n in counts.items():
        home = next((a for a in _ancestors(directory) if totals[a] >= at_least), directory)
        placed[home] += n
    return dict(placed.most_common())


def below_minimum(counts: Mapping[str, int], at_least: int) -> list[str]:
    """The directories of `counts` that `deepest_directories` leaves in place because neither
    they nor any ancestor held `at_least` failures."""
    totals: Counter[str] = Counter()
    for directory, n in counts.items():
        for ancestor in _ancestors(directory):
            totals[ancestor] += n
    return sorted(d for d in counts if all(totals[a] < at_least for a in _ancestors(d)))


def _ancestors(directory: str) -> list[str]:
    """The directory and its ancestors, deepest first ("a/b/c", "a/b", "a")."""
    if directory == "(root)":
        return [directory]
    parts = directory.split("/")
    return ["/".join(parts[:n]) for n in range(len(parts), 0, -1)]


def _label_overrides(results: list[Result]) -> list[dict]:
    return [
        {
            "version_id": r.version_id,
            "path": r.path,
            "qualified_name": r.identity.qualified_name,
            "verdict": r.verdict.value if r.verdict else None,
            "default": default_label(r).value,
            "label": r.label.value if r.label else None,
        }
        for r in results
        if is_override(r)
    ]


# summarising ---------------------------------------------------------------------------------


def load_records(index_dir: Path, repository: str | None = None) -> tuple[list[dict], int]:
    """The log's records (optionally of one repository), and how many lines were unreadable."""
    path = stats_path(index_dir)
    if not path.exists():
        return [], 0
    records, bad = [], 0
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise UsageError(f"cannot read the statistics log {path}: {error.strerror or error}") from None
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if not _well_formed(record):
            bad += 1
        elif repository is None or record.get("repository") == repository:
            records.append(record)
    return records, bad


def _well_formed(record: object) -> bool:
    """A record every summary step can read: the log is a file anyone may have edited."""
    if not isinstance(record, dict):
        return False
    for key in ("failure_ratio", "reindex_ratio"):
        ratio = record.get(key)
        if ratio is not None and (isinstance(ratio, bool) or not isinstance(ratio, (int, float))
                                  or not 0 <= ratio <= 1):
            return False
    for key in ("time", "kind", "repository", "branch"):
        if record.get(key) is not None and not isinstance(record[key], str):
            return False
    for key in ("failures", "considered", "results"):
        value = record.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            return False
    if not isinstance(record.get("overrides", []), list) or not isinstance(record.get("used", []), list):
        return False
    return all(isinstance(record.get(key, {}), dict) for key in ("verdicts", "reasons", "directories", "commits"))


def summarize(index_dir: Path, repository: str | None = None, config: Config | None = None,
              view: Callable[[dict], dict | None] | None = None) -> dict:
    """Trend, breakdowns and a re-index recommendation from the log (see the module docstring).

    `view` shows each record as the reader may see it (None: not at all); see `restrict_record`.
    """
    config = config or Config()
    if not Path(index_dir).is_dir():
        raise UsageError(f"no index directory at {index_dir}")
    records, bad = load_records(index_dir, repository)
    if view is not None:
        records = [shown for shown in map(view, records) if shown is not None]
    keys = ("time", "kind", "repository", "branch", "failure_ratio", "failures", "considered", "reindex_ratio",
            "index_behind")
    trend = [{key: record.get(key) for key in keys} for record in records]
    for point, record in zip(trend, records):
        if "reindex_ratio" not in record:  # written before the rule existed: every failure counted
            point["reindex_ratio"] = record.get("failure_ratio")
    return {
        "repository": repository,
        "sessions": len(records),
        "unreadable_lines": bad,
        "trend": trend,
        "verdicts": _total(records, "verdicts"),
        "by_reason": _total(records, "reasons"),
        "by_directory": deepest_directories(_total(records, "directories"), config.failure_directory_min),
        "failure_directory_min": config.failure_directory_min,
        "directories_below_min": below_minimum(_total(records, "directories"), config.failure_directory_min),
        "overrides": sum(len(record.get("overrides") or []) for record in records),
        "failure_threshold": config.failure_threshold,
        "rising_sessions": config.rising_sessions,
        "recommendation": recommend([t["reindex_ratio"] for t in trend], config,
                                    [t["failure_ratio"] for t in trend]),
    }


def restrict_record(record: dict, restriction: Restriction | None) -> dict:
    """A record as a user limited to some path prefixes may see it: without the overrides and
    failure directories outside them. Counts and ratios stay: they name nothing."""
    if restriction is None or restriction.prefixes is None:
        return record
    prefixes = restriction.prefixes

    def readable_directory(name: str) -> bool:
        return any(prefix.startswith(name + "/") or (name + "/").startswith(prefix) for prefix in prefixes)

    shown = dict(record)
    shown["overrides"] = [o for o in record.get("overrides") or []
                          if isinstance(o, dict) and isinstance(o.get("path"), str) and restriction.allows(o["path"])]
    shown["directories"] = {d: n for d, n in (record.get("directories") or {}).items() if readable_directory(d)}
    shown["used"] = [u for u in record.get("used") or []
                     if isinstance(u, dict) and isinstance(u.get("path"), str) and restriction.allows(u["path"])]
    return shown


def recommend(ratios: list[float | None], config: Config, failure_ratios: list[float | None] | None = None) -> dict:
    """Re-index when the latest ratio exceeds the threshold or rose in N consecutive sessions.

    `ratios` count only the failures re-indexing would remove; `failure_ratios`, all of them,
    let the advice say why a high failure ratio does not call for a re-index.
    """
    known = [r for r in ratios if r is not None]
    if not known:
        return {"reindex": False, "why": "no verified sessions recorded yet"}
    latest, threshold, rising = known[-1], config.failure_threshold, config.rising_sessions
    all_known = [r for r in (failure_ratios or []) if r is not None]
    if all_known and all_known[-1] > threshold and latest <= threshold:
        return {"reindex": False, "why": f"latest failure ratio {_pct(all_known[-1])} exceeds the {_pct(threshold)} "
                                         f"threshold, but only {_pct(latest)} comes from commits made after indexing; "
                                         "the rest are uncommitted edits, which re-indexing would not change"}
    if latest > threshold:
        return {"reindex": True, "why": f"latest failure ratio {_pct(latest)} exceeds the {_pct(threshold)} threshold"}
    window = known[-(rising + 1):]
    if rising > 0 and len(window) == rising + 1 and all(a < b for a, b in zip(window, window[1:])):
        steps = " -> ".join(_pct(r) for r in window)
        return {"reindex": True, "why": f"failure ratio rose in {rising} consecutive sessions ({steps})"}
    return {"reindex": False, "why": f"latest failure ratio {_pct(latest)} is within the {_pct(threshold)} threshold "
                                     "and not rising steadily"}


def _total(records: list[dict], key: str) -> dict[str, int]:
    total: Counter[str] = Counter()
    for record in records:
        counts = record.get(key)
        if isinstance(counts, dict):
            total.update({name: n for name, n in counts.items() if isinstance(n, int)})
    return dict(total.most_common())


# rendering -----------------------------------------------------------------------------------


def render_text(summary: dict) -> str:
    """The summary for a terminal: sparkline, recent sessions as bars, breakdowns, verdict."""
    trend = summary["trend"]
    if not trend:
        empty = "No sessions recorded yet: export or review some results first."
        if "sessions" not in summary["recommendation"]:  # no advice from the index either
            return empty
        return "\n".join([empty, "", advice_line(summary["recommendation"])])
    lines = [
        f"Failure ratio per session, oldest first ({plural(summary['sessions'], 'session')}; "
        "failures / results neither excluded nor history):",
        "  " + sparkline([t["failure_ratio"] for t in trend]),
        "",
        f"Last {plural(min(len(trend), _SHOWN_SESSIONS), 'session')}:",
        *(_session_bar(t) for t in trend[-_SHOWN_SESSIONS:]),
    ]
    lines += _breakdown("Failures by reason:", summary["by_reason"])
    lines += _directory_breakdown(summary["by_directory"], summary.get("directories_below_min", []),
                                  summary["failure_directory_min"])
    if summary["unreadable_lines"]:
        lines += ["", f"({summary['unreadable_lines']} unreadable line(s) in the log were skipped)"]
    lines += ["", advice_line(summary["recommendation"])]
    return "\n".join(lines)


def advice_line(recommendation: dict) -> str:
    return ("Re-index recommended: " if recommendation["reindex"] else "No re-index needed: ") + recommendation["why"]


def sparkline(ratios: list[float | None]) -> str:
    """One block per session, height proportional to the ratio (0 to 100%); '·' when unknown."""
    return "".join("·" if r is None else _SPARKS[min(int(r * len(_SPARKS)), len(_SPARKS) - 1)] for r in ratios)


def _session_bar(session: dict) -> str:
    ratio = session["failure_ratio"]
    when = str(session.get("time") or "")[:16].replace("T", " ")
    branch = escape_controls(session.get("branch") or "")
    label = f"  {when:16}  {str(session.get('kind') or ''):6}  {branch:18.18}"
    if ratio is None:
        return f"{label}  {'·' * _BAR_WIDTH}  n/a"
    filled = round(ratio * _BAR_WIDTH)
    bar = "█" * filled + "░" * (_BAR_WIDTH - filled)
    return f"{label}  {bar}  {_pct(ratio):>4}  {session.get('failures')}/{session.get('considered')}"


def _directory_breakdown(by_directory: dict[str, int], scattered_names: list[str], at_least: int) -> list[str]:
    """Directories that gathered failures (their subtree held `at_least`) under one heading,
    the rest, whose failures stayed where they were, under another."""
    grouped = {name: n for name, n in by_directory.items() if name not in scattered_names}
    scattered = {name: n for name, n in by_directory.items() if name in scattered_names}
    return (_breakdown(f"Failures by directory (each at its deepest directory with at least {at_least}):", grouped)
            + _breakdown(f"Failures in directories with fewer than {at_least} (none of their parents has {at_least}):",
                         scattered))


def _breakdown(title: str, counts: dict[str, int]) -> list[str]:
    if not counts:
        return []
    names = {name: escape_controls(name) for name in counts}
    width = max(len(shown) for shown in names.values())
    return ["", title, *(f"  {names[name]:{width}}  {n}" for name, n in counts.items())]


def _pct(ratio: float) -> str:
    return f"{ratio * 100:.0f}%"
