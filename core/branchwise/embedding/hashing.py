"""A deterministic stand-in for the model: feature hashing of word and sub-word tokens.

It knows no semantics beyond shared tokens; tests of logic that does not depend on the
model use it because it is instant and needs no weights.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from branchwise.embedding.described import embed_described


class HashingEmbedder:
    """A real, deterministic embedding by feature hashing (`hashing-<dim>`)."""

    def __init__(self, dim: int = 384):
        self.dim = dim
        self.name = f"hashing-{dim}"

    def embed(self, texts: list[str]) -> np.ndarray:
        return embed_described(self._encode, texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
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
