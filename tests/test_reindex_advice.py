"""One advice for re-indexing (advice.py): after a new commit, `search` and `export` print the
staleness line, and `stats` and `status` give the same advice in the same words; on a fresh
index, both say none is needed and the results say nothing."""

from __future__ import annotations


import pytest
from cli_run import branchwise
from gittools import GitBuilder

BEHIND = "index behind main tip by 2 commits: run `branchwise index`"


def run(*argv, cwd) -> str:
    out = branchwise(*argv, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture
def repo(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "shop")
    builder.write("src/refund.py", "def refund_payment(order):\n    return order.total\n")
    builder.commit("init")
    run("index", "--quiet", cwd=builder.path)
    run("search", "refund a payment", cwd=builder.path)  # one session in the statistics
    return builder


def test_a_fresh_index_needs_nothing_and_says_so_once(repo):
    found = run("search", "refund a payment", cwd=repo.path)
    assert "re-index" not in found and "branchwise index" not in found
    assert "no re-index needed: indexed at the branch tip" in run("status", cwd=repo.path)
    assert "No re-index needed: main: indexed at the branch tip" in run("stats", cwd=repo.path)


def test_after_new_commits_every_output_gives_the_same_advice(repo, tmp_path):
    repo.write("src/refund.py", "def refund_payment(order):\n    return -order.total\n")
    repo.commit("refunds are negative")
    repo.write("README.md", "notes\n")
    repo.commit("notes")
    found = run("search", "refund a payment", cwd=repo.path)
    assert found.splitlines()[1].startswith(f"# {BEHIND} (1 indexed file(s) changed in 2 commit(s)")
    exported = run("export", "refund a payment", "--out", tmp_path / "bundle.md", cwd=repo.path)
    assert BEHIND in exported
    status_line = next(line.strip() for line in run("status", cwd=repo.path).splitlines() if BEHIND in line)
    assert status_line.startswith(f"re-index recommended: {BEHIND}")
    stats_line = next(line for line in run("stats", cwd=repo.path).splitlines() if BEHIND in line)
    assert stats_line == "Re-index recommended: main: " + status_line.removeprefix("re-index recommended: ")

    run("index", "--quiet", cwd=repo.path)
    assert "No re-index needed: main: indexed at the branch tip" in run("stats", cwd=repo.path)


def test_uncommitted_edits_are_said_with_the_results(repo):
    (repo.path / "src" / "refund.py").write_text("def refund_payment(order):\n    return 0\n")
    found = run("search", "refund a payment", cwd=repo.path)
    assert "# work tree differs from the index: commit, then index (1 indexed file with uncommitted edits" in found
