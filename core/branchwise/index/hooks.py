"""Git hooks that keep an index fresh: install, uninstall and status.

An index that waits for someone to run `branchwise index` falls behind the code. These hooks
(post-commit, post-checkout, post-merge, post-rewrite) start an incremental index of the
checked-out branch in the background (hook_run.py) and return at once, so the git command
is never slowed down and never fails because of the index.

The hooks go where git runs them: `git rev-parse --git-path hooks`, which honours
`core.hooksPath` (and with it husky-style set-ups). A hook that is already there is never
overwritten: it moves, under its own name, into the folder `branchwise-chained/` beside our
wrapper, which runs it after starting the refresh, with the same arguments, standard input and
exit status. A shell hook is sourced rather than executed, so it still sees the hook's path as
`$0` (husky's dispatchers find their scripts that way); any other hook is executed and sees its
own name (`post-commit`), which is how hook managers tell which hook they are. `uninstall` moves
it back, byte for byte, and removes only the wrappers that carry our marker.

Installing writes each wrapper to a new file of a fresh name and renames it into place, so a
link planted in the hooks folder is replaced, never written through; the repository is the one
named, whatever `GIT_DIR` the caller's environment holds; `core.hooksPath=/dev/null` (hooks
turned off) is refused with one line.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from branchwise.errors import UsageError
from branchwise.store import worker_record

HOOKS = ("post-commit", "post-checkout", "post-merge", "post-rewrite")
MARKER = "# branchwise-hook 1"
CHAINED = ".branchwise-chained"
CHAINED_FOLDER = "branchwise-chained"
LOG_FILE = "hooks.log"
STATUS_FILE = "hooks-last-run.json"
#: set (to anything) to make the installed hooks do nothing but run the chained hooks
DISABLE_VARIABLE = "BRANCHWISE_HOOKS_OFF"


#: variables that point git at a repository: a hook install follows the `--repo` it was given,
#: not a GIT_DIR left in the environment by the caller (a hook, a script)
_LOCATION_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
                       "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE", "GIT_PREFIX")


def hooks_dir(work_tree: Path) -> Path:
    """The directory git runs hooks from: core.hooksPath when set, else the repository's."""
    env = {name: value for name, value in os.environ.items() if name not in _LOCATION_VARIABLES}
    try:
        out = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=work_tree, env=env,
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as error:
        raise UsageError(f"cannot find the hooks directory of {work_tree}: {error}") from None
    return (work_tree / out).resolve()


def chained_path(folder: Path, name: str) -> Path:
    """Where a hook that was there before ours is kept: in a folder of its own under its own
    name, so that a hook which finds its type from its name (hook managers do) still reads it."""
    return folder / CHAINED_FOLDER / name


def _legacy_chained(folder: Path, name: str) -> Path:
    """Where installs before the chained folder kept it (`<hook>.branchwise-chained`)."""
    return folder / f"{name}{CHAINED}"


def _exists(path: Path) -> bool:
    return path.is_symlink() or path.exists()


def is_ours(path: Path) -> bool:
    if path.is_symlink():  # our wrapper is always a plain file
        return False
    try:
        with open(path, "rb") as handle:
            return MARKER.encode() in handle.read(4096)
    except OSError:
        return False


def _usable_folder(work_tree: Path) -> Path:
    folder = hooks_dir(work_tree)
    if str(folder) == os.devnull or (_exists(folder) and not folder.is_dir()):
        raise UsageError(f"git runs no hooks from {folder} (core.hooksPath turns them off here): "
                         "point core.hooksPath at a folder, or unset it, to install the refresh hooks")
    return folder


def install(work_tree: Path, index_dir: Path, python: str | None = None) -> dict[str, str]:
    """Install the four hooks; returns hook name -> what was done."""
    folder = _usable_folder(work_tree)
    folder.mkdir(parents=True, exist_ok=True)
    index_dir.mkdir(parents=True, exist_ok=True)
    done: dict[str, str] = {}
    for name in HOOKS:
        path, chained, legacy = folder / name, chained_path(folder, name), _legacy_chained(folder, name)
        if _exists(path) and is_ours(path):
            done[name] = "updated"
            if _exists(legacy) and not _exists(chained):
                _keep_aside(legacy, chained)
        elif _exists(path):
            if _exists(chained) or _exists(legacy):
                raise UsageError(f"{chained} already exists: move it away before installing hooks")
            _keep_aside(path, chained)
            done[name] = f"installed, chaining to the existing hook (kept as {CHAINED_FOLDER}/{name})"
        else:
            done[name] = "installed"
        script = wrapper(name, work_tree, index_dir, python or sys.executable,
                         chained if _exists(chained) else None)
        _write_executable(path, script)
    return done


def _keep_aside(path: Path, chained: Path) -> None:
    """Move an existing hook into the chained folder (the entry itself, never what a link names)."""
    if chained.parent.is_symlink() or (_exists(chained.parent) and not chained.parent.is_dir()):
        raise UsageError(f"{chained.parent} is not a folder of ours: move it away before installing hooks")
    chained.parent.mkdir(exist_ok=True)
    os.replace(path, chained)


def _write_executable(path: Path, text: str) -> None:
    """Write `path` through a new file of a fresh name (O_EXCL, so never through a link that
    someone planted under the name) and rename it into place."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.branchwise-")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            os.fchmod(handle.fileno(), 0o755)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def uninstall(work_tree: Path) -> dict[str, str]:
    """Remove our wrappers and put back the hooks they chained to; returns name -> what was done."""
    folder = _usable_folder(work_tree)
    done: dict[str, str] = {}
    for name in HOOKS:
        path = folder / name
        if not is_ours(path):
            done[name] = "not installed"
            continue
        kept = next((p for p in (chained_path(folder, name), _legacy_chained(folder, name)) if _exists(p)), None)
        if kept is not None:
            os.replace(kept, path)
            done[name] = "restored the previous hook"
        else:
            path.unlink()
            done[name] = "removed"
    chained_folder = folder / CHAINED_FOLDER
    if chained_folder.is_dir() and not chained_folder.is_symlink() and not any(chained_folder.iterdir()):
        chained_folder.rmdir()
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
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(record, dict):
        return None
    record = worker_record.sane(record)
    for name in ("outcome", "hook", "branch", "commit", "finished"):
        if record.get(name) is not None and not isinstance(record[name], str):
            record[name] = str(record[name])
    record.setdefault("outcome", "unknown")
    record.setdefault("hook", "?")
    if record.get("outcome") == "running" and not worker_record.is_same_process(record):
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
            chain = f'. "$(dirname "$0")/{CHAINED_FOLDER}/{name}"\n'
        else:
            chain = f'exec "$(dirname "$0")/{CHAINED_FOLDER}/{name}" "$@"\n'
    q = shlex.quote
    refresh = " ".join([q(python), "-m", "branchwise.hook_run", "--repo", q(str(work_tree)),
                        "--index", q(str(index_dir)), '--branch "$branchwise_branch"', name, '"$@"'])
    return (
        f"{shell}\n{MARKER}: refreshes the branchwise index of the checked-out branch in the\n"
        f"# background; `branchwise hooks uninstall` removes it"
        f"{' and restores the hook kept as ' + CHAINED_FOLDER + '/' + name if chained else ''}.\n"
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


class RepositoryHooks:
    """The hooks of one workspace's repository (`Workspace.hooks`): a bare repository has none."""

    def __init__(self, repo, index_dir: Path):
        self.repo, self.index_dir = repo, index_dir

    def _work_tree(self) -> Path:
        if self.repo.work_tree is None:
            raise UsageError(f"{self.repo.name} is a bare repository: git runs no commit or checkout hooks there")
        return self.repo.work_tree

    def install(self) -> dict[str, str]:
        """Install the hooks that refresh this index in the background."""
        return install(self._work_tree(), self.index_dir)

    def uninstall(self) -> dict[str, str]:
        """Remove the hooks and restore those they chained to."""
        return uninstall(self._work_tree())

    def status(self) -> dict:
        """Whether the hooks are installed, and when the last background refresh ran and how it ended."""
        return status(self._work_tree(), self.index_dir)
