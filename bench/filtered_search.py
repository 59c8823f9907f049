"""Item 4: branch-filtered vector search at a million stored versions.

A real index over twenty branches holds far more versions than any one branch sees, and the
branch filter must apply before ranking. This builds that situation synthetically: clustered
384-d unit vectors (a few thousand Gaussian centres grouped around 64 topics, so clusters
overlap and neighbours are as crowded as code embeddings are), a shared base that every branch sees, and per branch 10% of the base
overridden by a near-duplicate of its own (the hidden original stays stored, as in the
product). Each FAISS option is measured on the same queries: p50/p95 latency of one query
with its branch's live set as the filter (selector construction included, as in the product)
and recall@10 against an exact search over that live set. The first row is the exact flat scan
with an `IDSelectorBatch`, which is what the product shipped before this benchmark; the
product's speed-up is also stated against the strongest exact option measured in the same run
(the flat scan with the bitmap selector the product uses), which is the fairer comparison.
After a run that adds 1% new versions, both the delta write and its replay at the next load
(read the base file, then apply the delta) are timed.

The last row is the product's own code path (`branchwise.backends.local.vectors.build_index` and
`search_index`), saved to disk for the memory benchmark (item 6).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import faiss
import numpy as np

from branchwise.backends.local import vectors as product

DIM = 384


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def make_corpus(n: int, n_branches: int, seed: int = 0):
    """(vectors, live sets, queries, query branch) for n stored versions over n_branches."""
    rng = np.random.default_rng(seed)
    base_n = round(n / (1 + 0.1 * n_branches))
    own_n = (n - base_n) // n_branches
    # topics, then clusters around topics: neighbouring clusters overlap, as in real embeddings
    topics = _unit(rng.standard_normal((64, DIM)))
    n_centres = max(64, n // 250)
    centres = _unit(topics[rng.integers(0, 64, n_centres)]
                    + 0.8 * rng.standard_normal((n_centres, DIM)).astype(np.float32) / np.sqrt(DIM))
    vectors = np.empty((base_n + own_n * n_branches, DIM), dtype=np.float32)
    for start in range(0, base_n, 100_000):
        stop = min(base_n, start + 100_000)
        picks = rng.integers(0, len(centres), stop - start)
        noise = rng.standard_normal((stop - start, DIM)).astype(np.float32) * (1.2 / np.sqrt(DIM))
        vectors[start:stop] = _unit(centres[picks] + noise)
    live_sets = []
    for b in range(n_branches):
        overridden = rng.choice(base_n, own_n, replace=False)
        own_rows = np.arange(base_n + b * own_n, base_n + (b + 1) * own_n)
        noise = rng.standard_normal((own_n, DIM)).astype(np.float32) * (0.3 / np.sqrt(DIM))
        vectors[own_rows] = _unit(vectors[overridden] + noise)
        keep = np.ones(base_n, dtype=bool)
        keep[overridden] = False
        live_sets.append(np.concatenate([np.flatnonzero(keep), own_rows]).astype(np.int64))
    return vectors, live_sets, centres, rng


def make_queries(centres: np.ndarray, rng, count: int) -> np.ndarray:
    """Questions sit between topics and far from any one cluster, as a question in words
    is far from the code that answers it (cosine about 0.5 to its best matches)."""
    first, second = rng.integers(0, len(centres), (2, count))
    noise = rng.standard_normal((count, DIM)).astype(np.float32) * (1.5 / np.sqrt(DIM))
    return _unit(centres[first] + 0.5 * centres[second] + noise)


def exact_top(vectors, live, queries, k) -> list[set[int]]:
    """Ground truth: exact top-k over each query's live set (BLAS over the whole corpus)."""
    truth = []
    for q, allowed in zip(queries, live):
        scores = vectors @ q
        masked = np.full(len(vectors), -np.inf, dtype=np.float32)
        masked[allowed] = scores[allowed]
        truth.append(set(np.argpartition(-masked, k)[:k].tolist()))
    return truth


Searcher = Callable[[np.ndarray, np.ndarray, int], list[int]]


def _batch_flat(index) -> Searcher:
    def search(q, allowed, k):
        sel = faiss.IDSelectorBatch(allowed)
        _, ids = index.search(q.reshape(1, -1), k, params=faiss.SearchParameters(sel=sel))
        return ids[0].tolist()

    return search


def _bitmap(index, params_for: Callable) -> Searcher:
    def search(q, allowed, k):
        sel, _bitmap = product.allowed_selector(allowed)
        _, ids = index.search(q.reshape(1, -1), k, params=params_for(sel, len(allowed)))
        return ids[0].tolist()

    return search


def _product(index) -> Searcher:
    def search(q, allowed, k):
        return [row for row, _ in product.search_index(index, q, allowed, k)]

    return search


def _ivf(vectors, ids, nlist, kind: str):
    quantizer = faiss.IndexFlatIP(DIM)
    if kind == "sq8":
        index = faiss.IndexIVFScalarQuantizer(
            quantizer, DIM, nlist, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT)
    else:
        index = faiss.IndexIVFFlat(quantizer, DIM, nlist, faiss.METRIC_INNER_PRODUCT)
    sample = np.random.default_rng(1).choice(len(ids), min(len(ids), 64 * nlist), replace=False)
    index.train(vectors[np.sort(sample)])
    index.add_with_ids(vectors, ids)
    return index


def measure(search: Searcher, queries, live, truth, k=10) -> dict:
    latencies, hits = [], 0
    for q, allowed, expected in zip(queries, live, truth):
        with product.single_threaded():  # as the product searches: see vectors.single_threaded
            started = time.perf_counter()
            found = search(q, allowed, k)
            latencies.append((time.perf_counter() - started) * 1000)
        hits += len(expected & set(found))
    return {
        "p50_ms": float(np.percentile(latencies, 50)),
        "p95_ms": float(np.percentile(latencies, 95)),
        "recall_at_10": hits / (k * len(queries)),
    }


def run(n: int, n_branches: int, n_queries: int, work: Path, hnsw_max: int) -> dict:
    started = time.perf_counter()
    vectors, live_sets, centres, rng = make_corpus(n, n_branches)
    ids = np.arange(len(vectors), dtype=np.int64)
    queries = make_queries(centres, rng, n_queries)
    q_live = [live_sets[i % n_branches] for i in range(n_queries)]
    truth = exact_top(vectors, q_live, queries, 10)
    # a narrow filter (e.g. --path-prefix): 0.5% of one branch's live set
    narrow = [rng.choice(a, max(20, len(a) // 200), replace=False) for a in q_live]
    narrow_truth = exact_top(vectors, narrow, queries, 10)
    rows: list[dict] = []
    setup = {"stored_versions": len(vectors), "branches": n_branches,
             "live_set": int(np.mean([len(a) for a in live_sets])), "queries": n_queries,
             "clusters": len(centres), "data_seconds": round(time.perf_counter() - started, 1)}

    def add_row(name, search, build_s, note=""):
        row = {"option": name, "build_s": round(build_s, 1), **measure(search, queries, q_live, truth)}
        if note:
            row["note"] = note
        rows.append(row)
        return row

    t = time.perf_counter()
    flat = faiss.IndexIDMap2(faiss.IndexFlatIP(DIM))
    flat.add_with_ids(vectors, ids)
    build = time.perf_counter() - t
    add_row("flat + IDSelectorBatch (baseline)", _batch_flat(flat), build)
    add_row("flat + IDSelectorBitmap", _bitmap(flat, lambda s, m: faiss.SearchParameters(sel=s)), build)
    del flat

    for kind in ("flat", "sq8"):
        nlist = product.nlist_for(len(ids)) or 256
        t = time.perf_counter()
        ivf = _ivf(vectors, ids, nlist, kind)
        build = time.perf_counter() - t
        for nprobe in (8, 16, 32, 64):
            add_row(f"IVF{nlist}-{kind} nprobe={nprobe} + bitmap",
                    _bitmap(ivf, lambda s, m, p=nprobe: faiss.SearchParametersIVF(sel=s, nprobe=p)), build)
        del ivf

    hnsw_n = min(len(ids), hnsw_max)
    t = time.perf_counter()
    hnsw = faiss.IndexHNSWFlat(DIM, 32, faiss.METRIC_INNER_PRODUCT)
    hnsw.add(vectors[:hnsw_n])
    build = time.perf_counter() - t
    sub_live = [a[a < hnsw_n] for a in q_live]
    sub_truth = exact_top(vectors[:hnsw_n], sub_live, queries, 10)
    for ef in (64, 128):
        row = {"option": f"HNSW32 efSearch={ef} + bitmap", "build_s": round(build, 1),
               **measure(_bitmap(hnsw, lambda s, m, e=ef: faiss.SearchParametersHNSW(sel=s, efSearch=e)),
                         queries, sub_live, sub_truth)}
        if hnsw_n < len(ids):
            row["note"] = f"built on {hnsw_n:,} vectors only (build time; no remove_ids)"
        rows.append(row)
    del hnsw

    t = time.perf_counter()
    index = product.build_index(DIM, ids, vectors)
    build = time.perf_counter() - t
    kind = f"IVF{index.nlist}, adaptive nprobe" if isinstance(index, faiss.IndexIVF) else "exact flat"
    chosen = add_row(f"product: {kind} + bitmap (vectors.py)", _product(index), build)
    narrow_row = measure(_product(index), queries, narrow, narrow_truth)
    index_file = work / "product.faiss"
    t = time.perf_counter()
    faiss.write_index(index, str(index_file))
    full_write = time.perf_counter() - t
    # what an index run adding 1% new versions writes: the delta file (vectors.py) or, before
    # the delta existed, the whole index again
    changed = slice(0, max(1, len(ids) // 100))
    t = time.perf_counter()
    product.append_delta(work / "product.delta", [(True, ids[changed], vectors[changed])], 0)
    delta_write = time.perf_counter() - t
    replay = _load_with_delta(index_file, work / "product.delta")
    np.save(work / "queries.npy", queries)
    np.save(work / "live0.npy", live_sets[0])
    baseline = rows[0]
    exact = [r for r in rows if r["option"].startswith("flat + ")]
    strongest = min(exact, key=lambda r: r["p50_ms"])
    return {
        "strongest_exact_baseline": strongest["option"],
        "speedup_p50_vs_strongest_exact": strongest["p50_ms"] / chosen["p50_ms"],
        "load_after_1pct_run": replay,
        "setup": setup,
        "options": rows,
        "product": chosen,
        "product_narrow_filter": narrow_row,
        "speedup_p50": baseline["p50_ms"] / chosen["p50_ms"],
        "save_after_1pct_run": {"versions_added": len(ids[changed]), "delta_write_s": delta_write,
                                "full_rewrite_s": full_write, "full_over_delta": full_write / max(delta_write, 1e-9),
                                "index_file_mb": index_file.stat().st_size / 2**20},
        "index_file": str(index_file),
    }


def _load_with_delta(index_file: Path, delta_file: Path, runs: int = 3) -> dict:
    """What the next process pays at load for a delta: read the base file, then replay the
    delta (read it, add its vectors), as `VectorIndex._load` does; median of `runs`."""
    base, replayed = [], []
    for _ in range(runs):
        t = time.perf_counter()
        index = faiss.read_index(str(index_file))
        base.append(time.perf_counter() - t)
        t = time.perf_counter()
        for adds, ids, vectors in product.read_delta(delta_file):
            index.add_with_ids(vectors, ids) if adds else index.remove_ids(ids)
        replayed.append(time.perf_counter() - t)
        del index
    base_s, replay_s = float(np.median(base)), float(np.median(replayed))
    return {"read_base_s": base_s, "replay_delta_s": replay_s, "load_total_s": base_s + replay_s,
            "replay_share_of_load": replay_s / (base_s + replay_s), "runs": runs}
