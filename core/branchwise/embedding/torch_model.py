"""The reference runtime: a sentence-transformers model on CPU torch, loaded lazily and offline.

It is the model as its authors run it; the ONNX runtime (onnx_model.py) is measured against
it. torch and sentence-transformers are imported only when a text is first embedded.
"""

from __future__ import annotations

import os

import numpy as np

from branchwise.embedding.described import embed_described

from branchwise.embedding.location import model_location
from branchwise.errors import UsageError


def quiet_offline_environment() -> None:
    """Nothing may be downloaded at run time, and the libraries need not chatter."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")


class SentenceTransformerEmbedder:
    """A sentence-transformers model, CPU only; `name` is the model as configured."""

    dim = 384

    def __init__(self, model: str, batch_size: int = 64):
        self.name = model
        self.batch_size = batch_size
        self._model = None

    def _load(self):
        if self._model is None:
            quiet_offline_environment()
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise UsageError("the torch runtime comes with the torch extra: pip install torch==2.13.0 "
                                 "'branchwise[torch]' (the default onnx-int8 runtime needs neither)") from None

            self._model = SentenceTransformer(str(model_location(self.name)), device="cpu")
            dimension = getattr(self._model, "get_embedding_dimension", None) or getattr(
                self._model, "get_sentence_embedding_dimension"
            )
            self.dim = dimension()
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        return embed_described(self._encode, texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        vectors = model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)
