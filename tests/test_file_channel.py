"""The file channel (search/file_channel.py): for a question that asks how something works,
each candidate gains from the rank of its file among the files whose chunks, as a whole,
resemble the question. Its effect on real retrieval is measured by `python -m bench.peer` and
`bench.realrepos` (bench/results/2026-12-07-ranking-s64.md)."""

from __future__ import annotations

import faiss
import numpy as np
import pytest
from gittools import GitBuilder

from branchwise.backends.local.vectors import build_index, stored_vectors
from branchwise.models import Identity, Result
from branchwise.ranking import RankingSettings
from branchwise.search.file_channel import FileMeans, file_credit
from branchwise.search.hybrid import SearchRequest
from branchwise.search.question_shape import asks_how
from branchwise.workspace import Workspace


@pytest.mark.parametrize("question, how", [
    ("how does a group pick the subcommand to run", True),
    ("How the timer wheel tracks sleep deadlines", True),
    ("how to validate a function's arguments", True),
    ("how many bytes a string takes once encoded", False),
    ("how much money a customer gets back", False),
    ("show how the pool works", False),
    ("how", False),
    ("print a line to the terminal", False),
])
def test_a_question_asks_how_something_works_not_how_much(question, how):
    assert asks_how(question) is how


def unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_files_rank_by_the_mean_of_their_chunks_vectors():
    ids = np.array([1, 2, 3, 4], dtype=np.int64)
    vectors = np.vstack([unit(1, 0, 0, 0), unit(0, 1, 0, 0), unit(0.8, 0, 0.6, 0), unit(0, 0, 0, 1)])
    paths = {1: "a.py", 2: "a.py", 3: "b.py", 9: "new.py"}  # row 4 is not allowed, row 9 has no vector yet
    means = FileMeans([(ids[:1], vectors[:1]), (ids[1:], vectors[1:])], paths, 4)  # in pieces, as an IVF gives them
    assert means.ranks(unit(1, 1, 0, 0)) == {"a.py": 1, "b.py": 2}  # a.py's two chunks together
    assert means.ranks(unit(1, 0, 0, 0)) == {"b.py": 1, "a.py": 2}  # b.py's one chunk is closer than a.py's mean
    assert means.ranks(unit(0, 0, 0, 1)).keys() == {"a.py", "b.py"}
    whole = FileMeans([(ids, np.vstack([vectors[:2], unit(0, 0.6, 0.8, 0), vectors[3:]]))], paths, 4)
    assert whole.ranks(unit(0, 1, 0, 0)) == {"a.py": 1, "b.py": 2}  # a.py's second chunk counts as its first does


def result(path: str, text: str, language: str = "c") -> Result:
    return Result(rank=0, score=0.1, identity=Identity("r", path, language, "function", "f"), branch="main",
                  commit="c", start_line=1, end_line=2, indexed_at="", content_hash=path, text=text, blob=None,
                  version_id=path)


def test_a_candidate_gains_from_its_files_rank_and_a_prototype_gains_nothing():
    settings = RankingSettings()
    ranks = {"net.c": 1, "net.h": 2, "util.c": 4}
    assert file_credit(result("net.c", "int f(void) {\n  return 0;\n}"), ranks, settings) == pytest.approx(1 / 21)
    assert file_credit(result("util.c", "int f(void) {\n  return 0;\n}"), ranks, settings) == pytest.approx(1 / 24)
    assert file_credit(result("net.h", "int f(void);"), ranks, settings) == 0.0  # its definition takes its score
    assert file_credit(result("other.c", "int f(void) { return 0; }"), ranks, settings) == 0.0
    assert file_credit(result("net.c", "int f(void) { return 0; }"), None, settings) == 0.0


@pytest.mark.parametrize("count", [50, 3000])
def test_the_vectors_an_index_holds_are_read_whole_or_per_list(count):
    rng = np.random.default_rng(1)
    vectors = rng.standard_normal((count, 8)).astype(np.float32)
    ids = np.arange(100, 100 + count, dtype=np.int64)
    index = build_index(8, ids, vectors, flat_max=1000)
    assert isinstance(index, faiss.IndexIVF) == (count > 1000)
    parts = list(stored_vectors(index))
    read_ids = np.concatenate([part_ids for part_ids, _v in parts])
    read = np.vstack([part_vectors for _i, part_vectors in parts])
    order = np.argsort(read_ids)
    assert np.array_equal(read_ids[order], ids)
    assert np.allclose(read[order], vectors)


POOL = '''def start(pool):
    """Start the worker threads of the pool."""
    pool.threads = [Thread(target=pool.loop) for _ in range(pool.size)]


def submit(pool, task):
    """Put a task in the queue the worker threads take from."""
    pool.queue.put(task)


def loop(pool):
    """A worker thread runs the queued tasks one after another."""
    while True:
        pool.queue.get()()
'''


def test_a_how_question_ranks_the_files_about_it_above_a_lone_chunk_elsewhere(tmp_path, monkeypatch):
    """Six small files about a pool's threads and tasks, and a colour module with one note that
    repeats the question's words: asked how tasks are scheduled, the note's file, about colours,
    ranks far below them, so the note steps back behind a chunk of a file about the mechanism;
    asked the same without "how", nothing changes."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "app")
    git.write("pool.py", POOL)
    for name in ["queue", "worker", "executor", "threads", "runner", "dispatch"]:
        git.write(f"{name}.py", f'def {name}_start(pool):\n    """The {name} part of the pool: start its threads."""\n'
                                f'    return pool\n\n\ndef {name}_take(pool):\n'
                                f'    """The {name} part of the pool: take a queued task."""\n    return pool.queue.get()\n')
    for topic in ["colour", "date", "money", "path", "mail", "image", "sound", "font", "table", "cache"]:
        git.write(f"{topic}.py", "\n\n".join(f'def {topic}_{n}(value):\n    """Convert a {topic} value of kind {n}."""\n'
                                             f"    return {topic}_table[{n}](value)\n" for n in range(10)))
    git.write("colour.py", (git.path / "colour.py").read_text()
              + '\n\ndef schedule_note():\n    """How tasks are scheduled onto worker threads: see pool."""\n    return None\n')
    git.commit("a pool and some converters")
    ws = Workspace(git.path, tmp_path / "index")
    ws.index(["main"])
    how, plain = "how are tasks scheduled onto worker threads", "tasks scheduled onto worker threads"
    with_files = {q: ws.search(SearchRequest(q, "main")) for q in (how, plain)}
    ws.close()
    (tmp_path / "index" / "config.toml").write_text("[ranking]\nfile_weight = 0\n")
    ws = Workspace(git.path, tmp_path / "index")
    without = {q: ws.search(SearchRequest(q, "main")) for q in (how, plain)}
    ws.close()

    def names(results: list[Result]) -> list[str]:
        return [r.identity.qualified_name for r in results]

    assert names(without[how]).index("schedule_note") < names(without[how]).index("threads_start")
    assert names(with_files[how]).index("schedule_note") > names(with_files[how]).index("threads_start")
    assert [(r.identity, r.score) for r in with_files[plain]] == [(r.identity, r.score) for r in without[plain]]
