"""Item 7: how long `branchwise search` takes from a cold start to its result, and where.

Agents call the CLI once per question, so start-up is paid every time. A cold `search`
subprocess is timed end to end; separate subprocesses time the parts (importing branchwise's
command modules, then loading the model and embedding one text) so their share is known. The
baseline is a bare `python -c pass`. The commands that need no model (`inspect`, `stats`, and
`verify` of a saved search result) must never import torch: each runs under
`-X importtime` and the import log is checked for it. Every figure is the median of `repeat`
runs (`*_s`), with the p95 beside it; the best run is kept for comparison with older results.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

PARTS = """
import json, time
t0 = time.perf_counter()
import branchwise_cli.main, branchwise.workspace, branchwise.search.hybrid
t1 = time.perf_counter()
from branchwise.embedding import get_embedder
get_embedder().embed(["x"])
t2 = time.perf_counter()
print(json.dumps({"imports_s": t1 - t0, "model_s": t2 - t1}))
"""


def _timed(args: list[str], repeat: int) -> tuple[dict, subprocess.CompletedProcess]:
    """Median and p95 (and best) wall time of `repeat` runs of `args`, and the last run."""
    times, done = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True)
        times.append(time.perf_counter() - started)
        if done.returncode != 0:
            raise RuntimeError(f"{args[3:5]} failed: {done.stderr.strip()[-500:]}")
    return {"median_s": float(np.median(times)), "p95_s": float(np.percentile(times, 95)),
            "best_s": min(times), "runs": repeat}, done


def _imports_torch(args: list[str]) -> bool:
    done = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True)
    return any(line.rsplit("|", 1)[-1].strip() == "torch" for line in done.stderr.splitlines())


def run(repo: Path, index: Path, work: Path, repeat: int) -> dict:
    python = [sys.executable, "-m", "branchwise_cli"]
    where = ["--repo", str(repo), "--index", str(index)]
    bare, _ = _timed([sys.executable, "-c", "pass"], repeat)
    search, done = _timed([*python, "search", "cancel an order", *where, "--branch", "main", "--json"], repeat)
    bare_s, search_s = bare["median_s"], search["median_s"]
    saved = work / "search.json"
    saved.write_text(done.stdout)
    parts = json.loads(_timed([sys.executable, "-c", PARTS], 1)[1].stdout)

    light = {
        "inspect": ["inspect", *where, "--branch", "main", "--json"],
        "stats": ["stats", *where, "--json"],
        "verify": ["verify", str(saved), "--repo", str(repo), "--json"],
    }
    commands = {}
    for name, args in light.items():
        timed, _ = _timed([*python, *args], repeat)
        seconds = timed["median_s"]
        commands[name] = {
            "seconds": seconds,
            "p95_s": timed["p95_s"],
            "vs_bare_python": seconds / bare_s,
            "imports_torch": _imports_torch(["-m", "branchwise_cli", *args]),
        }
    return {
        "runs": repeat,
        "bare_python_s": bare_s,
        "bare_python": bare,
        "search_cold_s": search_s,
        "search_cold": search,
        "search_vs_bare_python": search_s / bare_s,
        "imports_s": parts["imports_s"],
        "model_load_and_first_embed_s": parts["model_s"],
        "imports_share": parts["imports_s"] / search_s,
        "model_share": parts["model_s"] / search_s,
        "light_commands": commands,
        "target": "inspect, stats, verify never import torch",
        "met": not any(c["imports_torch"] for c in commands.values()),
    }
