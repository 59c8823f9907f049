"""The peer's own benchmark: semble's repositories and questions, scored the way semble scores.

`python -m bench.peer [--repo NAME]... [--quick] [--mode M]... [--label NAME] [--cache DIR]`

The closest open peer (MinishLab's semble) publishes a benchmark nobody on this team wrote:
pinned repositories in 19 languages, questions in three categories (semantic, architecture,
symbol), scored by NDCG@10 over files and line spans. `../shared/peerbench/` (or
`$BRANCHWISE_PEERBENCH`) holds 37 of its repositories as one-commit bundles with the peer's
question files unchanged. Each bundle is cloned into a cache, its `main` indexed with the
default model, and every question asked on `main` with the path filter set to the peer's
`benchmark_root`; the top 10 are scored exactly as the peer's README describes (`score_task`):
a target (path, optional line span) is hit by the first result whose path matches by suffix
and whose lines overlap the span; a rank that hits any target gains 1, discounted by
log2(rank + 1), over the ideal DCG of min(10, targets the index can reach).

Reported per repository, per language and per category, as the peer does (the headline is the
mean over repositories), with hits@10, MRR@10, warm query latency (one process) and index time,
beside a plain BM25 over the same chunks (source files only, identifier tokens, k1 1.5, b 0.75)
as the floor every mode must clear, and semble's published per-repository figures
(`bench/peer/semble-published.json`). Embeddings are cached by model and text hash, so a
re-run embeds only what is new; `--keep` keeps the indexes so a ranking change is measured
in seconds.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = Path(__file__).with_name("peer") / "semble-published.json"
#: $BRANCHWISE_PEERBENCH, `shared/peerbench` beside the checkout (or one level up), or beside
#: the real-repository bundles when only $BRANCHWISE_REALREPOS says where the shared data is
BUNDLE_DIRS = [Path(p) for p in (os.environ.get("BRANCHWISE_PEERBENCH"),) if p] + [
    ROOT.parent / "shared" / "peerbench", ROOT.parent.parent / "shared" / "peerbench"] + [
    Path(p).parent / "peerbench" for p in (os.environ.get("BRANCHWISE_REALREPOS"),) if p]
#: small repositories of five languages, for CI (`--quick`)
QUICK = ("express", "redux", "sinatra", "zig-clap", "requests")
MODES = ("fused", "dense", "static", "lexical", "bm25")
CATEGORIES = ("architecture", "semantic", "symbol")


def data_dir() -> Path | None:
    """Where the bundles are, or None when this machine has none."""
    return next((d for d in BUNDLE_DIRS if (d / "repos.json").is_file()), None)


# scoring, as the peer's README describes it ---------------------------------------------------

@dataclass(frozen=True)
class Target:
    path: str
    start: int | None = None
    end: int | None = None

    @classmethod
    def of(cls, raw) -> "Target":
        if isinstance(raw, str):
            return cls(raw)
        return cls(raw["path"], raw.get("start_line"), raw.get("end_line"))


@dataclass(frozen=True)
class Hit:
    """A result as the scorer sees it: a path and a line span (1-based, inclusive)."""
    path: str
    start: int
    end: int


def paths_match(result_path: str, target_path: str) -> bool:
    """Equal, or one ends with the other at a `/` boundary."""
    if result_path == target_path:
        return True
    longer, shorter = (result_path, target_path) if len(result_path) > len(target_path) else (target_path, result_path)
    return longer.endswith("/" + shorter)


def hits(result: Hit, target: Target) -> bool:
    if not paths_match(result.path, target.path):
        return False
    if target.start is None or target.end is None:
        return True
    return result.start <= target.end and result.end >= target.start


def repeated_slots(results: list[Hit]) -> int:
    """How many of the top 10 show a file a result above them already showed (issue 45, item 4)."""
    top = [hit.path for hit in results[:10]]
    return len(top) - len(set(top))


def score_task(results: list[Hit], targets: list[Target], reachable: int) -> dict:
    """NDCG@10 with binary gains as the peer computes it: each target's rank is the first of the
    top 10 that hits it; every such rank gains 1 once (however many targets it hits), discounted
    by log2(rank + 1), over the ideal DCG of min(10, `reachable`) hits at the top. `reachable` is
    the number of targets some chunk of the index covers. Also the first hit's rank."""
    top = results[:10]
    ranks = set()
    for target in targets:
        rank = next((i for i, result in enumerate(top, 1) if hits(result, target)), None)
        if rank is not None:
            ranks.add(rank)
    dcg = sum(1 / math.log2(rank + 1) for rank in ranks)
    ideal = sum(1 / math.log2(r + 1) for r in range(1, min(10, reachable) + 1))
    return {"ndcg10": dcg / ideal if ideal else 0.0, "first": min(ranks) if ranks else None}


def reachable_targets(targets: list[Target], chunks: list[Hit]) -> int:
    """How many targets at least one chunk of the index covers."""
    return sum(1 for t in targets if any(hits(c, t) for c in chunks))


# a plain BM25 over the same chunks: the floor ------------------------------------------------

_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


class PlainBM25:
    """Okapi BM25 over chunk texts (lower-cased identifier tokens), nothing else."""

    def __init__(self, texts: list[str], k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b
        self.docs = [Counter(_tokens(t)) for t in texts]
        self.lengths = np.array([sum(d.values()) for d in self.docs], dtype=np.float64)
        self.average = float(self.lengths.mean()) if len(self.docs) else 0.0
        df: Counter = Counter()
        for doc in self.docs:
            df.update(doc.keys())
        n = len(self.docs)
        self.idf = {term: math.log(1 + (n - f + 0.5) / (f + 0.5)) for term, f in df.items()}

    def rank(self, query: str) -> list[int]:
        scores = np.zeros(len(self.docs))
        norm = self.k1 * (1 - self.b + self.b * self.lengths / max(self.average, 1e-9))
        for term in set(_tokens(query)):
            idf = self.idf.get(term)
            if idf is None:
                continue
            tf = np.array([d.get(term, 0) for d in self.docs], dtype=np.float64)
            scores += idf * tf * (self.k1 + 1) / (tf + norm)
        order = np.argsort(-scores, kind="stable")
        return [int(i) for i in order if scores[i] > 0]


# running it -----------------------------------------------------------------------------------

@dataclass
class Repo:
    name: str
    language: str
    root: str | None
    tasks: list[dict] = field(default_factory=list)


def load_repos(data: Path, names: tuple[str, ...] | None) -> list[Repo]:
    entries = [e for e in json.loads((data / "repos.json").read_text()) if e.get("prepared")]
    if names:
        unknown = set(names) - {e["name"] for e in entries}
        if unknown:
            raise SystemExit(f"unknown repository: {', '.join(sorted(unknown))}")
        entries = [e for e in entries if e["name"] in names]
    return [Repo(e["name"], e["language"], e.get("benchmark_root"),
                 json.loads((data / "annotations" / f"{e['name']}.json").read_text())) for e in entries]


def clone(data: Path, name: str, cache: Path) -> Path:
    dest = cache / "repos" / name
    if not (dest / ".git").exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(data / f"{name}.bundle"), str(dest)], check=True)
    return dest


def _hit(result) -> Hit:
    return Hit(result.identity.path, result.start_line, result.end_line)


def evaluate_repo(repo: Repo, path: Path, index_dir: Path, embedder, modes: tuple[str, ...],
                  ranking: dict | None = None) -> dict:
    from branchwise.search.hybrid import SearchRequest
    from branchwise.workspace import Workspace

    workspace = Workspace(path, index_dir)
    workspace.__dict__["embedder"] = embedder
    before = getattr(embedder, "computed", 0)
    started = time.perf_counter()
    workspace.index(["main"])
    index_seconds = time.perf_counter() - started
    workspace.searcher.config.ranking.update(ranking or {})
    prefix = f"{repo.root.rstrip('/')}/" if repo.root else None
    live = [row for row in workspace.inspect("main") if prefix is None or row["path"].startswith(prefix)]
    chunks = [Hit(r["path"], r["start_line"], r["end_line"]) for r in live]
    floor, source = None, []
    if "bm25" in modes:
        rows = [r for r in workspace.searcher.store.live_symbols(workspace.searcher.branch("main").id,
                                                                  {r["path"] for r in live}) if r[8] == "source"]
        source = [Hit(r[0], r[4], r[5]) for r in rows]
        floor = PlainBM25([r[7] for r in rows])
    per_mode: dict[str, list[dict]] = {m: [] for m in modes}
    latencies: list[float] = []
    for task in repo.tasks:
        targets = [Target.of(t) for t in task.get("relevant", []) + task.get("secondary", [])]
        reachable = reachable_targets(targets, chunks)
        for mode in modes:
            if mode == "bm25":
                assert floor is not None
                found = [source[i] for i in floor.rank(task["query"])[:10]]
            else:
                request = SearchRequest(task["query"], "main", top_k=10, mode=mode, path_prefix=prefix)
                began = time.perf_counter()
                results = workspace.searcher.search(request)
                if mode == "fused":
                    latencies.append(time.perf_counter() - began)
                found = [_hit(r) for r in results if not r.history][:10]
            scored = score_task(found, targets, reachable)
            per_mode[mode].append({"query": task["query"], "category": task.get("category", "?"),
                                   "reachable": reachable, **scored, "repeated": repeated_slots(found),
                                   "shown": min(10, len(found)),
                                   "top3": [f"{h.path}#L{h.start}-L{h.end}" for h in found[:3]]})
    workspace.close()
    return {"language": repo.language, "chunks": len(chunks), "tasks": len(repo.tasks),
            "index_seconds": round(index_seconds, 2),
            "embedded_texts": getattr(embedder, "computed", 0) - before,
            "p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
            "modes": {mode: summarise(records) for mode, records in per_mode.items()},
            "records": per_mode}


def summarise(records: list[dict]) -> dict:
    def mean(values):
        values = list(values)
        return round(sum(values) / len(values), 4) if values else None

    return {"ndcg10": mean(r["ndcg10"] for r in records),
            "hits10": mean(1.0 if r["first"] else 0.0 for r in records),
            "mrr10": mean(1 / r["first"] if r["first"] else 0.0 for r in records),
            "repeated_share": round(sum(r["repeated"] for r in records) / max(1, sum(r["shown"] for r in records)), 4),
            "by_category": {c: mean(r["ndcg10"] for r in records if r["category"] == c)
                            for c in CATEGORIES if any(r["category"] == c for r in records)}}


def aggregate(repos: dict, mode: str) -> dict:
    """The peer's averages: the mean over repositories (headline), per language (mean of its
    repositories) and per category (mean over the repositories that have that category)."""
    figures = {name: item["modes"][mode] for name, item in repos.items()}

    def mean(values):
        values = [v for v in values if v is not None]
        return round(sum(values) / len(values), 4) if values else None

    languages: dict[str, list[str]] = {}
    for name, item in repos.items():
        languages.setdefault(item["language"], []).append(name)
    return {"ndcg10": mean(f["ndcg10"] for f in figures.values()),
            "hits10": mean(f["hits10"] for f in figures.values()),
            "mrr10": mean(f["mrr10"] for f in figures.values()),
            "repeated_share": mean(f.get("repeated_share") for f in figures.values()),
            "by_category": {c: mean(f["by_category"].get(c) for f in figures.values()) for c in CATEGORIES},
            "by_language": {lang: mean(figures[n]["ndcg10"] for n in names) for lang, names in sorted(languages.items())}}


def published() -> dict:
    return json.loads(PUBLISHED.read_text())["repos"]


def markdown(doc: dict) -> str:
    peer = published()
    repos, modes = doc["repos"], doc["meta"]["modes"]
    peer_mean = round(sum(peer[n]["ndcg10"] for n in repos) / len(repos), 4)
    lines = [f"# Peer benchmark ({doc['meta']['label']}, {doc['meta']['date']}, commit {doc['meta']['commit']})", "",
             f"{len(repos)} repositories, {sum(r['tasks'] for r in repos.values())} questions, asked on `main` within "
             "each repository's `benchmark_root`, scored as the peer scores (NDCG@10, mean over repositories). "
             "semble: its published per-repository figures (`bench/peer/semble-published.json`). "
             f"Model {doc['meta']['model']}; machine: {doc['meta']['machine']}.", "",
             "| | NDCG@10 | architecture | semantic | symbol | hits@10 | MRR@10 | top-10 slots on a file shown above |",
             "|---|---|---|---|---|---|---|---|"]
    for mode in modes:
        a = doc["aggregate"][mode]
        cats = " | ".join(f"{a['by_category'][c]:.3f}" if a["by_category"][c] is not None else "-" for c in CATEGORIES)
        repeated = f"{a['repeated_share']:.0%}" if a.get("repeated_share") is not None else "-"
        lines.append(f"| {mode} | {a['ndcg10']:.3f} | {cats} | {a['hits10']:.3f} | {a['mrr10']:.3f} | {repeated} |")
    peer_cats = {c: [peer[n]["by_category"][c] for n in repos if c in peer[n]["by_category"]] for c in CATEGORIES}
    lines.append(f"| semble (published) | {peer_mean:.3f} | "
                 + " | ".join(f"{sum(v) / len(v):.3f}" if v else "-" for v in peer_cats.values()) + " | | | |")
    first = modes[0]
    ahead = sum(1 for n, r in repos.items() if r["modes"][first]["ndcg10"] >= peer[n]["ndcg10"])
    lines += ["", f"{first}: at least semble's figure on {ahead} of {len(repos)} repositories.", "",
              "## Per language (NDCG@10)", "", "| language | " + " | ".join(modes) + " | semble |",
              "|---|" + "---|" * (len(modes) + 1)]
    for language in doc["aggregate"][first]["by_language"]:
        names = [n for n, r in repos.items() if r["language"] == language]
        cells = " | ".join(f"{doc['aggregate'][m]['by_language'][language]:.3f}" for m in modes)
        lines.append(f"| {language} | {cells} | {sum(peer[n]['ndcg10'] for n in names) / len(names):.3f} |")
    lines += ["", "## Per repository", "",
              "| repository | language | questions | chunks | index s | embedded | p50 ms | "
              + " | ".join(modes) + " | semble |", "|---|---|---|---|---|---|---|" + "---|" * (len(modes) + 1)]
    for name, r in repos.items():
        cells = " | ".join(f"{r['modes'][m]['ndcg10']:.3f}" for m in modes)
        lines.append(f"| {name} | {r['language']} | {r['tasks']} | {r['chunks']} | {r['index_seconds']} | "
                     f"{r['embedded_texts']} | {r['p50_ms']} | {cells} | {peer[name]['ndcg10']:.3f} |")
    return "\n".join(lines) + "\n"


def run(names: tuple[str, ...] | None, modes: tuple[str, ...], cache: Path, index_root: Path | None,
        model: str | None = None, ranking: dict | None = None) -> dict:
    from bench.realrepos import CachedEmbedder
    from branchwise.embedding import get_embedder, model_identity

    data = data_dir()
    if data is None:
        raise SystemExit(f"no peer benchmark data in {', '.join(map(str, BUNDLE_DIRS))}: set BRANCHWISE_PEERBENCH")
    os.environ.pop("BRANCHWISE_MODEL", None)
    if model:
        os.environ["BRANCHWISE_MODEL"] = model
    cache.mkdir(parents=True, exist_ok=True)
    embedder = CachedEmbedder(get_embedder(model_identity(model) if model else None), cache / "embeddings.sqlite")
    out = {}
    with tempfile.TemporaryDirectory(prefix="branchwise-peer-") as tmp:
        indexes = index_root or Path(tmp)
        for repo in load_repos(data, names):
            out[repo.name] = evaluate_repo(repo, clone(data, repo.name, cache), indexes / repo.name, embedder, modes,
                                          ranking)
            print(f"{repo.name}: " + ", ".join(f"{m} {out[repo.name]['modes'][m]['ndcg10']:.3f}" for m in modes),
                  file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.peer", description=__doc__.split("\n")[0])
    parser.add_argument("--repo", action="append", help="only this repository (repeatable)")
    parser.add_argument("--quick", action="store_true", help=f"the CI slice: {', '.join(QUICK)}")
    parser.add_argument("--mode", action="append", choices=MODES, help="ranking modes to measure (default: all)")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "branchwise-peer")
    parser.add_argument("--keep", action="store_true", help="keep the indexes in the cache (re-runs skip indexing)")
    parser.add_argument("--model", help="the model to measure (default: the default model)")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("results"))
    parser.add_argument("--label", default="current")
    parser.add_argument("--no-write", action="store_true", help="print the report only")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a [ranking] setting for this run (repeatable), to measure one piece at a time")
    args = parser.parse_args(argv)
    names = tuple(args.repo) if args.repo else (QUICK if args.quick else None)
    modes = tuple(args.mode) if args.mode else MODES
    started = time.perf_counter()
    ranking = {key: float(value) for key, value in (item.split("=", 1) for item in args.set)}
    repos = run(names, modes, args.cache, args.cache / "indexes" if args.keep else None, args.model, ranking)
    from bench.report import machine
    from branchwise.embedding import DEFAULT_MODEL

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    date = datetime.now(timezone.utc)
    doc = {"meta": {"label": args.label, "date": date.isoformat(timespec="seconds"), "commit": commit,
                    "model": args.model or DEFAULT_MODEL, "modes": list(modes), "ranking": ranking, "machine": machine(),
                    "seconds": round(time.perf_counter() - started, 1)},
           "aggregate": {mode: aggregate(repos, mode) for mode in modes}, "repos": repos}
    report = markdown(doc)
    print(report)
    if not args.no_write:
        args.out.mkdir(parents=True, exist_ok=True)
        stem = args.out / f"{date:%Y-%m-%d}-peer-{args.label}"
        Path(f"{stem}.json").write_text(json.dumps(doc, indent=1) + "\n")
        Path(f"{stem}.md").write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
