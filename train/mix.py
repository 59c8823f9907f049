"""Weight-space ensembling of the fine-tuned model with its base (WiSE-FT, Wortsman et al. 2022).

Fine-tuning on docstring sentences teaches the model code search, and at the same time moves it
away from the general sentence similarity its base learned, which the questions users ask rely
on: along one run the dense figures rise early and then fall below the base model's. Averaging
the two models' weights, `alpha` * fine-tuned + (1 - alpha) * base, keeps much of both; it needs
no training, and the result has the base model's architecture, size and speed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

WEIGHTS = "model.safetensors"


def mix(trained: Path, base: Path, alpha: float, out: Path) -> Path:
    """Write to `out` the sentence-transformers model `trained` with every floating-point weight
    replaced by `alpha` * trained + (1 - alpha) * base (both fp32 on disk); returns `out`."""
    import numpy as np
    from safetensors.numpy import load_file, save_file

    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must be within [0, 1], not {alpha}")
    tuned, original = load_file(str(trained / WEIGHTS)), load_file(str(base / WEIGHTS))
    missing = sorted(name for name, value in tuned.items()
                     if np.issubdtype(value.dtype, np.floating) and name not in original)
    if missing:
        raise ValueError(f"{base} is not the base of {trained}: it lacks {', '.join(missing[:3])}")
    mixed = {name: (alpha * value.astype(np.float64) + (1.0 - alpha) * original[name].astype(np.float64)).astype(value.dtype)
             if np.issubdtype(value.dtype, np.floating) else value for name, value in tuned.items()}
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(trained, out, ignore=shutil.ignore_patterns(WEIGHTS))
    save_file(mixed, str(out / WEIGHTS), metadata={"format": "pt"})
    return out
