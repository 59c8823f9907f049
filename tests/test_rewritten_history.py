"""History that was rewritten and garbage-collected: an indexed commit that no longer exists.

After a rebase or force-push and `git gc`, the commit a branch was indexed at is gone, so it
cannot be diffed against. The index must carry on from what it stored (the blob of every
indexed file), end up equal to a fresh index of the new history, and embed only text it has
never seen; other commands (`--rebuild`, `--prune --gc`, search, export) keep working.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def cli(*argv) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def gc_everything(repo: GitBuilder) -> None:
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "--prune=now", "--quiet")


@pytest.fixture
def rewritten(tmp_path) -> tuple[GitBuilder, Path, str]:
    """A repository indexed at a commit that a reset + gc then removed; returns the old commit."""
    repo = GitBuilder(tmp_path / "repo")
    repo.write("src/a.py", "def alpha():\n    return 1\n")
    repo.write("src/b.py", "def beta():\n    return 2\n")
    repo.write("src/empty.py", "")
    repo.commit("one")
    repo.write("src/b.py", "def beta():\n    return 22\n")
    repo.write("src/c.py", "def gamma():\n    return 3\n")
    repo.commit("two")
    index = tmp_path / "index"
    assert cli("index", repo.path, "--all-branches", "--index", index).returncode == 0
    old = repo.head()
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.write("src/a.py", "def alpha():\n    return 100\n")
    repo.write("src/d.py", "def delta():\n    return 4\n")
    repo.commit("rewritten")
    gc_everything(repo)
    assert subprocess.run(["git", "cat-file", "-e", old], cwd=repo.path).returncode != 0
    return repo, index, old


def live(workspace: Workspace, branch: str = "main") -> set[tuple[str, str, str]]:
    return {(r["path"], r["qualified_name"], r["content_hash"]) for r in workspace.inspect(branch)}


def test_index_after_reset_and_gc_continues_from_the_stored_tree(rewritten, tmp_path):
    repo, index, _old = rewritten
    out = cli("index", repo.path, "--branch", "main", "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    assert "no longer exists" in out.stdout  # the summary's base says what happened
    fresh = tmp_path / "fresh"
    assert cli("index", repo.path, "--branch", "main", "--index", fresh).returncode == 0
    assert live(Workspace(repo.path, index)) == live(Workspace(repo.path, fresh))
    # only text never indexed is new: alpha's new body, beta's first body (indexed only at
    # "two" before) and delta, plus delta's path
    import json
    summary = json.loads(out.stdout)["branches"][0]
    assert summary["versions_added"] == 3
    assert summary["embedded"] <= 4
    again = cli("index", repo.path, "--branch", "main", "--index", index, "--json")
    assert json.loads(again.stdout)["branches"][0]["base"] == "up to date"


def test_every_later_command_works_after_the_rewrite(rewritten):
    repo, index, _old = rewritten
    for argv in (["index", repo.path, "--branch", "main", "--index", index, "--rebuild"],
                 ["index", repo.path, "--branch", "main", "--index", index, "--prune", "--gc"],
                 ["search", "delta", "--repo", repo.path, "--branch", "main", "--index", index]):
        out = cli(*argv)
        assert out.returncode == 0, (argv, out.stderr)


def test_a_new_branch_skips_a_base_branch_whose_commit_is_gone(rewritten, tmp_path):
    repo, index, _old = rewritten
    repo.branch("feature")
    out = cli("index", repo.path, "--branch", "feature", "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    fresh = tmp_path / "fresh"
    assert cli("index", repo.path, "--branch", "feature", "--index", fresh).returncode == 0
    assert live(Workspace(repo.path, index), "feature") == live(Workspace(repo.path, fresh), "feature")


def test_search_results_indexed_at_a_vanished_commit_are_verified(rewritten):
    repo, index, _old = rewritten
    workspace = Workspace(repo.path, index)
    results = workspace.search(SearchRequest("gamma", "main", top_k=5))
    gamma = [r for r in results if r.identity.qualified_name == "gamma"]
    assert gamma and gamma[0].verdict.value == "deleted"
    beta = [r for r in results if r.identity.qualified_name == "beta"]
    assert beta and beta[0].verdict.value == "changed"


def test_a_shallow_clone_indexes_and_reindexes(tmp_path):
    origin = GitBuilder(tmp_path / "origin")
    for n in range(4):
        origin.write(f"src/m{n}.py", f"def f{n}():\n    return {n}\n")
        origin.commit(f"c{n}")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin.path}", str(clone)], check=True)
    index = tmp_path / "index"
    assert cli("index", clone, "--branch", "main", "--index", index).returncode == 0
    origin.write("src/m0.py", "def f0():\n    return 'changed'\n")
    origin.commit("later")
    subprocess.run(["git", "-C", str(clone), "fetch", "-q", "--depth", "1", "origin", "main"], check=True)
    subprocess.run(["git", "-C", str(clone), "reset", "-q", "--hard", "FETCH_HEAD"], check=True)
    subprocess.run(["git", "-C", str(clone), "reflog", "expire", "--expire=now", "--all"], check=True)
    subprocess.run(["git", "-C", str(clone), "gc", "-q", "--prune=now"], check=True)
    out = cli("index", clone, "--branch", "main", "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    fresh = tmp_path / "fresh"
    assert cli("index", clone, "--branch", "main", "--index", fresh).returncode == 0
    assert live(Workspace(clone, index)) == live(Workspace(clone, fresh))
