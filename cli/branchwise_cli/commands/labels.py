"""`branchwise labels`: reviewer labels and pins: list them, clear a symbol's labels, pin or
unpin a symbol, and carry them to and from TOML, for a team to keep in its repository."""

from __future__ import annotations

from pathlib import Path

from branchwise.errors import UsageError
from branchwise.wording import plural
from branchwise_cli.common import (EXIT_OK, as_user, echo, index_option, json_option, print_json, reading_branch,
                                   repo_option, workspace)

NAME = "labels"
HELP = "list, clear, pin/unpin, export or import reviewer labels and pins (TOML)"


def add_arguments(p) -> None:
    p.add_argument("action", choices=("list", "clear", "pin", "unpin", "export", "import"),
                   help="list: the labels, notes and pins; clear SYMBOL: remove its labels and notes "
                        "(every version); "
                        "pin/unpin SYMBOL: offer it first on --branch (or stop); "
                        "export: write labels and pins to FILE; import: read them")
    p.add_argument("target", nargs="?", metavar="FILE|SYMBOL",
                   help="export/import: the labels file (TOML); clear/pin/unpin: PATH::QUALIFIED_NAME, "
                        "e.g. src/orders/services/order_service.py::OrderService.cancel_order")
    repo_option(p)
    p.add_argument("--branch", metavar="NAME",
                   help="pin/unpin: the branch whose searches it affects (default: the checked-out branch); "
                        "list: only this branch's pins")
    p.add_argument("--note", default="", help="pin: why it is pinned")
    p.add_argument("--force", action="store_true", help="export: overwrite an existing FILE")
    index_option(p)
    as_user(p)
    json_option(p)


def run(args) -> int:
    ws = workspace(args, reader=True)
    if args.action == "list":
        return _list(ws, args)
    if not args.target:
        what = "a labels file" if args.action in ("export", "import") else "a symbol as PATH::QUALIFIED_NAME"
        raise UsageError(f"labels {args.action} needs {what}")
    if args.action == "export":
        count = ws.review.export_labels(Path(args.target), force=args.force)
        pinned = len(ws.review.pins())
        pins = f" and {plural(pinned, 'pin')}" if pinned else ""
        echo(f"exported {plural(count, 'label')}{pins} to {args.target}")
    elif args.action == "import":
        count = ws.review.import_labels(Path(args.target))
        pinned = len(ws.review.pins())
        pins = f" ({plural(pinned, 'pin')} on record now)" if pinned else ""
        echo(f"imported {plural(count, 'label')} from {args.target}{pins}")
    else:
        path, sep, name = args.target.rpartition("::")
        if not sep or not path or not name:
            raise UsageError(f"name the symbol as PATH::QUALIFIED_NAME, not {args.target!r}")
        if args.action == "clear":
            cleared = ws.review.clear_labels(path, name)
            if not cleared:
                raise UsageError(f"{path}::{name} has no label")
            echo(f"cleared {plural(cleared, 'label')} of {path}::{name}")
            return EXIT_OK
        branch = reading_branch(args, ws)
        result = ws.live_symbol(branch, path, name)
        if args.action == "pin":
            ws.review.pin(result, branch, args.note)
            echo(f"pinned {path}::{name} on {branch}")
        elif ws.review.unpin(result, branch):
            echo(f"unpinned {path}::{name} on {branch}")
        else:
            raise UsageError(f"{path}::{name} is not pinned on {branch}")
    return EXIT_OK


def _list(ws, args) -> int:
    pins = ws.review.pins(args.branch)
    labels = ws.review.labels()
    if args.json:
        print_json({"repository": ws.repo.name,
                    "labels": labels,
                    "pins": [{"branch": p.branch, "path": p.path, "qualified_name": p.qualified_name,
                              "symbol_type": p.symbol_type, "language": p.language, "note": p.note,
                              "reviewer": p.reviewer, "pinned_at": p.pinned_at} for p in pins]})
        return EXIT_OK
    echo(f"pins ({len(pins)}; offered first when a search on their branch finds them):")
    echo(*(f"  PIN {p.branch}: {p.path}::{p.qualified_name}" + (f"  ({p.note})" if p.note else "") for p in pins))
    echo(f"labels ({len(labels)}):")
    echo(*(f"  {l['label'] or '(note only)':<14} {l['path']}::{l['qualified_name']} #{l['content_hash'][:8]}"
           + (f"  ({l['note']})" if l["note"] else "") for l in labels))
    return EXIT_OK
