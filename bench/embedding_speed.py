"""Item `embedding`: throughput of the int8 ONNX runtime against the torch reference, same model.

The texts are real: the embedding texts the chunker cuts from click's source (the bundle in
`shared/realrepos`; the sample repositories when it is absent), a fixed random sample of
them. Both runtimes are loaded and warmed up first (loading is the cold-start item's
business), then embed the same texts in alternating rounds, so that load from other work on
the machine hits both alike; the figure is the ratio of their median times. sentence-transformers
sorts its input by length and batches 64 texts; the ONNX runtime embeds each text alone,
unpadded (see onnx_model.py). The cosine between the two runtimes' vectors of each text says
how much quantisation moved them.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from branchwise.chunking import chunk_file, path_embedding_text
from branchwise.embedding import DEFAULT_MODEL, get_embedder, model_identity
from branchwise.embedding.onnx_model import thread_count

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = Path(os.environ.get("BRANCHWISE_REALREPOS") or next(
    (p for p in (ROOT.parent / "shared" / "realrepos", ROOT.parent.parent / "shared" / "realrepos") if p.is_dir()),
    ROOT.parent / "shared" / "realrepos"))


def code_texts(work: Path, count: int) -> tuple[str, list[str]]:
    """(where from, `count` embedding texts) cut from real code."""
    source = work / "embed-texts-src"
    if not source.exists():
        if (BUNDLES / "click.bundle").exists():
            subprocess.run(["git", "clone", "-q", str(BUNDLES / "click.bundle"), str(source)], check=True)
        else:
            subprocess.run([sys.executable, str(ROOT / "sample_repos" / "build.py"), str(source)],
                           check=True, capture_output=True)
    origin = "click (main)" if (source / ".git").exists() else "sample repositories"
    texts = []
    for path in sorted(source.rglob("*")):
        if ".git" in path.parts or not path.is_file():
            continue
        rel = str(path.relative_to(source))
        chunks = chunk_file(source.name, rel, path.read_bytes()).chunks
        texts += [c.embedding_text for c in chunks]
        if chunks:
            texts.append(path_embedding_text(rel))
    random.Random(21).shuffle(texts)
    return origin, texts[:count]


def run(work: Path, count: int, rounds: int) -> dict:
    origin, texts = code_texts(work, count)
    reference = get_embedder(model_identity(DEFAULT_MODEL, "torch"))
    fast = get_embedder(model_identity(DEFAULT_MODEL, "onnx-int8"))
    for embedder in (reference, fast):
        embedder.embed(texts[:8])
    times: dict[str, list[float]] = {"torch": [], "onnx-int8": []}
    vectors = {}
    for round_no in range(rounds):
        pair = [("torch", reference), ("onnx-int8", fast)]
        for name, embedder in pair if round_no % 2 == 0 else pair[::-1]:
            started = time.perf_counter()
            vectors[name] = embedder.embed(texts)
            times[name].append(time.perf_counter() - started)
    cosine = np.sum(vectors["torch"] * vectors["onnx-int8"], axis=1)
    torch_s, onnx_s = statistics.median(times["torch"]), statistics.median(times["onnx-int8"])
    speedup = torch_s / onnx_s
    return {
        "texts": len(texts),
        "texts_from": origin,
        "mean_chars": round(sum(map(len, texts)) / len(texts), 1),
        "rounds": rounds,
        "threads": thread_count(),
        "torch_s": torch_s,
        "onnx_int8_s": onnx_s,
        "torch_texts_per_s": len(texts) / torch_s,
        "onnx_int8_texts_per_s": len(texts) / onnx_s,
        "speedup": speedup,
        "rounds_s": times,
        "cosine_min": float(cosine.min()),
        "cosine_mean": float(cosine.mean()),
        "target": "speedup >= 2.0",
        "met": speedup >= 2.0,
    }
