"""Opening a repository and running git without importing GitPython (issue 47).

GitPython costs a cold command about 35 ms of imports and two `git version` processes before
its first use, and most commands need nothing of it: a static search reads the refs, the work
tree's status and the index database. `find_plain` opens the common repository (a work tree
with a `.git` directory, no variable pointing git elsewhere, a plain config) the way GitPython
would, and says None for anything else, which GitPython then opens as before. `run_git` runs
one git command as GitPython's `execute` does (same environment, working directory, output
decoding and trailing-newline rule) and fails with GitPython's own `GitCommandError`, so every
caller that catches it still does; `GitFailed` lets a caller catch it without importing GitPython.
`CatFile` reads objects one by one from a long-lived `git cat-file --batch`, as GitPython's
object database does.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import weakref
from dataclasses import dataclass
from pathlib import Path

#: variables with which GitPython finds a repository other than by its path (then it opens it)
_REDIRECTING = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY")
_HEX_HEAD = re.compile(rb"(?:[0-9A-Fa-f]{64}|[0-9A-Fa-f]{40})")
_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)\s*(?:"[^"]*")?\s*\]')
_ENCODING = sys.getfilesystemencoding()
_OBJECT_ID = re.compile(r"[0-9a-fA-F]{40}|[0-9a-fA-F]{64}")


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


class CatFile:
    """One long-lived `git cat-file --batch` answering object reads one by one, as GitPython's
    `odb.stream` does (a warm server reads a blob per container result), started on first use
    and ended with its owner; ValueError for an object git says is missing."""

    def __init__(self, overlay: dict[str, str], cwd: Path):
        self._overlay, self._cwd = overlay, cwd
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._finalizer: weakref.finalize | None = None

    def read(self, oid: str) -> bytes:
        if not _OBJECT_ID.fullmatch(oid):  # one request per line: nothing else may reach git's input
            raise ValueError(f"not an object id: {oid!r}")
        with self._lock:
            for attempt in range(2):  # a process that died (killed, say) is started again once
                process = self._process if self._process is not None and self._process.poll() is None else self._start()
                try:
                    return self._ask(process, oid)
                except (BrokenPipeError, EOFError):
                    self._process = None
                    if attempt:
                        raise
            raise AssertionError("unreachable")

    def close(self) -> None:
        """End the process now rather than when this reader is collected."""
        with self._lock:
            if self._finalizer is not None:
                self._finalizer()
            self._process = None

    def _start(self) -> subprocess.Popen:
        process = subprocess.Popen(["git", "cat-file", "--batch"], env=git_environment(self._overlay),
                                   cwd=self._cwd if os.access(self._cwd, os.X_OK) else None,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if self._finalizer is not None:
            self._finalizer()
        self._finalizer = weakref.finalize(self, _end, process)
        self._process = process
        return process

    @staticmethod
    def _ask(process: subprocess.Popen, oid: str) -> bytes:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(oid.encode("ascii") + b"\n")
        process.stdin.flush()
        header = process.stdout.readline()
        if not header:
            raise EOFError("git cat-file ended")
        fields = header.split()
        if len(fields) < 3 or fields[1] == b"missing":
            raise ValueError(f"SHA {oid} could not be resolved, git returned: {header.strip()!r}")
        size = int(fields[2])
        data = process.stdout.read(size)
        process.stdout.read(1)  # the newline after each object
        if len(data) != size:
            raise EOFError("git cat-file ended inside an object")
        return data


def _end(process: subprocess.Popen) -> None:
    """Close a `cat-file` process's pipes, stop it and reap it. Not by waiting for it to see the
    end of its input: a process forked while it ran (a parsing worker, index/parsing.py) holds
    a copy of that input open, so the end never comes; a reader has nothing to finish."""
    for stream in (process.stdin, process.stdout):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    if process.poll() is None:
        process.kill()
    process.wait()
