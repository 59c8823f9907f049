"""Qdrant beside FAISS on the branch-filtered search of item 4, and how to express branches.

Same corpus, queries and exact truth as `bench.filtered_search` (n stored versions, 20
branches, each with its live set; recall@10 against an exact search over the live set), so
the rows compare directly with that item's FAISS rows; the product's own FAISS index
(`branchwise.backends.local.vectors.build_index` + `search_index`) is measured again in this run as the
same-run baseline.

No Qdrant server runs here, so the engine is Qdrant Edge (`qdrant_edge`, the Rust segment
engine of Qdrant in-process: HNSW, payload indexes, the filtered-search query planner), with
dot product on unit vectors and Qdrant's default HNSW settings (m 16, ef_construct 100,
full_scan_threshold 10,000 KB). Search uses one thread (`max_search_threads=1`) as the
product's FAISS search does. Two ways to make Qdrant see one branch, without re-embedding:

- payload filter: each point carries `branches`, the names of the branches whose live set
  holds it (keyword, payload index created before the HNSW build), queried with
  `branches == B`. A live-set change rewrites `branches` on the points concerned: its cost
  is measured by moving 1% of one branch's live set (1% of its versions leave it, as many
  others join it), then searching again before and after re-optimising.
- id filter: the branch's live set as a `HasIdCondition` built per query (the product holds
  live sets as row arrays). Nothing to update, but every query carries the whole live set:
  the number of ids and their size as JSON are reported, since on a server that request
  travels on every query.

Extra rows show what recall costs on this corpus: larger hnsw_ef, ACORN, Edge's exact scan, and
(diagnostic) the same graph without a filter against the exact unfiltered top 10.

A last row shows `qdrant-client`'s local mode (`QdrantClient(":memory:")`, the numpy
brute-force mode used for tests), payload filter, on a random sample of at most 20,000
versions: it is not Qdrant's engine and ignores payload indexes.
"""

from __future__ import annotations

import gc
import shutil
import time
from pathlib import Path

import numpy as np
from branchwise.backends.local import vectors as product

from bench.filtered_search import DIM, exact_top, make_corpus, make_queries, measure

K = 10
BATCH = 10_000
LOCAL_MAX = 20_000
LOCAL_QUERIES = 50


def _rss_mb() -> float:
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024
    except (OSError, StopIteration):
        return 0.0


def _dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def _codes(n_rows: int, live_sets: list[np.ndarray]) -> np.ndarray:
    """Bit b of codes[row] is set when branch b's live set holds the row."""
    codes = np.zeros(n_rows, dtype=np.int64)
    for b, live in enumerate(live_sets):
        codes[live] |= 1 << b
    return codes


class _Names:
    """Branch lists for payloads, one shared list per distinct membership code."""

    def __init__(self, n_branches: int):
        self.names = [f"branch-{b:02d}" for b in range(n_branches)]
        self._lists: dict[int, list[str]] = {}

    def of(self, code: int) -> list[str]:
        found = self._lists.get(code)
        if found is None:
            found = self._lists[code] = [n for b, n in enumerate(self.names) if code >> b & 1]
        return found


def _row(key: str, option: str, build_s: float, figures: dict, note: str = "") -> dict:
    row = {"key": key, "option": option, "build_s": round(build_s, 1), **figures}
    if note:
        row["note"] = note
    return row


def _build(qe, path: Path, vectors, codes, names: _Names, payload_m: int | None) -> tuple[object, dict]:
    """An Edge shard holding every version with its `branches` payload, optimised (HNSW built)."""
    shutil.rmtree(path, ignore_errors=True)
    gc.collect()
    rss0 = _rss_mb()
    config = qe.EdgeConfig(
        vectors=qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Dot),
        hnsw_config=qe.HnswIndexConfig(m=16, ef_construct=100, full_scan_threshold=10_000, payload_m=payload_m),
        max_search_threads=1,
    )
    shard = qe.EdgeShard.create(str(path), config)
    t = time.perf_counter()
    # the payload index exists before the HNSW build, so the build can add per-branch links
    shard.update(qe.UpdateOperation.create_field_index("branches", qe.PayloadSchemaType.Keyword))
    for start in range(0, len(vectors), BATCH):
        stop = min(len(vectors), start + BATCH)
        shard.update(qe.UpdateOperation.upsert_points(
            [qe.Point(row + 1, vectors[row], {"branches": names.of(int(codes[row]))})
             for row in range(start, stop)]))
    ingest_s = time.perf_counter() - t
    rss_ingest = _rss_mb()
    t = time.perf_counter()
    shard.optimize()
    optimize_s = time.perf_counter() - t
    info = shard.info()
    return shard, {
        "payload_m": "default (= m)" if payload_m is None else payload_m,
        "ingest_s": round(ingest_s, 1), "ingest_points_per_s": round(len(vectors) / ingest_s),
        "optimize_s": round(optimize_s, 1), "optimize_points_per_s": round(len(vectors) / optimize_s),
        "points": info.points_count, "indexed_vectors": info.indexed_vectors_count,
        "segments": info.segments_count, "rss_growth_after_ingest_mb": round(rss_ingest - rss0),
        "rss_growth_after_optimize_mb": round(_rss_mb() - rss0), "disk_mb": round(_dir_mb(path)),
    }


def _payload_searcher(qe, shard, names: _Names, params=None):
    def search(q, b, k):
        flt = qe.Filter(must=[qe.FieldCondition(key="branches", match=qe.MatchValue(names.names[b]))])
        found = shard.query(qe.QueryRequest(limit=k, query=qe.Query.Nearest(q), filter=flt, params=params))
        return [p.id - 1 for p in found]

    return search


def _edge(vectors, live_sets, codes, names: _Names, queries, q_branch, truth, work: Path) -> tuple[list, dict]:
    import qdrant_edge as qe

    path = work / "qdrant-edge-shard"
    rows = []
    shard, engine = _build(qe, path, vectors, codes, names, payload_m=None)
    try:
        ingest_s, optimize_s = engine["ingest_s"], engine["optimize_s"]
        build_s = ingest_s + optimize_s

        def by_payload(params=None):
            return _payload_searcher(qe, shard, names, params)

        def by_ids(search_sets: list[np.ndarray], prebuilt: dict | None = None):
            def search(q, b, k):
                if prebuilt is None:
                    flt = qe.Filter(must=[qe.HasIdCondition(set((search_sets[b] + 1).tolist()))])
                else:
                    flt = prebuilt[b]
                found = shard.query(qe.QueryRequest(limit=k, query=qe.Query.Nearest(q), filter=flt))
                return [p.id - 1 for p in found]
            return search

        payload = measure(by_payload(), queries, q_branch, truth)
        rows.append(_row("payload", "Qdrant Edge HNSW, payload filter branches == B", build_s, payload,
                         f"ingest {ingest_s:.0f} s + optimize {optimize_s:.0f} s; hnsw_ef default (ef_construct)"))
        for ef in (256, 1024):
            wide = measure(by_payload(qe.SearchParams(hnsw_ef=ef)), queries, q_branch, truth)
            rows.append(_row(f"payload_ef{ef}", f"Qdrant Edge HNSW, payload filter, hnsw_ef={ef}", build_s, wide))
        acorn = measure(by_payload(qe.SearchParams(acorn=qe.AcornSearchParams(enable=True, max_selectivity=0.5))),
                        queries, q_branch, truth)
        rows.append(_row("payload_acorn", "Qdrant Edge HNSW, payload filter, ACORN (max_selectivity 0.5)",
                         build_s, acorn, "hnsw_ef default"))
        # diagnostic: the same graph without any filter, against the exact unfiltered top 10
        everything = np.arange(len(vectors))
        unfiltered_truth = exact_top(vectors, [everything] * len(queries), queries, K)

        def unfiltered(q, _b, k):
            return [p.id - 1 for p in shard.query(qe.QueryRequest(limit=k, query=qe.Query.Nearest(q)))]

        rows.append(_row("unfiltered", "Qdrant Edge HNSW, no filter (diagnostic)", build_s,
                         measure(unfiltered, queries, q_branch, unfiltered_truth),
                         "recall against the exact unfiltered top 10: the graph alone"))
        exact = measure(by_payload(qe.SearchParams(exact=True)), queries[:20], q_branch[:20], truth[:20])
        rows.append(_row("exact", "Qdrant Edge exact scan, payload filter", build_s, exact, "20 queries"))
        ids = measure(by_ids(live_sets), queries, q_branch, truth)
        rows.append(_row("ids", "Qdrant Edge HNSW, id filter (HasId = live set, built per query)", build_s, ids,
                         "no payload needed, nothing to update"))
        prebuilt = {b: qe.Filter(must=[qe.HasIdCondition(set((live_sets[b] + 1).tolist()))])
                    for b in sorted(set(q_branch))}
        ids_cached = measure(by_ids(live_sets, prebuilt), queries, q_branch, truth)
        rows.append(_row("ids_cached", "Qdrant Edge HNSW, id filter (Filter object cached per branch)", build_s,
                         ids_cached, "in-process only; a server gets the ids in every request"))
        del prebuilt
        n_ids = np.array([len(live_sets[b]) for b in q_branch])
        json_bytes = [len(",".join(map(str, (live_sets[b] + 1).tolist()))) + 2 for b in sorted(set(q_branch))]
        engine["id_filter_ids_per_query"] = int(n_ids.mean())
        engine["id_filter_json_bytes_per_query"] = int(np.mean(json_bytes))

        # a live-set change on branch 0: 1% of its versions leave it, as many others join it
        rng = np.random.default_rng(7)
        live0 = live_sets[0]
        moved = max(1, len(live0) // 100)
        leave = rng.choice(live0, moved, replace=False)
        outside = np.setdiff1d(np.arange(len(vectors)), live0, assume_unique=True)
        join = rng.choice(outside, moved, replace=False)
        new_codes = {int(r): int(codes[r]) & ~1 for r in leave} | {int(r): int(codes[r]) | 1 for r in join}
        groups: dict[int, list[int]] = {}
        for row, code in new_codes.items():
            groups.setdefault(code, []).append(row + 1)
        segments_before = shard.info().segments_count
        t = time.perf_counter()
        for code, point_ids in groups.items():
            shard.update(qe.UpdateOperation.set_payload(point_ids, {"branches": names.of(code)}))
        update_s = time.perf_counter() - t
        new_live0 = np.sort(np.concatenate([np.setdiff1d(live0, leave), join]))
        count = shard.count(qe.CountRequest(filter=qe.Filter(
            must=[qe.FieldCondition(key="branches", match=qe.MatchValue(names.names[0]))]), exact=True))
        segments_after = shard.info().segments_count
        truth_after = list(truth)
        zero = [i for i, b in enumerate(q_branch) if b == 0]
        for i, found in zip(zero, exact_top(vectors, [new_live0] * len(zero), queries[zero], K)):
            truth_after[i] = found
        after = measure(by_payload(), queries, q_branch, truth_after)
        t = time.perf_counter()
        shard.optimize()
        reoptimize_s = time.perf_counter() - t
        after_opt = measure(by_payload(), queries, q_branch, truth_after)
        rows.append(_row("after_update", "Qdrant Edge payload filter, after 1% live-set change", build_s, after,
                         f"before re-optimising; {segments_after} segments (were {segments_before})"))
        rows.append(_row("after_reoptimise", "Qdrant Edge payload filter, after change + re-optimise", build_s, after_opt,
                         f"re-optimise {reoptimize_s:.1f} s"))
        engine["update"] = {
            "branch_live_set": len(live0), "points_changed": 2 * moved, "left_branch": moved,
            "joined_branch": moved, "set_payload_operations": len(groups), "seconds": round(update_s, 3),
            "points_per_s": round(2 * moved / update_s), "count_after_matches_live_set": count == len(new_live0),
            "segments_before": segments_before, "segments_after": segments_after,
            "reoptimize_s": round(reoptimize_s, 1), "id_filter_update_s": 0.0,
        }
    finally:
        shard.close()
        shutil.rmtree(path, ignore_errors=True)
    return rows, engine


def _local(vectors, live_sets, codes, names: _Names, queries, q_branch) -> dict:
    from qdrant_client import QdrantClient, models

    m = min(len(vectors), LOCAL_MAX)
    rows = np.sort(np.random.default_rng(2).choice(len(vectors), m, replace=False))
    sample = vectors[rows]
    n_q = min(len(queries), LOCAL_QUERIES)
    # truth within the sample: position i in the sample stands for version rows[i]
    sample_live = [np.flatnonzero(np.isin(rows, live_sets[b])) for b in q_branch[:n_q]]
    truth = exact_top(sample, sample_live, queries[:n_q], K)
    client = QdrantClient(":memory:")
    try:
        t = time.perf_counter()
        client.create_collection("bench", vectors_config=models.VectorParams(size=DIM, distance=models.Distance.DOT))
        for start in range(0, m, 1000):
            client.upsert("bench", points=[
                models.PointStruct(id=i + 1, vector=sample[i].tolist(),
                                   payload={"branches": names.of(int(codes[rows[i]]))})
                for i in range(start, min(m, start + 1000))])
        build_s = time.perf_counter() - t

        def search(q, b, k):
            flt = models.Filter(must=[models.FieldCondition(key="branches", match=models.MatchValue(value=names.names[b]))])
            found = client.query_points("bench", query=q.tolist(), query_filter=flt, limit=k).points
            return [p.id - 1 for p in found]

        figures = measure(search, queries[:n_q], q_branch[:n_q], truth)
    finally:
        client.close()
    return _row("local", f"qdrant-client local mode (:memory:), payload filter, {m:,} versions", build_s, figures,
                f"numpy brute force, not the Qdrant engine; {m:,}-version random sample, {n_q} queries")


def _faiss(vectors, queries, q_live, truth) -> dict:
    """The same-run baseline: the product's index and search path (vectors.py)."""
    t = time.perf_counter()
    index = product.build_index(DIM, np.arange(len(vectors), dtype=np.int64), vectors)
    build = time.perf_counter() - t
    kind = f"IVF{index.nlist}, adaptive nprobe" if hasattr(index, "nlist") else "exact flat"

    def search(q, allowed, k):
        return [row for row, _ in product.search_index(index, q, allowed, k)]

    return _row("faiss", f"FAISS product: {kind} + bitmap (vectors.py)", build,
                measure(search, queries, q_live, truth), "same-run baseline")


def run(n: int, n_branches: int, n_queries: int, work: Path) -> dict:
    started = time.perf_counter()
    vectors, live_sets, centres, rng = make_corpus(n, n_branches)
    queries = make_queries(centres, rng, n_queries)
    q_branch = [i % n_branches for i in range(n_queries)]
    q_live = [live_sets[b] for b in q_branch]
    truth = exact_top(vectors, q_live, queries, K)
    codes = _codes(len(vectors), live_sets)
    names = _Names(n_branches)
    setup = {"stored_versions": len(vectors), "branches": n_branches,
             "live_set": int(np.mean([len(a) for a in live_sets])), "queries": n_queries,
             "clusters": len(centres), "data_seconds": round(time.perf_counter() - started, 1)}

    baseline = _faiss(vectors, queries, q_live, truth)
    gc.collect()

    rows, engine = _edge(vectors, live_sets, codes, names, queries, q_branch, truth, work)
    rows = [baseline] + rows
    try:
        rows.append(_local(vectors, live_sets, codes, names, queries, q_branch))
    except Exception as error:  # noqa: BLE001 (the trial mode is a side note: keep the engine's figures)
        rows.append({"key": "local", "option": "qdrant-client local mode", "error": f"{type(error).__name__}: {error}"})
    by_key = {row["key"]: row for row in rows}
    payload, by_id = by_key["payload"], by_key["ids"]
    return {
        "setup": setup,
        "options": rows,
        "edge": engine,
        "payload_vs_faiss_p50": payload["p50_ms"] / baseline["p50_ms"],
        "id_filter_vs_payload_p50": by_id["p50_ms"] / payload["p50_ms"],
    }
