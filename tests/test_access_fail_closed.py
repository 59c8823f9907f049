"""An access file that is present but unusable denies; it never means "no restriction".

A dangling or self-looping symbolic link, a directory, an unreadable file or values of the
wrong type each refuse the read with one line on stderr and exit 2, for every reading command.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from branchwise.errors import UsageError
from branchwise.workspace import Workspace
from gittools import GitBuilder


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    monkeypatch.setenv("BRANCHWISE_USER", "bob")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("access")
    repo = GitBuilder(root / "shop")
    repo.write("src/public/api.py", "def public_api():\n    return 1\n")
    repo.write("src/secret/plan.py", "def secret_plan():\n    return 2\n")
    repo.commit("init")
    index = root / "index"
    Workspace(repo.path, index).index(["main"])
    return repo.path, index


@pytest.fixture
def index(indexed, tmp_path) -> Path:
    """A private index directory: the module's database with this test's access file."""
    _repo, source = indexed
    target = tmp_path / "index"
    target.mkdir()
    for item in source.iterdir():
        if item.is_file():
            (target / item.name).write_bytes(item.read_bytes())
    return target


def run(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True)


def reading_commands(repo: Path, index: Path, tmp_path: Path) -> list[list]:
    common = ["--repo", repo, "--branch", "main", "--index", index]
    return [["search", "plan", *common, "--json"], ["inspect", *common, "--json"],
            ["export", "plan", *common, "--out", tmp_path / "bundle.md"]]


def assert_denied_everywhere(repo: Path, index: Path, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="access denied"):
        Workspace(repo, index).inspect("main")
    for argv in reading_commands(repo, index, tmp_path):
        out = run(*argv)
        assert out.returncode == 2, (argv, out.stdout, out.stderr)
        assert out.stdout == ""
        assert len(out.stderr.strip().splitlines()) == 1 and "access denied" in out.stderr, out.stderr
        assert "Traceback" not in out.stderr
    assert not (tmp_path / "bundle.md").exists()


def test_a_dangling_symlink_denies(indexed, index, tmp_path):
    os.symlink(tmp_path / "nowhere.toml", index / "access.toml")
    assert_denied_everywhere(indexed[0], index, tmp_path)


def test_a_self_looping_symlink_denies(indexed, index, tmp_path):
    os.symlink("access.toml", index / "access.toml")
    assert_denied_everywhere(indexed[0], index, tmp_path)


def test_a_directory_in_its_place_denies(indexed, index, tmp_path):
    (index / "access.toml").mkdir()
    assert_denied_everywhere(indexed[0], index, tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_denies(indexed, index, tmp_path):
    access = index / "access.toml"
    access.write_text('[users.bob]\nrepositories = ["shop"]\n')
    access.chmod(0)
    try:
        assert_denied_everywhere(indexed[0], index, tmp_path)
    finally:
        access.chmod(0o644)


@pytest.mark.parametrize("text", [
    "users = 5\n",
    "groups = 'team'\n",
    "users = [1, 2]\n",
    "[users]\nbob = 5\n",
    '[users.bob]\nrepositories = ["shop"]\npaths = 7\n',
    '[users.bob]\nrepositories = ["shop"]\npaths = { shop = "src/public/" }\n',
    "\xff\xfe not toml",
])
def test_values_of_the_wrong_type_deny(indexed, index, tmp_path, text):
    (index / "access.toml").write_bytes(text.encode("latin-1"))
    assert_denied_everywhere(indexed[0], index, tmp_path)


def test_a_good_file_still_grants_what_it_says(indexed, index, tmp_path):
    (index / "access.toml").write_text('[users.bob]\nrepositories = ["shop"]\npaths = { shop = ["src/public/"] }\n')
    paths = {row["path"] for row in Workspace(indexed[0], index).inspect("main")}
    assert paths == {"src/public/api.py"}
