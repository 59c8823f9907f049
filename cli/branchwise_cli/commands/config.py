"""`branchwise config`: the settings a command would use here, and which layer set each one.

Settings come from five layers (flags > environment > the index's config.toml > the user's
config.toml > defaults, see branchwise.config); when a search uses a model or a backend one
did not expect, this says where it came from. The Qdrant API key is never printed.
"""

from __future__ import annotations

from branchwise.config import Config
from branchwise.git.repo import GitRepo
from branchwise.git.standpoint import enclosing_repository
from branchwise.store.database import resolve_index_dir
from branchwise_cli.common import EXIT_OK, as_user, echo, index_option, json_option, print_json

NAME = "config"
HELP = "print the resolved settings and where each came from (flags, environment, index or user config, default)"

_SECRET = ("qdrant_api_key",)


def add_arguments(p) -> None:
    p.add_argument("--repo", metavar="REPO",
                   help="the repository whose index is meant (its .git/branchwise unless --index; default: "
                        "the one around the current directory)")
    index_option(p)
    as_user(p)
    json_option(p)


def run(args) -> int:
    index_dir = resolve_index_dir(args.index, None if args.index else GitRepo(args.repo or enclosing_repository()).git_dir)
    settings = [(name, "(set)" if name in _SECRET and value else value, source)
                for name, value, source in Config.explain(index_dir, {"user": args.user})]
    if args.json:
        print_json({"index": str(index_dir),
                    "settings": {name: {"value": value, "source": source} for name, value, source in settings}})
        return EXIT_OK
    width = max(len(name) for name, _, _ in settings)
    echo(f"index: {index_dir}")
    for name, value, source in settings:
        echo(f"{name:<{width}}  {value!r}  ({source})")
    return EXIT_OK
