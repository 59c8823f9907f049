"""Warm MCP `search_code` (or `context_bundle`) latency of this checkout against a baseline checkout, in one run.

This machine's speed moves by up to a third within minutes, so a latency figure travels only
as a ratio against a baseline measured beside it. Two servers, `branchwise mcp` from this tree
and from the baseline's (another checkout or worktree, `--baseline`), serve one index of the
sample repositories' `main` branches, built by this tree; each question goes to both in turn,
the order alternating every round. The first round, where every question is new to both
servers, is reported apart from the later ones, where a question comes again (as a warm
server's caches meet a repeated question). Usage:

    python -m bench.mcp_paired --baseline ../base-worktree [--rounds 10] [--repo shop] [--out FILE.md]
                               [--tool context_bundle]

`--tool context_bundle` asks each question for its context bundle (the default budget of 3,000
tokens) instead of searching.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import tomllib
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from bench.mcp_latency import QUESTIONS, indexed_samples

ROOT = Path(__file__).resolve().parent.parent
SIDES = ("baseline", "this")
TOOLS = ("search_code", "context_bundle")
#: a context bundle's budget: search_code's default answer budget
BUNDLE_TOKENS = 3000


def _code_path(checkout: Path) -> str:
    return os.pathsep.join(str(checkout / part) for part in ("core", "tui", "cli"))


def _arguments(tool: str, question: dict) -> dict:
    arguments = {"query": question["question"], "branch": "main", "repository": question["repo"]}
    if tool == "context_bundle":
        arguments["max_tokens"] = BUNDLE_TOKENS
    return arguments


async def _ask_both(index: Path, checkouts: dict[str, Path], questions: list[dict], rounds: int,
                    tool: str = "search_code") -> dict:
    latencies: dict[str, list[list[float]]] = {side: [] for side in SIDES}
    async with AsyncExitStack() as stack:
        sessions = {}
        for side in SIDES:
            env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": _code_path(checkouts[side])}
            params = StdioServerParameters(command=sys.executable, args=["-m", "branchwise_cli", "mcp", "--index", str(index)],
                                           env=env)
            errlog = stack.enter_context(open(os.devnull, "w"))
            read, write = await stack.enter_async_context(stdio_client(params, errlog=errlog))
            sessions[side] = await stack.enter_async_context(ClientSession(read, write))
            await sessions[side].initialize()
            await sessions[side].call_tool("list_branches", {})  # start-up is not what is measured
        for round_number in range(rounds):
            order = SIDES if round_number % 2 else SIDES[::-1]
            for side in SIDES:
                latencies[side].append([])
            for q in questions:
                for side in order:
                    started = time.perf_counter()
                    answer = await sessions[side].call_tool(tool, _arguments(tool, q))
                    latencies[side][-1].append((time.perf_counter() - started) * 1000)
                    if answer.is_error:
                        raise RuntimeError(f"{side}: {answer.content[0].text}")
    return latencies


def run(baseline: Path, rounds: int, repos: tuple[str, ...] = (), tool: str = "search_code") -> dict:
    questions = [q for q in tomllib.loads(QUESTIONS.read_text())["question"] if not repos or q["repo"] in repos]
    with tempfile.TemporaryDirectory() as tmp:
        _samples, index = indexed_samples(Path(tmp), questions)
        latencies = anyio.run(_ask_both, index, {"baseline": baseline, "this": ROOT}, questions, rounds, tool)
    figures: dict = {"tool": tool, "questions": len(questions), "rounds": rounds, "baseline": str(baseline)}
    for label, picked in (("first round", slice(0, 1)), ("later rounds", slice(1, None))):
        times = {side: [t for one in latencies[side][picked] for t in one] for side in SIDES}
        if not times["this"]:
            continue
        ratios = [b / t for b, t in zip(times["baseline"], times["this"])]
        figures[label] = {"calls": len(times["this"]),
                          "baseline_p50_ms": statistics.median(times["baseline"]),
                          "this_p50_ms": statistics.median(times["this"]),
                          "baseline_over_this_median": statistics.median(ratios)}
    return figures


def report(figures: dict) -> str:
    lines = [f"`{figures['tool']}`. Baseline: `{figures['baseline']}`; {figures['questions']} questions x "
             f"{figures['rounds']} rounds, each question to both servers in turn.", "",
             "| questions | calls per side | baseline p50 ms | this p50 ms | median of baseline/this, pair by pair |",
             "|---|---|---|---|---|"]
    for label in ("first round", "later rounds"):
        if label in figures:
            f = figures[label]
            lines.append(f"| {label} | {f['calls']} | {f['baseline_p50_ms']:.2f} | {f['this_p50_ms']:.2f} | "
                         f"{f['baseline_over_this_median']:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="another checkout of branchwise (its root)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--repo", action="append", default=[], help="only this sample repository's questions (repeatable)")
    parser.add_argument("--out", type=Path, help="append the table to this file")
    parser.add_argument("--tool", choices=TOOLS, default="search_code", help="the tool asked (default search_code)")
    args = parser.parse_args(argv)
    if not (args.baseline / "core" / "branchwise").is_dir():
        print(f"error: {args.baseline} is not a checkout of branchwise (no core/branchwise)", file=sys.stderr)
        return 2
    if args.rounds < 1:
        print("error: --rounds must be at least 1", file=sys.stderr)
        return 2
    table = report(run(args.baseline.resolve(), args.rounds, tuple(args.repo), args.tool))
    print(table, end="")
    if args.out:
        with args.out.open("a") as out:
            out.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
