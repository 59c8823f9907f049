"""`branchwise search`: verified results for one query or a file of queries."""

from __future__ import annotations

import dataclasses

from branchwise.coverage import coverage_note
from branchwise.errors import UsageError
from branchwise.models import Result
from branchwise.wording import plural
from branchwise_cli.common import (EXIT_OK, Waiting, as_user, backend, echo, json_option, print_json,
                                   reading_branch, read_queries, repo_branch, request, search_options, workspace)

NAME = "search"
HELP = "search one branch (or all history) of an indexed repository"


def add_arguments(p) -> None:
    p.add_argument("query", nargs="?", help="what to look for, in words (or give --queries)")
    p.add_argument("--queries", metavar="FILE", help="file with one query per line, '-' for stdin (JSON Lines output)")
    repo_branch(p)
    search_options(p)
    backend(p)
    as_user(p)
    p.add_argument("--detail", choices=("outline", "full", "signature"), default="outline",
                   help="what each result carries: 'outline' (a large class as its outline, the rest in "
                        "full), 'full' text, or only the 'signature'")
    p.add_argument("--full", action="store_true", help="every result with its full text (--detail full)")
    p.add_argument("--no-stats", action="store_true",
                   help="do not append this search to the failure-statistics log (stats.jsonl)")
    json_option(p)


def run(args) -> int:
    if args.queries:
        queries = read_queries(args.queries)
    elif args.query is not None:
        queries = [args.query]
    else:
        raise UsageError("give a QUERY or --queries FILE")
    detail = "full" if args.full else args.detail
    requests = [dataclasses.replace(request(args, query), detail=detail) for query in queries]
    ws = workspace(args, reader=True)
    branch = reading_branch(args, ws)
    requests = [dataclasses.replace(one, branch=branch) for one in requests]
    target = ws.target_commit(args.branch, args.against)
    note = ws.results_note(args.branch) if not args.json else None
    for number, (query, one) in enumerate(zip(queries, requests)):
        with Waiting("loading the model and searching" if number == 0 else "searching"):
            results = ws.search(one, args.against)
        if not args.no_stats:
            ws.record_session("search", args.branch, results, target_commit=target)
        coverage = ws.dense_coverage(args.branch)
        if args.json:
            print_json({"query": query, "branch": args.branch, "target_commit": target,
                        "results": [r.to_json() for r in results],
                        "dense_coverage": coverage.to_json() if coverage is not None else None})
        else:
            _print_results(query, args.branch, results, coverage_note(coverage), note)
    return EXIT_OK


def _print_results(query: str, branch: str, results: list[Result], note: str | None = None,
                   index_note: str | None = None) -> None:
    echo(f"# {query}  ({branch}, {plural(len(results), 'result')})")
    for line in (index_note, note):
        if line is not None:
            echo(f"# {line}")
    for r in results:
        where = f"{r.path}#L{r.start_line}-L{r.end_line}"
        label = f" [{r.label.value}]" if r.label else ""
        verdict = r.verdict.value if r.verdict else "?"
        echo(f"{r.rank:>3}. {verdict:<15} {where}  {r.identity.qualified_name}  "
             f"({r.branch} @ {r.commit[:7]}){label}")
        if r.reason:
            echo(f"     {r.reason}")
        if r.text_kind != "full":
            echo(f"     carries its {r.text_kind} (--full for the whole text)")
