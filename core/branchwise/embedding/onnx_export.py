"""Producing the int8 ONNX export of a sentence-transformers model from its local weights.

The fast runtime (onnx_model.py) needs a quantised ONNX graph, and nothing may be
downloaded, so the graph is made here from the weights already on disk: the transformer is
traced with torch's ONNX exporter, then its weights are quantised to int8 per channel by
ONNX Runtime's dynamic quantiser (per-tensor scales lost too much: cosine 0.94 to the
original against 0.99). This is the only place that imports torch for the ONNX path; it runs
once per model into a cache directory (at set-up by `tasks.py`, else on first use), under a
file lock so that concurrent processes export once, and the result is renamed into place
whole. A model shipped in the package (embedding/location.py) carries its export, made by
the training pipeline with these same steps, and is never exported again. `python -m branchwise.embedding.onnx_export [MODEL]` produces it ahead of time.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from branchwise.embedding.location import DEFAULT_MODEL, model_location
from branchwise.errors import BranchwiseError

#: Changes whenever the export steps below change, so an old export is never reused.
RECIPE = "torchscript-opset17+dynamic-int8-per-channel/1"
MODEL_FILE = "model-int8.onnx"
MANIFEST = "export.json"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def cache_root() -> Path:
    """`BRANCHWISE_CACHE_DIR`, else `$XDG_CACHE_HOME/branchwise`, else `~/.cache/branchwise`."""
    configured = os.environ.get("BRANCHWISE_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "branchwise"


def source_dir(model: str) -> Path:
    location = Path(model_location(model)).expanduser()
    if not (location / "config.json").is_file():
        raise BranchwiseError(
            f"the ONNX runtime needs a local sentence-transformers model directory; {model!r} is not one"
        )
    return location.resolve()


def export_dir(model: str) -> Path:
    """Where the export of `model` lives: keyed by its weights' location, size and time."""
    source = source_dir(model)
    weights = sorted(p for p in source.iterdir() if p.suffix in (".safetensors", ".bin"))
    stamp = "|".join([str(source), RECIPE, *(f"{p.name}:{p.stat().st_size}:{p.stat().st_mtime_ns}" for p in weights)])
    key = hashlib.sha256(stamp.encode()).hexdigest()[:16]
    slug = "".join(c if c.isalnum() or c in "-_" else "_" for c in source.name)
    return cache_root() / "onnx" / f"{slug}-{key}"


def shipped_export(model: str) -> Path | None:
    """The model's own folder when it carries its int8 export (a model shipped in the package)."""
    location = Path(model_location(model)).expanduser()
    if (location / MANIFEST).is_file() and (location / MODEL_FILE).is_file():
        return location.resolve()
    return None


def ensure_export(model: str = DEFAULT_MODEL) -> Path:
    """The directory holding `model`'s int8 export (MODEL_FILE, tokenizer, MANIFEST): the
    shipped one when the model carries it, else the cached export, made if missing."""
    shipped = shipped_export(model)
    if shipped is not None:
        return shipped
    target = export_dir(model)
    if (target / MANIFEST).is_file():
        return target
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target.parent / ".export.lock", "a+") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (target / MANIFEST).is_file():
                # once per model, and it takes a minute or two: say so rather than sit silent
                print(f"branchwise: exporting {model} to int8 ONNX, once (a minute or two; cached in "
                      f"{target.parent})", file=sys.stderr, flush=True)
                _export(source_dir(model), target)
    except OSError as error:
        raise BranchwiseError(f"cannot write the ONNX export under {target.parent}: {error} "
                              "(set BRANCHWISE_CACHE_DIR to a writable directory)") from None
    return target


def _export(source: Path, target: Path) -> None:
    from branchwise.embedding.torch_model import quiet_offline_environment

    quiet_offline_environment()
    work = Path(tempfile.mkdtemp(prefix=".export-", dir=target.parent))
    try:
        settings = _sentence_settings(source)
        traced = work / "model-fp32.onnx"
        _trace(source, traced)
        _quantise(traced, work / MODEL_FILE)
        traced.unlink()
        shutil.copy2(source / "tokenizer.json", work / "tokenizer.json")
        manifest = {"source": str(source), "recipe": RECIPE, "inputs": list(INPUTS), **settings}
        (work / MANIFEST).write_text(json.dumps(manifest, indent=1))
        if target.exists():  # a half-made export from a killed process: the manifest was missing
            shutil.rmtree(target)
        os.replace(work, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _sentence_settings(source: Path) -> dict:
    """Truncation length and pooling, as sentence-transformers would apply them."""
    pooling_file = source / "1_Pooling" / "config.json"
    pooling = json.loads(pooling_file.read_text()) if pooling_file.is_file() else {"pooling_mode": "mean"}
    if not _pools_by_mean(pooling):
        raise BranchwiseError(f"the ONNX runtime supports mean-pooling models only; {source} pools otherwise")
    max_length = _max_seq_length(source)
    dim = json.loads((source / "config.json").read_text())["hidden_size"]
    return {"max_seq_length": int(max_length), "pooling": "mean", "normalize": True, "dim": int(dim)}


def _max_seq_length(source: Path) -> int:
    """The truncation length: `max_seq_length` of sentence_bert_config.json in the old format;
    sentence-transformers 6 keeps it as the tokenizer's `model_max_length` instead."""
    bert_config = source / "sentence_bert_config.json"
    if bert_config.is_file() and "max_seq_length" in (settings := json.loads(bert_config.read_text())):
        return int(settings["max_seq_length"])
    tokenizer_config = source / "tokenizer_config.json"
    if tokenizer_config.is_file():
        length = json.loads(tokenizer_config.read_text()).get("model_max_length")
        if isinstance(length, int) and 0 < length < 100_000:  # transformers writes 1e30 for "no limit"
            return length
    return 256


def _pools_by_mean(pooling: dict) -> bool:
    """Mean pooling alone, in either format: sentence-transformers 6 writes `pooling_mode`
    ("mean" or a list of modes), earlier versions one `pooling_mode_*_tokens` flag per mode."""
    if "pooling_mode" in pooling:
        mode = pooling["pooling_mode"]
        modes = [mode] if isinstance(mode, str) else list(mode)
        return modes == ["mean"] and pooling.get("include_prompt", True)
    return bool(pooling.get("pooling_mode_mean_tokens")) and not any(
        pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens",
                                 "pooling_mode_weightedmean_tokens", "pooling_mode_lasttoken"))


def _trace(source: Path, out: Path) -> None:
    import torch
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(source), attn_implementation="eager")
    model.eval()

    class LastHiddenState(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.inner(input_ids=input_ids, attention_mask=attention_mask,
                              token_type_ids=token_type_ids).last_hidden_state

    example = torch.ones((2, 16), dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "last_hidden_state")}
    import warnings

    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            LastHiddenState(model), (example, example, torch.zeros_like(example)), str(out),
            input_names=list(INPUTS), output_names=["last_hidden_state"], dynamic_axes=axes,
            opset_version=17, dynamo=False,
        )


def _quantise(source: Path, out: Path) -> None:
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    logging.getLogger().setLevel(logging.ERROR)  # the quantiser's advice about pre-processing
    quantize_dynamic(str(source), str(out), weight_type=QuantType.QInt8, per_channel=True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    model = argv[0] if argv else DEFAULT_MODEL
    try:
        print(ensure_export(model))
    except BranchwiseError as error:
        print(f"branchwise: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
