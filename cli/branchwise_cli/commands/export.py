"""`branchwise export`: a verified context bundle for one query."""

from __future__ import annotations

from pathlib import Path

from branchwise_cli.common import (EXIT_OK, Waiting, as_user, backend, echo, reading_branch, repo_branch, request,
                                   search_options, workspace)

NAME = "export"
HELP = "write a verified context bundle for a query"


def add_arguments(p) -> None:
    p.add_argument("query", help="what to look for, in words")
    repo_branch(p)
    search_options(p)
    backend(p)
    as_user(p)
    p.add_argument("--out", required=True, metavar="FILE", help="bundle file to write (a manifest goes beside it)")
    p.add_argument("--format", choices=("markdown", "xml", "json"), default="markdown",
                   help="markdown (default), xml (one <chunk> per chunk, header fields as attributes) or json")
    p.add_argument("--max-tokens", type=int, metavar="N",
                   help="keep the best chunks that fit in N tokens; the rest are left out for `budget`")
    p.add_argument("--reference-as", choices=("code", "outline"), default="code",
                   help="reference-only chunks as code (default) or as an outline: signatures, docstrings "
                        "and comments, no body")
    p.add_argument("--class-outline", action="store_true",
                   help="a method shown without its class carries the class's outline (signatures, "
                        "docstrings, comments) as context, not only the class line")
    p.add_argument("--force", action="store_true", help="overwrite an existing bundle or manifest")
    p.add_argument("--allow-secrets", action="store_true", help="write even if secrets are detected")
    p.add_argument("--no-stats", action="store_true",
                   help="do not append this export to the failure-statistics log (stats.jsonl)")


def run(args) -> int:
    request(args, args.query)  # bad input is refused before the repository is opened
    ws = workspace(args, reader=True)
    reading_branch(args, ws)
    one = request(args, args.query)
    with Waiting("loading the model, searching and writing the bundle"):
        report = ws.review.export(one, Path(args.out), against=args.against, allow_secrets=args.allow_secrets,
                           force=args.force, record_stats=not args.no_stats, format=args.format, max_tokens=args.max_tokens,
                           reference_as=args.reference_as, class_outline=args.class_outline)
    echo(report.summary_line())
    note = ws.review.results_note(args.branch)
    if note is not None:
        echo(note)
    return EXIT_OK
