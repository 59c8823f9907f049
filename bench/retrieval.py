"""Retrieval quality (issue 4): MRR@10 of dense, lexical and fused ranking on the samples.

Speed means little if the right symbol is not near the top. bench/questions.toml holds
questions written in words, as a developer asks them, each with the qualified names that
answer it; the sample repositories are built fresh, `main` of each is indexed with the
default model, and every question is asked in each ranking mode. The baseline is lexical
(FTS5/BM25) ranking alone, what a plain text search would give.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from branchwise.search import MODES, SearchRequest
from branchwise.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = Path(__file__).with_name("questions.toml")


def _rank(results, answers: set[str]) -> int | None:
    for position, result in enumerate(results[:10], 1):
        if result.identity.qualified_name in answers:
            return position
    return None


def run(work: Path, repos: tuple[str, ...] | None = None) -> dict:
    """Ask the questions about `repos` (default: all of them)."""
    questions = [q for q in tomllib.loads(QUESTIONS.read_text())["question"] if not repos or q["repo"] in repos]
    subprocess.run([sys.executable, str(ROOT / "sample_repos" / "build.py"), str(work / "samples")],
                   check=True, capture_output=True)
    workspaces = {}
    for name in sorted({q["repo"] for q in questions}):
        workspaces[name] = Workspace(work / "samples" / name, work / f"samples-index-{name}")
        workspaces[name].index(["main"])
    ranks: dict[str, list[int | None]] = {mode: [] for mode in MODES}
    misses: dict[str, list[str]] = {mode: [] for mode in MODES}
    for q in questions:
        searcher = workspaces[q["repo"]].searcher
        for mode in MODES:
            results = searcher.search(SearchRequest(q["question"], "main", top_k=10, mode=mode))
            rank = _rank(results, set(q["answers"]))
            ranks[mode].append(rank)
            if rank is None:
                misses[mode].append(f"{q['repo']}: {q['question']}")
    for workspace in workspaces.values():
        workspace.close()
    modes = {
        mode: {
            "mrr_at_10": sum(1 / r for r in found if r) / len(found),
            "hits_at_10": sum(1 for r in found if r) / len(found),
            "misses": misses[mode],
        }
        for mode, found in ranks.items()
    }
    lexical = modes["lexical"]["mrr_at_10"] or float("nan")
    return {
        "questions": len(questions),
        "modes": modes,
        "fused_vs_lexical": modes["fused"]["mrr_at_10"] / lexical,
        "dense_vs_lexical": modes["dense"]["mrr_at_10"] / lexical,
    }
