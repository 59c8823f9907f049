"""The questions that ask how something works, with the file channel on and off, in one run.

Click, cobra, the language bundles and the samples hold no question that asks how something
works, so the file channel (branchwise/search/file_channel.py) cannot move their figures. This
is its check beside the peer benchmark: twelve such questions about `main` of click and cobra
(`how_questions.toml`, answered by the symbols that take part in each mechanism), asked with the
configured ranking and again with `file_weight = 0`, MRR@10 per repository.

    python -m bench.how_questions [--cache DIR] [--index-root DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import tomllib
from dataclasses import replace
from pathlib import Path

from bench.realrepos import clone

QUESTIONS = Path(__file__).with_name("how_questions.toml")


def ask(repo: str, cache: Path, index_root: Path, questions: list[dict]) -> dict[str, list[int | None]]:
    """Each question's first answer rank (None: not in the top 10), with the file channel and without."""
    from branchwise.search.hybrid import SearchRequest
    from branchwise.workspace import Workspace

    workspace = Workspace(clone(repo, cache), index_root / f"index-{repo}")
    try:
        workspace.index(["main"])
        searcher = workspace.searcher
        configured = dict(searcher.config.ranking)
        ranks: dict[str, list[int | None]] = {}
        for label, ranking in (("on", configured), ("off", {**configured, "file_weight": 0})):
            searcher.config = replace(searcher.config, ranking=ranking)
            ranks[label] = [_first(searcher.search(SearchRequest(q["question"], "main", top_k=10)), q["answers"])
                            for q in questions]
        return ranks
    finally:
        workspace.close()


def _first(results, answers: list[str]) -> int | None:
    return next((rank for rank, r in enumerate(results, 1) if r.identity.qualified_name in answers), None)


def mrr(ranks: list[int | None]) -> float:
    return sum(1 / rank for rank in ranks if rank) / len(ranks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.how_questions", description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "branchwise-realrepos")
    parser.add_argument("--index-root", type=Path, help="keep the indexes here (default: a temporary directory)")
    parser.add_argument("--out", type=Path, help="also write the table to this Markdown file")
    args = parser.parse_args(argv)
    questions = tomllib.loads(QUESTIONS.read_text())["question"]
    lines = ["| repository | question | rank, file channel on | off |", "|---|---|---|---|"]
    totals = []
    with tempfile.TemporaryDirectory(prefix="branchwise-how-") as tmp:
        for repo in dict.fromkeys(q["repo"] for q in questions):
            asked = [q for q in questions if q["repo"] == repo]
            ranks = ask(repo, args.cache, args.index_root or Path(tmp), asked)
            lines += [f"| {repo} | {q['question']} | {on or '-'} | {off or '-'} |"
                      for q, on, off in zip(asked, ranks["on"], ranks["off"])]
            totals.append(f"| {repo} | MRR@10 | {mrr(ranks['on']):.3f} | {mrr(ranks['off']):.3f} |")
    table = "\n".join(lines + totals)
    print(table)
    if args.out:
        args.out.write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
