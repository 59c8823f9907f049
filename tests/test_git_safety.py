"""A hostile repository's git settings never run a command, and the caller's GIT_* variables
never send git to another repository.

Each test plants a setting that makes git run a program (it creates a marker file), triggers
the git operation that would run it through branchwise (index, search with verification of a
work tree whose file git must re-hash, or the verifier directly), and asserts that no marker
appeared. Settings that no branchwise git call can trigger are checked through the value git
itself reports for them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.git.repo import GitRepo
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture
def repo(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "hostile")
    builder.write("src/app.py", "def handler(x):\n    return x * 2\n")
    builder.commit("init")
    return builder


def marker_command(marker: Path) -> str:
    return f"touch {marker}; cat"


def stat_dirty(repo: GitBuilder) -> None:
    """Change a tracked file's mtime only, so git has to re-hash it (through filters) to compare."""
    target = repo.path / "src/app.py"
    stamp = target.stat().st_mtime + 100
    os.utime(target, (stamp, stamp))


def search_and_verify(repo: GitBuilder, tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "branchwise_cli", "index", str(repo.path), "--index", str(tmp_path / "idx")],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    stat_dirty(repo)
    out = subprocess.run(
        [sys.executable, "-m", "branchwise_cli", "search", "handler", "--repo", str(repo.path), "--branch", "main",
         "--index", str(tmp_path / "idx"), "--json"],
        capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    assert '"verdict": "current"' in out.stdout


def test_core_fsmonitor_is_never_run(repo, tmp_path):
    marker = tmp_path / "fsmonitor-ran"
    script = tmp_path / "fsmonitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    repo.git("config", "core.fsmonitor", str(script))
    search_and_verify(repo, tmp_path)
    assert not marker.exists()


def test_clean_filter_is_never_run(repo, tmp_path):
    marker = tmp_path / "filter-ran"
    repo.write(".gitattributes", "*.py filter=evil\n")
    repo.commit("attributes")
    repo.git("config", "filter.evil.clean", marker_command(marker))
    repo.git("config", "filter.evil.smudge", marker_command(marker))
    repo.git("config", "filter.evil.required", "true")
    search_and_verify(repo, tmp_path)
    assert not marker.exists()


def test_process_filter_is_never_run(repo, tmp_path):
    marker = tmp_path / "process-ran"
    repo.write(".gitattributes", "*.py filter=lfsish\n")
    repo.commit("attributes")
    repo.git("config", "filter.lfsish.process", f"sh -c 'touch {marker}'")
    search_and_verify(repo, tmp_path)
    assert not marker.exists()


def test_hooks_are_never_run(repo, tmp_path):
    marker = tmp_path / "hook-ran"
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in ("post-index-change", "post-checkout", "reference-transaction"):
        hook = hooks / name
        hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
        hook.chmod(0o755)
    repo.git("config", "core.hooksPath", str(hooks))
    search_and_verify(repo, tmp_path)
    assert not marker.exists()


def test_the_index_file_is_not_rewritten_by_a_status_read(repo, tmp_path):
    """`git status` may refresh and rewrite .git/index; branchwise only reads the repository."""
    index_file = repo.path / ".git/index"
    before = index_file.read_bytes()
    stat_dirty(repo)
    GitRepo(repo.path).dirty_paths()
    assert index_file.read_bytes() == before


@pytest.mark.parametrize("key, hostile", [
    ("diff.evil.textconv", "touch /tmp/pwned-textconv"),
    ("diff.evil.command", "touch /tmp/pwned-diffcmd"),
    ("diff.external", "touch /tmp/pwned-external"),
    ("core.pager", "touch /tmp/pwned-pager; less"),
    ("pager.log", "touch /tmp/pwned-pagerlog"),
    ("merge.evil.driver", "touch /tmp/pwned-merge"),
    ("core.sshCommand", "touch /tmp/pwned-ssh"),
    ("credential.helper", "!touch /tmp/pwned-credential"),
])
def test_program_settings_are_overridden_for_every_git_call(repo, key, hostile):
    repo.git("config", key, hostile)
    seen = GitRepo(repo.path)._git("config", "--get", key)  # the value git acts on (the last one)
    assert hostile not in seen


def test_gitpython_processes_get_the_overrides_too(repo, tmp_path):
    """GitPython's own git processes (cat-file for blobs, rev-parse) use the same environment."""
    repo.git("config", "filter.evil.clean", "touch /tmp/pwned")
    opened = GitRepo(repo.path)
    environment = opened._repo.git.environment()
    keys = {environment[name] for name in environment if name.startswith("GIT_CONFIG_KEY_")}
    assert {"core.fsmonitor", "core.hooksPath", "filter.evil.clean"} <= keys


def test_git_variables_from_the_caller_do_not_redirect_git(repo, tmp_path, monkeypatch):
    """Inside a git hook of another repository GIT_DIR and GIT_INDEX_FILE point there."""
    other = GitBuilder(tmp_path / "other")
    other.write("src/other.py", "def unrelated():\n    return 0\n")
    other.commit("other")
    expected = repo.head("main")
    monkeypatch.setenv("GIT_DIR", str(other.path / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other.path / ".git/index"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other.path))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(other.path / ".git/objects"))
    opened = GitRepo(repo.path)
    head = opened.resolve_branch("main")
    assert head == expected
    assert set(opened.list_tree(head).files) == {"src/app.py"}
    assert opened.dirty_paths() == frozenset()


def test_search_in_a_hostile_repository_still_verifies(repo, tmp_path):
    repo.git("config", "core.fsmonitor", "false")
    workspace = Workspace(repo.path, tmp_path / "idx")
    workspace.index(["main"])
    results = workspace.search(SearchRequest("handler", "main", top_k=3))
    assert results and results[0].verdict.value == "current"
