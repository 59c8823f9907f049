"""Everything a restricted user sees obeys the access rule, not only the search results.

bob may read `src/public/` of the shop only. A function he can find was moved, in the work
tree, into `src/secret/`: verification must not tell him where it went (reason, `current_*`
fields, the bundle's `Source:` line); labels and statistics must not show him forbidden paths,
names or notes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace

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
    assert "src/secret" not in (tmp_path / "bundle.md.manifest.json").read_text()
    assert "secret_plan" not in bundle.read_text()


def label_everything(repo: Path, index: Path) -> None:
    """alice (who reads everything) labels a public and a secret function, with notes."""
    from branchwise.models import Label

    alice = Workspace(repo, index, user="alice")
    for query in ("public api", "secret plan"):
        for result in alice.search(SearchRequest(query, "main", top_k=5)):
            alice.review.set_label(result, Label.REFERENCE_ONLY, note=f"note on {result.identity.qualified_name}")


def test_labels_export_as_bob_holds_only_his_paths(moved, tmp_path, monkeypatch):
    repo, index = moved
    label_everything(repo, index)
    for how in ("flag", "environment"):
        out_file = tmp_path / f"labels-{how}.toml"
        if how == "flag":
            out = cli("labels", "export", out_file, "--repo", repo, "--index", index, "--as", "bob")
        else:
            out = subprocess.run([sys.executable, "-m", "branchwise_cli", "labels", "export", str(out_file),
                                  "--repo", str(repo), "--index", str(index)], capture_output=True, text=True,
                                 env={**__import__("os").environ, "BRANCHWISE_USER": "bob"})
        assert out.returncode == 0, out.stderr
        text = out_file.read_text()
        assert "src/public/api.py" in text
        assert "src/secret" not in text and "secret_plan" not in text
    everything = tmp_path / "all.toml"
    assert cli("labels", "export", everything, "--repo", repo, "--index", index, "--as", "alice").returncode == 0
    assert "secret_plan" in everything.read_text()
    refused = cli("labels", "import", everything, "--repo", repo, "--index", index, "--as", "bob")
    assert refused.returncode == 2 and "outside what you may read" in refused.stderr


def test_stats_as_bob_name_no_forbidden_directory_or_repository(moved, tmp_path):
    import json as jsonlib

    repo, index = moved
    log = index / "stats.jsonl"
    record = {"time": "2026-01-01T00:00:00+00:00", "kind": "export", "repository": "shop", "branch": "main",
              "failure_ratio": 0.5, "failures": 2, "considered": 4, "verdicts": {"deleted": 2},
              "reasons": {"deleted: file deleted at target": 2}, "directories": {"src": 1, "vault": 1},
              "overrides": [{"path": "vault/keys.py", "qualified_name": "rotate_master_key", "label": "exclude"},
                            {"path": "src/public/api.py", "qualified_name": "public_api", "label": "exclude"}]}
    other = dict(record, repository="payroll", directories={"salaries": 3})
    log.write_text(jsonlib.dumps(record) + "\n" + jsonlib.dumps(other) + "\n")
    for argv in (("--repo", repo), ()):
        for fmt in ((), ("--json",)):
            out = cli("stats", *argv, "--index", index, "--as", "bob", *fmt)
            assert out.returncode == 0, out.stderr
            for hidden in ("vault", "payroll", "salaries", "rotate_master_key"):
                assert hidden not in out.stdout, (argv, fmt, hidden)
    summary = jsonlib.loads(cli("stats", "--index", index, "--as", "bob", "--json").stdout)
    assert summary["sessions"] == 1 and summary["overrides"] == 1 and summary["by_directory"] == {"src": 1}
    alice = jsonlib.loads(cli("stats", "--index", index, "--as", "alice", "--json").stdout)
    assert alice["sessions"] == 1 and alice["by_directory"] == {"src": 1, "vault": 1}  # payroll: not granted


def test_verify_as_bob_refuses_forbidden_paths_and_hides_moves(moved, tmp_path):
    import json as jsonlib

    repo, index = moved
    alice = Workspace(repo, index, user="alice").search(SearchRequest("transfer funds", "main"))
    saved = tmp_path / "saved.json"
    saved.write_text(jsonlib.dumps({"query": "q", "branch": "main",
                                    "results": [transfer(alice).to_json()]}))
    rows = Workspace(repo, index, user="bob").verify_snippets(saved)
    assert rows[0]["verdict"] == "deleted" and "src/secret" not in jsonlib.dumps(rows)
    listing = tmp_path / "snippets.tsv"
    listing.write_text("src/secret/plan.py\n")
    out = cli("verify", listing, "--repo", repo, "--index", index, "--as", "bob")
    assert out.returncode == 2 and "outside what you may read" in out.stderr
