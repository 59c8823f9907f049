"""Retrieval quality (issue 4): MRR@10 of dense, lexical and fused ranking on the samples.

Speed means little if the right symbol is not near the top. bench/questions.toml holds
questions written in words, as a developer asks them, each with the qualified names that
answer it; the sample repositories are built fresh, `main` of each is indexed with the
default model, and every question is asked in each ranking mode. The baseline is lexical
(FTS5/BM25) ranking alone, what a plain text search would give.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

from branchwise.search.hybrid import MODES, SearchRequest
from branchwise.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = Path(__file__).with_name("questions.toml")


def _rank(results, answers: set[str]) -> int | None:
    for position, result in enumerate(results[:10], 1):
        if result.identity.qualified_name in answers:
            return position
    return None


def compare_runtimes(work: Path, repos: tuple[str, ...] | None = None) -> dict:
    """The same questions with the torch reference and the int8 ONNX runtime of the same model."""
    runs = {runtime: run(work, repos, runtime) for runtime in ("torch", "onnx-int8")}
    drop = {mode: runs["torch"]["modes"][mode]["mrr_at_10"] - runs["onnx-int8"]["modes"][mode]["mrr_at_10"]
            for mode in MODES}
    return {
        "questions": runs["torch"]["questions"],
        "mrr_at_10": {runtime: {mode: r["modes"][mode]["mrr_at_10"] for mode in MODES} for runtime, r in runs.items()},
        "hits_at_10": {runtime: {mode: r["modes"][mode]["hits_at_10"] for mode in MODES} for runtime, r in runs.items()},
        "mrr_drop": drop,
        "target": "MRR@10 drop <= 0.01 (fused and dense)",
        "met": drop["fused"] <= 0.01 and drop["dense"] <= 0.01,
    }


def run(work: Path, repos: tuple[str, ...] | None = None, runtime: str | None = None) -> dict:
    """Ask the questions about `repos` (default: all of them), with `runtime` (default: the configured one)."""
    questions = [q for q in tomllib.loads(QUESTIONS.read_text())["question"] if not repos or q["repo"] in repos]
    if not (work / "samples").exists():
        subprocess.run([sys.executable, str(ROOT / "sample_repos" / "build.py"), str(work / "samples")],
                       check=True, capture_output=True)
    workspaces = {}
    for name in sorted({q["repo"] for q in questions}):
        previous = os.environ.pop("BRANCHWISE_RUNTIME", None)
        if runtime:
            os.environ["BRANCHWISE_RUNTIME"] = runtime
        try:
            workspaces[name] = Workspace(work / "samples" / name, work / f"samples-index-{name}-{runtime or 'default'}")
        finally:
            os.environ.pop("BRANCHWISE_RUNTIME", None)
            if previous is not None:
                os.environ["BRANCHWISE_RUNTIME"] = previous
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
