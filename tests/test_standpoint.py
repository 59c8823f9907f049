"""Defaults from where the user stands (standpoint.py): inside a repository, from any of its
folders, `index`, `search`, `inspect`, `status` and `stats` need no --repo or --branch; a
detached HEAD at a branch's tip takes that branch and says so."""

from __future__ import annotations

import json

import pytest
from cli_run import branchwise as run
from gittools import GitBuilder


@pytest.fixture
def repo(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "shop")
    builder.write("src/orders/refund.py", "def refund_payment(order):\n    return order.total\n")
    builder.commit("init")
    builder.git("checkout", "-q", "-b", "feature")
    builder.write("src/orders/refund.py", "def refund_payment(order):\n    return -order.total\n")
    builder.commit("feature")
    return builder


def test_every_reader_defaults_to_the_enclosing_repository_and_its_branch(repo):
    inside = repo.path / "src" / "orders"
    assert run("index", cwd=inside).returncode == 0
    found = run("search", "refund a payment", "--json", cwd=inside)
    assert found.returncode == 0, found.stderr
    answer = json.loads(found.stdout)
    assert answer["branch"] == "feature" and answer["results"][0]["path"] == "src/orders/refund.py"
    assert run("inspect", cwd=inside).stdout.startswith("src/orders/refund.py:1-2")
    assert "feature @" in run("status", cwd=inside).stdout
    assert run("stats", "--used", cwd=inside).returncode == 0


def test_a_detached_head_at_a_tip_takes_that_branch_and_says_so(repo):
    assert run("index", cwd=repo.path).returncode == 0
    repo.git("checkout", "-q", "--detach")
    found = run("search", "refund", "--json", cwd=repo.path)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["branch"] == "feature"
    assert "HEAD is detached at" in found.stderr and "using feature" in found.stderr
    repo.git("checkout", "-q", "HEAD~1")  # main's tip
    out = run("search", "refund", cwd=repo.path)
    assert out.returncode == 2 and "branch 'main' of shop is not indexed" in out.stderr


def test_outside_any_repository_is_one_line(tmp_path):
    out = run("search", "refund", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.strip().startswith("branchwise: not inside a git repository:")
