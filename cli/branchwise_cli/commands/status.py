"""`branchwise status`: what the index covers, per repository and branch, and how current it is."""

from __future__ import annotations

from branchwise.review.status import render_text
from branchwise.workspace import Workspace
from branchwise_cli.common import EXIT_OK, as_user, echo_text, index_option, json_option, print_json

NAME = "status"
HELP = "what the index covers: branches against their tips, skipped files, stale records"


def add_arguments(p) -> None:
    p.add_argument("--repo", metavar="REPO",
                   help="one repository (default: every repository in --index, else the one around the "
                        "current directory)")
    index_option(p)
    as_user(p)
    json_option(p)


def run(args) -> int:
    if args.repo or not args.index:
        workspaces = [Workspace(args.repo, args.index, user=args.user)]
    else:
        workspaces = Workspace.readable_in_index(args.index, user=args.user)
    statuses = [ws.status() for ws in workspaces]
    if args.json:
        print_json({"repositories": statuses})
    else:
        echo_text("\n\n".join(render_text(status) for status in statuses))
    return EXIT_OK
