"""`branchwise stats`: failure statistics of past sessions, and whether to re-index."""

from __future__ import annotations

from branchwise import stats
from branchwise.workspace import Workspace
from branchwise_cli.common import EXIT_OK, print_json, workspace

NAME = "stats"
HELP = "failure statistics of past sessions, and whether to re-index"


def add_arguments(p) -> None:
    p.add_argument("--repo")
    p.add_argument("--index")
    p.add_argument("--json", action="store_true")


def run(args) -> int:
    summary = workspace(args).statistics() if args.repo else Workspace.index_statistics(args.index)
    if args.json:
        print_json(summary)
    else:
        print(stats.render_text(summary))
    return EXIT_OK
