"""Item `cold_start`: `search` from a cold process to its printed result, torch against ONNX.

An agent calls the CLI once per question, so every search pays the start-up. The shop sample
is indexed twice, once per runtime (an index answers with the model identity that made its
vectors), and a cold `search` subprocess is timed end to end `runs` times on each, the two
alternating so that load from other work on the machine hits both alike; median and p95 are
reported. One more run of each under `python -X importtime` tells whether torch was imported.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUERY = "make order cancellation idempotent"
TARGET_S = 2.0


def _cli() -> list[str]:
    return [sys.executable, "-m", "branchwise_cli"]


def _index(repo: Path, index: Path, runtime: str) -> None:
    env = {**os.environ, "BRANCHWISE_RUNTIME": runtime}
    subprocess.run([*_cli(), "index", str(repo), "--branch", "main", "--index", str(index)],
                   check=True, capture_output=True, env=env)


def _imports_torch(args: list[str]) -> bool:
    done = subprocess.run([sys.executable, "-X", "importtime", *args[1:]], capture_output=True, text=True)
    return any(line.rsplit("|", 1)[-1].strip() == "torch" for line in done.stderr.splitlines())


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def run(work: Path, runs: int) -> dict:
    samples = work / "cold-samples"
    if not samples.exists():
        subprocess.run([sys.executable, str(ROOT / "sample_repos" / "build.py"), str(samples)],
                       check=True, capture_output=True)
    repo = samples / "shop"
    commands = {}
    for runtime in ("torch", "onnx-int8"):
        index = work / f"cold-index-{runtime}"
        _index(repo, index, runtime)
        commands[runtime] = [*_cli(), "search", QUERY, "--repo", str(repo), "--branch", "main",
                             "--index", str(index), "--top-k", "5", "--json"]
    bare = []
    times: dict[str, list[float]] = {name: [] for name in commands}
    for round_no in range(runs):
        order = list(commands) if round_no % 2 == 0 else list(commands)[::-1]
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare.append(time.perf_counter() - started)
        for name in order:
            started = time.perf_counter()
            done = subprocess.run(commands[name], capture_output=True, text=True)
            times[name].append(time.perf_counter() - started)
            if done.returncode != 0 or '"results": [{' not in done.stdout:
                raise RuntimeError(f"{name} search failed: {done.stderr.strip()[-400:]}")
    result = {"runs": runs, "query": QUERY, "bare_python_median_s": statistics.median(bare)}
    for name, values in times.items():
        result[name] = {"median_s": statistics.median(values), "p95_s": _p95(values), "min_s": min(values),
                        "imports_torch": _imports_torch(commands[name])}
    result["onnx_vs_torch_median"] = result["onnx-int8"]["median_s"] / result["torch"]["median_s"]
    result["target"] = f"onnx-int8 median <= {TARGET_S} s, no torch import"
    result["met"] = result["onnx-int8"]["median_s"] <= TARGET_S and not result["onnx-int8"]["imports_torch"]
    return result
