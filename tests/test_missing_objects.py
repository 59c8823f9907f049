"""A missing object is not a reason to stop (issue 46, truth item 6).

A partial clone (`git clone --filter=blob:none`) holds only the blobs something asked for, and a
copied or pruned repository may lack a loose object. `index` skips each file whose blob cannot
be read, records it with its reason (shown by `status` and in the index summary) and indexes
the rest; a commit or tree that is missing still ends the run, in one line. Real git, the
sample shop repository, the hashing embedder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GIT_ENV

ENV = {**os.environ, **GIT_ENV, "BRANCHWISE_MODEL": "hashing-384"}
LEFT_OUT = "src/orders/services/order_service.py"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, env=ENV, check=True, capture_output=True, text=True).stdout


def cli(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True,
                          text=True, env=ENV)


def tracked(repo: Path, commit: str = "HEAD") -> list[str]:
    return git(repo, "ls-tree", "-r", "--name-only", "-z", commit).rstrip("\0").split("\0")


@pytest.fixture
def partial_clone(sample_repos, tmp_path) -> Path:
    """The shop sample cloned with --filter=blob:none, every blob of main fetched but one."""
    origin = Path(shutil.copytree(sample_repos["shop"], tmp_path / "origin", symlinks=True))
    git(origin, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--filter=blob:none", "--no-checkout", "--branch", "main",
        origin.as_uri(), str(clone))
    paths = [path for path in tracked(clone, "origin/main") if path != LEFT_OUT]
    git(clone, "checkout", "-q", "origin/main", "--", *paths)  # fetches those blobs, not LEFT_OUT's
    missing = {line[1:] for line in git(clone, "rev-list", "--objects", "--missing=print", "origin/main").split()
               if line.startswith("?")}
    tip = {line.split()[2] for line in git(clone, "ls-tree", "-r", "origin/main").splitlines()}
    assert missing & tip == {git(origin, "rev-parse", f"main:{LEFT_OUT}").strip()}
    return clone


def test_a_partial_clone_indexes_all_but_the_missing_blob(partial_clone, tmp_path):
    index = tmp_path / "index"
    out = cli("index", partial_clone, "--index", index)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert "skipped 1 file(s) whose blob is missing from the object store" in out.stdout
    assert LEFT_OUT in out.stdout
    status = json.loads(cli("status", "--repo", partial_clone, "--index", index, "--json").stdout)
    (main,) = [b for r in status["repositories"] for b in r["branches"] if b["branch"] == "main"]
    reasons = {s["path"]: s["reason"] for s in main["skipped_files"]}
    assert reasons[LEFT_OUT].startswith("unreadable: blob ")
    text = cli("status", "--repo", partial_clone, "--index", index).stdout
    assert f"{LEFT_OUT}: unreadable: blob" in text
    listed = json.loads(cli("inspect", "--repo", partial_clone, "--branch", "main", "--index", index,
                            "--json").stdout)
    paths = {row["path"] for row in listed}
    assert LEFT_OUT not in paths and any(p.startswith("src/orders/") for p in paths)
    found = json.loads(cli("search", "cancel an order", "--repo", partial_clone, "--branch", "main",
                           "--index", index, "--json").stdout)
    assert found["results"] and all(r["path"] != LEFT_OUT for r in found["results"])


def test_a_loose_object_removed_from_a_plain_repository(shop_repo, tmp_path):
    blob = git(shop_repo, "rev-parse", f"main:{LEFT_OUT}").strip()
    git(shop_repo, "repack", "-q", "-a", "-d")
    loose = shop_repo / ".git" / "objects" / blob[:2] / blob[2:]
    _write_loose_copies(shop_repo)
    loose.unlink()
    index = tmp_path / "index"
    out = cli("index", shop_repo, "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    (main,) = [b for b in json.loads(out.stdout)["branches"] if b["branch"] == "main"]
    assert main["unreadable_files"] == [LEFT_OUT] and main["skipped_files"] >= 1


def _write_loose_copies(repo: Path) -> None:
    """Every object of the repository as a loose object, and no pack (so one can be removed)."""
    packs = list((repo / ".git" / "objects" / "pack").glob("*.pack"))
    for pack in packs:
        moved = pack.with_suffix(".moved")
        pack.rename(moved)
        pack.with_suffix(".idx").unlink()
        subprocess.run(["git", "unpack-objects", "-q"], cwd=repo, env=ENV, check=True, stdin=moved.open("rb"))
        moved.unlink()


@pytest.mark.parametrize("what", ["tree", "commit"])
def test_a_missing_commit_or_tree_still_fails_in_one_line(shop_repo, tmp_path, what):
    git(shop_repo, "repack", "-q", "-a", "-d")
    _write_loose_copies(shop_repo)
    sha = git(shop_repo, "rev-parse", "main^{tree}" if what == "tree" else "main").strip()
    (shop_repo / ".git" / "objects" / sha[:2] / sha[2:]).unlink()
    out = cli("index", shop_repo, "--index", tmp_path / "index")
    assert out.returncode == 1
    assert "Traceback" not in out.stderr
    (line,) = [line for line in out.stderr.splitlines() if line.startswith("branchwise: ")]
    assert "missing from the object store" in line and git(shop_repo, "rev-parse", "main").strip() in line
