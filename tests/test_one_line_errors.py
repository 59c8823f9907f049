"""Inputs that used to end in a traceback (or a 37 GiB allocation) end in one line and exit 2.

A huge `--top-k` is capped at a documented maximum, `--index` naming a file, a read-only
directory and a statistics log with records of the wrong shape each give one clear line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from branchwise import search
from branchwise.search import SearchRequest
from branchwise.errors import UsageError
from branchwise.workspace import Workspace
from gittools import GitBuilder


MAX_TOP_K = 1000  # the documented maximum (README)


def test_the_documented_maximum():
    assert search.MAX_TOP_K == MAX_TOP_K


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("errors")
    repo = GitBuilder(root / "repo")
    repo.write("src/app.py", "def handler(x):\n    return x * 2\n")
    repo.commit("init")
    index = root / "index"
    Workspace(repo.path, index).index(["main"])
    return repo.path, index


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True,
                         **kwargs)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def assert_one_line(out: subprocess.CompletedProcess, code: int, *words: str) -> None:
    assert out.returncode == code, (out.stdout, out.stderr)
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    for word in words:
        assert word in out.stderr, out.stderr


@pytest.mark.parametrize("top_k, mode", [("1000000000", "fused"), (str(2**63), "lexical"), (str(2**63), "fused"),
                                         (str(MAX_TOP_K + 1), "dense"), ("0", "fused")])
def test_top_k_is_capped(indexed, top_k, mode):
    repo, index = indexed
    out = run("search", "handler", "--repo", repo, "--branch", "main", "--index", index,
              "--top-k", top_k, "--mode", mode)
    assert_one_line(out, 2, "--top-k", str(MAX_TOP_K))


def test_the_cap_holds_for_library_callers_too(indexed):
    repo, index = indexed
    with pytest.raises(UsageError, match=str(MAX_TOP_K)):
        Workspace(repo, index).search(SearchRequest("handler", "main", top_k=10**9))
    assert Workspace(repo, index).search(SearchRequest("handler", "main", top_k=MAX_TOP_K))


@pytest.mark.parametrize("record", [
    {"failure_ratio": "high", "time": "2026-01-01T00:00:00+00:00"},
    {"failure_ratio": 7.5},
    {"failure_ratio": 0.5, "overrides": 3},
    {"failure_ratio": 0.5, "verdicts": ["changed"]},
    {"failure_ratio": 0.5, "time": 12},
    {"failure_ratio": 0.5, "failures": "two"},
    [1, 2, 3],
])
def test_a_malformed_statistics_record_is_skipped_and_counted(indexed, tmp_path, record):
    repo, source = indexed
    index = Path(shutil.copytree(source, tmp_path / "index"))  # a real index; only its log is ours
    good = {"time": "2026-01-01T00:00:00+00:00", "kind": "export", "repository": "repo", "branch": "main",
            "failure_ratio": 0.25, "failures": 1, "considered": 4, "verdicts": {"changed": 1}}
    (index / "stats.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n")
    for extra in ((), ("--json",)):
        out = run("stats", "--index", index, *extra)
        assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["sessions"] == 1 and summary["unreadable_lines"] == 1


def test_a_statistics_log_that_cannot_be_read_is_one_line(indexed, tmp_path):
    index = Path(shutil.copytree(indexed[1], tmp_path / "index"))
    (index / "stats.jsonl").unlink(missing_ok=True)
    (index / "stats.jsonl").mkdir()
    assert_one_line(run("stats", "--index", index), 2, "stats.jsonl")
