"""`branchwise completion bash|zsh|fish`: print the shell's completion script (see docs/configuration.md)."""

from __future__ import annotations

from branchwise_cli.common import EXIT_OK
from branchwise_cli.completion import SHELLS, script

NAME = "completion"
HELP = "print a shell completion script: bash, zsh or fish (commands, options, branch names, languages)"


def add_arguments(p) -> None:
    p.add_argument("shell", choices=SHELLS, help="the shell to complete for")


def run(args) -> int:
    from branchwise_cli.main import build_parser  # the parser that holds every command

    print(script(args.shell, build_parser()), end="")
    return EXIT_OK
