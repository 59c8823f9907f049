"""`python -m bench [--quick] [--out DIR] [--only ITEM]...`: run the benchmark suite.

The full run measures at the sizes the project promises (5,000 symbols with the real model,
20 branches of 100,000 symbols, a million stored vectors, a 10,000-file repository) and
writes bench/results/latest.{md,json} plus a dated copy. `--quick` runs every item at a small
size in well under two minutes so CI can check that the suite works (it asserts no timings),
and writes to a temporary directory unless `--out` says otherwise.
Large data is generated into a temporary directory and deleted afterwards. Items run one
after another in one process (the heavy ones never overlap), and a failing item is reported
as failed without stopping the others.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone
from pathlib import Path

SIZES = {
    "full": {"chunking": 5000, "indexing": 5000, "storage": (100_000, 20),
             "filtered": (1_000_000, 20, 200, 100_000), "verification": (10_000, 300), "startup": 10,
             "retrieval": None, "qdrant": (1_000_000, 20, 200), "branchdiff": (5, 5, None),
             "labels_import": 200_000,
             "embedding": (600, 3), "cold_start": 8, "realrepo_indexing": (("click", "cobra"), 20), "review": 2,
             "mcp": (None, 5, 5), "ivf_real": ("click", "cobra", "shop", "engine", "webapp"),
             "big_repo": (100_000, 0), "secret_scan": (10_000, 100_000, 1_000_000)},
    "quick": {"chunking": 500, "indexing": 120, "storage": (2000, 5),
              "filtered": (50_000, 20, 50, 5_000), "verification": (500, 100), "startup": 3,
              "retrieval": ("engine", "webapp"), "qdrant": (5_000, 20, 20), "branchdiff": (1, 0, "hashing-384"),
              "labels_import": 5_000,
              "embedding": (60, 2), "cold_start": 2, "realrepo_indexing": (("cobra",), 3), "review": 1,
              "mcp": (("shop",), 1, 2), "ivf_real": ("shop", "engine", "webapp"),
              "big_repo": (1_000, 12), "secret_scan": (10_000, 100_000, 1_000_000)},
}
RESULTS = Path(__file__).with_name("results")
ITEMS = ("chunking", "indexing", "storage", "filtered_search", "qdrant", "memory", "verification", "startup",
         "retrieval", "branchdiff", "labels_import", "embedding", "cold_start", "retrieval_runtime",
         "realrepo_indexing", "review", "mcp", "ivf_real", "big_repo", "secret_scan")


def _run_item(name: str, sizes: dict, work: Path) -> dict:
    from bench import (branchdiff, chunking_bench, cold_start, embedding_speed, filtered_search, indexing, mcp_latency, memory,
                       qdrant_search, realrepo_indexing, retrieval, review, startup, storage, verification)

    if name == "chunking":
        return chunking_bench.run(sizes["chunking"])
    if name == "indexing":
        return indexing.run(sizes["indexing"], work)
    if name == "storage":
        return storage.run(*sizes["storage"], work)
    if name == "filtered_search":
        n, branches, queries, hnsw_max = sizes["filtered"]
        return filtered_search.run(n, branches, queries, work, hnsw_max)
    if name == "qdrant":
        return qdrant_search.run(*sizes["qdrant"], work)
    if name == "memory":
        return memory.run(work)
    if name == "verification":
        n_files, n_samples = sizes["verification"]
        return verification.run(n_files, work, n_samples)
    if name == "startup":
        if not (work / "indexing-index").exists():
            indexing.run(sizes["indexing"], work)
        return startup.run(work / "indexing-repo", work / "indexing-index", work, sizes["startup"])
    if name == "review":
        return review.run(work, sizes["review"])
    if name == "branchdiff":
        return branchdiff.run(work, *sizes["branchdiff"])
    if name == "labels_import":
        from bench import labels_import

        return labels_import.run(sizes["labels_import"], work)
    if name == "embedding":
        return embedding_speed.run(work, *sizes["embedding"])
    if name == "cold_start":
        return cold_start.run(work, sizes["cold_start"])
    if name == "retrieval_runtime":
        return retrieval.compare_runtimes(work, sizes["retrieval"])
    if name == "realrepo_indexing":
        return realrepo_indexing.run(work, *sizes["realrepo_indexing"])
    if name == "mcp":
        return mcp_latency.run(work, *sizes["mcp"])
    if name == "ivf_real":
        from bench import ivf_real

        return ivf_real.run(work, sizes["ivf_real"])
    if name == "secret_scan":  # issue 46: linear in the length of a line
        from bench import secret_scan

        return secret_scan.run(sizes["secret_scan"])
    if name == "big_repo":  # issue 34: the stdlib with the default model, a synthetic repo without it
        from bench import big_repo
        from branchwise.embedding import DEFAULT_MODEL, model_identity

        synthetic, stdlib_files = sizes["big_repo"]
        return big_repo.run(work / "big_repo", model_identity(DEFAULT_MODEL), synthetic, stdlib_files=stdlib_files)
    return retrieval.run(work, sizes["retrieval"])


def _checkout() -> str:
    """The commit this code is at, and whether tracked files differ from it."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=Path(__file__).resolve().parent.parent,
                              capture_output=True, text=True).stdout.strip()

    dirty = git("status", "--porcelain", "--untracked-files=no")
    return (git("rev-parse", "HEAD") or "unknown") + (" plus uncommitted changes" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for CI (no timing targets)")
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write latest.{md,json} (default: bench/results for a full run, "
                             "a new temporary directory for --quick, so quick runs never touch committed results)")
    parser.add_argument("--only", action="append", choices=ITEMS, help="run only these items")
    parser.add_argument("--name", help="also write a dated copy YYYY-MM-DD-NAME.* of a full run of --only items")
    args = parser.parse_args(argv)
    os.environ.pop("BRANCHWISE_MODEL", None)  # items 1, 7 and retrieval use the default model
    mode = "quick" if args.quick else "full"
    if args.out is None:
        args.out = Path(tempfile.mkdtemp(prefix="branchwise-bench-quick-")) if args.quick else RESULTS
    sizes = SIZES[mode]
    selected = [i for i in ITEMS if not args.only or i in args.only]
    if "memory" in selected and "filtered_search" not in selected:
        selected.insert(selected.index("memory"), "filtered_search")

    from bench import report
    from bench.realrepos import MissingSharedData

    started = time.perf_counter()
    commit = _checkout()  # before the run: what was measured
    items: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="branchwise-bench-") as tmp:
        work = Path(tmp)
        for name in selected:
            print(f"[bench] {name} ...", file=sys.stderr, flush=True)
            item_started = time.perf_counter()
            try:
                items[name] = _run_item(name, sizes, work)
            except MissingSharedData as error:  # a clone away from ../shared: said, and not a failure
                print(f"[bench] {name} skipped: {error}", file=sys.stderr, flush=True)
                items[name] = {"skipped": str(error)}
            except Exception as error:  # report it and go on: one broken item must not hide the rest
                traceback.print_exc()
                items[name] = {"error": f"{type(error).__name__}: {error}"}
            items[name]["item_seconds"] = round(time.perf_counter() - item_started, 1)
            print(f"[bench] {name} done in {items[name]['item_seconds']} s", file=sys.stderr, flush=True)
    doc = {
        "meta": {"mode": mode, "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                 "commit": commit, "machine": report.machine(), "seconds": time.perf_counter() - started, "sizes": sizes},
        "items": items,
    }
    for path in report.write(doc, args.out, dated=mode == "full" and not args.only,
                             name=args.name if mode == "full" else None):
        print(path)
    return 1 if any("error" in item for item in items.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
