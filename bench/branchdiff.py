"""Symbol diff of two branches of a real repository: with impact against without, in the same run.

A reviewer runs `branchwise diff` where they would run `git diff --stat`; the question is what
the symbol-level answer costs on top, and what the impact context (callers found in the syntax
tree, similar code, verified) costs on top of that. Both sides are indexed first (not timed:
the item measures the diff of an already indexed pair); then the diff without impact
(`--no-impact`: merge-base, changed files, live set, re-chunking the merge-base side,
matching) and with impact are timed alternately, wall clock and process CPU, and the medians
compared, with `git diff --stat` of the same two commits as the floor. The impact's target is
at most 5x the no-impact time. Every caller the last run listed is then checked against its
own syntax tree (caller_precision.py): the share that really references the changed symbol.

The repository is click from the real-repository bundles (`BRANCHWISE_REALREPOS`, default
`../shared/realrepos` beside the project): `main` against `release/8.1`, a large real change
(8.1.8 to upstream main).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from pathlib import Path

from branchwise.workspace import Workspace

BRANCH, BASE = "main", "release/8.1"


def _clone(work: Path) -> Path:
    from bench.realrepos import bundle

    repo = work / "click"
    subprocess.run(["git", "clone", "-q", str(bundle("click")), str(repo)], check=True)
    # the clone has `main` checked out at origin/main; the release line needs a local branch
    subprocess.run(["git", "-C", str(repo), "branch", "-f", BASE, f"origin/{BASE}"], check=True, capture_output=True)
    return repo


def _median_seconds(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _timed(function) -> tuple[float, float, object]:
    """(wall seconds, process CPU seconds, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = function()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def run(work: Path, repeat: int = 5, impact_repeat: int = 5, model: str | None = None) -> dict:
    """`model`: the embedder for the index and the impact's dense search (None: the default).
    `impact_repeat`: pairs of (no impact, with impact) runs timed alternately (0: no impact)."""
    saved = os.environ.get("BRANCHWISE_MODEL")
    if model:
        os.environ["BRANCHWISE_MODEL"] = model
    try:
        return _run(work, repeat, impact_repeat) | {"model": model or "default"}
    finally:
        os.environ.pop("BRANCHWISE_MODEL", None)
        if saved is not None:
            os.environ["BRANCHWISE_MODEL"] = saved


def _run(work: Path, repeat: int, impact_repeat: int) -> dict:
    repo = _clone(work)
    workspace = Workspace(repo, work / "click-index")
    index_started = time.perf_counter()
    workspace.index([BASE, BRANCH])
    index_seconds = time.perf_counter() - index_started
    diff = workspace.diff(BRANCH, BASE, impact=False)
    stat = ["git", "-C", str(repo), "diff", "--stat", diff.merge_base, diff.branch_commit]
    files_changed = subprocess.run(stat, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    git_s = _median_seconds(lambda: subprocess.run(stat, check=True, capture_output=True), repeat)
    symbols_s = _median_seconds(lambda: workspace.diff(BRANCH, BASE, impact=False), repeat)
    impact = {}
    if impact_repeat:
        workspace.diff(BRANCH, BASE)  # not timed: loads the model and warms the caches both runs use
        plain, full = [], []
        for _ in range(impact_repeat):  # alternately, so both see the same machine
            plain.append(_timed(lambda: workspace.diff(BRANCH, BASE, impact=False))[:2])
            full.append(_timed(lambda: workspace.diff(BRANCH, BASE)))
        with_impact = full[-1][2]
        plain_wall, plain_cpu = (statistics.median(t[i] for t in plain) for i in (0, 1))
        full_wall, full_cpu = (statistics.median(t[i] for t in full) for i in (0, 1))
        precision = _caller_precision(repo, with_impact.to_json())
        impact = {
            "impact_hits": sum(len(c.impact) for c in with_impact.changes),
            "callers_listed": precision["listed"], "callers_found": sum(c.callers_total for c in with_impact.changes),
            "caller_precision": precision["precision"], "callers_not_references": precision["failures"][:20],
            "symbol_diff_no_impact_paired_s": plain_wall, "symbol_diff_with_impact_s": full_wall,
            "no_impact_cpu_s": plain_cpu, "with_impact_cpu_s": full_cpu,
            "with_impact_vs_no_impact": full_wall / plain_wall, "with_impact_vs_no_impact_cpu": full_cpu / plain_cpu,
            "with_impact_met": full_wall / plain_wall <= 5.0,
            "with_impact_vs_git": full_wall / git_s,
            "impact_ms_per_change": (full_wall - plain_wall) * 1000 / max(1, len(with_impact.changes)),
            "impact_runs": [{"no_impact_s": p[0], "no_impact_cpu_s": p[1], "with_impact_s": f[0],
                             "with_impact_cpu_s": f[1]} for p, f in zip(plain, full)],
            "summary": {"public_signatures_changed": len(with_impact.summary.signatures),
                        "still_referenced": len(with_impact.summary.still_referenced)},
        }
    workspace.close()
    return impact | {
        "repository": "click", "branch": BRANCH, "base": BASE, "merge_base": diff.merge_base,
        "files": diff.files, "git_diff_stat": files_changed, "counts": diff.counts(),
        "set_apart": len(diff.apart),
        "index_seconds_untimed": round(index_seconds, 1), "repeat": repeat, "impact_repeat": impact_repeat,
        "git_diff_stat_s": git_s, "symbol_diff_s": symbols_s, "symbol_diff_vs_git": symbols_s / git_s,
    }


def _caller_precision(repo: Path, diff_json: dict) -> dict:
    """Every listed caller checked against its own syntax tree (caller_precision.py)."""
    from bench import caller_precision

    callers = caller_precision.listed_callers(diff_json)
    failures = []
    for change, hit in callers:
        if caller_precision.check(repo, change, hit) is None:
            failures.append(f"{change['qualified_name']} <- {hit['path']}#L{hit['start_line']} "
                            f"{hit['qualified_name']} ({hit.get('how')})")
    return {"listed": len(callers), "precision": 1 - len(failures) / max(1, len(callers)), "failures": failures}
