"""`branchwise review`: the review app (the only command that loads Textual)."""

from __future__ import annotations

from branchwise.errors import UsageError
from branchwise_cli.common import EXIT_OK, as_user, backend, repo_branch, workspace

NAME = "review"
HELP = "open the review app"


def add_arguments(p) -> None:
    p.add_argument("query", nargs="?", default="")
    repo_branch(p, required=False)
    backend(p)
    p.add_argument("--scope", choices=("branch", "all"), default="branch")
    p.add_argument("--diff", metavar="BRANCH", help="review what BRANCH changed against --base, symbol by symbol")
    p.add_argument("--base", help="with --diff: the base branch or revision (default: main, else master)")
    p.add_argument("--tour", metavar="TOUR", help="play a tour (a file, or a name under .branchwise/tours/)")
    as_user(p)


def run(args) -> int:
    from branchwise_tui.app import create_app

    ws = workspace(args)
    ws.restriction  # refuse a forbidden repository before the app starts
    branch = args.branch or ws.repo.current_branch()
    if branch is None:
        raise UsageError("HEAD is detached or the repository is bare: name a --branch")
    if args.diff and args.tour:
        raise UsageError("give --diff or --tour, not both")
    if args.base and not args.diff:
        raise UsageError("--base goes with --diff")
    tour = None
    if args.tour:
        from branchwise.tours import load_tour, resolve_tour_path

        tour = load_tour(resolve_tour_path(args.tour, ws.repo.work_tree))
    if args.diff:
        ws.repo.resolve_branch(args.diff)
    create_app(ws, branch=branch, query=args.query, scope=args.scope,
               diff=(args.diff, args.base) if args.diff else None, tour=tour).run()
    return EXIT_OK
