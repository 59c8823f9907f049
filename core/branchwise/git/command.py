"""Opening a repository and running git without importing GitPython (issue 47).

GitPython costs a cold command about 35 ms of imports and two `git version` processes before
its first use, and most commands need nothing of it: a static search reads the refs, the work
tree's status and the index database. `find_plain` opens the common repository (a work tree
with a `.git` directory, no variable pointing git elsewhere, a plain config) the way GitPython
would, and says None for anything else, which GitPython then opens as before. `run_git` runs
one git command as GitPython's `execute` does (same environment, working directory, output
decoding and trailing-newline rule) and fails with GitPython's own `GitCommandError`, so every
caller that catches it still does; `GitFailed` lets a caller catch it without importing GitPython.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: variables with which GitPython finds a repository other than by its path (then it opens it)
_REDIRECTING = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY")
_HEX_HEAD = re.compile(rb"(?:[0-9A-Fa-f]{64}|[0-9A-Fa-f]{40})")
_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)\s*(?:"[^"]*")?\s*\]')
_ENCODING = sys.getfilesystemencoding()


class GitFailed(Exception):
    """A git command that exited with an error (every such error is also GitPython's `GitCommandError`)."""


@dataclass(frozen=True)
class PlainRepository:
    """Where a repository opened without GitPython lives: as GitPython's `Repo` would say."""

    git_dir: Path
    work_tree: Path


def find_plain(path: str | os.PathLike[str]) -> PlainRepository | None:
    """The repository at `path` when it is a work tree whose `.git` is the repository's own
    directory and GitPython would read it the plain way; None for anything else (a linked work
    tree or submodule, a bare repository, `core.worktree`, an include, a variable such as
    GIT_DIR): GitPython opens those."""
    if any(name in os.environ for name in _REDIRECTING):
        return None
    top = os.path.normpath(os.path.abspath(os.path.expanduser(os.fspath(path))))
    dotgit = os.path.join(top, ".git")
    if os.path.islink(dotgit) or not os.path.isdir(dotgit) or os.path.lexists(os.path.join(dotgit, "commondir")):
        return None
    if not (_plain_head(os.path.join(dotgit, "HEAD")) and os.path.isdir(os.path.join(dotgit, "objects"))
            and os.path.isdir(os.path.join(dotgit, "refs"))):
        return None
    if not _plain_config(os.path.join(dotgit, "config")):
        return None
    return PlainRepository(Path(dotgit).resolve(), Path(top).resolve())


def _plain_head(head: str) -> bool:
    if os.path.islink(head):
        return False
    try:
        with open(head, "rb") as stream:
            text = stream.read(256)
    except OSError:
        return False
    return (text.startswith(b"ref:") and text[4:].lstrip().startswith(b"refs/")) or bool(_HEX_HEAD.match(text))


def _plain_config(config: str) -> bool:
    """Whether the repository's config is one read here: `core.bare` absent or false, and no
    include, no continued line (anything else is left to GitPython's config reader)."""
    try:
        with open(config, encoding="utf-8") as stream:
            lines = stream.read().splitlines()
    except FileNotFoundError:
        return True
    except (OSError, UnicodeError):
        return False
    section = ""
    for raw in lines:
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            return False
        if line.startswith("["):
            found = _SECTION.match(line)
            if found is None or line[found.end():].strip()[:1] not in ("", "#", ";"):
                return False
            section = found[1].lower()
            if section in ("include", "includeif"):
                return False
            continue
        key, _, value = line.partition("=")
        if section == "core" and key.strip().lower() in ("bare", "worktree"):
            if key.strip().lower() == "worktree" or value.strip().lower() != "false":
                return False
    return True


def git_environment(overlay: dict[str, str]) -> dict[str, str]:
    """A git process's whole environment, as GitPython builds it: ours, C messages, the overlay."""
    env = os.environ.copy()
    env["LANGUAGE"] = "C"
    env["LC_ALL"] = "C"
    env.update(overlay)
    return env


def run_git(args: list[str], overlay: dict[str, str], cwd: Path, *, istream=None, stdout_as_string: bool = True,
            strip_newline_in_stdout: bool = True, check: bool = True) -> str | bytes | None:
    """Run `git ARGS` as GitPython's `Git.execute` does; on failure raise its `GitCommandError`
    (also a `GitFailed`), or return None when `check` is false."""
    command = ["git", *args]
    process = subprocess.Popen(command, env=git_environment(overlay), cwd=cwd if os.access(cwd, os.X_OK) else None,
                               stdin=istream or subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, stderr = process.communicate()
    if stdout.endswith(b"\n") and strip_newline_in_stdout:
        stdout = stdout[:-1]
    if process.returncode != 0:
        if not check:
            return None
        raise command_error(command, process.returncode, stderr[:-1] if stderr.endswith(b"\n") else stderr, stdout)
    return stdout.decode(_ENCODING, "surrogateescape") if stdout_as_string else stdout


_combined: type | None = None


def command_error(command: list[str], status: int, stderr: bytes, stdout: bytes) -> Exception:
    """GitPython's `GitCommandError` for a failed command, also a `GitFailed` (GitPython is
    imported here, on the way to an error, and not before)."""
    global _combined
    if _combined is None:
        from git.exc import GitCommandError

        _combined = type("GitCommandError", (GitCommandError, GitFailed), {"__module__": GitCommandError.__module__})
    return _combined(command, status, stderr, stdout)
