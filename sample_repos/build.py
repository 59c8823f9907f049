"""Build the sample git repositories that branchwise's tests and demo run against.

Usage: python sample_repos/build.py DEST    (builds DEST/shop, DEST/engine, DEST/webapp)

Why a builder rather than committed repositories: a nested `.git` cannot be committed, and a
history kept as text (a manifest plus whole files per step, see README.md) can be reviewed in
a diff. Why so much pinning: citations, tests and the demo name commits by hash, so every
commit is made with a fixed author, committer and date, and git runs with the user's global
and system configuration switched off (a global ignore file or autocrlf setting would change
what gets committed). Building twice gives identical commit hashes.

Standard library only, and the `git` command line, so it runs before anything is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES = ("shop", "engine", "webapp")
IDENTITY = {
    "GIT_AUTHOR_NAME": "Branchwise Samples",
    "GIT_AUTHOR_EMAIL": "samples@branchwise.invalid",
    "GIT_COMMITTER_NAME": "Branchwise Samples",
    "GIT_COMMITTER_EMAIL": "samples@branchwise.invalid",
}
# Repository-local settings: isolate the build from the machine, and keep the built
# repositories usable by tests that commit in their copies (user.* is set).
REPO_CONFIG = {
    "commit.gpgSign": "false",
    "tag.gpgSign": "false",
    "core.autocrlf": "false",
    "core.excludesFile": os.devnull,
    "core.attributesFile": os.devnull,
    "gc.auto": "0",
    "user.name": IDENTITY["GIT_AUTHOR_NAME"],
    "user.email": IDENTITY["GIT_AUTHOR_EMAIL"],
}
# A file in `.git` naming the repository: proves a directory is ours before we delete it.
MARKER = "branchwise-sample-repo"
# Caches a Python or an OS may leave next to the step files; never part of a history.
SKIPPED_NAMES = {"__pycache__", ".DS_Store"}
STEP_KEYS = {"id", "branch", "from", "date", "message", "rename", "delete", "merge", "revert"}
USAGE = "usage: python sample_repos/build.py DEST"


class BuildError(Exception):
    """A manifest or git failure, reported as one line (exit 1)."""


class DestinationError(BuildError):
    """A destination we must not touch (exit 2: bad input)."""


@dataclass(frozen=True)
class Step:
    """One manifest entry: a commit of whole files, a merge, or a revert, on one branch."""

    id: str
    branch: str
    date: str
    message: str | None
    base: str | None
    renames: tuple[tuple[str, str], ...]
    deletes: tuple[str, ...]
    merge: str | None
    revert: str | None
    files_dir: Path


def load_manifest(name: str) -> list[Step]:
    """Read and validate `sample_repos/<name>/manifest.toml`, in commit order."""
    path = HERE / name / "manifest.toml"
    if not path.is_file():
        raise BuildError(f"no manifest for sample repository {name!r} at {path}")
    try:
        raw_steps = tomllib.loads(path.read_text(encoding="utf-8")).get("step", [])
    except tomllib.TOMLDecodeError as exc:
        raise BuildError(f"{path}: {exc}") from exc
    steps = [parse_step(raw, HERE / name / "steps") for raw in raw_steps]
    ids = [step.id for step in steps]
    if len(set(ids)) != len(ids):
        raise BuildError(f"{path}: step ids are not unique")
    return steps


def parse_step(raw: dict, steps_dir: Path) -> Step:
    """Turn one `[[step]]` table into a Step, rejecting typos and impossible combinations."""
    step_id = raw.get("id", "?")
    unknown = set(raw) - STEP_KEYS
    missing = {"id", "branch", "date"} - set(raw)
    if unknown:
        raise BuildError(f"step {step_id}: unknown keys {', '.join(sorted(unknown))}")
    if missing:
        raise BuildError(f"step {step_id}: missing keys {', '.join(sorted(missing))}")
    try:
        datetime.fromisoformat(raw["date"])
    except ValueError as exc:
        raise BuildError(f"step {step_id}: bad date {raw['date']!r}") from exc
    step = Step(
        id=step_id,
        branch=raw["branch"],
        date=raw["date"],
        message=raw.get("message"),
        base=raw.get("from"),
        renames=tuple(tuple(pair) for pair in raw.get("rename", [])),
        deletes=tuple(raw.get("delete", [])),
        merge=raw.get("merge"),
        revert=raw.get("revert"),
        files_dir=steps_dir / step_id,
    )
    check_step_shape(step)
    return step


def check_step_shape(step: Step) -> None:
    """A merge or revert carries no file changes; anything else needs a message and changes."""
    has_changes = bool(step.renames or step.deletes or step.files_dir.is_dir())
    if step.merge and step.revert:
        raise BuildError(f"step {step.id}: a step merges or reverts, not both")
    if (step.merge or step.revert) and has_changes:
        raise BuildError(f"step {step.id}: a merge or revert step cannot also change files")
    if step.merge is None and step.revert is None and not (has_changes and step.message):
        raise BuildError(f"step {step.id}: a commit step needs a message and file changes")
    if any(len(pair) != 2 for pair in step.renames):
        raise BuildError(f"step {step.id}: each rename is [old, new]")


class Git:
    """Runs git in one repository with a pinned, isolated environment."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, *args: str, date: str | None = None, stdin: str | None = None) -> str:
        try:
            done = subprocess.run(
                ["git", *args], cwd=self.path, env=git_env(date), input=stdin,
                capture_output=True, text=True, encoding="utf-8",
            )
        except FileNotFoundError as exc:
            raise BuildError("git is not installed or not on PATH") from exc
        if done.returncode != 0:
            detail = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[0]
            raise BuildError(f"git {' '.join(args)} failed in {self.path}: {detail}")
        return done.stdout

    def branch_exists(self, branch: str) -> bool:
        return bool(self("branch", "--list", branch).strip())

    def current_branch(self) -> str:
        return self("symbolic-ref", "--short", "HEAD").strip()


def git_env(date: str | None) -> dict[str, str]:
    """The caller's environment minus any GIT_* variable, plus our identity and isolation."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(IDENTITY, GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", LC_ALL="C")
    if date is not None:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return env


def build(name: str, dest: Path) -> Path:
    """Build sample repository `name` at `dest/name` (replacing an earlier build) and return it."""
    if name not in NAMES:
        raise DestinationError(f"unknown sample repository {name!r}; known: {', '.join(NAMES)}")
    steps = load_manifest(name)
    target = Path(dest) / name
    clear_target(target, name)
    target.mkdir(parents=True, exist_ok=True)
    git = Git(target)
    git("init", "-q", "-b", "main", "--template=")
    for key, value in REPO_CONFIG.items():
        git("config", key, value)
    commits: dict[str, str] = {}
    for step in steps:
        commits[step.id] = apply_step(git, step, commits)
    finish(git, name)
    return target


def build_all(dest: Path) -> dict[str, Path]:
    """Build every sample repository under `dest`; returns name -> repository path."""
    return {name: build(name, dest) for name in NAMES}


def clear_target(target: Path, name: str) -> None:
    """Remove an earlier build of ours; refuse to delete anything else."""
    if not target.exists() and not target.is_symlink():
        return
    if target.is_dir() and not target.is_symlink():
        marker = target / ".git" / MARKER
        if not any(target.iterdir()):
            return
        if marker.is_file() and marker.read_text(encoding="utf-8").strip() == name:
            shutil.rmtree(target)
            return
    raise DestinationError(f"{target} exists and is not a branchwise sample repository; not touching it")


def apply_step(git: Git, step: Step, commits: dict[str, str]) -> str:
    """Make the step's commit on its branch and return the new commit's hash."""
    switch_to(git, step)
    if step.merge:
        git("merge", "-q", "--no-ff", "--no-edit", "-m", step.message or f"Merge branch '{step.merge}'",
            step.merge, date=step.date)
    elif step.revert:
        revert(git, step, commits)
    else:
        commit_files(git, step)
    return git("rev-parse", "HEAD").strip()


def switch_to(git: Git, step: Step) -> None:
    """Check out the step's branch, creating it from `from` when the manifest asks to."""
    exists = git.branch_exists(step.branch)
    if step.base is not None:
        if exists:
            raise BuildError(f"step {step.id}: branch {step.branch} already exists; drop 'from'")
        git("switch", "-q", "-c", step.branch, step.base)
    elif not exists and git.current_branch() != step.branch:
        raise BuildError(f"step {step.id}: branch {step.branch} does not exist; add 'from'")
    elif git.current_branch() != step.branch:
        git("switch", "-q", step.branch)


def revert(git: Git, step: Step, commits: dict[str, str]) -> None:
    """Revert an earlier step's commit, with git's usual message unless the manifest gives one."""
    if step.revert not in commits:
        raise BuildError(f"step {step.id}: reverts {step.revert!r}, which is not an earlier step")
    reverted = commits[step.revert]
    subject = git("log", "-1", "--format=%s", reverted).strip()
    message = step.message or f'Revert "{subject}"\n\nThis reverts commit {reverted}.\n'
    git("revert", "--no-commit", reverted)
    git("commit", "-q", "--no-verify", "-F", "-", date=step.date, stdin=message)


def commit_files(git: Git, step: Step) -> None:
    """Apply renames, then deletions, then write the step's whole files, and commit."""
    for old, new in step.renames:
        (git.path / new).parent.mkdir(parents=True, exist_ok=True)
        git("mv", old, new)
    if step.deletes:
        git("rm", "-q", "--", *step.deletes)
    written = copy_step_files(step.files_dir, git.path)
    if written:
        git("add", "--force", "--", *written)
    git("commit", "-q", "--no-verify", "-F", "-", date=step.date, stdin=step.message)


def copy_step_files(source: Path, work_tree: Path) -> list[str]:
    """Copy every file under `source` to the same relative path in `work_tree`, byte for byte."""
    if not source.is_dir():
        return []
    written = []
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if not path.is_file() or SKIPPED_NAMES.intersection(relative.parts) or path.suffix == ".pyc":
            continue
        destination = work_tree / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(path.read_bytes())
        written.append(relative.as_posix())
    return written


def finish(git: Git, name: str) -> None:
    """Leave the repository on main with a clean work tree, and mark it as ours."""
    git("switch", "-q", "main")
    if git("status", "--porcelain").strip():
        raise BuildError(f"{git.path}: work tree not clean after the build")
    (git.path / ".git" / MARKER).write_text(name + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    if argv in (["-h"], ["--help"]):
        print(USAGE)
        return 0
    if len(argv) != 1 or argv[0].startswith("-"):
        print(f"{USAGE}  (expected exactly one destination directory)", file=sys.stderr)
        return 2
    dest = Path(argv[0])
    if dest.exists() and not dest.is_dir():
        print(f"error: {dest} exists and is not a directory", file=sys.stderr)
        return 2
    try:
        repos = build_all(dest)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, DestinationError) else 1
    for name, path in repos.items():
        print(f"{name}: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
