"""`branchwise review`: the review app (the only command that loads Textual).

Everything that can be refused is refused here, as one line and exit code 2, before the app
takes the terminal: no terminal at all, no index, a branch that is not indexed.
"""

from __future__ import annotations

import sys

from branchwise.errors import UsageError
from branchwise_cli.common import EXIT_OK, as_user, backend, reading_branch, repo_branch, scope_option, workspace

NAME = "review"
HELP = "open the review app"


def add_arguments(p) -> None:
    p.add_argument("query", nargs="?", default="", help="a question to search at once (default: type it in the app)")
    repo_branch(p)
    backend(p)
    scope_option(p)
    p.add_argument("--diff", metavar="BRANCH", help="review what BRANCH changed against --base, symbol by symbol")
    p.add_argument("--base", metavar="REF", help="with --diff: the base branch or revision (default: main, else master)")
    p.add_argument("--tour", metavar="TOUR", help="play a tour (a file, or a name under .branchwise/tours/)")
    as_user(p)


def run(args) -> int:
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        raise UsageError("review needs a terminal (for scripts: branchwise search or export)")
    ws = workspace(args, reader=True)
    ws.restriction  # refuse a forbidden repository before the app starts
    if args.diff and args.tour:
        raise UsageError("give --diff or --tour, not both")
    if args.base and not args.diff:
        raise UsageError("--base goes with --diff")
    tour = None
    if args.tour:
        from branchwise.review.tours import load_tour, resolve_tour_path

        tour = load_tour(resolve_tour_path(args.tour, ws.repo.work_tree))
    if args.diff:
        args.diff = ws.repo.branch_name(args.diff)
        branch = args.branch or ws.standpoint().branch
    else:
        branch = reading_branch(args, ws)
    from branchwise_tui.app import create_app
    from branchwise_tui.runner import run_app

    run_app(create_app(ws, branch=branch, query=args.query.strip(), scope=args.scope,
                       diff=(args.diff, args.base) if args.diff else None, tour=tour))
    return EXIT_OK  # not reached: run_app ends the process
