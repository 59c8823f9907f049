"""Tune the `[ranking]` settings on one real repository and check them on the other.

`python -m bench.tune_ranking --tune cobra --check click [--cache DIR]`

Fusion weights and the role prior are a handful of numbers; picking them on the questions
they are then scored on would flatter them. So the grid is searched on one repository's
questions only (every branch), the best setting whose tests/docs/examples share stays within
the target is taken, and the same setting is then reported on the other repository. The
channel rankings of each (question, branch) are collected once through the searcher's own
channels; fusion and the prior are then replayed in memory for every setting of the grid.
The docstring rerank of the fused head (docrank.py) is tuned on its own grid on top of the
tuned fusion and prior (the fusion grid runs with it off): the question's similarity to each candidate's description is collected with the
rankings, and DOC_GRID is replayed through docrank.rescored, as search applies it.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import sys
import tempfile
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from bench.realrepos import CachedEmbedder, _is_secondary, answer_key, answers_on, index_repo, load_questions
from bench.report import print_json
from branchwise.chunking.embedding_text import description
from branchwise.ranking import RankingSettings, fuse, prior_factor, role_of, wanted_roles
from branchwise.search.docrank import rescored
from branchwise.search.hybrid import SearchRequest

#: the share of top-10 slots tests, docs and examples may take for behaviour questions (the
#: guarantee tests/test_realrepo_with_model.py holds cobra to)
SECONDARY_TARGET = 0.10
#: the ranking before tuning: even weights, k = 60, no prior
UNTUNED = RankingSettings(rrf_k=60.0, dense_weight=1.0, lexical_weight=1.0, name_weight=1.0,
                          test_weight=1.0, docs_weight=1.0, example_weight=1.0, module_level_weight=1.0,
                          doc_weight=0.0)
GRID = {
    "rrf_k": (10.0, 20.0, 30.0, 60.0),
    "dense_weight": (1.0, 1.5, 2.0),
    "lexical_weight": (0.5, 1.0),
    # the name channel serves questions that spell a symbol's name ("optimizer thresholds"),
    # which these questions in words never do: its weight is not theirs to lower
    "name_weight": (1.0, 2.0),
    "test_weight": (0.6, 0.4, 0.3, 0.2),
    "docs_weight": (1.0, 0.8, 0.6, 0.4, 0.2),
    "module_level_weight": (1.0, 0.7),
}
#: the docstring rerank, searched with the fusion grid's choice (doc_weight 0: off)
DOC_GRID = {"doc_weight": (0.0, 0.5, 0.75, 1.0, 1.25, 1.5), "doc_depth": (3.0, 5.0, 8.0, 10.0)}


def collect(workspace, questions, live) -> list[dict]:
    """Per (question, branch): each channel's ranked keys, each key's role and identity, and
    the question's similarity to each key's docstring (None: it has none)."""
    searcher = workspace.searcher
    cases = []
    docs: dict = {}
    for q in questions:
        for branch_name in q.branches:
            branch = searcher.branch(branch_name)
            request = SearchRequest(q.question, branch_name, top_k=10)
            scope = searcher._scope(branch, request)
            depth = 50
            rankings = {
                "dense": searcher._dense(searcher._query_vector(q.question), scope, depth),
                "lexical": searcher._lexical(q.question, scope, depth),
                "name": searcher._names(q.question, scope, depth),
            }
            rankings = {c: searcher._settle_ties(r) for c, r in rankings.items()}
            info = {}
            for key in {k for r in rankings.values() for k, _s in r}:
                result = searcher._result(key, 0.0, branch)
                info[key] = (role_of(result.path, result.path_class.value, result.identity.language,
                                     result.identity.qualified_name),
                             answer_key(result.path, result.identity.qualified_name), _is_secondary(result),
                             result.identity.symbol_type)
                docs[key] = description(result.docstring, result.identity.qualified_name)
            answers = answers_on(q, live[branch_name])
            cases.append({"question": q.question, "kind": q.kind, "branch": branch_name,
                          "rankings": rankings, "info": info, "answers": answers,
                          "wanted": wanted_roles(q.question)})
    texts = sorted({t for t in docs.values() if t} | {case["question"] for case in cases})
    vectors = {t: v / (np.linalg.norm(v) or 1.0) for t, v in zip(texts, searcher.embedder.embed(texts))}
    for case in cases:
        question = vectors[case["question"]]
        case["doc_similarity"] = {key: float(np.dot(question, vectors[docs[key]])) if docs[key] else None
                                  for key in case["info"]}
    return cases


def _refresh(cases: list[dict], repo: str) -> list[dict]:
    """Saved rankings with the question file's current answers and kinds and the current
    reading of what each question asks for (the rankings themselves do not depend on them)."""
    questions = {q.question: q for q in load_questions(repo)}
    kept = []
    for case in cases:
        q = questions.get(case["question"])
        if q is None or case["branch"] not in q.branches:
            continue
        case.update(kind=q.kind, answers={answer_key(*a) for a in q.answers}, wanted=wanted_roles(q.question))
        case["info"] = {key: (role, answer_key(*name), secondary, *kind)
                        for key, (role, name, secondary, *kind) in case["info"].items()}
        kept.append(case)
    return kept


def _prior(case: dict, key, settings: RankingSettings) -> float:
    role, _answer, _secondary, *kind = case["info"][key]
    return prior_factor(role, case["wanted"], settings, kind[0] if kind else "")


def replay(cases: list[dict], settings: RankingSettings, channels: tuple[str, ...]) -> dict:
    """MRR@10, hits@10 and the secondary share of behaviour questions for one setting."""
    reciprocal, hits, slots, secondary = 0.0, 0, 0, 0
    for case in cases:
        fused = fuse({c: case["rankings"][c] for c in channels}, settings)
        scored = sorted(((item.score * _prior(case, item.key, settings), n, item.key)
                         for n, item in enumerate(fused)), key=lambda s: (-s[0], s[1]))
        if len(channels) > 1 and "dense" in channels and settings.doc_weight > 0 and "doc_similarity" in case:
            head = scored[:int(settings.doc_depth)]
            similarity = case["doc_similarity"]
            new = rescored([s for s, _n, _k in head], [similarity.get(k) for _s, _n, k in head], settings.doc_weight,
                           [_prior(case, k, settings) for _s, _n, k in head])
            scored = sorted(((s, n, k) for s, (_old, n, k) in zip(new, head)),
                            key=lambda s: (-s[0], s[1])) + scored[len(head):]
        scored = scored[:10]
        rank = next((i for i, (_s, _n, key) in enumerate(scored, 1) if case["info"][key][1] in case["answers"]), None)
        if rank:
            reciprocal += 1 / rank
            hits += 1
        if case["kind"] == "behaviour":
            slots += len(scored)
            secondary += sum(1 for _s, _n, key in scored if case["info"][key][2])
    n = max(len(cases), 1)
    return {"mrr_at_10": round(reciprocal / n, 4), "hits_at_10": round(hits / n, 4),
            "secondary_share": round(secondary / max(slots, 1), 4)}


MODES = {"fused": ("dense", "lexical", "name"), "dense": ("dense",), "lexical": ("lexical",)}


def report(cases, settings) -> dict:
    return {mode: replay(cases, settings, channels) for mode, channels in MODES.items()}


def search_grid(cases) -> tuple[RankingSettings, dict]:
    best = None
    single: dict = {}  # a one-channel mode depends only on rrf_k and the role weights
    for values in itertools.product(*GRID.values()):
        values = dict(zip(GRID, values))
        settings = RankingSettings(**values, example_weight=values["test_weight"], doc_weight=0.0)
        prior_key = (settings.rrf_k, settings.test_weight, settings.docs_weight, settings.module_level_weight)
        if prior_key not in single:
            single[prior_key] = {m: replay(cases, settings, MODES[m]) for m in ("dense", "lexical")}
        figures = {"fused": replay(cases, settings, MODES["fused"]), **single[prior_key]}
        fused = figures["fused"]
        if fused["secondary_share"] > SECONDARY_TARGET:
            continue
        worst_margin = min(fused["mrr_at_10"] - figures[m]["mrr_at_10"] for m in ("dense", "lexical"))
        key = (fused["mrr_at_10"], worst_margin >= 0, figures["dense"]["mrr_at_10"])
        if best is None or key > best[0]:
            best = (key, settings, figures)
    return best[1], best[2]


def search_doc_grid(cases, base: RankingSettings) -> tuple[RankingSettings, dict]:
    """The docstring rerank's settings (DOC_GRID) on top of `base`'s fusion and prior (base
    itself, the rerank off, when no setting keeps the secondary share within the target)."""
    best = (-1.0, base)
    for values in itertools.product(*DOC_GRID.values()):
        settings = replace(base, **dict(zip(DOC_GRID, values)))
        fused = replay(cases, settings, MODES["fused"])
        if fused["secondary_share"] <= SECONDARY_TARGET and fused["mrr_at_10"] > best[0]:
            best = (fused["mrr_at_10"], settings)
    return best[1], report(cases, best[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tune_ranking", description=__doc__.split("\n")[0])
    parser.add_argument("--tune", default="cobra", choices=("click", "cobra"))
    parser.add_argument("--check", default="click", choices=("click", "cobra"))
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "branchwise-realrepos")
    parser.add_argument("--index-root", type=Path, help="keep the indexes here (default: a temporary directory)")
    parser.add_argument("--reuse-cases", action="store_true",
                        help="replay the channel rankings saved by an earlier run in --index-root")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--model", help="the model whose dense channel is tuned for (default: the default model)")
    args = parser.parse_args(argv)
    import os

    from branchwise.embedding import DEFAULT_MODEL, get_embedder, model_identity

    os.environ.pop("BRANCHWISE_MODEL", None)
    if args.model:  # the index's configured model too, so indexing never re-embeds with the default
        os.environ["BRANCHWISE_MODEL"] = args.model
    embedder = CachedEmbedder(get_embedder(model_identity(args.model or DEFAULT_MODEL)),
                              args.cache / "embeddings.sqlite")
    root = args.index_root or Path(tempfile.mkdtemp(prefix="branchwise-tune-"))
    cases = {}
    for repo in dict.fromkeys((args.tune, args.check)):
        saved = root / f"cases-{repo}.pickle"
        if args.reuse_cases and saved.exists():
            cases[repo] = _refresh(pickle.loads(saved.read_bytes()), repo)
            continue
        workspace, info = index_repo(repo, args.cache, root / f"index-{repo}", embedder)
        cases[repo] = collect(workspace, load_questions(repo), info["live"])
        saved.write_bytes(pickle.dumps(cases[repo]))
        print(f"{repo}: {len(cases[repo])} cases collected", file=sys.stderr, flush=True)
    settings, tuned = search_grid(cases[args.tune])
    doc_settings, doc_tuned = search_doc_grid(cases[args.tune], settings)
    doc = {"model": args.model or DEFAULT_MODEL, "tuned_on": args.tune, "settings": asdict(settings),
           "untuned": {repo: report(c, UNTUNED) for repo, c in cases.items()},
           "defaults_before": {"settings": asdict(RankingSettings()),
                               **{repo: report(c, RankingSettings()) for repo, c in cases.items()}},
           "tuned": {args.tune: tuned, args.check: report(cases[args.check], settings)},
           # the docstring rerank's grid on top of the tuned fusion and prior
           "doc_settings": {k: getattr(doc_settings, k) for k in DOC_GRID},
           "doc_tuned": {args.tune: doc_tuned, args.check: report(cases[args.check], doc_settings)}}
    return print_json(doc, args.out)


if __name__ == "__main__":
    sys.exit(main())
