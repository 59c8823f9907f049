"""The background refresh that the git hooks start: index the checked-out branch, record how it went.

`python -m branchwise.hook_run --repo REPO --index DIR HOOK HOOK-ARGS...` runs detached from
the git command that triggered it (see hooks.py), its output appended to the index's log.
The hook names the branch that was checked out when git ran it (empty for a detached
HEAD: nothing to do). It waits for the write lock like `index --wait` (a background embedding
worker yields it), and returns once the branch is searchable: like `index --background`, it
leaves the embedding to a detached worker (background.py). While one refresh of
a branch waits for the lock, a second one of the same branch has nothing to add (the
waiting one reads the branch's tip only once it has the lock), so it exits at once. The
outcome of the last refresh is written to a small JSON record in the index directory for
`hooks status`.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import sys
import time
from pathlib import Path
from typing import Any

from branchwise.index import hooks
from branchwise.store import worker_record
from branchwise.store.lock import LOCK_FILE


def _queue_lock(index_dir: Path, branch: str) -> Path:
    return index_dir / f"hooks-queue-{hashlib.sha1(branch.encode()).hexdigest()[:12]}.lock"


def _log(message: str) -> None:
    print(f"{hooks.utc_now()} {message}", flush=True)


def _skip_reason(hook: str, args: list[str]) -> str | None:
    if hook == "post-checkout" and len(args) >= 3 and args[2] == "0":
        return "a file checkout, not a branch checkout"
    return None


def _wait_for_writer(index_dir: Path) -> None:
    """Block until no process writes the index (the lock is taken and released at once); a
    background embedding worker is asked to yield rather than waited for."""
    worker_record.ask_to_yield(index_dir)
    fd = os.open(index_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def refresh(hook: str, repo: Path, index_dir: Path, branch: str, args: list[str]) -> int:
    reason = "HEAD is detached" if not branch else _skip_reason(hook, args)
    if reason:
        _log(f"{hook}: skipped ({reason})")
        return 0
    index_dir.mkdir(parents=True, exist_ok=True)
    queue = os.open(_queue_lock(index_dir, branch), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(queue, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(queue)
        _log(f"{hook}: another refresh of {branch} is already waiting; it will see this change")
        return 0
    try:
        _wait_for_writer(index_dir)
    finally:
        os.close(queue)  # the next hook may queue behind this run from here on
    return _index(hook, repo, index_dir, branch)


def _index(hook: str, repo: Path, index_dir: Path, branch: str) -> int:
    from branchwise.errors import BranchwiseError
    from branchwise.workspace import Workspace

    record: dict[str, Any] = {"hook": hook, "repository": str(repo), "branch": branch, "commit": None, **worker_record.identity(os.getpid()),
              "started": hooks.utc_now(), "finished": None, "outcome": "running", "message": ""}
    started = time.perf_counter()
    try:
        workspace = Workspace(repo, index_dir)
        record.update(commit=workspace.repo.resolve_branch(branch))
        hooks.write_refresh(index_dir, record)
        _log(f"{hook}: indexing {branch} @ {record['commit'][:7]}")
        summaries = workspace.index([branch], wait=True, background=True)
        workspace.close()
        summary = summaries[0]
        later = summaries.embedding
        background = (f"; {later['missing_texts']} texts embedding in the background (worker {later['worker_pid']})"
                      if later["background"] else "")
        record.update(outcome="ok", message=(
            f"{summary.versions_added} new versions, {summary.embedded} embedded, "
            f"{summary.tombstoned} tombstoned ({summary.base}){background}"))
        code = 0
    except BranchwiseError as error:
        record.update(outcome="failed", message=str(error))
        code = error.exit_code
    except Exception as error:  # the log is the only place anyone will see it
        record.update(outcome="failed", message=f"{type(error).__name__}: {error}")
        code = 1
    record.update(finished=hooks.utc_now(), seconds=round(time.perf_counter() - started, 3))
    hooks.write_refresh(index_dir, record)
    _log(f"{hook}: {record['outcome']}: {record['message']}")
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m branchwise.hook_run")
    parser.add_argument("--repo", required=True, type=Path)
    parser.add_argument("--index", required=True, type=Path)
    parser.add_argument("--branch", default="", help="the branch checked out when the hook ran")
    parser.add_argument("hook", choices=hooks.HOOKS)
    parser.add_argument("args", nargs="*")
    options = parser.parse_args(argv)
    # the hook's environment describes the git command that ran it (GIT_DIR, GIT_INDEX_FILE,
    # ...); this process reads the repository on its own
    for name in [n for n in os.environ if n.startswith("GIT_")]:
        del os.environ[name]
    return refresh(options.hook, options.repo, options.index, options.branch, options.args)


if __name__ == "__main__":
    sys.exit(main())
