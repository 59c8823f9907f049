"""A symbol's vector leans toward what the symbol says it does.

A symbol's embedding text holds its name, signature, docstring and the start of its body;
the model reads it as one passage, and a question in words ("two options that must never be
used at the same time") is closer to the sentence the author wrote about the symbol than to
that passage. So an embedding text may end with the symbol's description (its docstring's
first words, or its name in words: chunking/embedding_text.py) after DESCRIPTION_MARK; every
embedder embeds the two parts separately and returns

    normalise(passage + DESCRIPTION_WEIGHT x description)

Questions and other texts carry no mark and embed as they are. The weight is part of the
text recipe (a change re-embeds once): tuned on cobra's questions, checked on click's
(bench/results/2026-12-04-model-round5.md).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

DESCRIPTION_MARK = "\n\x1e"
DESCRIPTION_WEIGHT = 0.75


def split_described(text: str) -> tuple[str, str]:
    """(the passage, its description; '' without one)."""
    passage, _mark, description = text.partition(DESCRIPTION_MARK)
    return passage, description


def embed_described(encode: Callable[[list[str]], np.ndarray], texts: list[str]) -> np.ndarray:
    """`encode` (texts -> unit vectors) applied to texts that may carry a description."""
    parts = [split_described(text) for text in texts]
    vectors = encode([passage for passage, _d in parts])
    described = [row for row, (_p, description) in enumerate(parts) if description]
    if not described:
        return vectors
    unique = list(dict.fromkeys(parts[row][1] for row in described))
    of = dict(zip(unique, encode(unique)))
    for row in described:
        mixed = vectors[row] + DESCRIPTION_WEIGHT * of[parts[row][1]]
        norm = float(np.linalg.norm(mixed))
        vectors[row] = mixed / norm if norm > 0 else mixed
    return vectors
