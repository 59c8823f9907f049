"""`branchwise labels`: reviewer labels to and from TOML, for a team to keep in its repository."""

from __future__ import annotations

from pathlib import Path

from branchwise_cli.common import EXIT_OK, as_user, index_option, workspace

NAME = "labels"
HELP = "export or import reviewer labels as TOML"


def add_arguments(p) -> None:
    p.add_argument("action", choices=("export", "import"), help="export: write the labels to FILE; import: read them")
    p.add_argument("file", help="the labels file (TOML)")
    p.add_argument("--repo", default=".", metavar="REPO", help="path to the git repository")
    index_option(p)
    as_user(p)


def run(args) -> int:
    ws = workspace(args, reader=True)
    if args.action == "export":
        count = ws.export_labels(Path(args.file))
        print(f"exported {count} labels to {args.file}")
    else:
        count = ws.import_labels(Path(args.file))
        print(f"imported {count} labels from {args.file}")
    return EXIT_OK
