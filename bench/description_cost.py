"""What the description costs the indexer, and what running texts side by side gives back.

`python -m bench.description_cost [--texts N] [--rounds R] [--out FILE]`

Since text recipe `described-1` a symbol's embedding text ends with its description, which
every embedder embeds on its own and mixes in (embedding/described.py): one more, short,
model call per text. Since then, too, the int8 ONNX runtime runs a call's texts side by side,
one per core, instead of one after another on every core (embedding/onnx_model.py). Real
texts (click's, as the `embedding` item cuts them) are embedded by the default model three
ways in rotating rounds, so that load from other work hits all alike:

- `before`: the passage alone (the text before the description), one text after another:
  what an index embedded before both changes, the baseline;
- `described-one-by-one`: the whole text, one text after another: the description's cost;
- `described`: the whole text, side by side: what the indexer does now.

The figures are texts per second and their ratios to `before`, from the median times.
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
from branchwise.embedding.onnx_model import OnnxEmbedder


def run(work: Path, count: int, rounds: int) -> dict:
    origin, texts = code_texts(work, count)
    passages = [split_described(text)[0] for text in texts]
    shipped = get_embedder()
    one_by_one = OnnxEmbedder(shipped.model, shipped.name, side_by_side=False)
    variants = [("before", one_by_one, passages), ("described-one-by-one", one_by_one, texts),
                ("described", shipped, texts)]
    for _name, embedder, batch in variants:
        embedder.embed(batch[:8])
    times: dict[str, list[float]] = {name: [] for name, _e, _b in variants}
    for round_no in range(rounds):
        shift = round_no % len(variants)
        for name, embedder, batch in variants[shift:] + variants[:shift]:
            started = time.perf_counter()
            embedder.embed(batch)
            times[name].append(time.perf_counter() - started)
    median = {name: statistics.median(found) for name, found in times.items()}
    return {"model": shipped.name, "texts": len(texts), "texts_from": origin,
            "with_description": sum(1 for t in texts if split_described(t)[1]), "rounds": rounds,
            "seconds": {name: [round(t, 2) for t in found] for name, found in times.items()},
            "texts_per_second": {name: round(len(texts) / m, 1) for name, m in median.items()},
            "ratio_to_before": {name: round(median["before"] / m, 3) for name, m in median.items()},
            "machine": machine()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.description_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="branchwise-description-cost-") as work:
        return print_json(run(Path(work), args.texts, args.rounds), args.out)


if __name__ == "__main__":
    sys.exit(main())
