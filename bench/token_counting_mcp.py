"""`search_code` with our o200k_base counter against the same calls counting with bpe-openai.

`python -m bench.token_counting_mcp [--rounds N] [--out DIR]`

MCP answers count their tokens on every search (each entry that may fit, then the answer), so
the counter is on the path of the warm `search_code` latency (target p50 <= 50 ms). The sample
repositories' `main` branches are indexed with the default model into one index and one
AgentService serves them, in this process. Every question of bench/questions.toml is asked
N rounds, each time twice in a row, once per counter (the order alternating by round), so both
sides meet the same load and the same warm model and index; only `token_counter` differs, and
the two answers must be the same (but the index's age in seconds).
bpe-openai is the `test` extra's. Writes `<date>-token-counting-mcp.{md,json}` to DIR.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
import warnings
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(work: Path, rounds: int) -> dict:
    sys.path.insert(0, str(ROOT / "sample_repos"))
    import build  # sample_repos/build.py
    from branchwise.mcp_server import service
    from branchwise.review.bundle.tokens import TokenCounter, token_counter
    from branchwise.workspace import Workspace

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import bpe_openai

        encoding = bpe_openai.get_encoding("o200k_base")
    counters = {"ours": token_counter(),
                "bpe_openai": TokenCounter("o200k_base (bpe-openai)", lambda text: len(encoding.encode_ordinary(text)))}
    index = work / "index"
    workspaces = []
    for path in build.build_all(work / "samples").values():
        workspace = Workspace(path, index)
        workspace.index(["main"])
        workspaces.append(workspace)
    agent = service.AgentService(workspaces)
    agent.warm()
    questions = tomllib.loads((ROOT / "bench" / "questions.toml").read_text())["question"]
    latencies: dict[str, list[float]] = {name: [] for name in counters}
    answers: dict[str, list[dict]] = {name: [] for name in counters}
    original = service.token_counter
    try:
        for round_number in range(rounds):
            order = list(counters) if round_number % 2 == 0 else list(reversed(counters))
            for question in questions:
                for name in order:
                    service.token_counter = lambda counter=counters[name]: counter
                    started = time.perf_counter()
                    answer = agent.search_code(question["question"], branch="main", repository=question["repo"])
                    latencies[name].append((time.perf_counter() - started) * 1000)
                    answers[name].append(answer)
    finally:
        service.token_counter = original
    same = sum(_timeless(a) == _timeless(b) for a, b in zip(answers["ours"], answers["bpe_openai"]))
    figures = {name: {"p50_ms": round(statistics.median(v), 1), "p95_ms": round(sorted(v)[int(0.95 * (len(v) - 1))], 1)}
               for name, v in latencies.items()}
    return {"calls_per_counter": len(latencies["ours"]), "questions": len(questions), "rounds": rounds,
            "identical_answers": same, "latency": figures,
            "ratio_p50": round(figures["ours"]["p50_ms"] / figures["bpe_openai"]["p50_ms"], 2)}


def _timeless(answer):
    """The answer without the index's age, which differs between two calls a moment apart."""
    if isinstance(answer, dict):
        return {k: _timeless(v) for k, v in answer.items() if k != "age_seconds"}
    if isinstance(answer, list):
        return [_timeless(v) for v in answer]
    return answer


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.token_counting_mcp", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as work:
        figures = run(Path(work), args.rounds)
    figures["commit"] = commit
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stamp}-token-counting-mcp.json").write_text(json.dumps(figures, indent=2) + "\n")
    ours, theirs = figures["latency"]["ours"], figures["latency"]["bpe_openai"]
    lines = [f"# Warm `search_code`: our o200k_base counter against bpe-openai (commit {commit})", "",
             f"{figures['calls_per_counter']} calls per counter ({figures['questions']} questions x {figures['rounds']} "
             f"rounds, alternating), one process, sample repositories, default model; identical answers "
             f"(but the index's age in seconds): "
             f"{figures['identical_answers']} of {figures['calls_per_counter']}.", "",
             "| counter | p50 ms | p95 ms |", "|---|---|---|",
             f"| ours | {ours['p50_ms']:.1f} | {ours['p95_ms']:.1f} |",
             f"| bpe-openai | {theirs['p50_ms']:.1f} | {theirs['p95_ms']:.1f} |",
             f"| ratio (p50) | {figures['ratio_p50']:.2f} | |"]
    (args.out / f"{stamp}-token-counting-mcp.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if figures["identical_answers"] == figures["calls_per_counter"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
