"""Item 5: what use-time verification costs per result, on a 10,000-file repository.

Every result is verified before anyone trusts it, so verification must cost little next to
the search. Two paths matter: the fast path (the result was indexed at the target commit and
its file is clean: decided without reading anything) and the slow path (its file changed:
the file is read from git, re-chunked and the symbol's text compared). The baseline is what a
verifier without the fast path pays for every result: read the file's blob and re-chunk it.

Results are built from the chunker's output at the first commit, as an index would store
them; a second commit edits one symbol in each of `n_changed` files. The first slow-path
result also lists the target tree (once per query); it is reported apart from the p50.

Those two paths verify against a commit (`--against`), so no file of the work tree is looked
at. The default target is the work tree, where a clean-looking result is only clean if `git
status` says its file is: the work-tree part checks the repository out, then times a
`Verifier` over the work tree (its `git status` over every file, once per query: p50 of
`runs` fresh verifiers), the fast path through it, and a result whose file was edited in the
work tree (read from disk, re-chunked and compared).
"""

from __future__ import annotations

import random
import subprocess
import time
from pathlib import Path

import numpy as np

from bench.synthrepo import SYMBOLS_PER_FILE, generate
from branchwise.chunking import chunk_file
from branchwise.git.repo import GitRepo, git_blob_id
from branchwise.models import Result, Verdict
from branchwise.verify.verifier import Verifier


def _results(files: dict[str, str], paths: list[str], commit: str) -> dict[str, list[Result]]:
    out = {}
    for path in paths:
        data = files[path].encode()
        blob = git_blob_id(data)
        out[path] = [
            Result(rank=0, score=0.0, identity=c.identity, branch="main", commit=commit,
                   start_line=c.start_line, end_line=c.end_line, indexed_at="2026-01-01T00:00:00+00:00",
                   content_hash=c.content_hash, text=c.text, blob=blob, version_id=c.version_id)
            for c in chunk_file("bench", path, data).chunks
        ]
    return out


def _ms(samples: list[float]) -> dict:
    return {"p50_ms": float(np.percentile(samples, 50)), "p95_ms": float(np.percentile(samples, 95))}


def _timed(verifier: Verifier, results: list[Result]) -> list[float]:
    times = []
    for result in results:
        started = time.perf_counter()
        verifier.verify([result])
        times.append((time.perf_counter() - started) * 1000)
    return times


def run(n_files: int, work: Path, n_samples: int = 300) -> dict:
    synth = generate(work / "verify-repo", n_files * SYMBOLS_PER_FILE)
    before = dict(synth.files["main"])
    first = synth.heads["main"]
    changed = synth.edit("main", min(n_samples + 1, n_files), seed=5)
    second = synth.heads["main"]
    repo = GitRepo(synth.path)
    rng = random.Random(3)

    clean_paths = rng.sample(sorted(before), min(n_samples, len(before)))
    clean = [rs[0] for rs in _results(before, clean_paths, first).values()]
    fast = Verifier(repo, "main", against=first)
    fast_times = _timed(fast, clean)
    assert all(r.verdict is Verdict.CURRENT for r in clean), "fast path must decide `current`"
    assert fast.files_read == 0, "the fast path must not read files"

    # one result per changed file: the changed symbol itself (the file cache cannot help it)
    changed_results = []
    for path, results in _results(before, sorted(changed), first).items():
        now = {c.identity: c.content_hash for c in chunk_file("bench", path, changed[path].encode()).chunks}
        changed_results.append(next(r for r in results if now.get(r.identity) != r.content_hash))
    slow = Verifier(repo, "main", against=second)
    slow_times = _timed(slow, changed_results)
    assert all(r.verdict is Verdict.CHANGED for r in changed_results), "slow path must decide `changed`"

    tree = repo.list_tree(first).files
    baseline_times = []
    for path in clean_paths:
        started = time.perf_counter()
        chunk_file("bench", path, repo.read_blob(tree[path].blob))
        baseline_times.append((time.perf_counter() - started) * 1000)

    fast_ms, slow_ms, base_ms = _ms(fast_times), _ms(slow_times[1:]), _ms(baseline_times)
    work_tree = _through_the_work_tree(synth, repo, before, changed, clean_paths, n_samples)
    return {
        "work_tree": work_tree,
        "work_tree_fast_vs_reparse": work_tree["fast"]["p50_ms"] / base_ms["p50_ms"],
        "files": len(before),
        "results_fast": len(clean),
        "results_slow": len(changed_results) - 1,
        "fast": fast_ms,
        "slow": slow_ms,
        "slow_first_result_ms": slow_times[0],
        "baseline_reparse": base_ms,
        "fast_vs_reparse": fast_ms["p50_ms"] / base_ms["p50_ms"],
        "slow_vs_reparse": slow_ms["p50_ms"] / base_ms["p50_ms"],
        "target": "p50 < 1 ms fast, < 10 ms slow",
        "met": fast_ms["p50_ms"] < 1.0 and slow_ms["p50_ms"] < 10.0,
    }


def _through_the_work_tree(synth, repo: GitRepo, before: dict[str, str], changed: dict[str, str],
                           clean_paths: list[str], runs: int) -> dict:
    """Verification against the checked-out work tree: git status, the fast path, an edited file."""
    started = time.perf_counter()
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=synth.path, check=True)
    checkout_s = time.perf_counter() - started
    now = {**before, **changed}
    second = synth.heads["main"]
    unchanged = [p for p in clean_paths if p not in changed]
    clean = [rs[0] for rs in _results(now, unchanged, second).values()]
    status_times = []
    for _ in range(max(5, min(runs, 30))):  # the dirty paths in full: one `git status` each
        started = time.perf_counter()
        repo.dirty_paths()
        status_times.append((time.perf_counter() - started) * 1000)
    verifier = Verifier(repo, "main")
    assert verifier.uses_work_tree and not verifier.dirty.paths(), "the checkout must be clean"
    fast_times = _timed(verifier, clean)
    assert all(r.verdict is Verdict.CURRENT for r in clean), "a clean file at HEAD must be `current`"
    assert verifier.files_read == 0, "the fast path must not read files"

    edited = unchanged[: max(1, min(len(unchanged) // 2, 50))]
    for path in edited:  # an uncommitted edit of each file's first module-level function
        (synth.path / path).write_text(now[path].replace("options=None)", "options=None, extra=None)", 1))
    started = time.perf_counter()
    repo.dirty_paths()
    dirty_status_ms = (time.perf_counter() - started) * 1000
    dirty_verifier = Verifier(repo, "main")
    edited_results = [next(r for r in rs if "options=None)" in r.text.splitlines()[0])
                      for rs in _results(now, edited, second).values()]
    edited_times = _timed(dirty_verifier, edited_results)
    assert all(r.verdict is Verdict.CHANGED for r in edited_results), "an edited symbol must be `changed`"
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=synth.path, check=True)
    return {
        "files": len(now),
        "checkout_s": checkout_s,
        "git_status": _ms(status_times),
        "git_status_runs": len(status_times),
        "git_status_with_edits_ms": dirty_status_ms,
        "fast": _ms(fast_times),
        "edited": _ms(edited_times),
        "results_fast": len(clean),
        "results_edited": len(edited_results),
    }
