"""Retrieval quality on real code: click (Python) and cobra (Go), every release branch, and
one project per language of issue 33 (cjson, fmt, serilog, mediatr, sinatra, slim, okio,
alamofire, scopt, nvm, jsonlua) on the branches their question files list.

`python -m bench.realrepos [--repo NAME]... [--languages] [--cache DIR] [--out DIR] [--label NAME] [--model M]`

The languages of issue 33, every bundle and every branch, with the default model (or `--model`),
MRR@10 and hits@10 per language in each ranking mode, as one command (run it niced):

    PYTHONPATH=core HF_HUB_OFFLINE=1 nice -n 15 python -m bench.realrepos --languages --label languages

The sample repositories are small and were written for this project; real projects have the
tests, docs and examples that crowd the code out of the top of a ranking, long functions and
release lines where symbols appear, move and disappear. The git bundles in
`../shared/realrepos/` (or `$BRANCHWISE_REALREPOS`) are cloned into a cache directory with a
local branch per release line, every branch is indexed with the default model, and the
questions of `bench/realrepos/<repo>.toml` are asked on each branch they apply to, in each
ranking mode (fused, dense, lexical, and `fused-plain`: fused without the docstring rerank of
its head, so every run shows what that rerank adds). Per mode and per branch it reports MRR@10 and hits@10, the share of top-10
slots taken by tests, docs and examples for questions about behaviour, and the version
checks: a result whose identity is not in the asked branch's live set is a leak, one whose
identity is live but with other content is a wrong version; both must be 0.

The question files are checked against the code before anything is measured: every answer
(`path::qualified_name`) of a question must exist on at least one of its branches and at
least one answer must exist on each branch the question lists, so a question is never scored
on a branch where its answer is missing (nor answered there by another branch's code).

Embeddings are cached by model and text hash in the cache directory, so a re-run (or a run
with another embedding recipe that shares texts) embeds only what it has not seen.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
QUESTION_DIR = Path(__file__).with_name("realrepos")
#: where the bundles are looked for: $BRANCHWISE_REALREPOS, `shared/realrepos` beside the
#: checkout (or one level up), then this directory, which carries cobra's (Apache-2.0) so the
#: model test runs on a clean clone
BUNDLE_DIRS = [Path(p) for p in (os.environ.get("BRANCHWISE_REALREPOS"),) if p] + [
    ROOT.parent / "shared" / "realrepos", ROOT.parent.parent / "shared" / "realrepos", QUESTION_DIR]


class MissingSharedData(FileNotFoundError):
    """Data this team keeps beside the checkout (`../shared/`) and a clone elsewhere lacks: a
    benchmark item reports itself skipped, a test skips, both with this one reason."""


#: how every skip for absent shared data begins (tests/conftest.py finds them by it)
MISSING_PREFIX = "needs shared data"


def bundle(repo: str) -> Path:
    for directory in BUNDLE_DIRS:
        if (directory / f"{repo}.bundle").is_file():
            return directory / f"{repo}.bundle"
    raise MissingSharedData(f"{MISSING_PREFIX}: {repo}.bundle of the real-repository bundles, not in "
                            f"{', '.join(map(str, BUNDLE_DIRS))} (set BRANCHWISE_REALREPOS to the folder "
                            "that holds them)")
MODES = ("fused", "fused-plain", "dense", "lexical")
#: bench modes that are a product mode run with other `[ranking]` settings: fused without the
#: docstring rerank of its head (docrank.py), so every run shows what the rerank adds
VARIANTS = {"fused-plain": ("fused", {"doc_weight": 0.0})}
#: a top-10 slot taken by a test, prose documentation or an example answers a behaviour
#: question with something other than the code (Go code under doc/ is code, not prose)
PROSE = ("markdown", "restructuredtext", "text", "asciidoc")
#: files cut into sections: an answer names the page (its file name), any section of it is a hit
PROSE_PAGES = (".md", ".markdown", ".rst")
EXAMPLE_DIRS = ("examples/", "example/", "_examples/")


@dataclass
class Question:
    repo: str
    question: str
    kind: str  # behaviour | test | docs
    answers: list[tuple[str, str]]  # (path, qualified_name)
    branches: list[str]


#: the repositories with a question file, in the order they are measured
REPOS = ("click", "cobra", "cjson", "fmt", "serilog", "mediatr", "sinatra", "slim", "okio", "alamofire",
         "scopt", "nvm", "jsonlua")


def question_file(repo: str) -> dict:
    return tomllib.loads((QUESTION_DIR / f"{repo}.toml").read_text())


def language_of(repo: str) -> str:
    """The language a repository's questions are about (click and cobra predate the field)."""
    return question_file(repo).get("language", {"click": "python", "cobra": "go"}.get(repo, "?"))


def load_questions(repo: str) -> list[Question]:
    data = question_file(repo)
    out = []
    for q in data["question"]:
        answers = [tuple(a.split("::", 1)) for a in q["answers"]]
        out.append(Question(repo, q["question"], q.get("kind", "behaviour"), answers,
                            q.get("branches", data["branches"])))
    return out


def clone(repo: str, cache: Path) -> Path:
    """The bundle cloned once into the cache, with a local branch per release line."""
    dest = cache / repo
    if not (dest / ".git").exists():
        subprocess.run(["git", "clone", "-q", str(bundle(repo)), str(dest)], check=True)
    remote = subprocess.run(["git", "-C", str(dest), "branch", "-r", "--format=%(refname:short)"],
                            check=True, capture_output=True, text=True).stdout.split()
    for ref in remote:
        name = ref.split("/", 1)[1]
        if name != "HEAD" and name != "main":
            subprocess.run(["git", "-C", str(dest), "branch", "-f", name, ref], check=True, capture_output=True)
    return dest


class CachedEmbedder:
    """The real model behind a disk cache keyed by model name and text hash."""

    def __init__(self, inner, cache_file: Path):
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.db = sqlite3.connect(cache_file)
        self.db.execute("CREATE TABLE IF NOT EXISTS vec (model TEXT, key TEXT, vector BLOB, PRIMARY KEY (model, key))")
        self.computed = 0

    def __getattr__(self, name):  # model identity and anything else an embedder offers
        return getattr(self.inner, name)

    def embed(self, texts: list[str]) -> np.ndarray:
        keys = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            part = keys[start:start + 500]
            rows = self.db.execute(
                f"SELECT key, vector FROM vec WHERE model = ? AND key IN ({','.join('?' * len(part))})",
                [self.name, *part]).fetchall()
            found.update((k, np.frombuffer(v, dtype=np.float32)) for k, v in rows)
        missing = sorted({k: t for k, t in zip(keys, texts) if k not in found}.items())
        for start in range(0, len(missing), 64):  # kept as it goes: an interrupted run loses little
            batch = missing[start:start + 64]
            vectors = self.inner.embed([t for _k, t in batch])
            self.computed += len(batch)
            self.db.executemany("INSERT OR IGNORE INTO vec VALUES (?, ?, ?)",
                                [(self.name, k, v.astype(np.float32).tobytes()) for (k, _t), v in zip(batch, vectors)])
            self.db.commit()
            found.update((k, v) for (k, _t), v in zip(batch, vectors))
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([found[k] for k in keys]).astype(np.float32)


def _is_secondary(result) -> bool:
    path = result.identity.path
    return result.path_class.value == "test" or result.identity.language in PROSE or any(
        path.startswith(d) or f"/{d}" in path for d in EXAMPLE_DIRS)


def answer_key(path: str, qualified_name: str) -> tuple[str, str]:
    """A result as an answer: an overload or redefinition (`edit#2`) is the same function, and
    any section of a documentation page is that page (`docs/testing.md::testing.md`: pages are
    cut into sections since recipe sections-1)."""
    if path.endswith(PROSE_PAGES):
        return path, path.rsplit("/", 1)[-1]
    return path, re.sub(r"#\d+$", "", qualified_name)


def answers_on(q: Question, live_branch: dict[tuple[str, str], str]) -> set[tuple[str, str]]:
    """The question's answers that exist on a branch, as answer keys."""
    present = {answer_key(*key) for key in live_branch}
    return {answer_key(*a) for a in q.answers} & present


def check_questions(questions: list[Question], live: dict[str, dict[tuple[str, str], str]]) -> list[str]:
    """Problems with the question set against the indexed code (empty when it is sound)."""
    problems = []
    for q in questions:
        for branch in q.branches:
            if branch not in live:
                problems.append(f"{q.question!r}: unknown branch {branch}")
            elif not answers_on(q, live[branch]):
                problems.append(f"{q.question!r}: no answer exists on {branch}")
        for answer in q.answers:
            if not any(answer_key(*answer) in {answer_key(*k) for k in live[b]} for b in q.branches if b in live):
                problems.append(f"{q.question!r}: answer {'::'.join(answer)} exists on none of its branches")
    return problems


def _hashes(entry) -> set[str]:
    """The content hashes live under one (path, name): a set when two symbol types share the
    name (a Lua file `test.lua` with a function `test` beside its module chunk `test`)."""
    return entry if isinstance(entry, set) else {entry}


def evaluate(workspace, questions: list[Question], live: dict, top_k: int = 10, modes=MODES) -> dict:
    """Ask every question on each of its branches in each mode; ranks, slots and version checks."""
    from branchwise.search.hybrid import SearchRequest

    per: dict = {m: {} for m in modes}
    records = []
    for q in questions:
        for branch in q.branches:
            answers = answers_on(q, live[branch])
            for mode in modes:
                product_mode, overrides = VARIANTS.get(mode, (mode, {}))
                ranking = workspace.searcher.config.ranking
                saved = dict(ranking)
                ranking.update(overrides)
                try:
                    results = workspace.searcher.search(SearchRequest(q.question, branch, top_k=top_k,
                                                                      mode=product_mode))
                finally:
                    ranking.clear()
                    ranking.update(saved)
                rank = next((i for i, r in enumerate(results[:10], 1)
                             if answer_key(r.identity.path, r.identity.qualified_name) in answers), None)
                leaks = wrong = 0
                for r in results:
                    key = (r.identity.path, r.identity.qualified_name)
                    if key not in live[branch]:
                        leaks += 1
                    elif r.content_hash not in _hashes(live[branch][key]):
                        wrong += 1
                secondary = sum(1 for r in results[:10] if _is_secondary(r))
                stats = per[mode].setdefault(branch, {"ranks": [], "slots": 0, "secondary": 0,
                                                       "leaks": 0, "wrong_version": 0, "results": 0})
                stats["ranks"].append(rank)
                stats["leaks"] += leaks
                stats["wrong_version"] += wrong
                stats["results"] += len(results)
                if q.kind == "behaviour":
                    stats["slots"] += min(10, len(results))
                    stats["secondary"] += secondary
                records.append({"question": q.question, "kind": q.kind, "branch": branch, "mode": mode,
                                "rank": rank, "top3": [f"{r.identity.path}::{r.identity.qualified_name}"
                                                       for r in results[:3]]})
    return {"per": per, "records": records}


def summarise(per: dict) -> dict:
    def figures(groups: list[dict]) -> dict:
        ranks = [r for g in groups for r in g["ranks"]]
        slots = sum(g["slots"] for g in groups)
        return {
            "asked": len(ranks),
            "mrr_at_10": round(sum(1 / r for r in ranks if r) / max(len(ranks), 1), 4),
            "hits_at_10": round(sum(1 for r in ranks if r) / max(len(ranks), 1), 4),
            "secondary_share": round(sum(g["secondary"] for g in groups) / max(slots, 1), 4),
            "leaks": sum(g["leaks"] for g in groups),
            "wrong_version": sum(g["wrong_version"] for g in groups),
            "results": sum(g["results"] for g in groups),
        }

    return {mode: {"all": figures(list(branches.values())),
                   "branches": {b: figures([g]) for b, g in sorted(branches.items())}}
            for mode, branches in per.items()}


def index_repo(repo: str, cache: Path, index_dir: Path, embedder) -> tuple[object, dict]:
    """Index the branches the repository's question file lists (click and cobra: all)."""
    from branchwise.workspace import Workspace

    path = clone(repo, cache)
    workspace = Workspace(path, index_dir)
    workspace.__dict__["embedder"] = embedder
    started = time.perf_counter()
    summaries = workspace.index(list(question_file(repo)["branches"]))
    seconds = time.perf_counter() - started
    live = {}
    for s in summaries:
        entries: dict[tuple[str, str], set[str]] = {}
        for row in workspace.inspect(s.branch):
            entries.setdefault((row["path"], row["qualified_name"]), set()).add(row["content_hash"])
        live[s.branch] = entries
    return workspace, {"index_seconds": round(seconds, 1),
                       "branches": {s.branch: len(live[s.branch]) for s in summaries}, "live": live}


def run(repos: tuple[str, ...], cache: Path, work: Path, model: str | None = None,
        ranking: dict | None = None) -> dict:
    from branchwise.embedding import get_embedder, model_identity

    os.environ.pop("BRANCHWISE_MODEL", None)
    if model:  # the index's configured model too, so indexing never re-embeds with the default
        os.environ["BRANCHWISE_MODEL"] = model
    cache.mkdir(parents=True, exist_ok=True)
    embedder = CachedEmbedder(get_embedder(model_identity(model) if model else None), cache / "embeddings.sqlite")
    out: dict = {}
    for repo in repos:
        questions = load_questions(repo)
        workspace, info = index_repo(repo, cache, work / f"index-{repo}", embedder)
        live = info.pop("live")
        problems = check_questions(questions, live)
        if problems:
            raise SystemExit("question set does not match the code:\n  " + "\n  ".join(problems))
        workspace.searcher.config.ranking.update(ranking or {})
        evaluated = evaluate(workspace, questions, live)
        workspace.close()
        out[repo] = {"questions": len(questions), "language": language_of(repo), **info,
                     "modes": summarise(evaluated["per"]), "records": evaluated["records"]}
    out["embedded_now"] = embedder.computed
    return out


#: the repositories of issue 33's languages (`--languages`)
LANGUAGE_REPOS = tuple(r for r in REPOS if r not in ("click", "cobra"))


def by_language(repos: dict, mode: str = "fused") -> dict:
    """MRR@10 and hits@10 per language (in one ranking mode) over every (question, branch) pair
    of its repositories."""
    ranks: dict[str, list] = {}
    for item in repos.values():
        if not isinstance(item, dict) or "records" not in item:
            continue
        ranks.setdefault(item.get("language", "?"), []).extend(
            r["rank"] for r in item["records"] if r["mode"] == mode)
    return {language: {"asked": len(found),
                       "mrr_at_10": round(sum(1 / r for r in found if r) / max(len(found), 1), 4),
                       "hits_at_10": round(sum(1 for r in found if r) / max(len(found), 1), 4)}
            for language, found in sorted(ranks.items())}


def markdown(doc: dict) -> str:
    lines = [f"# Real-repository retrieval ({doc['meta']['label']}, {doc['meta']['date']})", "",
             "MRR@10 / hits@10 over every (question, branch) pair; `secondary` is the share of top-10 "
             "slots on tests, docs and examples for behaviour questions; leaks and wrong versions count "
             "results outside the asked branch's live set.", ""]
    if "languages_by_mode" in doc:
        modes = list(doc["languages_by_mode"])
        lines += ["## Per language", "", "(question, branch) pairs asked; MRR@10 / hits@10 per ranking mode.", "",
                  "| language | repositories | asked | " + " | ".join(f"{m} MRR@10 | {m} hits@10" for m in modes) + " |",
                  "|---|---|---|" + "---|---|" * len(modes)]
        for language, fused in doc["languages_by_mode"][modes[0]].items():
            repos = ", ".join(r for r, item in doc["repos"].items() if item.get("language") == language)
            cells = " | ".join(f"{doc['languages_by_mode'][m][language]['mrr_at_10']:.3f} | "
                               f"{doc['languages_by_mode'][m][language]['hits_at_10']:.3f}" for m in modes)
            lines.append(f"| {language} | {repos} | {fused['asked']} | {cells} |")
        lines.append("")
    elif "languages" in doc:
        lines += ["## Per language (fused)", "", "| language | asked | MRR@10 | hits@10 |", "|---|---|---|---|"]
        lines += [f"| {language} | {f['asked']} | {f['mrr_at_10']:.3f} | {f['hits_at_10']:.3f} |"
                  for language, f in doc["languages"].items()]
        lines.append("")
    for repo, item in doc["repos"].items():
        lines += [f"## {repo} ({item['questions']} questions, branches: "
                  + ", ".join(f"{b} {n} symbols" for b, n in item["branches"].items()) + ")", "",
                  "| mode | branch | asked | MRR@10 | hits@10 | secondary | leaks | wrong version |",
                  "|---|---|---|---|---|---|---|---|"]
        for mode, figures in item["modes"].items():
            for branch, f in [("all", figures["all"]), *figures["branches"].items()]:
                lines.append(f"| {mode} | {branch} | {f['asked']} | {f['mrr_at_10']:.3f} | {f['hits_at_10']:.3f} "
                             f"| {f['secondary_share']:.1%} | {f['leaks']} | {f['wrong_version']} |")
        lines.append("")
    return "\n".join(lines)


def _commit() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.realrepos", description=__doc__.split("\n")[0])
    parser.add_argument("--repo", action="append", choices=REPOS)
    parser.add_argument("--languages", action="store_true",
                        help=f"every repository of issue 33's languages ({', '.join(LANGUAGE_REPOS)})")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "branchwise-realrepos")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("results"))
    parser.add_argument("--label", default="current", help="name of this measurement (before, after, ...)")
    parser.add_argument("--index-root", type=Path, help="keep the indexes here (default: a temporary directory)")
    parser.add_argument("--model", help="the model to measure (a shipped name or a model directory; "
                                        "default: the default model), run by the default runtime")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a [ranking] setting for this run (repeatable), to measure one piece at a time")
    args = parser.parse_args(argv)
    ranking = {key: float(value) for key, value in (item.split("=", 1) for item in args.set)}
    if args.languages:
        repos = tuple(dict.fromkeys([*(args.repo or ()), *LANGUAGE_REPOS]))
    else:
        repos = tuple(args.repo or ("click", "cobra"))  # the issue-33 repositories: --languages or --repo
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="branchwise-realrepos-") as tmp:
        repos_doc = run(repos, args.cache, args.index_root or Path(tmp), args.model, ranking)
    from bench.report import machine

    date = datetime.now(timezone.utc)
    from branchwise.embedding import DEFAULT_MODEL

    doc = {"meta": {"label": args.label, "ranking": ranking, "model": args.model or DEFAULT_MODEL, "commit": _commit(), "date": date.isoformat(timespec="seconds"), "machine": machine(),
                    "seconds": round(time.perf_counter() - started, 1),
                    "embedded_now": repos_doc.pop("embedded_now")},
           "repos": repos_doc, "languages": by_language(repos_doc),
           "languages_by_mode": {mode: by_language(repos_doc, mode) for mode in MODES}}
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"{date:%Y-%m-%d}-realrepos-{args.label}"
    # not with_suffix: a label such as "alpha-0.5" would lose its tail, and two runs one file
    Path(f"{stem}.json").write_text(json.dumps(doc, indent=1) + "\n")
    Path(f"{stem}.md").write_text(markdown(doc) + "\n")
    print(markdown(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
