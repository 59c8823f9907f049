"""Git hooks keep the index fresh: real git commands, real background refreshes, polled.

The refresh runs detached from git, so each test polls the index (the live set, as
`inspect` reads it) or the refresh record until the expected state appears or a generous
wait runs out. The hashing embedder stands in for the model: what is tested is when
indexing happens and that git never notices, not retrieval.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gittools import GitBuilder

import branchwise
from branchwise.index import hooks
from branchwise.workspace import Workspace

WAIT_S = 90


@pytest.fixture
def hook_env(monkeypatch):
    """The environment git passes to the hooks: this checkout of branchwise, the test embedder."""
    package_root = str(Path(branchwise.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    monkeypatch.delenv(hooks.DISABLE_VARIABLE, raising=False)


@pytest.fixture
def repo(tmp_path, hook_env) -> GitBuilder:
    builder = GitBuilder(tmp_path / "repo")
    builder.write("app/orders.py", "def place_order(cart):\n    return len(cart)\n")
    builder.commit("first")
    builder.branch("feature/refunds")
    return builder


def _live_names(work_tree: Path, index: Path, branch: str) -> set[str]:
    if not (index / "index.sqlite3").exists():
        return set()
    workspace = Workspace(work_tree, index)
    try:
        return {row["qualified_name"] for row in workspace.inspect(branch)}
    except Exception:  # the branch is not indexed yet
        return set()
    finally:
        workspace.close()


def _poll(check, what: str):
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"timed out after {WAIT_S} s waiting for {what}")


def _existing_hook(folder: Path, name: str, log: Path) -> bytes:
    script = f'#!/bin/sh\n# the team\'s own hook\necho "{name} $*" >> "{log}"\n'.encode()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(script)
    (folder / name).chmod(0o750)
    return script


def test_commit_makes_new_function_searchable_and_existing_hook_still_runs(repo, tmp_path):
    index = tmp_path / "index"
    ran = tmp_path / "ran.txt"
    original = _existing_hook(repo.path / ".git" / "hooks", "post-commit", ran)
    done = hooks.install(repo.path, index)
    assert "chaining" in done["post-commit"] and done["post-merge"] == "installed"
    assert hooks.status(repo.path, index)["installed"] is True

    repo.write("app/orders.py", "def place_order(cart):\n    return len(cart)\n\n\n"
                                "def cancel_order(order_id):\n    return order_id\n")
    repo.commit("add cancel_order")

    names = _poll(lambda: _live_names(repo.path, index, "main") >= {"place_order", "cancel_order"} or None,
                  "cancel_order in main's live set")
    assert names
    assert ran.read_text().splitlines() == ["post-commit "]
    record = _poll(lambda: (r := hooks.last_refresh(index)) and r["outcome"] != "running" and r, "the record")
    assert record["outcome"] == "ok" and record["branch"] == "main" and record["hook"] == "post-commit"
    assert record["commit"] == repo.head()
    assert "main" in (index / hooks.LOG_FILE).read_text()
    assert (repo.path / ".git" / "hooks" / "branchwise-chained" / "post-commit").read_bytes() == original


def test_checkout_indexes_the_other_branch(repo, tmp_path):
    index = tmp_path / "index"
    hooks.install(repo.path, index)
    repo.checkout("feature/refunds")
    _poll(lambda: "place_order" in _live_names(repo.path, index, "feature/refunds"),
          "feature/refunds to be indexed after checkout")
    repo.write("app/refunds.py", "def refund(order_id):\n    return -1\n")
    repo.commit("refunds")
    _poll(lambda: "refund" in _live_names(repo.path, index, "feature/refunds"), "refund on the feature branch")
    assert "refund" not in _live_names(repo.path, index, "main")


def test_uninstall_restores_existing_hooks_byte_for_byte(repo, tmp_path):
    folder = repo.path / ".git" / "hooks"
    original = _existing_hook(folder, "post-merge", tmp_path / "ran.txt")
    mode = stat.S_IMODE((folder / "post-merge").stat().st_mode)
    before = sorted(p.name for p in folder.iterdir())
    hooks.install(repo.path, tmp_path / "index")
    hooks.install(repo.path, tmp_path / "index")  # a second install only updates the wrappers
    assert (folder / "branchwise-chained" / "post-merge").read_bytes() == original

    done = hooks.uninstall(repo.path)
    assert done["post-merge"] == "restored the previous hook" and done["post-commit"] == "removed"
    assert (folder / "post-merge").read_bytes() == original
    assert stat.S_IMODE((folder / "post-merge").stat().st_mode) == mode
    assert sorted(p.name for p in folder.iterdir()) == before
    assert hooks.status(repo.path, tmp_path / "index")["hooks"] == {
        "post-commit": "absent", "post-checkout": "absent", "post-merge": "other hook", "post-rewrite": "absent"}
    assert hooks.uninstall(repo.path)["post-merge"] == "not installed"


def test_failing_index_run_never_fails_the_git_command(repo, tmp_path):
    index = tmp_path / "index"
    ran = tmp_path / "ran.txt"
    _existing_hook(repo.path / ".git" / "hooks", "post-commit", ran)
    hooks.install(repo.path, index)
    (index / "config.toml").write_text("no_such_setting = 1\n")  # every index run now fails

    repo.write("app/more.py", "def more():\n    return 2\n")
    result = subprocess.run(["git", "commit", "-q", "-am", "x", "--allow-empty"], cwd=repo.path,
                            capture_output=True, text=True, env={**os.environ, "GIT_AUTHOR_NAME": "t",
                            "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # the refresh's output goes to the log, not to git's terminal
    record = _poll(lambda: (r := hooks.last_refresh(index)) and r["outcome"] != "running" and r,
                   "the failed refresh's record")
    assert record["outcome"] == "failed" and "no_such_setting" in record["message"]
    assert ran.read_text().strip() == "post-commit"
    assert "failed" in (index / hooks.LOG_FILE).read_text()


def test_hooks_path_with_a_husky_style_dispatcher(repo, tmp_path):
    """core.hooksPath points at generated dispatchers that find the team's script from `$0`."""
    husky = repo.path / ".husky"
    dispatch = husky / "_"
    dispatch.mkdir(parents=True)
    (dispatch / "h").write_text('#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n'
                                '[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n')
    (dispatch / "post-commit").write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')
    (dispatch / "post-commit").chmod(0o755)
    ran = tmp_path / "ran.txt"
    (husky / "post-commit").write_text(f'echo "husky post-commit" >> "{ran}"\n')
    repo.git("config", "core.hooksPath", ".husky/_")
    index = tmp_path / "index"

    hooks.install(repo.path, index)
    assert hooks.status(repo.path, index)["hooks_dir"] == str(dispatch.resolve())
    assert (dispatch / "branchwise-chained" / "post-commit").exists()
    assert not (repo.path / ".git" / "hooks" / "post-commit").exists()
    repo.write("app/husky.py", "def from_husky():\n    return 3\n")
    repo.commit("husky")
    _poll(lambda: "from_husky" in _live_names(repo.path, index, "main"), "from_husky indexed")
    assert ran.read_text() == "husky post-commit\n"


def test_rewrite_hook_chains_to_a_non_shell_hook_with_its_input(repo, tmp_path):
    """post-rewrite gets the rewritten commits on stdin; an exec'd Python hook still reads them."""
    index = tmp_path / "index"
    seen = tmp_path / "seen.txt"
    folder = repo.path / ".git" / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "post-rewrite").write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(seen)!r}, 'w').write(sys.argv[1] + ' ' + sys.stdin.read())\n")
    (folder / "post-rewrite").chmod(0o755)
    hooks.install(repo.path, index)
    old = repo.head()
    repo.write("app/orders.py", "def place_order(cart, note):\n    return len(cart)\n")
    repo.git("commit", "-q", "-a", "--amend", "-m", "amended")
    _poll(lambda: seen.exists() and seen.read_text(), "the chained post-rewrite hook")
    assert seen.read_text().startswith(f"amend {old} {repo.head()}")
    _poll(lambda: (r := hooks.last_refresh(index)) and r.get("commit") == repo.head() and r["outcome"] == "ok",
          "the refresh of the amended commit")


def test_disabled_hooks_only_run_the_chained_hook(repo, tmp_path, monkeypatch):
    index = tmp_path / "index"
    ran = tmp_path / "ran.txt"
    _existing_hook(repo.path / ".git" / "hooks", "post-commit", ran)
    hooks.install(repo.path, index)
    monkeypatch.setenv(hooks.DISABLE_VARIABLE, "1")
    repo.commit("quiet")
    assert ran.read_text().strip() == "post-commit"
    time.sleep(1.0)
    assert hooks.last_refresh(index) is None and not (index / hooks.LOG_FILE).exists()


def _cli(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "branchwise_cli", "hooks", *map(str, argv)],
                          capture_output=True, text=True)


def test_hooks_command_installs_reports_and_uninstalls(repo, tmp_path):
    index = tmp_path / "index"
    out = _cli("install", "--repo", repo.path, "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["hooks"]["post-checkout"] == "installed"
    repo.commit("empty")
    _poll(lambda: (r := hooks.last_refresh(index)) and r["outcome"] == "ok", "a refresh")

    out = _cli("status", "--repo", repo.path, "--index", index, "--json")
    data = json.loads(out.stdout)
    assert data["installed"] is True and data["last_refresh"]["outcome"] == "ok"
    assert data["last_refresh"]["finished"] >= data["last_refresh"]["started"]
    text = _cli("status", "--repo", repo.path, "--index", index).stdout
    assert "hooks: installed" in text and "last refresh: ok at" in text

    out = _cli("uninstall", "--repo", repo.path)
    assert out.returncode == 0 and "post-commit: removed" in out.stdout
    assert "hooks: not installed" in _cli("status", "--repo", repo.path, "--index", index).stdout


def test_hooks_command_bad_input_is_one_line_and_exit_2(tmp_path):
    out = _cli("install", "--repo", tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "not a git repository" in out.stderr
    out = _cli("reinstall", "--repo", tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    out = _cli("install", "--repo", bare)
    assert out.returncode == 2 and "bare repository" in out.stderr
