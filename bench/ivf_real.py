"""Item `ivf_real`: IVF recall under a branch filter on real code embeddings, beside synthetic.

Item 4's recall is measured on Gaussian clusters with queries built from the same centres,
which says little about code. Here every version on every branch of the real repositories
(click and cobra, `../shared/realrepos/`) and of the sample repositories is indexed with the
default model into one index directory (the product keeps one vector index per directory,
over all its repositories). The product's own IVF (`build_index` with the flat/IVF threshold
lowered below the corpus size, so about sqrt(n) lists) is then searched with the real
questions (bench/realrepos/*.toml on each branch they list, bench/questions.toml on the
samples' `main`), each with the allowed set the product itself computes for that branch
(`_scope`), and recall@10 is taken against an exact search over the same allowed set. The
narrow filter adds `--path-prefix` the directory of the question's first answer. The product
probes more lists the narrower the filter (`nprobe_for`), up to all of them, so the share of
lists probed is reported, and so is the recall at the base nprobe without that widening: the
IVF structure's own quality on these embeddings.

Beside it, the same measurement on item 4's synthetic corpus generated at the same size with
20 branches, the same number of queries and the same IVF code, so the two recalls compare.

Embeddings are cached by model and text in `$BRANCHWISE_BENCH_CACHE` (default: the system
temporary directory's `branchwise-realrepos`, shared with `python -m bench.realrepos`), so
only the first run embeds; later runs index from the cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
import tomllib
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

import faiss
import numpy as np

from bench import filtered_search
from branchwise.backends.local import vectors as product

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_QUESTIONS = Path(__file__).with_name("questions.toml")
SAMPLES = ("shop", "engine", "webapp")


def cache_dir() -> Path:
    return Path(os.environ.get("BRANCHWISE_BENCH_CACHE") or Path(tempfile.gettempdir()) / "branchwise-realrepos")


def _questions(name: str, workspace) -> list[tuple[str, str, str | None]]:
    """(question, branch, directory of the first answer) for each branch the question is asked on."""
    from bench.realrepos import load_questions

    if name not in SAMPLES:
        return [(q.question, branch, _directory(q.answers[0][0]))
                for q in load_questions(name) for branch in q.branches]
    paths = {row["qualified_name"]: row["path"] for row in workspace.inspect("main")}
    data = tomllib.loads(SAMPLE_QUESTIONS.read_text())["question"]
    return [(q["question"], "main", _directory(paths[q["answers"][0]]) if q["answers"][0] in paths else None)
            for q in data if q["repo"] == name]


def _directory(path: str) -> str | None:
    parent = str(PurePosixPath(path).parent)
    return None if parent == "." else parent + "/"


def _repository(name: str, work: Path, cache: Path) -> Path:
    from bench.realrepos import clone

    if name not in SAMPLES:
        return clone(name, cache)
    if not (work / "samples").exists():
        subprocess.run([sys.executable, str(ROOT / "sample_repos" / "build.py"), str(work / "samples")],
                       check=True, capture_output=True)
    return work / "samples" / name


def _all_vectors(index: faiss.Index) -> tuple[np.ndarray, np.ndarray]:
    """(ids, vectors) of the product's flat index (an IndexIDMap2 over an IndexFlatIP)."""
    ids = faiss.vector_to_array(index.id_map).astype(np.int64)
    return ids, index.index.reconstruct_n(0, index.ntotal)


def _fixed_nprobe(ivf: faiss.IndexIVF, query: np.ndarray, allowed: np.ndarray) -> set[int]:
    """The IVF searched with the product's base nprobe, not widened for a narrow filter."""
    selector, _bitmap = product.allowed_selector(allowed)
    params = faiss.SearchParametersIVF(sel=selector, nprobe=min(product.NPROBE, ivf.nlist))
    _scores, ids = ivf.search(query.reshape(1, -1).astype(np.float32), 10, params=params)
    return {int(i) for i in ids[0] if i >= 0}


def _recall(ivf: faiss.Index, flat: faiss.Index, asked: list[tuple[np.ndarray, np.ndarray]]) -> dict:
    """Recall@10 of the product's IVF search (adaptive nprobe) and of a fixed nprobe, against
    exact search over the same allowed set; the share of lists the product probes."""
    hits, fixed_hits, wanted, ivf_ms, flat_ms, probed = 0, 0, 0, [], [], []
    for query, allowed in asked:
        started = time.perf_counter()
        exact = {row for row, _ in product.search_index(flat, query, allowed, 10)}
        flat_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        found = {row for row, _ in product.search_index(ivf, query, allowed, 10)}
        ivf_ms.append((time.perf_counter() - started) * 1000)
        hits += len(exact & found)
        fixed_hits += len(exact & _fixed_nprobe(ivf, query, allowed))
        wanted += len(exact)
        probed.append(product.nprobe_for(ivf.nlist, len(allowed) / ivf.ntotal) / ivf.nlist)
    return {"queries": len(asked), "recall_at_10": hits / max(wanted, 1),
            "recall_at_10_fixed_nprobe": fixed_hits / max(wanted, 1), "fixed_nprobe": min(product.NPROBE, ivf.nlist),
            "lists_probed_share": float(np.mean(probed)) if asked else 0.0,
            "allowed_mean": float(np.mean([len(a) for _q, a in asked])) if asked else 0.0,
            "ivf_p50_ms": float(np.median(ivf_ms)) if asked else 0.0,
            "flat_p50_ms": float(np.median(flat_ms)) if asked else 0.0}


@contextmanager
def _cached_model(embedder):
    """Every Workspace gets the cached model: an index run asks `get_embedder` again for the
    configured identity (setting `workspace.embedder` beforehand would be dropped)."""
    import branchwise.workspace
    from branchwise.embedding.static_model import is_static_model

    original = branchwise.workspace.get_embedder
    # only the transformer: the static stage (issue 47) keeps its own model
    branchwise.workspace.get_embedder = lambda identity=None: (
        original(identity) if identity is not None and is_static_model(identity) else embedder)
    try:
        yield
    finally:
        branchwise.workspace.get_embedder = original


def _real(repos: tuple[str, ...], work: Path, cache: Path) -> tuple[dict, np.ndarray, np.ndarray, list, list]:
    from bench.realrepos import CachedEmbedder
    from branchwise.embedding import get_embedder
    from branchwise.search.hybrid import SearchRequest
    from branchwise.workspace import Workspace

    os.environ.pop("BRANCHWISE_MODEL", None)
    cache.mkdir(parents=True, exist_ok=True)
    embedder = CachedEmbedder(get_embedder(), cache / "embeddings.sqlite")
    index_dir = work / "ivf-real-index"
    wide, narrow, per_repo = [], [], {}
    started = time.perf_counter()
    workspaces = []
    with _cached_model(embedder):
        for name in repos:
            workspace = Workspace(_repository(name, work, cache), index_dir)
            summaries = workspace.index([], all_branches=True)
            workspaces.append((name, workspace, len(summaries)))
            assert workspace.embedder is embedder
    index_s = time.perf_counter() - started
    for name, workspace, branches in workspaces:
        searcher = workspace.searcher
        asked = 0
        for question, branch, prefix in _questions(name, workspace):
            info = searcher.branch(branch)
            query = searcher._query_vector(question)
            wide.append((query, searcher._scope(info, SearchRequest(question, branch)).rows.copy()))
            if prefix:
                rows = searcher._scope(info, SearchRequest(question, branch, path_prefix=prefix)).rows.copy()
                if len(rows):
                    narrow.append((query, rows))
            asked += 1
        per_repo[name] = {"branches": branches, "questions_asked": asked}
    ids, vectors = _all_vectors(workspaces[-1][1].searcher.vectors.index)
    for _name, workspace, _branches in workspaces:
        workspace.close()
    setup = {"repositories": per_repo, "stored_versions": len(ids), "index_s": round(index_s, 1),
             "embedded_now": embedder.computed, "model": embedder.name, "cache": str(cache)}
    return setup, ids, vectors, wide, narrow


def _measured(ids: np.ndarray, vectors: np.ndarray, wide: list, narrow: list) -> dict:
    flat = product.build_index(vectors.shape[1], ids, vectors, flat_max=len(ids))
    started = time.perf_counter()
    ivf = product.build_index(vectors.shape[1], ids, vectors, flat_max=len(ids) // 2)
    build_s = time.perf_counter() - started
    assert isinstance(ivf, faiss.IndexIVF) and not isinstance(flat, faiss.IndexIVF)
    return {"nlist": ivf.nlist, "build_s": round(build_s, 2),
            "wide": _recall(ivf, flat, wide), "narrow": _recall(ivf, flat, narrow)}


def _synthetic(n: int, n_queries: int, n_branches: int = 20) -> dict:
    vectors, live_sets, centres, rng = filtered_search.make_corpus(n, n_branches, seed=3)
    ids = np.arange(len(vectors), dtype=np.int64)
    queries = filtered_search.make_queries(centres, rng, n_queries)
    live = [live_sets[i % n_branches] for i in range(n_queries)]
    narrow = [rng.choice(a, max(20, len(a) // 200), replace=False) for a in live]
    return _measured(ids, vectors, list(zip(queries, live)), list(zip(queries, narrow)))


def run(work: Path, repos: tuple[str, ...]) -> dict:
    cache = cache_dir()
    setup, ids, vectors, wide, narrow = _real(repos, work, cache)
    real = _measured(ids, vectors, wide, narrow)
    synthetic = _synthetic(len(ids), len(wide))
    return {
        "setup": setup,
        "real": real,
        "synthetic_same_size": synthetic,
        "target": "recall@10 >= 0.95 on real embeddings, wide and narrow filter",
        "met": real["wide"]["recall_at_10"] >= 0.95 and real["narrow"]["recall_at_10"] >= 0.95,
    }
