"""What several commands share: option groups, the workspace they open, and output helpers.

Progress goes to stderr, and only when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from branchwise.errors import UsageError
from branchwise.search import SearchRequest
from branchwise.workspace import Workspace

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own usage errors: one line, exit 2
        raise UsageError(f"{self.prog}: {message}")


# option groups ---------------------------------------------------------------------------


def repo_branch(p: argparse.ArgumentParser, required: bool) -> None:
    p.add_argument("--repo", required=required, default=None if required else ".")
    p.add_argument("--branch", required=required)
    p.add_argument("--index")


def backend(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("faiss", "qdrant"),
                   help="where the searchable index lives (default: the index's config.toml, else faiss)")
    p.add_argument("--qdrant-url", metavar="URL", help="a Qdrant server (implies --backend qdrant)")
    p.add_argument("--qdrant-path", metavar="DIR", help="Qdrant's local mode in DIR, for trials and tests")


def as_user(p: argparse.ArgumentParser) -> None:
    p.add_argument("--as", dest="user", metavar="USER",
                   help="read as this user of the index's access.toml (default: $BRANCHWISE_USER, "
                        "else the OS user)")


def search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--top-k", type=int, default=10, metavar="N",
                   help="up to N results of the branch (default 10); with --scope all, up to N/2 history "
                        "results after them; then up to N/2 excluded results (generated, vendored, fixture, "
                        "backup code ranked among them), listed for the record and never usable")
    p.add_argument("--language")
    p.add_argument("--path-prefix")
    p.add_argument("--symbol-type")
    p.add_argument("--path-class")
    p.add_argument("--scope", choices=("branch", "all"), default="branch")
    p.add_argument("--mode", choices=("fused", "dense", "lexical"), default="fused")
    p.add_argument("--against", help="verify against this revision instead of the work tree / tip")


# from arguments to the core ----------------------------------------------------------------


def workspace(args: argparse.Namespace) -> Workspace:
    """The workspace the arguments name, with their backend and user choices (where given)."""
    choices = {"kind": getattr(args, "backend", None), "url": getattr(args, "qdrant_url", None),
               "path": getattr(args, "qdrant_path", None)}
    return Workspace(args.repo, getattr(args, "index", None), user=getattr(args, "user", None), backend=choices)


def request(args: argparse.Namespace, query: str) -> SearchRequest:
    if args.top_k < 1:
        raise UsageError("--top-k must be at least 1")
    return SearchRequest(
        query=query, branch=args.branch, top_k=args.top_k, scope=args.scope,
        language=args.language, path_prefix=args.path_prefix, symbol_type=args.symbol_type,
        path_class=args.path_class, mode=args.mode,
    )


# output ----------------------------------------------------------------------------------


def print_json(data) -> None:
    print(json.dumps(data, ensure_ascii=False))


def read_queries(path: str) -> list[str]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read queries from {path}: {error}") from None
    return [line.strip() for line in text.splitlines() if line.strip()]


def progress_bar():
    if not sys.stderr.isatty():
        return None

    def show(stage: str, done: int, total: int) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\r{stage:<6} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show
