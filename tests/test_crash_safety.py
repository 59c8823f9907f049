"""An index run killed at any moment leaves an index that opens, is consistent and finishes right.

Each branch lands in one SQLite transaction and the FAISS file is derived data stamped with
the store generation it matches, so SIGKILL at any point must leave either the old or the new
state of every branch, never a mix, and a vector file that is loaded or rebuilt to agree with
SQLite. These tests kill a real `branchwise index` subprocess at delays spread over the whole
length of an uninterrupted run (nothing is slowed down artificially), check the survivor,
finish the work and compare it with an index built from scratch. They also corrupt the vector
file and the database on purpose.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from branchwise.backends.local.vectors import VectorIndex
from branchwise.search.hybrid import SearchRequest
from branchwise.store import DB_FILE
from branchwise.workspace import Workspace

KILLS = 30
#: Branch subsets of the killed runs: everything, a new branch on its own (full parse), and
#: branches that inherit from one another.
SUBSETS = (
    ["--all-branches"],
    ["--branch", "release/1.x"],
    ["--branch", "feature/old-arch", "--branch", "feature/stock-alerts"],
    ["--branch", "main", "--branch", "release/1.x"],
)


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def index_command(repo: Path, index: Path, selection: list[str]) -> list[str]:
    return [sys.executable, "-m", "branchwise_cli", "index", str(repo), *selection, "--index", str(index)]


def run_cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "branchwise_cli", *argv], capture_output=True, text=True)


def timed_run(repo: Path, index: Path) -> float:
    started = time.perf_counter()
    subprocess.run(index_command(repo, index, ["--all-branches"]), check=True, capture_output=True)
    return time.perf_counter() - started


def kill_delays(repo: Path, scratch: Path, count: int) -> list[float]:
    """Delays spread over a whole uninterrupted run, half of them over its writing part.

    Most of a short run is interpreter start-up; an up-to-date run (start-up, opening the
    index, reading refs) measures that part, and the rest of a full run is where it writes.
    """
    duration = timed_run(repo, scratch)
    startup = timed_run(repo, scratch)  # the second run finds everything up to date
    rng = random.Random(8)
    delays = []
    for trial in range(count):
        low, high = (0.0, duration) if trial % 2 == 0 else (min(startup, duration), duration)
        stratum = trial // 2
        delays.append(low + (high - low) * (stratum + rng.random()) / (count // 2))
    return delays


def killed_run(repo: Path, index: Path, selection: list[str], delay: float) -> None:
    process = subprocess.Popen(
        index_command(repo, index, selection), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait()


def snapshot(repo: Path, index: Path) -> dict[str, list[dict]]:
    """Every indexed branch's live set, as `inspect` prints it."""
    workspace = Workspace(repo, index)
    try:
        return {b.name: workspace.inspect(b.name) for b in workspace.indexed_branches()}
    finally:
        workspace.close()


def assert_consistent(repo: Path, index: Path, reference: dict[str, list[dict]]) -> None:
    """The index after a kill: sound on disk, every branch at a complete state, searchable."""
    if not (index / DB_FILE).exists():
        return  # killed before the database was created: nothing to check
    raw = sqlite3.connect(index / DB_FILE)
    try:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        raw.close()
    workspace = Workspace(repo, index)
    try:
        conn = workspace.store.conn
        dangling = conn.execute(
            "SELECT COUNT(*) FROM live l WHERE NOT EXISTS (SELECT 1 FROM versions v WHERE v.id = l.version_row) "
            "OR NOT EXISTS (SELECT 1 FROM identities i WHERE i.id = l.identity_id)"
        ).fetchone()[0]
        assert dangling == 0
        embedded = conn.execute(
            "SELECT COUNT(*) FROM versions v "
            "WHERE EXISTS (SELECT 1 FROM embeddings e WHERE e.key = v.embed_key) "
            "AND EXISTS (SELECT 1 FROM embeddings e WHERE e.key = v.path_key)"
        ).fetchone()[0]
        embedder = workspace.embedder
        vectors = VectorIndex(workspace.store, embedder.name, embedder.dim, workspace.config.path_weight)
        assert vectors.index.ntotal == embedded
        for branch in workspace.indexed_branches():
            # a branch in the table is a branch whose transaction committed: all of it is there
            assert workspace.inspect(branch.name) == reference[branch.name], branch.name
            results = workspace.search(SearchRequest("cancel order", branch.name, top_k=5))
            live = {(r["path"], r["qualified_name"], r["content_hash"]) for r in reference[branch.name]}
            assert results and all((r.path, r.identity.qualified_name, r.content_hash) in live for r in results)
    finally:
        workspace.close()


def stored_versions(repo: Path, index: Path) -> set[str]:
    workspace = Workspace(repo, index)
    try:
        return {row[0] for row in workspace.store.conn.execute("SELECT version_id FROM versions")}
    finally:
        workspace.close()


@pytest.fixture
def reference(shop_repo, tmp_path) -> dict[str, list[dict]]:
    """Every branch of the shop sample indexed once, uninterrupted, from scratch."""
    index = tmp_path / "reference"
    subprocess.run(index_command(shop_repo, index, ["--all-branches"]), check=True, capture_output=True)
    return snapshot(shop_repo, index)


def test_sigkill_at_any_point_leaves_a_consistent_index_that_finishes_right(shop_repo, tmp_path, reference):
    assert set(reference) == {"main", "release/1.x", "feature/old-arch", "feature/stock-alerts"}
    reference_versions = stored_versions(shop_repo, tmp_path / "reference")
    for trial, delay in enumerate(kill_delays(shop_repo, tmp_path / "timing", KILLS)):
        index = tmp_path / f"killed-{trial}"
        if trial % 3 == 1:  # a kill while updating an index that already holds main
            subprocess.run(index_command(shop_repo, index, ["--branch", "main"]), check=True, capture_output=True)
        killed_run(shop_repo, index, SUBSETS[trial % len(SUBSETS)], delay)
        assert_consistent(shop_repo, index, reference)

        finish = subprocess.run(index_command(shop_repo, index, ["--all-branches"]), capture_output=True, text=True)
        assert finish.returncode == 0, finish.stderr
        assert snapshot(shop_repo, index) == reference
        assert stored_versions(shop_repo, index) == reference_versions
        assert_consistent(shop_repo, index, reference)


def test_a_corrupt_vector_file_is_rebuilt_on_load(shop_repo, tmp_path, reference):
    index = tmp_path / "reference"
    [faiss_file] = index.glob("vectors-*.faiss")
    faiss_file.write_bytes(os.urandom(faiss_file.stat().st_size))
    workspace = Workspace(shop_repo, index)
    results = workspace.search(SearchRequest("cancel order", "main", top_k=5, mode="dense"))
    versions = workspace.store.conn.execute("SELECT COUNT(*) FROM versions").fetchone()[0]
    assert workspace.searcher.vectors.index.ntotal == versions
    assert results
    workspace.close()
    import faiss

    assert faiss.read_index(str(faiss_file)).ntotal == versions  # the rebuilt file was saved


def test_index_rebuild_replaces_a_corrupt_vector_file(shop_repo, tmp_path, reference):
    index = tmp_path / "reference"
    [faiss_file] = index.glob("vectors-*.faiss")
    faiss_file.write_bytes(b"not a faiss index")
    rebuilt = run_cli("index", str(shop_repo), "--branch", "main", "--index", str(index), "--rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    searched = run_cli("search", "cancel order", "--repo", str(shop_repo), "--branch", "main",
                       "--index", str(index), "--json")
    assert searched.returncode == 0, searched.stderr
    assert '"results": [{' in searched.stdout


@pytest.mark.parametrize("share", [0, 0.75], ids=["header", "last-quarter"])
def test_a_corrupt_database_is_one_clear_line_and_exit_1(shop_repo, tmp_path, reference, share):
    """Garbage over the header fails on open; garbage over table pages fails at a later query."""
    index = tmp_path / "reference"
    database = index / DB_FILE
    size = database.stat().st_size
    start = int(size * share)
    with database.open("r+b") as handle:
        handle.seek(start)
        handle.write(os.urandom(size - start))
    if share == 0:
        commands = [["search", "cancel order", "--repo", str(shop_repo), "--branch", "main"],
                    ["inspect", "--repo", str(shop_repo), "--branch", "main"],
                    ["index", str(shop_repo), "--all-branches"]]
    else:  # the last quarter holds the embedding cache (written last, after the live sets):
        # `status` counts the dense coverage from it; neither `inspect`, an up-to-date index run
        # nor a search (its coverage comes from the vector file) needs a page of it
        commands = [["status", "--repo", str(shop_repo)]]
    for argv in commands:
        out = run_cli(*argv, "--index", str(index))
        assert out.returncode == 1, (argv, out.stderr)
        assert "Traceback" not in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1, out.stderr
        assert "index database" in out.stderr


# killed during a vector rebuild and during a labels import ----------------------------------

REBUILD_KILLS = 8
IMPORT_KILLS = 8
IMPORTED_LABELS = 40_000


def spread(duration: float, count: int, seed: int) -> list[float]:
    """`count` delays spread evenly (with jitter) over an uninterrupted run of `duration`."""
    rng = random.Random(seed)
    return [duration * (trial + rng.random()) / count for trial in range(count)]


def killed(argv: list[str], delay: float) -> None:
    process = subprocess.Popen([sys.executable, "-m", "branchwise_cli", *argv],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    process.send_signal(signal.SIGKILL)
    process.wait()


def test_sigkill_during_a_rebuild_leaves_a_consistent_index(shop_repo, tmp_path, reference):
    import shutil

    source = tmp_path / "reference"
    rebuild = ["index", str(shop_repo), "--branch", "main", "--rebuild"]
    timing = Path(shutil.copytree(source, tmp_path / "timing"))
    started = time.perf_counter()
    assert run_cli(*rebuild, "--index", str(timing)).returncode == 0
    duration = time.perf_counter() - started
    for trial, delay in enumerate(spread(duration, REBUILD_KILLS, seed=17)):
        index = Path(shutil.copytree(source, tmp_path / f"rebuild-{trial}"))
        killed([*rebuild, "--index", str(index)], delay)
        assert_consistent(shop_repo, index, reference)
        again = run_cli(*rebuild, "--index", str(index))
        assert again.returncode == 0, again.stderr
        assert snapshot(shop_repo, index) == reference
        assert_consistent(shop_repo, index, reference)


def labels_file(path: Path, count: int, label: str) -> Path:
    import tomli_w

    entries = [{"path": f"src/pkg{n % 50}/module_{n}.py", "qualified_name": f"f{n}", "symbol_type": "function",
                "language": "python", "content_hash": f"{n:064x}", "label": label, "note": f"note {n}",
                "reviewer": "ann", "labelled_at": "2026-01-01T00:00:00+00:00"} for n in range(count)]
    path.write_bytes(tomli_w.dumps({"repository": "shop", "label": entries}).encode())
    return path


def label_state(index: Path) -> tuple[int, set[str]]:
    conn = sqlite3.connect(index / DB_FILE)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        count = conn.execute("SELECT COUNT(*) FROM labels").fetchone()[0]
        kinds = {row[0] for row in conn.execute("SELECT DISTINCT label FROM labels")}
        return count, kinds
    finally:
        conn.close()


def test_sigkill_during_labels_import_leaves_all_or_nothing(shop_repo, tmp_path, reference):
    """Before: 100 labels `exclude`. The import relabels them `use` and adds the rest; a kill
    at any moment leaves exactly the old 100 or exactly the new set, and a rerun completes."""
    import shutil

    source = tmp_path / "reference"
    before = labels_file(tmp_path / "before.toml", 100, "exclude")
    after = labels_file(tmp_path / "after.toml", IMPORTED_LABELS, "use")
    common = ["--repo", str(shop_repo), "--index"]
    assert run_cli("labels", "import", str(before), *common, str(source)).returncode == 0
    timing = Path(shutil.copytree(source, tmp_path / "timing"))
    started = time.perf_counter()
    assert run_cli("labels", "import", str(after), *common, str(timing)).returncode == 0
    duration = time.perf_counter() - started
    assert label_state(timing) == (IMPORTED_LABELS, {"use"})
    outcomes = set()
    # half the kills over the whole run, half over its second half, where an import that
    # parses first and writes last would be writing
    delays = spread(duration, IMPORT_KILLS // 2, seed=29) + [
        duration / 2 + delay for delay in spread(duration / 2, IMPORT_KILLS - IMPORT_KILLS // 2, seed=31)]
    for trial, delay in enumerate(delays):
        index = Path(shutil.copytree(source, tmp_path / f"labels-{trial}"))
        killed(["labels", "import", str(after), *common, str(index)], delay)
        state = label_state(index)
        assert state in ((100, {"exclude"}), (IMPORTED_LABELS, {"use"})), state
        outcomes.add(state[0])
        assert_consistent(shop_repo, index, reference)
        rerun = run_cli("labels", "import", str(after), *common, str(index))
        assert rerun.returncode == 0, rerun.stderr
        assert label_state(index) == (IMPORTED_LABELS, {"use"})
    assert 100 in outcomes  # the kills did interrupt imports (not all landed after the end)
