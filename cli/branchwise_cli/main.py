"""The entry point: build the parser from the registry, run one command, turn failures into
exit codes. Every failure the user can act on is one line on stderr and an exit code (1: the
work failed, 2: bad usage or input); only `review` loads the Textual app, lazily.
"""

from __future__ import annotations

import argparse
import importlib
import sqlite3
import sys
from types import ModuleType

from branchwise_cli import blas_threads

blas_threads.limit(sys.argv[1:])  # before anything below loads numpy

from branchwise import __version__  # noqa: E402
from branchwise.display import escape_controls
from branchwise.errors import BranchwiseError
from branchwise.git.names import canonical_name
from branchwise.store import database_error
from branchwise.suggest import closest
from branchwise_cli.common import EXIT_FAILED, EXIT_OK, Parser, name_output
from branchwise_cli.registry import COMMANDS


def command_modules(names: list[str] = COMMANDS) -> list[ModuleType]:
    return [importlib.import_module(f"branchwise_cli.commands.{name}") for name in names]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of `command` alone: a command's module imports what the
    command runs on, so a `search` does not load the modules of `diff` or `review`."""
    parser = Parser(prog="branchwise", description="Branch-aware, version-verified code search.")
    parser.add_argument("--version", action="version", version=f"branchwise {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")
    for module in command_modules([command] if command in COMMANDS else COMMANDS):
        module.add_arguments(sub.add_parser(module.NAME, help=module.HELP, description=module.HELP,
                                            add_help=not getattr(module, "OWN_HELP", False)))
        sub.choices[module.NAME].set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        words = sys.argv[1:] if argv is None else argv
        args = _parse(build_parser(words[0] if words else None), argv)
        _names_as_text(args)
        name_output(args)
        return args.run(args)
    except BranchwiseError as error:
        print(f"branchwise: {escape_controls(error)}", file=sys.stderr)
        return error.exit_code
    except sqlite3.DatabaseError as error:  # found by a query, after the database opened
        print(f"branchwise: {escape_controls(database_error(error))}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("branchwise: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


def _parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """The arguments; an unknown option is refused by its subcommand's parser (its usage, and the
    closest of its options: `--brnch` -> `--branch`), not by the top level's."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        command = _subcommands(parser).get(str(getattr(args, "command", "")), parser)
        options = [flag for action in command._actions for flag in action.option_strings]
        typo = next((word.partition("=")[0] for word in extra if word.startswith("-")), "")
        hint = closest(typo, options) if typo else ""
        command.error(f"unrecognized arguments: {' '.join(extra)}" + (f" ({hint})" if hint else ""))
    return args


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return next(a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction))


#: the arguments that name branches, revisions or repository paths
_NAME_ARGUMENTS = ("branch", "base", "against", "diff_branch", "diff", "path_prefix")


def _names_as_text(args: argparse.Namespace) -> None:
    """Branch and path arguments in the text form the index keeps (gitnames.py): a name typed
    as raw bytes on the command line and one typed as its `\\xHH` escape are the same name."""
    for key in _NAME_ARGUMENTS:
        value = getattr(args, key, None)
        if isinstance(value, str):
            setattr(args, key, canonical_name(value))
        elif isinstance(value, list):
            setattr(args, key, [canonical_name(v) if isinstance(v, str) else v for v in value])


if __name__ == "__main__":
    sys.exit(main())
