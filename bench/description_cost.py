"""What the description costs the indexer: embedding texts with and without it, same run.

`python -m bench.description_cost [--texts N] [--rounds R] [--out FILE]`

Since text recipe `described-1` a symbol's embedding text ends with its description, which
every embedder embeds on its own and mixes in (embedding/described.py): one more, short,
model call per text. Real texts (click's, as the `embedding` item cuts them) are embedded by
the default model's int8 ONNX runtime as composed today and as their passage alone (the text
before the description: what an index embedded before), in alternating rounds so that load
from other work hits both alike; the figure is the ratio of the median times, texts per
second with the description over without.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.embedding_speed import code_texts
from bench.report import machine, print_json

from branchwise.embedding import get_embedder
from branchwise.embedding.described import split_described


def run(work: Path, count: int, rounds: int) -> dict:
    origin, texts = code_texts(work, count)
    passages = [split_described(text)[0] for text in texts]
    embedder = get_embedder()
    embedder.embed(texts[:8])
    times: dict[str, list[float]] = {"described": [], "passage": []}
    for round_no in range(rounds):
        pair = [("described", texts), ("passage", passages)]
        for name, batch in pair if round_no % 2 == 0 else pair[::-1]:
            started = time.perf_counter()
            embedder.embed(batch)
            times[name].append(time.perf_counter() - started)
    described, passage = statistics.median(times["described"]), statistics.median(times["passage"])
    return {"model": embedder.name, "texts": len(texts), "texts_from": origin,
            "with_description": sum(1 for t in texts if split_described(t)[1]), "rounds": rounds,
            "seconds": {name: [round(t, 2) for t in found] for name, found in times.items()},
            "texts_per_second": {"described": round(len(texts) / described, 1),
                                 "passage": round(len(texts) / passage, 1)},
            "throughput_ratio": round(passage / described, 3), "machine": machine()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.description_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="branchwise-description-cost-") as work:
        return print_json(run(Path(work), args.texts, args.rounds), args.out)


if __name__ == "__main__":
    sys.exit(main())
