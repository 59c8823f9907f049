"""The CLI end to end, as a script or an agent calls it: writes that wait, gc, labels, query files.

Every command runs as a subprocess on a real git repository, with the hashing embedder (a
real deterministic embedding needing no weights): these tests are about what the commands
do and print, not about retrieval quality.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.store.lock import WriteLock

ORDERS = '''def cancel_order(order):
    """Cancel an order once."""
    order.status = "cancelled"
    return order


def create_order(items):
    return {"items": items, "status": "new"}
'''


def cli(*argv, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "BRANCHWISE_MODEL": "hashing-384"}
    return subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)],
                          capture_output=True, text=True, env=env, cwd=cwd)


@pytest.fixture
def repo(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "shop")
    builder.write("src/orders.py", ORDERS)
    builder.commit("orders")
    return builder


def live_names(repo: GitBuilder, index: Path) -> set[str]:
    out = cli("inspect", "--repo", repo.path, "--branch", "main", "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    return {row["qualified_name"] for row in json.loads(out.stdout)}


def blocked_on_lock(pid: int) -> bool:
    """Whether process `pid` is queued behind a held flock (Linux lists waiters with `->`)."""
    return any(line.split()[1] == "->" and str(pid) in line.split()
               for line in Path("/proc/locks").read_text().splitlines())


def test_index_without_wait_is_refused_while_another_writer_holds_the_lock(repo, tmp_path):
    index = tmp_path / "index"
    with WriteLock(index):
        out = cli("index", repo.path, "--index", index)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        f"branchwise: another branchwise process is writing the index at {index} (pass --wait to wait for it)"
    ]


def test_index_with_wait_waits_for_the_writer_and_then_indexes(repo, tmp_path):
    index = tmp_path / "index"
    env = {**os.environ, "BRANCHWISE_MODEL": "hashing-384"}
    with WriteLock(index):
        waiting = subprocess.Popen(
            [sys.executable, "-m", "branchwise_cli", "index", str(repo.path), "--index", str(index), "--wait"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        deadline = time.monotonic() + 120
        while not blocked_on_lock(waiting.pid):  # a writer ignoring --wait exits instead of blocking
            assert waiting.poll() is None, waiting.communicate()
            assert time.monotonic() < deadline, "the writer never blocked on the lock"
            time.sleep(0.1)
        assert waiting.poll() is None
    stdout, stderr = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, stderr
    assert "main @" in stdout
    assert live_names(repo, index) == {"cancel_order", "create_order"}


def test_index_gc_removes_versions_no_branch_uses(repo, tmp_path):
    index = tmp_path / "index"
    assert cli("index", repo.path, "--index", index).returncode == 0
    repo.write("src/orders.py", ORDERS.replace('"cancelled"', '"canceled"'))
    repo.commit("spelling")
    (index / "config.toml").write_text("retention_days = 0\n")
    out = cli("index", repo.path, "--index", index, "--gc", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["gc_removed_versions"] == 1  # the old cancel_order: no branch shows it any more
    again = cli("index", repo.path, "--index", index, "--gc", "--json")
    assert json.loads(again.stdout)["gc_removed_versions"] == 0
    assert live_names(repo, index) == {"cancel_order", "create_order"}


def test_queries_file_answers_each_line_as_json_lines(repo, tmp_path):
    index = tmp_path / "index"
    assert cli("index", repo.path, "--index", index).returncode == 0
    queries = tmp_path / "queries.txt"
    queries.write_text("cancel an order\n\n   \ncreate order from items\n")
    out = cli("search", "--queries", queries, "--repo", repo.path, "--branch", "main", "--index", index,
              "--json", "--top-k", "1")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [line["query"] for line in lines] == ["cancel an order", "create order from items"]
    assert [line["results"][0]["qualified_name"] for line in lines] == ["cancel_order", "create_order"]
    assert all(line["branch"] == "main" and line["target_commit"] == repo.head("main") for line in lines)


def test_labels_export_and_import_round_trip_through_another_index(repo, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    for index in (first, second):
        assert cli("index", repo.path, "--index", index).returncode == 0
    from branchwise.models import Label
    from branchwise.search.hybrid import SearchRequest
    from branchwise.workspace import Workspace

    os.environ["BRANCHWISE_MODEL"] = "hashing-384"
    try:
        workspace = Workspace(repo.path, first)
        [result] = [r for r in workspace.search(SearchRequest("cancel order", "main", top_k=5))
                    if r.identity.qualified_name == "cancel_order"]
        workspace.review.set_label(result, Label.REFERENCE_ONLY, "idea only")
        workspace.close()
    finally:
        del os.environ["BRANCHWISE_MODEL"]
    exported = tmp_path / "labels.toml"
    out = cli("labels", "export", exported, "--repo", repo.path, "--index", first)
    assert out.returncode == 0, out.stderr
    [entry] = tomllib.loads(exported.read_text())["label"]
    assert (entry["qualified_name"], entry["label"], entry["note"]) == ("cancel_order", "reference-only", "idea only")
    out = cli("labels", "import", exported, "--repo", repo.path, "--index", second)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"imported 1 label from {exported}"
    search = cli("search", "cancel order", "--repo", repo.path, "--branch", "main", "--index", second, "--json")
    [hit] = [r for r in json.loads(search.stdout)["results"] if r["qualified_name"] == "cancel_order"]
    assert hit["label"] == "reference-only"


def test_labels_import_of_a_bad_file_is_one_line_and_changes_nothing(repo, tmp_path):
    index = tmp_path / "index"
    assert cli("index", repo.path, "--index", index).returncode == 0
    bad = tmp_path / "bad.toml"
    bad.write_text("label = 5\n")
    out = cli("labels", "import", bad, "--repo", repo.path, "--index", index)
    assert out.returncode == 2
    assert len(out.stderr.strip().splitlines()) == 1 and "bad labels file" in out.stderr
    export = tmp_path / "after.toml"
    assert cli("labels", "export", export, "--repo", repo.path, "--index", index).returncode == 0
    assert tomllib.loads(export.read_text()).get("label", []) == []
