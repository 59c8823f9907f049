"""What several commands share: option groups, the workspace they open, and output helpers.

Every option has help text, and the help shows its default (`Formatter`); filters with a fixed
vocabulary take only its values, so a typo is refused with the list instead of matching nothing.
Progress and waiting messages go to stderr, and only when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from branchwise.display import escape_controls, escape_text, safe_json
from branchwise.errors import UsageError
from branchwise.search.arguments import choice_problem, valid_values
from branchwise.search.hybrid import SearchRequest, check_top_k
from branchwise.workspace import Workspace

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class Formatter(argparse.HelpFormatter):
    """Help lines end with the option's default, unless it has none or the text names it."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if (default not in (None, False, argparse.SUPPRESS, [], "") and "default" not in text
                and action.option_strings):
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        """argparse's own usage errors: one line (the entry point adds `branchwise: `), exit 2."""
        command = self.prog.removeprefix("branchwise").strip()
        where = f"{command}: " if command else ""
        raise UsageError(f"{where}{message} (see `{self.prog} --help`)")


def choices_of(name: str):
    """An argparse `type` for the filter `name` that refuses a value outside its vocabulary
    with the list, in the words every caller gets (branchwise.search.arguments)."""
    def check(value: str) -> str:
        problem = choice_problem(name, value)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem)
        return value

    check.__name__ = name.replace("_", " ")
    check.choices = valid_values(name)  # type: ignore[attr-defined]  # read by shell completion
    return check


# option groups ---------------------------------------------------------------------------


def repo_branch(p: argparse.ArgumentParser) -> None:
    repo_option(p)
    p.add_argument("--branch", metavar="NAME",
                   help="the branch to search: `main`, `release/v2`, `origin/release/v2` (default: the "
                        "checked-out branch)")
    index_option(p)


def repo_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--repo", metavar="REPO",
                   help="path to the git repository (default: the one around the current directory)")


def index_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--index", metavar="DIR", help="index directory (default: .git/branchwise in the repository)")


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
    p.add_argument("--language", type=choices_of("language"), metavar="LANG",
                   help=f"only this language: {', '.join(valid_values('language'))}")
    p.add_argument("--path-prefix", metavar="PREFIX", help="only paths under this prefix, e.g. src/orders/")
    p.add_argument("--symbol-type", type=choices_of("symbol_type"), metavar="TYPE",
                   help=f"only this kind of symbol: {', '.join(valid_values('symbol_type'))}")
    p.add_argument("--path-class", type=choices_of("path_class"), metavar="CLASS",
                   help=f"only this class of file: {', '.join(valid_values('path_class'))}")
    scope_option(p)
    p.add_argument("--mode", choices=("fused", "dense", "lexical"), default="fused",
                   help="ranking: dense and lexical fused, or one of them alone")
    p.add_argument("--against", metavar="REV", help="verify against this revision instead of the work tree / tip")


def scope_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scope", choices=("branch", "all"), default="branch",
                   help="the branch's live code, or every version the index holds (deleted code included)")


def json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON (the documented fields) instead of text")


# from arguments to the core ----------------------------------------------------------------


def workspace(args: argparse.Namespace, reader: bool = False) -> Workspace:
    """The workspace the arguments name, with their backend and user choices (where given).

    A `reader` (every command but `index`) refuses an index directory that holds no index
    instead of creating one: a mistyped --index must fail, not start an empty index. With the
    qdrant backend the index lives on the server, so a teammate's empty directory is fine.
    """
    choices = {"kind": getattr(args, "backend", None), "url": getattr(args, "qdrant_url", None),
               "path": getattr(args, "qdrant_path", None)}
    ws = Workspace(args.repo, getattr(args, "index", None), user=getattr(args, "user", None), backend=choices,
                   create=not reader)
    if reader:
        ws.require_readable()
    return ws


def reading_branch(args: argparse.Namespace, ws: Workspace) -> str:
    """The indexed branch `--branch` names (default: the checked-out one, with a note on stderr
    for a detached HEAD); `args.branch` is set to it."""
    if args.branch is None:
        note = ws.standpoint().note
        if note:
            echo(f"branchwise: {note}", file=sys.stderr)
    args.branch = ws.reading_branch(args.branch)
    return args.branch


def check_query(query: str) -> str:
    if not query.strip():
        raise UsageError("the query is blank: give words to search for")
    return query


def request(args: argparse.Namespace, query: str) -> SearchRequest:
    check_query(query)
    check_top_k(args.top_k)
    return SearchRequest(
        query=query, branch=args.branch, top_k=args.top_k, scope=args.scope,
        language=args.language, path_prefix=args.path_prefix, symbol_type=args.symbol_type,
        path_class=args.path_class, mode=args.mode,
    )


# output ----------------------------------------------------------------------------------


#: the JSON output's name for its schema: the command, and its action where it has one
OUTPUT_NAME = ["branchwise"]


def name_output(args: argparse.Namespace) -> None:
    action = getattr(args, "action", None)
    OUTPUT_NAME[0] = f"{args.command}-{action}" if isinstance(action, str) else args.command


def print_json(data, schema: str | None = None) -> None:
    """Print `data` as JSON; `schema` names the output when it differs from the command's
    (docs/schema/, checked under the test suite: see jsonschemas.py)."""
    text = safe_json(data)
    from branchwise_cli.jsonschemas import checked

    checked(schema or OUTPUT_NAME[0], text)
    print(text)


def echo(*lines: str, file=None) -> None:
    """Print each line with control characters from repository names escaped (display.py):
    every text line a command prints goes through here or `echo_text`."""
    for line in lines:
        print(escape_controls(line), file=file)


def echo_text(text: str, file=None) -> None:
    """Print a rendered block of lines (its own line breaks kept, every other control escaped)."""
    print(escape_text(text), file=file)


def read_queries(path: str) -> list[str]:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read queries from {path}: {error}") from None
    queries = [line.strip() for line in text.splitlines() if line.strip()]
    if not queries:
        raise UsageError(f"no queries in {path}: it is empty or blank (one query per line)")
    return queries


class Waiting:
    """`with Waiting("loading the model and searching"):` a note on a terminal while it lasts,
    erased when done, so a slow first search does not look like a hang; silent elsewhere."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.shown = sys.stderr.isatty()

    def __enter__(self) -> "Waiting":
        if self.shown:
            sys.stderr.write(f"branchwise: {self.what} …")
            sys.stderr.flush()
        return self

    def __exit__(self, *exc) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()
