"""`branchwise search`: verified results for one query or a file of queries."""

from __future__ import annotations

import dataclasses
import sys

from branchwise.errors import UsageError
from branchwise.models import Result
from branchwise.search.coverage import coverage_note
from branchwise.wording import plural
from branchwise_cli.common import (EXIT_OK, Waiting, as_user, backend, echo, json_option, print_json, read_queries,
                                   reading_branch, repo_branch, request, search_options, workspace)
from branchwise_cli.result_text import colour_wanted, result_lines, vimgrep_line

NAME = "search"
#: lines of code under each result in text output, unless --lines or --full says otherwise
DEFAULT_LINES = 3
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
    p.add_argument("--full", action="store_true",
                   help="every result with its full text (--detail full), printed whole in text output")
    p.add_argument("--lines", type=int, default=DEFAULT_LINES, metavar="N",
                   help="text output: the first N lines of each result's code (0: none)")
    p.add_argument("--vimgrep", action="store_true",
                   help="one line per result, `path:line:column:verdict symbol: first line of code`, "
                        "for editors (vim's quickfix) and pipes")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the code in text output: on a terminal without NO_COLOR (auto), always, or never")
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
    if args.lines < 0:
        raise UsageError(f"--lines must be 0 or more, not {args.lines}")
    if args.vimgrep and args.json:
        raise UsageError("give --json or --vimgrep, not both")
    requests = [dataclasses.replace(request(args, query), detail=detail) for query in queries]
    ws = workspace(args, reader=True)
    branch = reading_branch(args, ws)
    requests = [dataclasses.replace(one, branch=branch) for one in requests]
    target = ws.target_commit(args.branch, args.against)
    note = ws.review.results_note(args.branch) if not args.json else None
    for number, (query, one) in enumerate(zip(queries, requests)):
        with Waiting("loading the model and searching" if number == 0 else "searching"):
            results = ws.search(one, args.against)
        if not args.no_stats:
            ws.review.record_session("search", args.branch, results, target_commit=target)
        coverage = ws.dense_coverage(args.branch)
        if args.json:
            print_json({"query": query, "branch": args.branch, "target_commit": target,
                        "results": [r.to_json() for r in results],
                        "dense_coverage": coverage.to_json() if coverage is not None else None})
        elif args.vimgrep:  # one line per result for an editor or a pipe; what else is said, on stderr
            echo(*(vimgrep_line(r) for r in results))
            for line in (note, coverage_note(coverage)):
                if line is not None:
                    echo(f"branchwise: {line}", file=sys.stderr)
        else:
            _print_results(query, args.branch, results, coverage_note(coverage), note,
                           None if args.full else args.lines, colour_wanted(args.color, sys.stdout))
    return EXIT_OK


def _print_results(query: str, branch: str, results: list[Result], note: str | None = None,
                   index_note: str | None = None, lines: int | None = DEFAULT_LINES, colour: bool = False) -> None:
    echo(f"# {query}  ({branch}, {plural(len(results), 'result')})")
    for line in (index_note, note):
        if line is not None:
            echo(f"# {line}")
    for r in results:
        if colour:  # escaped line by line before the colour went on
            print("\n".join(result_lines(r, branch, lines, colour=True)))
        else:
            echo(*result_lines(r, branch, lines))
