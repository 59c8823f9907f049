"""`branchwise inspect`: a branch's live set."""

from __future__ import annotations

from branchwise_cli.common import EXIT_OK, as_user, backend, echo, json_option, print_json, reading_branch, repo_branch, workspace

NAME = "inspect"
HELP = "print a branch's live set"


def add_arguments(p) -> None:
    repo_branch(p)
    backend(p)
    as_user(p)
    json_option(p)


def run(args) -> int:
    ws = workspace(args, reader=True)
    rows = ws.inspect(reading_branch(args, ws))
    if args.json:
        print_json(rows)
    else:
        for row in rows:
            echo(f"{row['path']}:{row['start_line']}-{row['end_line']}  {row['symbol_type']:<9} "
                 f"{row['qualified_name']}  {row['content_hash'][:12]}")
    return EXIT_OK
