"""Our o200k_base counter against bpe-openai's, on the same texts in one run.

`python -m bench.token_counting [--out DIR]`

Bundles and MCP answers count their tokens on every export and every search, so the counter
that replaced bpe-openai (branchwise/review/bundle/o200k.py, plain Python) must not make them slow.
The texts are every file version of the sample repositories and of the click and cobra bundles
(all branches). Measured in one process, each side timed twice and the faster kept: loading
each counter; counting every text once with an empty piece cache (a first export) and again
with the pieces known but the texts new (a server that has answered before), and the same texts
again; and the cost per MCP answer as `search_code` counts it (each entry, then the answer
twice) for compact JSON answers of six entries, about 12,000 characters (a default 3,000-token
answer), made from the same files. Both counters must agree on every text. bpe-openai is the `test` extra's;
this benchmark needs it installed. Writes `<date>-token-counting.{md,json}` to DIR.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSWER_CHARS = 12_000


def every_file_version(repo: Path) -> list[str]:
    """The text of every blob reachable from any ref of `repo`, each once."""
    listing = subprocess.run(["git", "-C", str(repo), "rev-list", "--objects", "--all"],
                             capture_output=True, text=True, check=True).stdout
    objects = sorted({line.split()[0] for line in listing.splitlines()})
    kinds = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch-check"], input="\n".join(objects) + "\n",
                           capture_output=True, text=True, check=True).stdout
    blobs = [line.split()[0] for line in kinds.splitlines() if line.split()[1] == "blob"]
    out = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"], input=("\n".join(blobs) + "\n").encode(),
                         capture_output=True, check=True).stdout
    texts, at = [], 0
    while at < len(out):
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        texts.append(out[header_end + 1:header_end + 1 + size].decode("utf-8", "surrogateescape"))
        at = header_end + 1 + size + 1
    return texts


def corpus(work: Path) -> dict[str, list[str]]:
    sys.path.insert(0, str(ROOT / "sample_repos"))
    import build  # sample_repos/build.py
    from bench.realrepos import bundle

    texts = {name: every_file_version(path) for name, path in build.build_all(work / "samples").items()}
    for name in ("click", "cobra"):
        subprocess.run(["git", "clone", "-q", "--mirror", str(bundle(name)), str(work / name)], check=True)
        texts[name] = every_file_version(work / name)
    return texts


def answers(texts: list[str]) -> list[tuple[list[str], str]]:
    """MCP-answer-like texts made from the files: six entries of about ANSWER_CHARS / 6 code
    each, as compact JSON, and the answer around them."""
    joined, size = "\n".join(texts), ANSWER_CHARS // 6
    out = []
    for start in range(0, len(joined) - ANSWER_CHARS, ANSWER_CHARS):
        entries = [{"rank": n + 1, "path": f"src/m{n}.py", "qualified_name": f"m{n}.f", "verdict": "verified",
                    "text_kind": "full", "code": joined[start + n * size:start + (n + 1) * size]} for n in range(6)]
        answer = {"query": "how is it read", "branch": "main", "results": entries, "tokens": 3000}
        out.append(([compact(e) for e in entries], compact(answer)))
    return out[:300]


def compact(value: dict) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def answer_cost(count, entries: list[str], answer: str) -> float:
    """Milliseconds to count as `search_code` does: each entry, the answer, the answer again
    with its own total in."""
    started = time.perf_counter()
    for entry in entries:
        count(entry)
    count(answer)
    count(answer[:-5] + "3001}")
    return (time.perf_counter() - started) * 1000


def timed(count, texts: list[str]) -> tuple[float, list[int]]:
    started = time.perf_counter()
    counts = [count(t) for t in texts]
    return time.perf_counter() - started, counts


def run(work: Path) -> dict:
    from branchwise.review.bundle.o200k import O200kCounter

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        started = time.perf_counter()
        import bpe_openai

        reference = bpe_openai.get_encoding("o200k_base")
        reference_load = time.perf_counter() - started

    def theirs(text: str) -> int:
        return len(reference.encode_ordinary(text))

    started = time.perf_counter()
    ours = O200kCounter()
    our_load = time.perf_counter() - started
    by_repo = corpus(work)
    texts = [t for repo in by_repo.values() for t in repo]
    size = sum(len(t.encode("utf-8", "surrogateescape")) for t in texts)

    reference_s, expected = timed(theirs, texts)
    cold_s, cold_counts = timed(ours, texts)
    ours._texts.clear()  # pieces known, texts new: what a new file costs a warm counter
    warm_s, warm_counts = timed(ours, texts)
    again_s, again_counts = timed(ours, texts)  # the same texts again
    reference_again_s, _ = timed(theirs, texts)
    fresh = O200kCounter(ours.ranks)
    cold_again_s, _ = timed(fresh, texts)
    fresh._texts.clear()
    warm_again_s, _ = timed(fresh, texts)
    reference_s = min(reference_s, reference_again_s)
    cold_s, warm_s = min(cold_s, cold_again_s), min(warm_s, warm_again_s)
    differing = sum(a != b for counts in (cold_counts, warm_counts, again_counts) for a, b in zip(counts, expected))

    answer_texts = answers(texts)
    first = O200kCounter(ours.ranks)  # a server's first answers: nothing counted yet
    ours._texts.clear()  # pieces known, answers new
    per_answer = {side: [answer_cost(count, *a) for a in answer_texts]
                  for side, count in (("ours_cold", first), ("ours_warm", ours), ("bpe_openai", theirs))}
    answer_ms = {side: {"p50": round(statistics.median(v), 3), "p95": round(sorted(v)[int(0.95 * (len(v) - 1))], 3)}
                 for side, v in per_answer.items()}
    return {"files": len(texts), "bytes": size, "repositories": {k: len(v) for k, v in by_repo.items()},
            "tokens": sum(expected), "texts_counted_differently": differing,
            "load_s": {"ours": round(our_load, 3), "bpe_openai": round(reference_load, 3)},
            "count_s": {"ours_cold": round(cold_s, 3), "ours_warm": round(warm_s, 3), "ours_same_texts": round(again_s, 3),
                        "bpe_openai": round(reference_s, 3)},
            "ratio_ours_to_bpe_openai": {"cold": round(cold_s / reference_s, 2), "warm": round(warm_s / reference_s, 2),
                                         "same_texts": round(again_s / reference_s, 2)},
            "answers": len(answer_texts), "answer_ms": answer_ms,
            "answer_ratio_p50": {"cold": round(answer_ms["ours_cold"]["p50"] / answer_ms["bpe_openai"]["p50"], 2),
                                 "warm": round(answer_ms["ours_warm"]["p50"] / answer_ms["bpe_openai"]["p50"], 2)}}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.token_counting", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as work:
        figures = run(Path(work))
    figures["commit"] = commit
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / f"{stamp}-token-counting.json").write_text(json.dumps(figures, indent=2) + "\n")
    c, a, r = figures["count_s"], figures["answer_ms"], figures["ratio_ours_to_bpe_openai"]
    mb = figures["bytes"] / 1e6
    lines = [f"# o200k_base counting: ours (plain Python) against bpe-openai (commit {commit})", "",
             f"- texts: {figures['files']} file versions, {mb:.1f} MB, {figures['tokens']:,} tokens "
             f"({', '.join(f'{k} {v}' for k, v in figures['repositories'].items())}); "
             f"texts counted differently: {figures['texts_counted_differently']}",
             f"- load: ours {figures['load_s']['ours']:.2f} s, bpe-openai {figures['load_s']['bpe_openai']:.2f} s",
             "", "| | ours, empty caches | ours, pieces known | ours, same texts again | bpe-openai |",
             "|---|---|---|---|---|",
             f"| every text once (s) | {c['ours_cold']:.2f} | {c['ours_warm']:.2f} | {c['ours_same_texts']:.2f} | "
             f"{c['bpe_openai']:.2f} |",
             f"| throughput (MB/s) | {mb / c['ours_cold']:.1f} | {mb / c['ours_warm']:.1f} | "
             f"{mb / c['ours_same_texts']:.1f} | {mb / c['bpe_openai']:.1f} |",
             f"| ratio to bpe-openai | {r['cold']:.2f} | {r['warm']:.2f} | {r['same_texts']:.2f} | 1 |",
             "", f"Per MCP answer ({figures['answers']} answers of six entries, ~{ANSWER_CHARS:,} chars: each entry, "
             "the answer, the answer again), ms:", "",
             "| | ours, empty caches | ours, pieces known | bpe-openai |", "|---|---|---|---|",
             f"| p50 | {a['ours_cold']['p50']:.2f} | {a['ours_warm']['p50']:.2f} | {a['bpe_openai']['p50']:.2f} |",
             f"| p95 | {a['ours_cold']['p95']:.2f} | {a['ours_warm']['p95']:.2f} | {a['bpe_openai']['p95']:.2f} |"]
    (args.out / f"{stamp}-token-counting.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if figures["texts_counted_differently"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
