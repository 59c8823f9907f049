"""Item 6: peak resident memory of a search process over the million-version index.

The FAISS index lives in memory while a search process runs, so its size decides which
machines can serve a large multi-branch index. A fresh subprocess loads the product's index
saved by item 4, answers branch-filtered queries through `branchwise.backends.local.vectors.search_index`,
and reports its peak RSS (`VmHWM`, the high-water mark of its own address space:
`ru_maxrss` would inherit the parent's peak across exec on Linux); a second one also loads the default model, as a
`branchwise search` process does. The baseline is the raw float32 vectors' size (n x 384 x 4
bytes): the least any exact in-memory index needs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, resource, sys
import faiss, numpy as np
from branchwise.backends.local.vectors import search_index
work, with_model = sys.argv[1], sys.argv[2] == "1"
if with_model:
    from branchwise.embedding import get_embedder
    get_embedder().embed(["x"])
index = faiss.read_index(work + "/product.faiss")
queries, live = np.load(work + "/queries.npy"), np.load(work + "/live0.npy")
for q in queries[:50]:
    search_index(index, q, live, 10)
try:
    peak_kb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM"))
except (OSError, StopIteration):
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"peak_rss_mb": peak_kb / 1024,
                  "ntotal": int(index.ntotal), "dim": int(index.d)}))
"""


def _probe(work: Path, with_model: bool) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, str(work), "1" if with_model else "0"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def run(work: Path) -> dict:
    index_only = _probe(work, with_model=False)
    with_model = _probe(work, with_model=True)
    raw_mb = index_only["ntotal"] * index_only["dim"] * 4 / 2**20
    return {
        "stored_versions": index_only["ntotal"],
        "raw_vectors_mb": raw_mb,
        "index_file_mb": (work / "product.faiss").stat().st_size / 2**20,
        "peak_rss_index_mb": index_only["peak_rss_mb"],
        "peak_rss_index_and_model_mb": with_model["peak_rss_mb"],
        "index_rss_vs_raw_vectors": index_only["peak_rss_mb"] / raw_mb,
    }
