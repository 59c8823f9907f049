"""The access file: a user reads only the repositories and paths it grants, filtered before ranking.

Two repositories share one index. The access file gives alice the `src/orders/` part of
`shop` only, and bob (through a group) all of both. A forbidden repository is refused with one
clear line; a forbidden path never comes back and, being outside the allowed set before
ranking, cannot change the order of what the user may see.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.backends.backend import Backend
from branchwise.config import Config
from branchwise.errors import AccessDeniedError, UsageError
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

ACCESS = """
[users.alice]
repositories = ["shop"]
paths = { shop = ["src/orders/"] }

[users.bob]
groups = ["team"]

[groups.team]
repositories = ["shop", "engine"]
"""

ORDERS = {
    "src/orders/cancel.py": "def cancel_order(order):\n    order.status = 'cancelled'\n    return order\n",
    "src/orders/create.py": "def create_order(items):\n    return {'items': items, 'status': 'new'}\n",
    "src/orders/refund.py": "def refund_order(order):\n    return {'refund': order.total, 'status': 'refunded'}\n",
}
#: Forbidden to alice, and deliberately on her topic, so a leak would rank high.
INTERNAL = {
    "src/internal/fraud.py": "def cancel_order_for_fraud(order):\n    order.status = 'cancelled'\n    return order\n",
    "src/internal/audit.py": "def audit_order_status(order):\n    return order.status\n",
}
QUERIES = ("cancel order", "order status", "refund order status", "create order items")


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch, backend):
    """Every test here runs on each vector backend (see conftest.py)."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    monkeypatch.delenv("BRANCHWISE_USER", raising=False)


def make_repo(path: Path, files: dict[str, str]) -> Path:
    repo = GitBuilder(path)
    for name, text in files.items():
        repo.write(name, text)
    repo.commit("files")
    return repo.path


@pytest.fixture
def index(tmp_path) -> Path:
    """shop and engine in one index, with the access file."""
    index = tmp_path / "index"
    shop = make_repo(tmp_path / "full" / "shop", {**ORDERS, **INTERNAL})
    engine = make_repo(tmp_path / "engine", {"src/engine.py": "def run_engine():\n    return 1\n"})
    for repo in (shop, engine):
        Workspace(repo, index).index(["main"])
    (index / "access.toml").write_text(ACCESS)
    return index


def shop(tmp_path) -> Path:
    return tmp_path / "full" / "shop"


def ranking(workspace: Workspace, query: str, mode: str) -> list[tuple[str, str, float]]:
    results = workspace.search(SearchRequest(query, "main", top_k=10, mode=mode))
    return [(r.path, r.identity.qualified_name, round(r.score, 6)) for r in results]


def cli(*argv, **env) -> subprocess.CompletedProcess:
    from branchwise.backends.qdrant import close_clients

    close_clients()  # Qdrant's local mode lets one process at a time open its folder
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)],
                         capture_output=True, text=True, env={**os.environ, **env})
    assert "Traceback" not in out.stderr, out.stderr
    return out


def test_without_an_access_file_nothing_is_restricted(index, tmp_path):
    (index / "access.toml").unlink()
    workspace = Workspace(shop(tmp_path), index, user="nobody-in-particular")
    assert {row["path"] for row in workspace.inspect("main")} == set(ORDERS) | set(INTERNAL)


def test_a_forbidden_repository_is_refused(index, tmp_path):
    with pytest.raises(AccessDeniedError, match="'alice' may not read repository 'engine'"):
        Workspace(tmp_path / "engine", index, user="alice").search(SearchRequest("engine", "main"))
    for command in (["search", "run engine"], ["inspect"], ["export", "run engine", "--out", tmp_path / "b.md"]):
        out = cli(*command, "--repo", tmp_path / "engine", "--branch", "main", "--index", index, "--as", "alice")
        assert out.returncode == 2
        assert out.stdout == ""
        assert out.stderr.strip().splitlines() == [
            f"branchwise: user 'alice' may not read repository 'engine' (see {index / 'access.toml'})"
        ]
    assert not (tmp_path / "b.md").exists()


def test_bob_reads_everything_through_his_group(index, tmp_path):
    workspace = Workspace(shop(tmp_path), index, user="bob")
    assert {row["path"] for row in workspace.inspect("main")} == set(ORDERS) | set(INTERNAL)
    assert Workspace(tmp_path / "engine", index, user="bob").inspect("main")


def test_forbidden_paths_never_come_back(index, tmp_path):
    workspace = Workspace(shop(tmp_path), index, user="alice")
    assert {row["path"] for row in workspace.inspect("main")} == set(ORDERS)
    for mode in ("fused", "dense", "lexical"):
        for scope in ("branch", "all"):
            results = workspace.search(SearchRequest("cancel order fraud", "main", top_k=10, mode=mode, scope=scope))
            assert {r.path for r in results} <= set(ORDERS), (mode, scope)


def test_forbidden_chunks_do_not_change_the_ranking_of_readable_ones(index, tmp_path):
    """alice's results from the shared repository equal those from a repository without the
    forbidden files at all. Dense scores are per vector, so they match exactly. BM25 takes its
    corpus statistics from the whole FTS5 table, so lexical *scores* shift with what else is
    indexed; on this corpus the order does not, and fusion uses ranks only (see docs/ranking.md)."""
    alone_index = tmp_path / "alone-index"
    alone = make_repo(tmp_path / "alone" / "shop", ORDERS)
    backend = Backend.resolve(Config.load(alone_index))  # a second "shop": its own Qdrant collections
    backend = dataclasses.replace(backend, collection=backend.collection + "-alone")
    Workspace(alone, alone_index, backend=backend).index(["main"])
    restricted = Workspace(shop(tmp_path), index, user="alice")
    unrestricted = Workspace(alone, alone_index, backend=backend)
    for query in QUERIES:
        assert ranking(restricted, query, "dense") == ranking(unrestricted, query, "dense"), query
        for mode in ("fused", "lexical"):
            order = [name for _path, name, _score in ranking(restricted, query, mode)]
            assert order == [name for _path, name, _score in ranking(unrestricted, query, mode)], (query, mode)


def test_the_user_comes_from_as_then_the_environment_then_the_os(index, tmp_path):
    base = ("inspect", "--repo", shop(tmp_path), "--branch", "main", "--index", index)
    assert "src/internal/" not in cli(*base, "--as", "alice").stdout
    assert "src/internal/" not in cli(*base, BRANCHWISE_USER="alice").stdout
    assert "src/internal/" in cli(*base, "--as", "bob", BRANCHWISE_USER="alice").stdout
    assert "src/internal/" in cli(*base, LOGNAME="bob", USER="bob").stdout
    refused = cli(*base, LOGNAME="mallory", USER="mallory")
    assert refused.returncode == 2 and "'mallory' may not read" in refused.stderr


def test_search_and_export_as_alice_stay_inside_her_paths(index, tmp_path):
    out = cli("search", "cancel order", "--repo", shop(tmp_path), "--branch", "main", "--index", index,
              "--as", "alice", "--json")
    assert out.returncode == 0, out.stderr
    assert "src/internal/" not in out.stdout and "src/orders/cancel.py" in out.stdout
    bundle = tmp_path / "bundle.md"
    out = cli("export", "cancel order", "--repo", shop(tmp_path), "--branch", "main", "--index", index,
              "--as", "alice", "--out", bundle)
    assert out.returncode == 0, out.stderr
    assert "cancel_order_for_fraud" not in bundle.read_text()


@pytest.mark.parametrize(
    "text, message",
    [
        ("[users.x]\nrepositories = 'shop'\n", "repositories must be a list"),
        ("[users.x]\ngroups = ['ghosts']\n", "unknown group 'ghosts'"),
        ("[users.x]\nrepositories = ['shop']\npaths = { engine = ['src/'] }\n", "does not grant: engine"),
        ("[people.x]\n", "unknown table"),
        ("[users.x\n", "bad access file"),
    ],
)
def test_a_bad_access_file_is_a_usage_error(index, tmp_path, text, message):
    (index / "access.toml").write_text(text)
    with pytest.raises(UsageError, match=message):
        Workspace(shop(tmp_path), index, user="x").inspect("main")
