"""The default model's cost per text against the base model's, both on the int8 ONNX runtime.

The shipped model (branchwise-code-v2) has the base model's architecture, so indexing should
cost the same per text; this measures it rather than assuming it. The texts are the same real
embedding texts as bench/embedding_speed.py's (click's source, a fixed sample); both models are
loaded and warmed up, then embed them in alternating rounds so that load from other work on the
machine hits both alike. Also reported: the cosine between the shipped model's int8 ONNX vectors
and its torch runtime's (the fp16 weights, loaded as fp32), which says the two runtimes agree.

`python -m bench.model_speed [--texts N] [--rounds N] [--out FILE]`
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.embedding_speed import code_texts
from bench.report import print_json
from branchwise.embedding import DEFAULT_MODEL, get_embedder, model_identity
from branchwise.embedding.location import BASE_MODEL


def run(work: Path, count: int, rounds: int) -> dict:
    origin, texts = code_texts(work, count)
    models = {name: get_embedder(model_identity(name, "onnx-int8")) for name in (BASE_MODEL, DEFAULT_MODEL)}
    for embedder in models.values():
        embedder.embed(texts[:8])
    times: dict[str, list[float]] = {name: [] for name in models}
    for round_no in range(rounds):
        order = list(models.items())
        for name, embedder in order if round_no % 2 == 0 else order[::-1]:
            started = time.perf_counter()
            embedder.embed(texts)
            times[name].append(time.perf_counter() - started)
    fast = models[DEFAULT_MODEL].embed(texts)
    reference = get_embedder(model_identity(DEFAULT_MODEL, "torch")).embed(texts)
    cosine = np.sum(fast * reference, axis=1)
    medians = {name: statistics.median(t) for name, t in times.items()}
    return {
        "texts": len(texts), "texts_from": origin, "rounds": rounds,
        "texts_per_s": {name: round(len(texts) / s, 1) for name, s in medians.items()},
        "ratio_default_to_base": round(medians[BASE_MODEL] / medians[DEFAULT_MODEL], 3),
        "rounds_s": times,
        "default_onnx_vs_torch_cosine_min": round(float(cosine.min()), 4),
        "default_onnx_vs_torch_cosine_mean": round(float(cosine.mean()), 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.model_speed", description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=160)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="branchwise-model-speed-") as tmp:
        doc = run(Path(tmp), args.texts, args.rounds)
    return print_json(doc, args.out)


if __name__ == "__main__":
    sys.exit(main())
