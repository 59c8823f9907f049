"""How many tokens an agent pays for a default MCP `search_code` answer (issue 28, item 5).

`python -m bench.mcp_answer_size [--cache DIR] [--index-root DIR] [--out DIR] [--label NAME]`

An answer that costs 20,000 tokens crowds out the agent's own work, so the benchmark asks every
question of bench/realrepos/click.toml and cobra.toml on every branch it applies to through a
real `branchwise mcp` server (stdio, the official client) with the tool's default arguments, and
counts the tokens of the text the client receives (o200k_base, as bundles count). It reports
the median, 95th percentile and largest answer per repository and over both, and the size of the
tool list an agent loads once. The repositories are cloned and indexed as bench/realrepos.py
does (with its embedding cache); `--index-root` reuses indexes it kept.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from bench.realrepos import CachedEmbedder, index_repo, load_questions
from branchwise.review.bundle.tokens import token_counter
from branchwise.store import DB_FILE

REPOS = ("click", "cobra")


def _percentile(values: list[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _text(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def _ask(repo_path: Path, index_dir: Path, asks: list[tuple[str, str]], extra: dict) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "branchwise_cli", "mcp", "--repo", str(repo_path),
                                         "--index", str(index_dir)], env=env)
    count = token_counter()
    sizes = []
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                tool_list = json.dumps([t.model_dump(mode="json", exclude_none=True) for t in tools.tools])
                for question, branch in asks:
                    answer = await session.call_tool("search_code", {"query": question, "branch": branch, **extra})
                    if answer.is_error:
                        raise RuntimeError(_text(answer))
                    sizes.append({"question": question, "branch": branch, "tokens": count(_text(answer)),
                                  "chars": len(_text(answer))})
    return {"tool_list_tokens": count(tool_list), "answers": sizes}


def _figures(sizes: list[int]) -> dict:
    return {"answers": len(sizes), "median": int(statistics.median(sizes)), "p95": _percentile(sizes, 0.95),
            "max": max(sizes), "mean": round(statistics.fmean(sizes), 1)}


def run(cache: Path, index_root: Path, extra: dict | None = None) -> dict:
    from branchwise.embedding import get_embedder

    os.environ.pop("BRANCHWISE_MODEL", None)
    cache.mkdir(parents=True, exist_ok=True)
    out: dict = {"repos": {}}
    embedder = None
    for repo in REPOS:
        index_dir = index_root / f"index-{repo}"
        questions = load_questions(repo)
        if not (index_dir / DB_FILE).exists():
            embedder = embedder or CachedEmbedder(get_embedder(), cache / "embeddings.sqlite")
            workspace, _info = index_repo(repo, cache, index_dir, embedder)
            workspace.close()
        asks = [(q.question, branch) for q in questions for branch in q.branches]
        measured = anyio.run(_ask, cache / repo, index_dir, asks, extra or {})
        out["repos"][repo] = {**_figures([a["tokens"] for a in measured["answers"]]),
                              "tool_list_tokens": measured["tool_list_tokens"], "per_answer": measured["answers"]}
    everything = [a["tokens"] for item in out["repos"].values() for a in item["per_answer"]]
    out["all"] = _figures(everything)
    return out


def markdown(doc: dict) -> str:
    meta = doc["meta"]
    lines = [f"# MCP search_code answer size ({meta['label']}, {meta['date']}, commit {meta['commit']})", "",
             "Tokens (o200k_base) of the text a client receives for a default `search_code` call, every "
             "question of bench/realrepos/{click,cobra}.toml on every branch it applies to; model: "
             f"{meta['model']}; further arguments: {json.dumps(meta.get('arguments') or {})}.", "",
             "| repository | answers | median | p95 | max | mean | tool list |", "|---|---|---|---|---|---|---|"]
    for repo, item in doc["repos"].items():
        lines.append(f"| {repo} | {item['answers']} | {item['median']} | {item['p95']} | {item['max']} "
                     f"| {item['mean']} | {item['tool_list_tokens']} |")
    f = doc["all"]
    lines.append(f"| both | {f['answers']} | {f['median']} | {f['p95']} | {f['max']} | {f['mean']} | |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mcp_answer_size", description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "branchwise-realrepos")
    parser.add_argument("--index-root", type=Path, help="keep (or reuse) the indexes here")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("results"))
    parser.add_argument("--label", default="current")
    parser.add_argument("--commit", help="the commit measured (default: this checkout's HEAD)")
    parser.add_argument("--arguments", default="{}", help="JSON object of further search_code arguments "
                                                          "(default: none, the tool's defaults)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="branchwise-mcp-size-") as tmp:
        doc = run(args.cache, args.index_root or Path(tmp), json.loads(args.arguments))
    from branchwise.embedding.location import DEFAULT_MODEL

    commit = args.commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).parent).stdout.strip() or "unknown"
    date = datetime.now(timezone.utc)
    doc["meta"] = {"label": args.label, "date": date.isoformat(timespec="seconds"), "commit": commit,
                   "model": DEFAULT_MODEL, "arguments": json.loads(args.arguments)}
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{date:%Y-%m-%d}-mcp-answer-size-{args.label}"
    stem.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
    stem.with_suffix(".md").write_text(markdown(doc))
    print(markdown(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
