"""`branchwise stats`: failure statistics of past sessions, and whether to re-index; with
`--used`, the versions the sessions took as `use` most often, verified now."""

from __future__ import annotations

from branchwise.errors import UsageError
from branchwise.review import stats, usage
from branchwise.review.desk import Review
from branchwise_cli.common import EXIT_OK, as_user, echo_text, index_option, json_option, print_json, workspace

NAME = "stats"
HELP = "failure statistics of past sessions, and whether to re-index (--used: the most used versions)"


def add_arguments(p) -> None:
    p.add_argument("--repo", metavar="REPO",
                   help="only this repository's sessions, and its re-index advice (default: with --index, "
                        "every repository of that index; else the repository around the current directory)")
    index_option(p)
    as_user(p)
    p.add_argument("--used", action="store_true",
                   help="list the versions most often taken as `use` (bundles, `use` labels), with their verdict now")
    p.add_argument("--branch", metavar="NAME", help="with --used: only sessions on this branch (default: all)")
    p.add_argument("--limit", type=int, default=20, metavar="N", help="with --used: list at most N versions")
    json_option(p)


def run(args) -> int:
    if args.used:
        return _used(args)
    if args.branch is not None:
        raise UsageError("--branch goes with --used (the failure statistics cover every branch)")
    one = args.repo or not args.index  # default: the repository around the current directory
    summary = workspace(args, reader=True).review.statistics() if one else Review.index_statistics(args.index, user=args.user)
    if args.json:
        print_json(summary)
    else:
        echo_text(stats.render_text(summary))
    return EXIT_OK


def _used(args) -> int:
    if isinstance(args.limit, bool) or args.limit < 1:
        raise UsageError(f"--limit must be a whole number of at least 1, not {args.limit}")
    report = workspace(args, reader=True).review.used_versions(args.branch, args.limit)
    if args.json:
        print_json(report, schema="stats-used")
    else:
        echo_text(usage.render_used(report))
    return EXIT_OK
