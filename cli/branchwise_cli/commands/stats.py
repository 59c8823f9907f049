"""`branchwise stats`: failure statistics of past sessions, and whether to re-index."""

from __future__ import annotations

from branchwise import stats
from branchwise.workspace import Workspace
from branchwise_cli.common import EXIT_OK, as_user, index_option, json_option, print_json, workspace

NAME = "stats"
HELP = "failure statistics of past sessions, and whether to re-index"


def add_arguments(p) -> None:
    p.add_argument("--repo", metavar="REPO", help="only this repository's sessions (default: every repository of the index)")
    index_option(p)
    as_user(p)
    json_option(p)


def run(args) -> int:
    summary = workspace(args, reader=True).statistics() if args.repo else Workspace.index_statistics(args.index, user=args.user)
    if args.json:
        print_json(summary)
    else:
        print(stats.render_text(summary))
    return EXIT_OK
