"""The fast runtime: the model's int8 ONNX export on ONNX Runtime, with no torch in the process.

Same model, same tokenizer, same truncation and mean pooling as sentence-transformers, so
the vectors are the original's up to quantisation (cosine about 0.99; retrieval quality is
measured in bench/). Each text runs alone, unpadded. Dynamic quantisation scales the
activations over the whole input tensor, so in a batch a text's vector would depend on its
neighbours and their padding; alone it depends on the text only, and it measured faster
than length-bucketed batches of up to 64 as well (17 s against 25 s for 160 code texts on
two cores), since no padding is computed at all.

The texts of one call run side by side, one per core this process may run on, each on one
ONNX Runtime thread without spin-waiting (the machine is usually shared): a code text is too
small a matrix to split well between threads, so one text per thread embedded 1.5x the texts
per second of one text on every thread (bench/embedding_speed.py), and the vectors are the
same bit for bit, since each text still runs alone.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from branchwise.embedding.described import embed_described

from branchwise.embedding.onnx_export import MANIFEST, MODEL_FILE, ensure_export


def thread_count() -> int:
    """`BRANCHWISE_THREADS`, else the cores this process may run on."""
    configured = os.environ.get("BRANCHWISE_THREADS")
    if configured and configured.isdigit() and int(configured) > 0:
        return int(configured)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class OnnxEmbedder:
    """`model` (a sentence-transformers model) through its int8 export; `name` says so.

    `side_by_side=False` runs the texts one after another, each on every thread: the layout
    before, kept for bench/description_cost.py to measure against.
    """

    def __init__(self, model: str, name: str, side_by_side: bool = True):
        self.model = model
        self.name = name
        self.side_by_side = side_by_side
        self.dim = 384
        self._session: Any = None  # onnxruntime.InferenceSession, loaded on first use
        self._tokenizer: Any = None  # tokenizers.Tokenizer
        self._manifest: dict = {}
        self._pool: ThreadPoolExecutor | None = None  # one worker per core, for calls of many texts

    def _load(self) -> None:
        if self._session is not None:
            return
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        import onnxruntime
        from tokenizers import Tokenizer

        folder = ensure_export(self.model)
        self._manifest = json.loads((folder / MANIFEST).read_text())
        self.dim = self._manifest["dim"]
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.enable_truncation(self._manifest["max_seq_length"])
        tokenizer.no_padding()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1 if self.side_by_side else thread_count()
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = tokenizer
        if self.side_by_side and thread_count() > 1:
            self._pool = ThreadPoolExecutor(thread_count(), thread_name_prefix="branchwise-embed")

    def embed(self, texts: list[str]) -> np.ndarray:
        return embed_described(self._encode, texts)

    def _encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._load()
        encodings = self._tokenizer.encode_batch(texts)
        if self._pool is None or len(encodings) == 1:
            return np.stack([self._vector(encoding.ids) for encoding in encodings])
        return np.stack(list(self._pool.map(self._vector, (encoding.ids for encoding in encodings))))

    def _vector(self, token_ids: list[int]) -> np.ndarray:
        ids = np.asarray([token_ids], dtype=np.int64)
        hidden = self._session.run(
            None, {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        )[0]
        return _normalised(hidden[0].mean(axis=0)).astype(np.float32, copy=False)


def _normalised(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector
