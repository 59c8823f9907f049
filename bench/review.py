"""Item 8: the review app's waits, before and after the feedback work, in the same run.

What a reviewer waits for: start to first results (query on the command line), Enter to
results when the first question is typed after start-up (cold) and for the next one (warm),
and quitting, both while the first search is still loading the model and once results are in.
"Before" is the app as of BASELINE (git archive of core/ and tui/), "after" is this checkout;
each builds its own index of the shop sample with the real default model, and every figure is
the best of `repeat` fresh processes. Quit time is from the key press to the process's end.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the review app before the responsive layout, model preloading and daemon-thread workers
BASELINE = "13c2e99"
CHILD = Path(__file__).with_name("review_child.py")


def _checkout_baseline(dest: Path) -> Path:
    archive = subprocess.run(["git", "archive", BASELINE, "core", "tui"], cwd=ROOT, check=True,
                             capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def _child(code: Path, mode: str, repo: Path, index: Path) -> tuple[dict, float]:
    env = {**os.environ, "PYTHONPATH": f"{code / 'core'}{os.pathsep}{code / 'tui'}", "HF_HUB_OFFLINE": "1"}
    env.pop("BRANCHWISE_MODEL", None)
    done = subprocess.run([sys.executable, str(CHILD), mode, str(repo), str(index)], env=env,
                          capture_output=True, text=True, timeout=900)
    ended = time.time()
    if done.returncode != 0:
        raise RuntimeError(f"{mode} failed: {done.stderr.strip()[-800:]}")
    lines = done.stdout.strip().splitlines()
    return (json.loads(lines[-1]) if lines else {}), ended


def _measure(code: Path, repo: Path, index: Path, repeat: int) -> dict:
    _child(code, "index", repo, index)
    best: dict[str, float] = {}

    def keep(name: str, value: float) -> None:
        best[name] = min(best.get(name, float("inf")), value)

    for _ in range(repeat):
        first, _ = _child(code, "first", repo, index)
        keep("start_to_results_s", first["start_to_results_s"])
        enter, _ = _child(code, "enter", repo, index)
        keep("enter_cold_s", enter["enter_cold_s"])
        keep("enter_warm_s", enter["enter_warm_s"])
        for mode in ("quit-searching", "quit-idle"):
            pressed, ended = _child(code, mode, repo, index)
            keep(f"{mode.replace('-', '_')}_s", ended - pressed["q_pressed_at"])
    return best


def run(work: Path, repeat: int) -> dict:
    samples = work / "review-samples"
    if not (samples / "shop").exists():
        subprocess.run([sys.executable, str(ROOT / "sample_repos" / "build.py"), str(samples)],
                       check=True, capture_output=True)
    shop = samples / "shop"
    before = _measure(_checkout_baseline(work / "review-baseline"), shop, work / "review-index-before", repeat)
    after = _measure(ROOT, shop, work / "review-index-after", repeat)
    return {
        "baseline": BASELINE,
        "repeat": repeat,
        "before": before,
        "after": after,
        "after_vs_before": {name: after[name] / before[name] for name in after if before.get(name)},
    }
