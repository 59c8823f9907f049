"""The ten languages of issue 33 on their real projects: every file chunks, every branch indexes.

For each bundle of `shared/realrepos/` (cJSON, fmt, serilog, MediatR, sinatra, Slim, okio,
Alamofire, scopt, nvm, json.lua; found as bench/realrepos.py finds them: beside the checkout
or one level up, as CI has them, else the test is skipped):

- every file of `main` chunks without an exception, keeps the chunk invariants of
  tests/chunking (exact lines and hashes, outline keys) and the structural ones of
  tests/chunking/bundle_invariants.py (symbol chunks nest or are disjoint, every byte of a
  definition is in its chunk);
- every branch indexes (hashing embedder: this checks identities and versions, not ranking),
  and `inspect` shows the project's language with symbol chunks, not whole files, on each;
- a branch moved from the oldest release line through every newer one to `main`, indexed at
  each step, ends with the live set (path, name, hash) of a fresh index of `main`.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "chunking"))

from bench.realrepos import BUNDLE_DIRS, MISSING_PREFIX  # noqa: E402
from shared_data import realrepo_clone  # noqa: E402
from branchwise.workspace import Workspace  # noqa: E402
from bundle_invariants import nesting_problems  # noqa: E402
from test_chunking_invariants import assert_invariants  # noqa: E402

#: bundle -> (language, release lines from oldest to newest; `main` comes last)
BUNDLES = {
    "cjson": ("c", ["release/v1.7.15", "release/v1.7.18"]),
    "fmt": ("cpp", ["release/10.x", "release/11.x"]),
    "serilog": ("csharp", ["release/v3", "release/v4.0"]),
    "mediatr": ("csharp", ["release/v11", "release/v12.1"]),
    "sinatra": ("ruby", ["release/v2", "release/v3"]),
    "slim": ("php", ["release/3.x", "release/4.10"]),
    "okio": ("kotlin", ["release/3.4", "release/3.9"]),
    "alamofire": ("swift", ["release/5.8", "release/5.11"]),
    "scopt": ("scala", ["release/3.7"]),
    "nvm": ("bash", ["release/v0.39", "release/v0.40.3"]),
    "jsonlua": ("lua", ["release/v0.1.0"]),
}


def _available(name: str) -> bool:
    return any((directory / f"{name}.bundle").is_file() for directory in BUNDLE_DIRS)


pytestmark = pytest.mark.skipif(not any(_available(n) for n in BUNDLES),
                                reason=f"{MISSING_PREFIX}: none of the real-repository bundles (set BRANCHWISE_REALREPOS "
                                       "to the folder that holds them)")


def _git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


@pytest.fixture(scope="module")
def clones(tmp_path_factory):
    return tmp_path_factory.mktemp("realrepo-languages")


def _clone(name: str, cache: Path) -> Path:
    repo = realrepo_clone(name, cache)
    _git(repo, "config", "user.email", "test@example.com")
    _git(repo, "config", "user.name", "test")
    return repo


def _live(workspace: Workspace, branch: str) -> set[tuple[str, str, str]]:
    return {(row["path"], row["qualified_name"], row["content_hash"]) for row in workspace.inspect(branch)}


@pytest.mark.parametrize("name", sorted(BUNDLES))
def test_every_file_of_main_keeps_the_chunk_invariants(name, clones):
    repo = _clone(name, clones)
    entries = [e.decode().split("\t", 1) for e in _git(repo, "ls-tree", "-r", "-z", "main").split(b"\0") if e]
    paths = [path for meta, path in entries if meta.split()[1] == "blob"]  # nvm has a submodule
    assert len(paths) > 5
    problems = []
    for path in paths:
        data = _git(repo, "show", f"main:{path}")
        assert_invariants(name, path, data)
        problems += nesting_problems(path, data)
    assert problems == []


@pytest.mark.parametrize("name", sorted(BUNDLES))
def test_every_branch_indexes_and_a_moved_branch_equals_a_fresh_index(name, clones, tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    language, releases = BUNDLES[name]
    repo = _clone(name, clones)
    workspace = Workspace(repo, tmp_path / "all")
    summaries = workspace.index([], all_branches=True)
    assert {s.branch for s in summaries} == {*releases, "main"}
    for branch in [*releases, "main"]:
        rows = workspace.inspect(branch)
        by_language = Counter(row["language"] for row in rows if row["symbol_type"] not in ("file", "module"))
        assert by_language[language] >= 10, (branch, by_language)  # symbols, not whole files
        assert not any(row["language"] == language and row["symbol_type"] == "file" for row in rows)
    fresh_main = _live(workspace, "main")
    workspace.close()

    moved = Workspace(repo, tmp_path / "moved")
    _git(repo, "branch", "-f", "moving", releases[0])
    moved.index(["moving"])
    for release in [*releases[1:], "main"]:
        _git(repo, "branch", "-f", "moving", release)
        moved.index(["moving"])
    assert _live(moved, "moving") == fresh_main
    moved.close()

