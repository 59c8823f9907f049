"""Branch names as git users say them: a fresh `git clone` holds its release lines only as
remote-tracking branches, and `index --all-branches`, `--branch release/v2`, `--branch
origin/release/v2` and `--branch 'release/*'` all reach them (gitbranches.py)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_run import ENV, branchwise as run
from gittools import GitBuilder


@pytest.fixture
def clone(tmp_path) -> Path:
    """A clone of a project with main and two release lines (remote-only in the clone)."""
    origin = GitBuilder(tmp_path / "origin")
    origin.write("app.py", "def checkout_cart(cart):\n    return sum(cart)\n")
    origin.commit("init")
    for version in ("v1", "v2"):
        origin.git("checkout", "-q", "-b", f"release/{version}", "main")
        origin.write("app.py", f"def checkout_cart(cart):\n    return sum(cart)  # {version}\n")
        origin.commit(f"release {version}")
    origin.git("tag", "-a", "v1.0", "-m", "one", "release/v1")  # annotated: peeled to its commit
    origin.checkout("main")
    target = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(origin.path), str(target)], check=True, env=ENV)
    return target


def test_all_branches_in_a_fresh_clone_indexes_every_release_line(clone):
    out = run("index", "--all-branches", "--json", cwd=clone)
    assert out.returncode == 0, out.stderr
    branches = {b["branch"]: b["ref"] for b in json.loads(out.stdout)["branches"]}
    assert branches == {"main": "refs/heads/main", "release/v1": "refs/remotes/origin/release/v1",
                        "release/v2": "refs/remotes/origin/release/v2"}
    status = run("status", "--json", cwd=clone)
    refs = {b["branch"]: b["ref"] for b in json.loads(status.stdout)["repositories"][0]["branches"]}
    assert refs["release/v2"] == "refs/remotes/origin/release/v2"
    text = run("status", cwd=clone).stdout
    assert "release/v2 @" in text and "from origin/release/v2" in text
    assert "not indexed" not in text  # the tag v1.0 is no branch: indexed only on request


def test_a_local_branch_wins_over_the_remote_one_of_the_same_name(clone):
    subprocess.run(["git", "branch", "-q", "release/v1", "origin/release/v1"], cwd=clone, check=True, env=ENV)
    out = run("index", "--all-branches", "--json", cwd=clone)
    refs = {b["branch"]: b["ref"] for b in json.loads(out.stdout)["branches"]}
    assert refs["release/v1"] == "refs/heads/release/v1"
    assert refs["release/v2"] == "refs/remotes/origin/release/v2"


@pytest.mark.parametrize("typed", ["release/v2", "origin/release/v2", "refs/remotes/origin/release/v2"])
def test_a_remote_branch_by_its_name_or_with_its_remote(clone, typed):
    out = run("index", "--branch", typed, cwd=clone)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("release/v2 @") and "(from origin/release/v2)" in out.stdout
    found = run("search", "checkout cart", "--branch", typed, "--json", cwd=clone)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["branch"] == "release/v2"


def test_a_pattern_selects_branches(clone):
    out = run("index", "--branch", "release/*", "--json", cwd=clone)
    assert out.returncode == 0, out.stderr
    assert [b["branch"] for b in json.loads(out.stdout)["branches"]] == ["release/v1", "release/v2"]
    nothing = run("index", "--branch", "hotfix/*", cwd=clone)
    assert nothing.returncode == 2 and "no branch of clone matches 'hotfix/*'" in nothing.stderr


def test_a_mistyped_branch_suggests_the_closest(clone):
    out = run("index", "--branch", "mian", cwd=clone)
    assert out.returncode == 2
    assert out.stderr.strip() == "branchwise: unknown branch 'mian' in clone; did you mean main?"


def test_a_tag_is_indexed_on_request_under_its_name(clone):
    out = run("index", "--tag", "v1.0", "--json", cwd=clone)
    assert out.returncode == 0, out.stderr
    [tag] = json.loads(out.stdout)["branches"]
    assert (tag["branch"], tag["ref"]) == ("v1.0", "refs/tags/v1.0")
    origin_v1 = subprocess.run(["git", "rev-parse", "origin/release/v1"], cwd=clone, capture_output=True,
                               text=True, check=True).stdout.strip()
    assert tag["commit"] == origin_v1
    found = run("search", "checkout cart", "--branch", "v1.0", "--json", cwd=clone)
    assert json.loads(found.stdout)["results"][0]["verdict"] == "current"
    assert "v1.0 @" in run("status", cwd=clone).stdout and "(tag)" in run("status", cwd=clone).stdout
    wrong = run("index", "--tag", "v1.1", cwd=clone)
    assert wrong.returncode == 2 and "unknown tag 'v1.1' in clone; did you mean v1.0?" in wrong.stderr


def test_an_index_made_before_refs_were_recorded_gets_them_on_its_next_run(clone):
    import sqlite3

    from branchwise.store import DB_FILE
    from branchwise.workspace import Workspace

    assert run("index", "--branch", "release/v2", cwd=clone).returncode == 0
    database = clone / ".git" / "branchwise" / DB_FILE
    with sqlite3.connect(database) as conn:
        conn.execute("ALTER TABLE branches DROP COLUMN ref")  # as an older branchwise made it
    ws = Workspace(clone)
    try:
        assert [b["ref"] for b in ws.status()["branches"]] == [None]
    finally:
        ws.close()
    out = run("index", "--branch", "release/v2", "--json", cwd=clone)
    assert json.loads(out.stdout)["branches"][0]["base"] == "up to date"
    status = json.loads(run("status", "--json", cwd=clone).stdout)
    assert status["repositories"][0]["branches"][0]["ref"] == "refs/remotes/origin/release/v2"
