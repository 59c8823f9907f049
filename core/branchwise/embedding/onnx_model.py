"""The fast runtime: the model's int8 ONNX export on ONNX Runtime, with no torch in the process.

Same model, same tokenizer, same truncation and mean pooling as sentence-transformers, so
the vectors are the original's up to quantisation (cosine about 0.99; retrieval quality is
measured in bench/). Two choices make it fast on a small CPU besides int8 weights: texts
are tokenised first and batched by token length under a padded-token budget, so short
symbols are not padded to the length of long ones; and ONNX Runtime uses one thread per
core this process may run on, without spin-waiting (the machine is usually shared).
"""

from __future__ import annotations

import json
import os

import numpy as np

from branchwise.embedding.onnx_export import MANIFEST, MODEL_FILE, ensure_export

#: At most this many texts, and this many padded tokens, per model call.
MAX_BATCH = 64
TOKEN_BUDGET = 8192


def thread_count() -> int:
    """`BRANCHWISE_THREADS`, else the cores this process may run on."""
    configured = os.environ.get("BRANCHWISE_THREADS")
    if configured and configured.isdigit() and int(configured) > 0:
        return int(configured)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def length_batches(lengths: list[int], max_batch: int = MAX_BATCH, budget: int = TOKEN_BUDGET) -> list[list[int]]:
    """Indices grouped shortest first, each group within `max_batch` texts and `budget` padded tokens."""
    batches: list[list[int]] = []
    current: list[int] = []
    for index in sorted(range(len(lengths)), key=lengths.__getitem__):
        # sorted ascending, so the group's padded width is the newcomer's length
        if current and (len(current) >= max_batch or (len(current) + 1) * lengths[index] > budget):
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


class OnnxEmbedder:
    """`model` (a sentence-transformers model) through its int8 export; `name` says so."""

    def __init__(self, model: str, name: str):
        self.model = model
        self.name = name
        self.dim = 384
        self._session = None
        self._tokenizer = None
        self._manifest: dict = {}

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
        options.intra_op_num_threads = thread_count()
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            str(folder / MODEL_FILE), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = tokenizer

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._load()
        encodings = self._tokenizer.encode_batch(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for batch in length_batches([len(e.ids) for e in encodings]):
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, index in enumerate(batch):
                tokens = encodings[index].ids
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1
            hidden = self._session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )[0]
            out[batch] = _mean_pool_normalised(hidden, mask)
        return out


def _mean_pool_normalised(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return (pooled / np.where(norms == 0, 1, norms)).astype(np.float32)
