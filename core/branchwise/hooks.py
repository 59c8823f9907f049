"""Git hooks that keep an index fresh: install, uninstall and status.

An index that waits for someone to run `branchwise index` falls behind the code. These hooks
(post-commit, post-checkout, post-merge, post-rewrite) start an incremental index of the
checked-out branch in the background (hook_run.py) and return at once, so the git command
is never slowed down and never fails because of the index.

The hooks go where git runs them: `git rev-parse --git-path hooks`, which honours
`core.hooksPath` (and with it husky-style set-ups). A hook that is already there is never
overwritten: it is renamed to `<hook>.branchwise-chained` beside our wrapper, which runs it
after starting the refresh, with the same arguments, standard input and exit status. A
shell hook is sourced rather than executed, so it still sees its own path as `$0` (husky's
dispatchers find their scripts that way). `uninstall` renames it back, byte for byte, and
removes only the wrappers that carry our marker.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from branchwise.errors import UsageError
from branchwise.worker_record import alive

HOOKS = ("post-commit", "post-checkout", "post-merge", "post-rewrite")
MARKER = "# branchwise-hook 1"
CHAINED = ".branchwise-chained"
LOG_FILE = "hooks.log"
STATUS_FILE = "hooks-last-run.json"
#: set (to anything) to make the installed hooks do nothing but run the chained hooks
DISABLE_VARIABLE = "BRANCHWISE_HOOKS_OFF"


def hooks_dir(work_tree: Path) -> Path:
    """The directory git runs hooks from: core.hooksPath when set, else the repository's."""
    try:
        out = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=work_tree,
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as error:
        raise UsageError(f"cannot find the hooks directory of {work_tree}: {error}") from None
    return (work_tree / out).resolve()


def is_ours(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return MARKER.encode() in handle.read(4096)
    except OSError:
        return False


def install(work_tree: Path, index_dir: Path, python: str | None = None) -> dict[str, str]:
    """Install the four hooks; returns hook name -> what was done."""
    folder = hooks_dir(work_tree)
    folder.mkdir(parents=True, exist_ok=True)
    index_dir.mkdir(parents=True, exist_ok=True)
    done: dict[str, str] = {}
    for name in HOOKS:
        path, chained = folder / name, folder / f"{name}{CHAINED}"
        if path.is_symlink() or path.exists():
            if is_ours(path):
                done[name] = "updated"
            elif chained.is_symlink() or chained.exists():
                raise UsageError(f"{chained} already exists: move it away before installing hooks")
            else:
                os.replace(path, chained)
                done[name] = f"installed, chaining to the existing hook (kept as {chained.name})"
        else:
            done[name] = "installed"
        script = wrapper(name, work_tree, index_dir, python or sys.executable,
                         chained if (chained.is_symlink() or chained.exists()) else None)
        tmp = path.with_name(f".{name}.branchwise-tmp")
        tmp.write_text(script)
        tmp.chmod(0o755)
        os.replace(tmp, path)
    return done


def uninstall(work_tree: Path) -> dict[str, str]:
    """Remove our wrappers and put back the hooks they chained to; returns name -> what was done."""
    folder = hooks_dir(work_tree)
    done: dict[str, str] = {}
    for name in HOOKS:
        path, chained = folder / name, folder / f"{name}{CHAINED}"
        if not is_ours(path):
            done[name] = "not installed"
            continue
        if chained.is_symlink() or chained.exists():
            os.replace(chained, path)
            done[name] = "restored the previous hook"
        else:
            path.unlink()
            done[name] = "removed"
    return done


def status(work_tree: Path, index_dir: Path) -> dict:
    """Whether the hooks are installed, and when the last background refresh ran and how it ended."""
    folder = hooks_dir(work_tree)
    hooks = {}
    for name in HOOKS:
        path = folder / name
        if is_ours(path):
            hooks[name] = "installed"
        elif path.is_symlink() or path.exists():
            hooks[name] = "other hook"
        else:
            hooks[name] = "absent"
    return {
        "hooks_dir": str(folder),
        "installed": all(state == "installed" for state in hooks.values()),
        "hooks": hooks,
        "log": str(index_dir / LOG_FILE),
        "last_refresh": last_refresh(index_dir),
    }


def last_refresh(index_dir: Path) -> dict | None:
    """The record of the last background refresh, or None when none has run."""
    try:
        record = json.loads((index_dir / STATUS_FILE).read_text())
    except (OSError, ValueError):
        return None
    if record.get("outcome") == "running" and not alive(record.get("pid")):
        record["outcome"] = "interrupted"
    return record


def write_refresh(index_dir: Path, record: dict) -> None:
    tmp = index_dir / f".{STATUS_FILE}.tmp"
    tmp.write_text(json.dumps(record, indent=1))
    os.replace(tmp, index_dir / STATUS_FILE)


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def wrapper(name: str, work_tree: Path, index_dir: Path, python: str, chained: Path | None) -> str:
    """The hook script: start the refresh detached, then hand over to the chained hook."""
    shell, chain = "#!/bin/sh", ""
    if chained is not None:
        mode, shebang = _chain_mode(chained)
        if mode == "source":
            shell = shebang or shell
            chain = f'. "$0{CHAINED}"\n'
        else:
            chain = f'exec "$0{CHAINED}" "$@"\n'
    q = shlex.quote
    refresh = " ".join([q(python), "-m", "branchwise.hook_run", "--repo", q(str(work_tree)),
                        "--index", q(str(index_dir)), '--branch "$branchwise_branch"', name, '"$@"'])
    return (
        f"{shell}\n{MARKER}: refreshes the branchwise index of the checked-out branch in the\n"
        f"# background; `branchwise hooks uninstall` removes it"
        f"{' and restores the hook kept as ' + name + CHAINED if chained else ''}.\n"
        f'if [ -z "${DISABLE_VARIABLE}" ]; then\n'
        f"  branchwise_branch=$(git symbolic-ref --short -q HEAD)\n"
        f"  branchwise_detach=$(command -v setsid 2>/dev/null)\n"
        f"  ( $branchwise_detach {refresh} </dev/null >>{q(str(index_dir / LOG_FILE))} 2>&1 & ) 2>/dev/null\n"
        f"fi\n{chain}"
    )


def _chain_mode(chained: Path) -> tuple[str, str | None]:
    """("source", its shebang) for a POSIX or bash shell script, else ("exec", None)."""
    try:
        with open(chained, "rb") as handle:
            first = handle.readline(256).decode("utf-8", "replace").strip()
    except OSError:
        return "exec", None
    if not first.startswith("#!"):
        return ("source", None) if first.isprintable() else ("exec", None)
    words = first[2:].split()
    interpreter = os.path.basename(words[1] if words and os.path.basename(words[0]) == "env" and len(words) > 1
                                   else (words[0] if words else ""))
    if interpreter in ("sh", "dash"):
        return "source", None
    if interpreter == "bash":
        return "source", first
    return "exec", None
