"""`branchwise export`: a verified context bundle for one query."""

from __future__ import annotations

from pathlib import Path

from branchwise_cli.common import EXIT_OK, as_user, backend, repo_branch, request, search_options, workspace

NAME = "export"
HELP = "write a verified context bundle for a query"


def add_arguments(p) -> None:
    p.add_argument("query")
    repo_branch(p, required=True)
    search_options(p)
    backend(p)
    as_user(p)
    p.add_argument("--out", required=True, help="Markdown bundle to write (a manifest goes beside it)")
    p.add_argument("--allow-secrets", action="store_true", help="write even if secrets are detected")


def run(args) -> int:
    report = workspace(args).export(request(args, args.query), Path(args.out), against=args.against,
                                    allow_secrets=args.allow_secrets)
    print(report.summary_line())
    return EXIT_OK
