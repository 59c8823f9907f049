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
    as_user(p)


def run(args) -> int:
    from branchwise_tui.app import create_app

    ws = workspace(args)
    ws.restriction  # refuse a forbidden repository before the app starts
    branch = args.branch or ws.repo.current_branch()
    if branch is None:
        raise UsageError("HEAD is detached or the repository is bare: name a --branch")
    create_app(ws, branch=branch, query=args.query, scope=args.scope).run()
    return EXIT_OK
