"""`branchwise mcp`: serve the index to coding agents over the Model Context Protocol (stdio)."""

from __future__ import annotations

from branchwise_cli.common import EXIT_OK, as_user, backend, index_option

NAME = "mcp"
HELP = "serve the index to coding agents over MCP (stdio), the model kept warm"


def add_arguments(p) -> None:
    p.add_argument("--repo", action="append", default=[], metavar="REPO",
                   help="repository to serve (repeatable; default: every repository in --index, else the one "
                        "around the current directory)")
    index_option(p)
    backend(p)
    as_user(p)
    p.add_argument("--refresh", action="store_true",
                   help="re-index a branch in the background when its tip moves")


def run(args) -> int:
    from branchwise.mcp_server.server import serve

    choices = {"kind": args.backend, "url": args.qdrant_url, "path": args.qdrant_path}
    serve(repos=args.repo, index=args.index, user=args.user, backend=choices, refresh=args.refresh)
    return EXIT_OK
