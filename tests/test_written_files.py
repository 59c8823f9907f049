"""Files branchwise writes: each bundle format has its own manifest, and modes follow the umask.

Only a bundle let through with `--allow-secrets` (and its manifest) is written owner-only
whatever the umask: it is the one output that may hold a credential (docs/guarantees-and-security.md).
"""

from __future__ import annotations

import json
import os
import stat
from contextlib import contextmanager

import pytest
from gittools import GitBuilder
from test_bundle import context_for, verified
from test_verify import indexed_results

from branchwise.git.repo import GitRepo
from branchwise.review.bundle import manifest_path_for, write_bundle
from branchwise.review.tours import Step, Tour
from branchwise.review.tours.codetour import write_codetour
from branchwise_cli.main import main


@contextmanager
def umask(mask: int):
    previous = os.umask(mask)
    try:
        yield
    finally:
        os.umask(previous)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def repo(tmp_path):
    git = GitBuilder(tmp_path / "shop")
    git.write("orders.py", "def cancel_order(order_id):\n    return order_id\n\n\n"
                           'def aws():\n    return "AKIAIOSFODNN7ABCDEFG"\n')
    git.commit("start")
    return git


def test_two_formats_of_one_name_keep_two_manifests(repo, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    index = str(tmp_path / "index")
    assert main(["index", str(repo.path), "--index", index, "--quiet"]) == 0
    for name, form in (("env.md", "markdown"), ("env.xml", "xml")):
        assert main(["export", "cancel an order", "--repo", str(repo.path), "--branch", "main", "--index", index,
                     "--format", form, "--out", str(tmp_path / name)]) == 0, capsys.readouterr().err
    for name in ("env.md", "env.xml"):
        manifest = json.loads((tmp_path / f"{name}.manifest.json").read_text())
        assert manifest["bundle"] == name
    assert not (tmp_path / "env.manifest.json").exists()


@pytest.mark.parametrize("mask, expected", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_written_files_follow_the_umask(repo, tmp_path, mask, expected):
    git_repo = GitRepo(repo.path)
    results = [indexed_results(git_repo, "main", repo.head(), ["orders.py"])["cancel_order"]]
    verifier = verified(git_repo, results)
    with umask(mask):
        bundle = tmp_path / "bundle.md"
        write_bundle(results, bundle, context_for(git_repo, verifier))
        tour = Tour("t", steps=[Step(path="orders.py", qualified_name="cancel_order")]).save(tmp_path / "t.toml")
        codetour = tmp_path / "t.tour"
        write_codetour({"title": "t", "steps": []}, codetour)
    for path in (bundle, manifest_path_for(bundle), tour, codetour):
        assert mode(path) == expected, path


def test_a_bundle_allowed_to_hold_secrets_is_owner_only(repo, tmp_path):
    git_repo = GitRepo(repo.path)
    results = [indexed_results(git_repo, "main", repo.head(), ["orders.py"])["aws"]]
    results[0].text = 'def aws():\n    return "AKIAIOSFODNN7ABCDEFG"\n'  # as if redaction had missed it
    verifier = verified(git_repo, results)
    bundle = tmp_path / "bundle.md"
    with umask(0o022):
        write_bundle(results, bundle, context_for(git_repo, verifier, allow_secrets=True))
    assert "AKIAIOSFODNN7ABCDEFG" in bundle.read_text()
    assert mode(bundle) == 0o600 and mode(manifest_path_for(bundle)) == 0o600
