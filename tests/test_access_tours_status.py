"""The access rule in tours and in `status` over a whole index, and the `--force` rule of writers.

alice may read only `src/public/` of `alpha` and nothing of `beta`. A tour in `alpha` walks a
vault function and a public one: every tour output (show, check --json, fix, the bundle the app
exports) shows her the public code and none of the vault's, while a reader of everything sees
both. `status --index` shows her `alpha` as `stats` does, without naming `beta`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.review.tours import load_tour
from branchwise.review.tours.render import render_show, tour_bundle
from branchwise.workspace import Workspace

ACCESS = """
[users.alice]
repositories = ["alpha"]
paths = { alpha = ["src/public/"] }

[users.root]
repositories = ["alpha", "beta"]
"""
VAULT = 'def rotate_master_key(store):\n    store.key = "VAULT-SECRET-MATERIAL"\n    return store\n'
TOUR = """title = "key handling"

[[steps]]
path = "src/vault/keys.py"
qualified_name = "rotate_master_key"
note = "how the master key rotates"

[[steps]]
path = "src/public/api.py"
qualified_name = "public_hello"
note = "the public entry point"
"""
HASHING = {"BRANCHWISE_MODEL": "hashing-384"}


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    monkeypatch.delenv("BRANCHWISE_USER", raising=False)


@pytest.fixture
def alpha(tmp_path) -> tuple[Path, Path]:
    index = tmp_path / "idx"
    repo = GitBuilder(tmp_path / "alpha")
    repo.write("src/public/api.py", 'def public_hello():\n    return "hello"\n')
    repo.write("src/vault/keys.py", VAULT)
    repo.write(".branchwise/tours/keys.toml", TOUR)
    repo.commit("init")
    beta = GitBuilder(tmp_path / "beta")
    beta.write("b.py", "def beta_only():\n    return 3\n")
    beta.commit("init")
    for path in (repo.path, beta.path):
        Workspace(path, index).index(["main"])
    (index / "access.toml").write_text(ACCESS)
    return repo.path, index


def cli(*argv, user: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, **HASHING}
    if user:
        env["BRANCHWISE_USER"] = user
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True,
                         env=env)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def test_tour_show_and_check_hide_the_vault_from_alice(alpha):
    repo, index = alpha
    common = ("keys", "--repo", repo, "--branch", "main", "--index", index)
    shown = cli("tour", "show", *common, "--as", "alice")
    assert shown.returncode == 0, shown.stderr
    assert "VAULT-SECRET-MATERIAL" not in shown.stdout and "store.key" not in shown.stdout
    assert 'return "hello"' in shown.stdout  # her readable step is shown as before
    assert "outside what you may read" in shown.stdout
    checked = cli("tour", "check", *common, "--json", "--as", "alice")
    assert "VAULT-SECRET-MATERIAL" not in checked.stdout
    vault, public = json.loads(checked.stdout)["steps"]
    assert (vault["status"], vault["text"], vault["path"], vault["start_line"]) == ("withheld", None, None, None)
    assert vault["verdict"] == "unverifiable" and vault["note"] == "how the master key rotates"
    assert 'return "hello"' in public["text"]
    # a reader of everything sees both steps' code: the rule hides, the tour is intact
    full = json.loads(cli("tour", "check", *common, "--json", "--as", "root").stdout)["steps"]
    assert "VAULT-SECRET-MATERIAL" in full[0]["text"] and full[0]["status"] != "withheld"


def test_every_tour_output_is_made_from_the_withheld_check(alpha, tmp_path):
    repo, index = alpha
    workspace = Workspace(repo, index, user="alice")
    check = workspace.check_tour(load_tour(repo / ".branchwise/tours/keys.toml"), "main")
    assert "VAULT-SECRET-MATERIAL" not in render_show(check, workspace.repo)
    bundle = tour_bundle(check, workspace.repo)
    out = tmp_path / "tour.md"
    manifest = bundle.write(out)
    written = out.read_text() + manifest.read_text()
    assert "VAULT-SECRET-MATERIAL" not in written and 'return "hello"' in written


def test_tour_fix_as_alice_leaves_the_withheld_step_as_written(alpha):
    repo, index = alpha
    tour_file = repo / ".branchwise/tours/keys.toml"
    before = load_tour(tour_file).steps[0]
    out = cli("tour", "fix", "keys", "--repo", repo, "--branch", "main", "--index", index, "--as", "alice")
    assert "VAULT-SECRET-MATERIAL" not in out.stdout
    after = load_tour(tour_file).steps[0]
    assert (after.path, after.qualified_name, after.content_hash, after.start_line) == \
        (before.path, before.qualified_name, before.content_hash, before.start_line)


def test_status_over_the_index_shows_alice_what_she_may_read(alpha):
    repo, index = alpha
    out = cli("status", "--index", index, "--as", "alice", "--json")
    assert out.returncode == 0, out.stderr
    [entry] = json.loads(out.stdout)["repositories"]
    assert entry["repository"] == "alpha"
    assert entry["branches"][0]["files"] == 1  # src/public/api.py only
    text = cli("status", "--index", index, "--as", "alice")
    assert text.returncode == 0 and "alpha" in text.stdout
    assert "beta" not in text.stdout + text.stderr + out.stdout
    stats = cli("stats", "--index", index, "--as", "alice")
    assert stats.returncode == 0 and "beta" not in stats.stdout
    everyone = json.loads(cli("status", "--index", index, "--as", "root", "--json").stdout)
    assert {r["repository"] for r in everyone["repositories"]} == {"alpha", "beta"}
    nobody = cli("status", "--index", index, "--as", "mallory")
    assert nobody.returncode == 2 and len(nobody.stderr.strip().splitlines()) == 1
    assert "alpha" not in nobody.stderr and "beta" not in nobody.stderr


def test_writers_keep_an_existing_file_without_force(alpha, tmp_path):
    repo, index = alpha
    labels = tmp_path / "labels.toml"
    labels.write_text("# a curated file\n")
    common = ("--repo", repo, "--index", index)
    refused = cli("labels", "export", labels, *common)
    assert refused.returncode == 2 and "exists; pass --force" in refused.stderr
    assert labels.read_text() == "# a curated file\n"
    assert cli("labels", "export", labels, *common, "--force").returncode == 0
    assert labels.read_text() != "# a curated file\n"
    tour_file = repo / ".branchwise/tours/keys.toml"
    refused = cli("tour", "record", "keys", "--repo", repo, "--branch", "main", "--index", index, "--from-labels")
    assert refused.returncode == 2 and "exists; pass --force" in refused.stderr
    assert tour_file.read_text() == TOUR
    forced = cli("tour", "record", "keys", "--repo", repo, "--branch", "main", "--index", index, "--from-labels",
                 "--force")
    assert forced.returncode == 0, forced.stderr
    assert tour_file.read_text() != TOUR
