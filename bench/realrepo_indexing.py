"""Item `realrepo_indexing`: indexing speed on real projects, full and per commit.

The bundles in `shared/realrepos` (click, Python; cobra, Go) are cloned into the work
directory with a local branch per release line. Per repository: `main` is indexed into an
empty index (the full index: every file parsed, every text embedded), then each release
branch (inheriting the closest indexed branch and applying its diff), with the rate fields
of `index --json`. Then a replay: upstream history between two release lines is one commit
per release here, so the changes from one release line to the next are cut into `commits`
consecutive commits (the changed files in path order, a share each, with the next release's
contents) on a branch started at the older line, and an index holding only the older line
is brought up to date after each commit, as the post-commit hook does (a separate index, so
that the newer release's texts are not already in its embedding cache). The default model
and runtime are used throughout.
"""

from __future__ import annotations

import statistics
import subprocess
from pathlib import Path

from bench.realrepos import bundle
from branchwise.workspace import Workspace

REPLAY = {"click": ("release/8.1", "release/8.3"), "cobra": ("release/v1.6", "release/v1.8")}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _clone(name: str, work: Path) -> Path:
    dest = work / f"real-{name}"
    if not dest.exists():
        subprocess.run(["git", "clone", "-q", str(bundle(name)), str(dest)], check=True)
        _git(dest, "config", "user.email", "bench@example.com")
        _git(dest, "config", "user.name", "bench")
        for ref in _git(dest, "branch", "-r", "--format=%(refname:short)").split():
            branch = ref.split("/", 1)[1]
            if branch not in ("HEAD", "main"):
                _git(dest, "branch", "-f", branch, ref)
    return dest


def _row(summary) -> dict:
    data = summary.to_json()
    return {key: data[key] for key in ("branch", "base", "files_parsed", "symbols_parsed", "embedded", "seconds",
                                       "embed_seconds", "symbols_per_second")}


def _replay(repo: Path, workspace: Workspace, old: str, new: str, commits: int) -> dict:
    workspace.index([old])
    _git(repo, "checkout", "-q", "-B", "replay", old)
    workspace.index(["replay"])  # inherits `old`'s live set: nothing to parse
    changed = [line.split("\t") for line in _git(repo, "diff", "--name-status", "--no-renames", old, new).splitlines()]
    changed.sort(key=lambda entry: entry[-1])
    groups = [changed[i::commits] for i in range(commits)]
    rows = []
    for number, group in enumerate(g for g in groups if g):
        for status, path in group:
            if status == "D":
                _git(repo, "rm", "-q", "--", path)
            else:
                _git(repo, "checkout", "-q", new, "--", path)
        _git(repo, "commit", "-q", "-m", f"replay {number + 1}: {len(group)} files from {new}")
        rows.append(_row(workspace.index(["replay"])[0]))
    seconds = [row["seconds"] for row in rows]
    return {
        "from": old, "to": new, "commits": len(rows), "files_changed": len(changed),
        "per_commit_median_s": statistics.median(seconds),
        "per_commit_p95_s": sorted(seconds)[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))],
        "per_commit_max_s": max(seconds),
        "total_s": sum(seconds),
        "embedded_total": sum(row["embedded"] for row in rows),
        "commits_detail": rows,
    }


def replay_only(work: Path, name: str, commits: int) -> dict:
    """The replay of `name` in an index of its own (see the module's docstring)."""
    repo = _clone(name, work)
    workspace = Workspace(repo, work / f"real-{name}-replay-index")
    try:
        return _replay(repo, workspace, *REPLAY[name], commits)
    finally:
        workspace.close()


def run(work: Path, repos: tuple[str, ...], commits: int) -> dict:
    out = {}
    for name in repos:
        repo = _clone(name, work)
        workspace = Workspace(repo, work / f"real-{name}-index")
        full = workspace.index(["main"])[0]
        branches = sorted(b for b in _git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").split()
                          if b.startswith("release/"))
        others = [_row(s) for s in workspace.index(branches)]
        workspace.close()
        replay = replay_only(work, name, commits)
        out[name] = {
            "model": workspace.embedder.name,
            "full_main": _row(full),
            "release_branches": others,
            "replay": replay,
            "replay_total_vs_full": replay["total_s"] / full.seconds,
        }
    return out
