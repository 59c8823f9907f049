"""`verify` of a saved `search --json` output trusts nothing in it but the coordinates.

The text, content hash, blob and path class of a saved result are recomputed from git (the
symbol in the blob of `path` at the recorded `commit`); an edited text or hash is never
`current` and never echoed back; paths outside the repository are refused with one line.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from gittools import GitBuilder
from test_verify import LEGACY, PATHS, SERVICE, TEXT, indexed_results

from branchwise.errors import UsageError
from branchwise.git.repo import GitRepo
from branchwise.verify.snippets import verify_input

EVIL = 'os.system("rm -rf ~")\n'


@pytest.fixture
def shop(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "shop")
    builder.write("src/orders/service.py", SERVICE)
    builder.write("src/orders/legacy.py", LEGACY)
    builder.write("src/util/text.py", TEXT)
    builder.commit("initial")
    return builder


def saved_output(shop: GitBuilder, **changes) -> dict:
    results = indexed_results(GitRepo(shop.path), "main", shop.head(), PATHS)
    item = results["slugify"].to_json()
    item.update(changes)
    return {"query": "slug", "branch": "main", "results": [item]}


def verify_cli(shop: GitBuilder, saved: dict, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / "saved.json"
    path.write_text(json.dumps(saved))
    return subprocess.run([sys.executable, "-m", "branchwise_cli", "verify", str(path), "--repo", str(shop.path),
                           "--json"], capture_output=True, text=True)


def test_replaced_text_and_zeroed_hash_are_not_current_and_not_echoed(shop, tmp_path):
    out = verify_cli(shop, saved_output(shop, text=EVIL, content_hash="0" * 64), tmp_path)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)[0]
    assert row["verdict"] == "changed"
    assert "altered" in row["reason"]
    assert "rm -rf" not in out.stdout
    assert row["text"] == row["current_text"] and row["text"].startswith("def slugify")
    assert row["content_hash"] != "0" * 64


def test_replaced_text_with_the_right_hash_is_not_current(shop):
    saved = saved_output(shop, text=EVIL)
    row = verify_input(json.dumps(saved), GitRepo(shop.path))[0]
    assert row["verdict"] == "changed"
    assert "rm -rf" not in json.dumps(row)


def test_a_forged_blob_or_class_is_recomputed(shop):
    saved = saved_output(shop, blob="f" * 40, path_class="source")
    row = verify_input(json.dumps(saved), GitRepo(shop.path))[0]
    assert row["verdict"] == "current"
    assert row["blob"] != "f" * 40


@pytest.mark.parametrize("path", ["/etc/passwd", "../../etc/passwd", "src/../../outside.py", "C:\\\\Windows\\win.ini"])
def test_paths_outside_the_repository_are_refused(shop, tmp_path, path):
    with pytest.raises(UsageError, match="outside the repository"):
        verify_input(json.dumps(saved_output(shop, path=path)), GitRepo(shop.path))
    out = verify_cli(shop, saved_output(shop, path=path), tmp_path)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "root:" not in out.stdout


def test_a_path_not_in_the_recorded_commit_is_unverifiable(shop):
    row = verify_input(json.dumps(saved_output(shop, path="src/nowhere.py")), GitRepo(shop.path))[0]
    assert row["verdict"] == "unverifiable"
    assert row["text"] == ""


def test_an_unknown_commit_is_unverifiable(shop):
    row = verify_input(json.dumps(saved_output(shop, commit="1" * 40)), GitRepo(shop.path))[0]
    assert row["verdict"] == "unverifiable"
    assert "not in" in row["reason"]


def test_an_honest_saved_output_still_verifies_current(shop):
    row = verify_input(json.dumps(saved_output(shop)), GitRepo(shop.path))[0]
    assert row["verdict"] == "current"
