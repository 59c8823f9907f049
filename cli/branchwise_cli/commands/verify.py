"""`branchwise verify`: verdicts for a snippet list or a saved `search --json` output."""

from __future__ import annotations

from branchwise_cli.common import EXIT_OK, repo_option, as_user, echo, index_option, json_option, print_json, workspace

NAME = "verify"
HELP = "verify a snippet list or a saved `search --json` output"


def add_arguments(p) -> None:
    p.add_argument("snippets", help="file: `path<TAB>hash-prefix` lines, or search --json output ('-' for stdin)")
    repo_option(p)
    p.add_argument("--branch", metavar="NAME", help="branch to verify against (default: checked-out branch)")
    p.add_argument("--against", metavar="REV", help="verify against this revision instead")
    index_option(p)
    as_user(p)
    json_option(p)


def run(args) -> int:
    rows = workspace(args).verify_snippets(args.snippets, branch=args.branch, against=args.against)
    if args.json:
        print_json(rows)
    else:
        for row in rows:
            echo(f"{row['verdict']:<15} {_where(row)}  {row['reason']}")
    return EXIT_OK


def _where(row: dict) -> str:
    """`path::qualified_name` for a saved search result; a snippet line names a file only."""
    name = row.get("qualified_name")
    return f"{row['path']}::{name}" if name else row["path"]
