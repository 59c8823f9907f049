"""The first dense stage: a static embedding, a vector per token, read with numpy alone.

`branchwise-code-v2-static` is distilled from the shipped encoder by train/distill.py
(model2vec): a text's vector is the mean of its tokens' vectors, L2-normalised, so embedding
is a tokenizer call and a table lookup, fast enough for `index` to give every version a vector
in the same pass as parsing, and for a search to embed its question without an ONNX session.
This module reproduces model2vec's `StaticModel.encode` (the same tokenizer file, no special
tokens, unknown tokens dropped, texts cut at `max_length` tokens and first at `max_length`
times the vocabulary's median token length in characters) without importing model2vec or
torch; tests/test_static_model.py checks the vectors against model2vec's own.
"""

from __future__ import annotations

import json
import mmap
import os
import re
import struct
from pathlib import Path
from typing import Any

import numpy as np

from branchwise.embedding.described import embed_described
from branchwise.embedding.location import BASE_MODEL, model_location
from branchwise.errors import UsageError

#: the weights file and the matrix in it (model2vec's names)
WEIGHTS_FILE = "model.safetensors"
MATRIX = "embeddings"
_DTYPES = {"F16": np.float16, "F32": np.float32}
#: tokens in one call from which the whole matrix is widened to float32 first
WIDEN_FROM_TOKENS = 20_000
#: characters embedded from which a second tokenizer, for plain ASCII texts, pays for its load
PLAIN_FROM_CHARS = 200_000
#: the control characters BERT's normaliser removes (tab, newline and carriage return it keeps)
_REMOVED_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def is_static_model(model: str) -> bool:
    """Whether `model` names a static model: a shipped folder or a directory with model2vec's
    config (never a runtime's import: the base model's package is not looked up)."""
    if model.startswith("hashing-") or model in (BASE_MODEL, f"sentence-transformers/{BASE_MODEL}"):
        return False
    try:
        config = Path(model_location(model)) / "config.json"
        return json.loads(config.read_text()).get("model_type") == "model2vec"
    except (OSError, ValueError, UsageError):
        return False


class StaticEmbedder:
    """A static model's folder as an embedder; its identity is the model's name."""

    def __init__(self, model: str):
        self.model = model
        self.name = model
        self._table: np.ndarray | None = None
        self._tokenizer: Any = None
        self._unknown: int | None = None
        self._max_length: int | None = None
        self._max_chars: int | None = None
        self._wide: np.ndarray | None = None  # the matrix as float32, once a batch is large
        self._plain: Any = None  # the tokenizer for plain ASCII texts, once many were embedded
        self._chars = 0  # characters tokenized so far
        header = _header(Path(model_location(model)) / WEIGHTS_FILE)
        self.dim = int(header[MATRIX]["shape"][1])

    def _load(self) -> None:
        if self._table is not None:
            return
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        from tokenizers import Tokenizer

        folder = Path(model_location(self.model))
        config = json.loads((folder / "config.json").read_text())
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.no_padding()
        self._max_length = config.get("max_length") or None
        if self._max_length:
            tokenizer.enable_truncation(self._max_length)
        else:
            tokenizer.no_truncation()
        unknown = getattr(tokenizer.model, "unk_token", None)
        self._unknown = tokenizer.token_to_id(unknown) if unknown else None
        self._tokenizer = tokenizer
        self._table = _matrix(folder / WEIGHTS_FILE)

    def _cut(self, texts: list[str]) -> list[str]:
        """Texts cut at `max_length` times the vocabulary's median token length in characters.
        That median is at least 1 (the tokens are distinct strings), so a text of at most
        `max_length` characters is never cut, and the vocabulary is read only for a longer one
        (a query never is: reading it costs a cold search about 15 ms)."""
        if not self._max_length or all(len(text) <= self._max_length for text in texts):
            return texts
        if self._max_chars is None:
            median = int(np.median([len(token) for token in self._tokenizer.get_vocab()]))
            self._max_chars = self._max_length * median
        return [text[: self._max_chars] for text in texts]

    def embed(self, texts: list[str]) -> np.ndarray:
        return embed_described(self._encode, texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        self._load()
        ids = [[i for i in tokens if i != self._unknown] for tokens in self._token_ids(self._cut(texts))]
        lengths = np.fromiter(map(len, ids), dtype=np.intp, count=len(ids))
        used = int(np.count_nonzero(lengths))
        if not used:
            return out
        # the texts longest first, so that those still going at token position i are a prefix
        order = np.argsort(-lengths, kind="stable")[:used]
        counts = lengths[order]
        padded = np.zeros((used, int(counts[0])), dtype=np.intp)
        for position, row in enumerate(order.tolist()):
            padded[position, : len(ids[row])] = ids[row]
        table = self._rows_table(int(counts.sum()))
        # each text's tokens added in their order, as `table[ids].mean(axis=0)` adds them (a
        # reduction over the first axis is sequential): the same float32 sums, bit for bit, in
        # one numpy operation per token position rather than several per text
        sums = table[padded[:, 0]].astype(np.float32)
        going = np.searchsorted(-counts, -np.arange(padded.shape[1]), side="left")  # texts longer than i
        for position in range(1, padded.shape[1]):
            live = int(going[position])
            sums[:live] += table[padded[:live, position]]
        means = (sums / counts[:, None]).astype(np.float32)  # mean's division: by the intp count
        norms = np.array([float(np.linalg.norm(vector)) for vector in means], dtype=np.float32)
        out[order] = means / np.where(norms > 0, norms, np.float32(1))[:, None]
        return out

    def _token_ids(self, texts: list[str]) -> list[list[int]]:
        """Each text's token ids. BERT's normaliser (control characters removed, whitespace made
        spaces, Chinese characters spaced, accents stripped, lower case) costs a third of the
        tokenizer's time; on a text of ASCII without the control characters it removes, only the
        lower case changes anything (the pre-tokenizer splits at any whitespace), so once a run
        has embedded many texts those go through a copy of the tokenizer that only lower-cases:
        the same ids (tests/test_static_model.py compares them)."""
        self._chars += sum(map(len, texts))
        plain = self._plain_tokenizer()
        if plain is None:
            return [encoding.ids for encoding in self._tokenizer.encode_batch_fast(texts, add_special_tokens=False)]
        simple = [text.isascii() and _REMOVED_CONTROLS.search(text) is None for text in texts]
        ids: list[list[int]] = [[] for _text in texts]
        for tokenizer, chosen in ((plain, True), (self._tokenizer, False)):
            rows = [row for row, flag in enumerate(simple) if flag is chosen]
            encodings = tokenizer.encode_batch_fast([texts[row] for row in rows], add_special_tokens=False)
            for row, encoding in zip(rows, encodings):
                ids[row] = encoding.ids
        return ids

    def _plain_tokenizer(self) -> Any:
        """The lower-casing copy of the tokenizer, loaded once `PLAIN_FROM_CHARS` characters were
        tokenized (a search's question never loads it); None for a normaliser other than BERT's."""
        if self._plain is None and self._chars >= PLAIN_FROM_CHARS:
            from tokenizers import Tokenizer, normalizers

            bert = self._tokenizer.normalizer
            if not (isinstance(bert, normalizers.BertNormalizer) and bert.clean_text and bert.lowercase
                    and bert.strip_accents in (None, True)):
                self._plain = False
                return None
            plain = Tokenizer.from_file(str(Path(model_location(self.model)) / "tokenizer.json"))
            plain.no_padding()
            if self._max_length:  # as _load set the tokenizer's own
                plain.enable_truncation(self._max_length)
            else:
                plain.no_truncation()
            plain.normalizer = normalizers.Lowercase()
            self._plain = plain
        return self._plain or None

    def _rows_table(self, tokens: int) -> np.ndarray:
        """The token matrix to read `tokens` rows from: the mapped file (its stored type, a row
        widened as it is read) for a few, the whole matrix widened to float32 once for many (a
        few tens of milliseconds, where widening row by row costs more: an index run)."""
        table = self._table
        assert table is not None  # _load made it
        if self._wide is None and tokens >= WIDEN_FROM_TOKENS:
            self._wide = table.astype(np.float32)
        return self._wide if self._wide is not None else table


def _header(path: Path) -> dict:
    """A safetensors file's header: tensor name -> dtype, shape, data offsets."""
    with open(path, "rb") as handle:
        (size,) = struct.unpack("<Q", handle.read(8))
        return json.loads(handle.read(size))


def _matrix(path: Path) -> np.ndarray:
    """The static model's token matrix in its stored type, mapped from its safetensors file
    without the library: only the pages of the tokens a text uses are read (a search's question
    touches a few rows of 15 MB), and each used row is widened to float32 as it is read."""
    with open(path, "rb") as handle:
        (size,) = struct.unpack("<Q", handle.read(8))
        entry = json.loads(handle.read(size))[MATRIX]
        start, end = entry["data_offsets"]
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    dtype = np.dtype(_DTYPES[entry["dtype"]])
    return np.frombuffer(mapped, dtype=dtype, count=(end - start) // dtype.itemsize,
                         offset=8 + size + start).reshape(entry["shape"])
