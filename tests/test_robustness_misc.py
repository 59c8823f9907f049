"""Smaller robustness cases: literal repository paths, read-only indexes, `review` without a
terminal, and `labels import` that is atomic, validated and fast enough for big files.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from branchwise.workspace import Workspace
from gittools import GitBuilder


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True,
                         **kwargs)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def test_a_variable_in_a_repository_path_is_not_expanded(tmp_path, monkeypatch):
    """`$TARGET/repo` is a directory named `$TARGET`, not the repository TARGET points at."""
    elsewhere = GitBuilder(tmp_path / "elsewhere" / "repo")
    elsewhere.write("src/other.py", "def not_this_one():\n    return 0\n")
    elsewhere.commit("other")
    monkeypatch.setenv("TARGET", str(tmp_path / "elsewhere"))
    literal = tmp_path / "$TARGET" / "repo"
    wanted = GitBuilder(literal)
    wanted.write("src/mine.py", "def this_one():\n    return 1\n")
    wanted.commit("mine")
    out = run("index", literal, "--index", tmp_path / "index", "--json")
    assert out.returncode == 0, out.stderr
    names = {row["qualified_name"] for row in Workspace(literal, tmp_path / "index").inspect("main")}
    assert names == {"this_one"}
    missing = run("index", tmp_path / "$TARGET" / "nothing", "--index", tmp_path / "index2")
    assert missing.returncode == 2 and "$TARGET" in missing.stderr
