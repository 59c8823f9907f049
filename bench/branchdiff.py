"""Symbol diff of two branches of a real repository, against `git diff --stat` in the same run.

A reviewer runs `branchwise diff` where they would run `git diff --stat`; the question is what
the symbol-level answer costs on top. Both sides are indexed first (not timed: the item
measures the diff of an already indexed pair), then each is timed several times and the
medians compared: the symbol diff alone (`--no-impact`: merge-base, changed files, live set,
re-chunking the merge-base side, matching), the diff with impact context (a lexical and a
dense search, verified, per changed symbol), and `git diff --stat` of the same two commits.

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


def realrepos_dir() -> Path:
    default = Path(__file__).resolve().parents[1].parent / "shared" / "realrepos"
    return Path(os.environ.get("BRANCHWISE_REALREPOS", default))


def _clone(work: Path) -> Path:
    bundle = realrepos_dir() / "click.bundle"
    if not bundle.exists():
        raise FileNotFoundError(f"{bundle} not found: set BRANCHWISE_REALREPOS to the real-repository bundles")
    repo = work / "click"
    subprocess.run(["git", "clone", "-q", str(bundle), str(repo)], check=True)
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


def run(work: Path, repeat: int = 5, impact_repeat: int = 1, model: str | None = None) -> dict:
    """`model`: the embedder for the index and the impact's dense search (None: the default)."""
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
    if impact_repeat:  # quick runs skip it: a lexical and a dense search per change
        # the model is loaded already (indexing used it); each run embeds the changes again
        runs = []
        impact_s = _median_seconds(lambda: runs.append(workspace.diff(BRANCH, BASE)), impact_repeat)
        with_impact = runs[-1]
        impact = {"impact_hits": sum(len(c.impact) for c in with_impact.changes),
                  "symbol_diff_with_impact_s": impact_s, "with_impact_vs_git": impact_s / git_s,
                  "impact_ms_per_change": impact_s * 1000 / max(1, len(with_impact.changes))}
    workspace.close()
    return impact | {
        "repository": "click", "branch": BRANCH, "base": BASE, "merge_base": diff.merge_base,
        "files": diff.files, "git_diff_stat": files_changed, "counts": diff.counts(),
        "set_apart": len(diff.apart),
        "index_seconds_untimed": round(index_seconds, 1), "repeat": repeat,
        "git_diff_stat_s": git_s, "symbol_diff_s": symbols_s, "symbol_diff_vs_git": symbols_s / git_s,
    }
