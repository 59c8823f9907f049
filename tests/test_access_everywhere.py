"""Everything a restricted user sees obeys the access rule, not only the search results.

bob may read `src/public/` of the shop only. A function he can find was moved, in the work
tree, into `src/secret/`: verification must not tell him where it went (reason, `current_*`
fields, the bundle's `Source:` line); labels and statistics must not show him forbidden paths,
names or notes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from branchwise.search import SearchRequest
from branchwise.workspace import Workspace
from gittools import GitBuilder

ACCESS = """
[users.bob]
repositories = ["shop"]
paths = { shop = ["src/public/"] }

[users.alice]
repositories = ["shop"]
"""
MOVED = "def transfer_funds(account, amount):\n    account.balance -= amount\n    return account\n"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    monkeypatch.delenv("BRANCHWISE_USER", raising=False)


@pytest.fixture
def moved(tmp_path) -> tuple[Path, Path]:
    repo = GitBuilder(tmp_path / "shop")
    repo.write("src/public/api.py", "def public_api():\n    return 1\n\n\n" + MOVED)
    repo.write("src/secret/plan.py", "def secret_plan():\n    return 2\n")
    repo.commit("init")
    index = tmp_path / "index"
    Workspace(repo.path, index).index(["main"])
    (index / "access.toml").write_text(ACCESS)
    # in the work tree, transfer_funds moves into the forbidden directory, unchanged
    repo.write("src/public/api.py", "def public_api():\n    return 1\n")
    repo.write("src/secret/moved.py", "import os\n\n\n" + MOVED)
    return repo.path, index


def cli(*argv) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def transfer(results):
    return next(r for r in results if r.identity.qualified_name == "transfer_funds")


def test_verification_does_not_reveal_a_forbidden_new_place(moved):
    repo, index = moved
    bob = transfer(Workspace(repo, index, user="bob").search(SearchRequest("transfer funds", "main")))
    assert bob.verdict.value == "deleted"
    assert "src/secret" not in bob.reason
    assert bob.current_path is None and bob.current_text is None
    alice = transfer(Workspace(repo, index, user="alice").search(SearchRequest("transfer funds", "main")))
    assert alice.current_path == "src/secret/moved.py"  # the same search, allowed to see it


def test_search_json_and_bundle_as_bob_carry_no_forbidden_path(moved, tmp_path):
    repo, index = moved
    common = ("--repo", repo, "--branch", "main", "--index", index, "--as", "bob")
    out = cli("search", "transfer funds", *common, "--json")
    assert out.returncode == 0, out.stderr
    assert "src/secret" not in out.stdout
    bundle = tmp_path / "bundle.md"
    out = cli("export", "transfer funds", *common, "--out", bundle)
    assert out.returncode == 0, out.stderr
    assert "src/secret" not in bundle.read_text()
    assert "src/secret" not in (tmp_path / "bundle.manifest.json").read_text()
    assert "secret_plan" not in bundle.read_text()
