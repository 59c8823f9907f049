"""The `branchwise` command line: the contract other tools and agents call.

Command names, options and JSON fields follow ../shared/DESIGN.md. Every failure the user
can act on is one line on stderr and an exit code (1: the work failed, 2: bad usage or
input); only `review` loads the Textual app, lazily, so the other commands start fast.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sqlite3
import sys
from pathlib import Path

from branchwise.errors import BranchwiseError, UsageError

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own usage errors: one line, exit 2
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="branchwise", description="Branch-aware, version-verified code search.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("index", help="index branches of a repository (incrementally)")
    p.add_argument("repo", help="path to the git repository")
    p.add_argument("--branch", action="append", default=[], help="branch to index (repeatable)")
    p.add_argument("--all-branches", action="store_true", help="index every local branch")
    p.add_argument("--index", help="index directory (default: inside the repository's .git)")
    p.add_argument("--wait", action="store_true", help="wait for another writer instead of failing")
    p.add_argument("--prune", action="store_true", help="forget indexed branches that no longer exist")
    p.add_argument("--gc", action="store_true", help="remove unused versions past their retention")
    p.add_argument("--rebuild", action="store_true", help="rebuild the vectors (file or server) from the database")
    p.add_argument("--stale-only", action="store_true",
                   help="only re-parse files whose records failed verification, at the indexed commit")
    _backend(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("search", help="search one branch (or all history) of an indexed repository")
    p.add_argument("query", nargs="?")
    p.add_argument("--queries", help="file with one query per line (JSON Lines output)")
    _repo_branch(p, required=True)
    _search_options(p)
    _backend(p)
    _as_user(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("inspect", help="print a branch's live set")
    _repo_branch(p, required=True)
    _backend(p)
    _as_user(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("verify", help="verify a snippet list or a saved `search --json` output")
    p.add_argument("snippets", help="file: `path<TAB>hash-prefix` lines, or search --json output ('-' for stdin)")
    p.add_argument("--repo", default=".")
    p.add_argument("--branch", help="branch to verify against (default: checked-out branch)")
    p.add_argument("--against", help="verify against this revision instead")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("review", help="open the review app")
    p.add_argument("query", nargs="?", default="")
    _repo_branch(p, required=False)
    _backend(p)
    p.add_argument("--scope", choices=("branch", "all"), default="branch")
    _as_user(p)

    p = sub.add_parser("export", help="write a verified context bundle for a query")
    p.add_argument("query")
    _repo_branch(p, required=True)
    _search_options(p)
    _backend(p)
    _as_user(p)
    p.add_argument("--out", required=True, help="Markdown bundle to write (a manifest goes beside it)")
    p.add_argument("--allow-secrets", action="store_true", help="write even if secrets are detected")

    p = sub.add_parser("stats", help="failure statistics of past sessions, and whether to re-index")
    p.add_argument("--repo")
    p.add_argument("--index")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("status", help="what the index covers: branches, freshness, skipped files, stale records")
    p.add_argument("--repo", help="one repository (default: every repository in --index)")
    p.add_argument("--index")
    _as_user(p)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("mcp", help="serve the index to coding agents over MCP (stdio)")
    p.add_argument("--repo", action="append", default=[],
                   help="repository to serve (repeatable; default: every repository in --index, else .)")
    p.add_argument("--index")
    _backend(p)
    _as_user(p)
    p.add_argument("--refresh", action="store_true",
                   help="re-index a branch in the background when its tip moves")

    p = sub.add_parser("labels", help="export or import reviewer labels as TOML")
    p.add_argument("action", choices=("export", "import"))
    p.add_argument("file")
    p.add_argument("--repo", default=".")
    p.add_argument("--index")
    return parser


def _repo_branch(p: argparse.ArgumentParser, required: bool) -> None:
    p.add_argument("--repo", required=required, default=None if required else ".")
    p.add_argument("--branch", required=required)
    p.add_argument("--index")


def _backend(p: argparse.ArgumentParser) -> None:
    p.add_argument("--backend", choices=("faiss", "qdrant"),
                   help="where the searchable index lives (default: the index's config.toml, else faiss)")
    p.add_argument("--qdrant-url", metavar="URL", help="a Qdrant server (implies --backend qdrant)")
    p.add_argument("--qdrant-path", metavar="DIR", help="Qdrant's local mode in DIR, for trials and tests")


def _as_user(p: argparse.ArgumentParser) -> None:
    p.add_argument("--as", dest="user", metavar="USER",
                   help="read as this user of the index's access.toml (default: $BRANCHWISE_USER, "
                        "else the OS user)")


def _search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--top-k", type=int, default=10)
    p.add_argument("--language")
    p.add_argument("--path-prefix")
    p.add_argument("--symbol-type")
    p.add_argument("--path-class")
    p.add_argument("--scope", choices=("branch", "all"), default="branch")
    p.add_argument("--mode", choices=("fused", "dense", "lexical"), default="fused")
    p.add_argument("--against", help="verify against this revision instead of the work tree / tip")


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        handler = importlib.import_module("branchwise.commands")
        return getattr(handler, f"run_{args.command}")(args)
    except BranchwiseError as error:
        print(f"branchwise: {error}", file=sys.stderr)
        return error.exit_code
    except sqlite3.DatabaseError as error:  # corruption found by a query, after the database opened
        print(f"branchwise: index database is damaged: {error} (re-create it with "
              "`branchwise index --index NEWDIR`)", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("branchwise: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


def print_json(data) -> None:
    print(json.dumps(data, ensure_ascii=False))


def read_queries(path: str) -> list[str]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read queries from {path}: {error}") from None
    return [line.strip() for line in text.splitlines() if line.strip()]


if __name__ == "__main__":
    sys.exit(main())
