"""Item 5: what use-time verification costs per result, on a 10,000-file repository.

Every result is verified before anyone trusts it, so verification must cost little next to
the search. Two paths matter: the fast path (the result was indexed at the target commit and
its file is clean: decided without reading anything) and the slow path (its file changed:
the file is read from git, re-chunked and the symbol's text compared). The baseline is what a
verifier without the fast path pays for every result: read the file's blob and re-chunk it.

Results are built from the chunker's output at the first commit, as an index would store
them; a second commit edits one symbol in each of `n_changed` files. The first slow-path
result also lists the target tree (once per query); it is reported apart from the p50.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np

from branchwise.chunking import chunk_file
from branchwise.gitrepo import GitRepo, git_blob_id
from branchwise.models import Result, Verdict
from branchwise.verify import Verifier
from bench.synthrepo import SYMBOLS_PER_FILE, generate


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
    return {
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
