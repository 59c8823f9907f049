"""`branchwise diff`: what a branch changed, symbol by symbol, with impact context on the base.

Text output starts with the summary and lists the changes in reading order with their first
callers (diff_render.py); `--format markdown` is a pull-request comment for CI; `--json`
prints the contract's object (with `impact_hits`, `callers_total` and the `summary`). When the
branch is an ancestor of the base (or the same commit) it says so and suggests the swapped
command, and exits 0.
"""

from __future__ import annotations

import sys

from branchwise_cli.common import EXIT_OK, repo_option, as_user, backend, echo, index_option, json_option, print_json, workspace
from branchwise_cli.diff_render import render_markdown, render_text

NAME = "diff"
HELP = "what a branch changed, symbol by symbol, with impact context"
FORMATS = ("text", "markdown")


def add_arguments(p) -> None:
    p.add_argument("diff_branch", metavar="BRANCH", help="the branch whose changes to list")
    p.add_argument("--base", help="base branch or revision (default: main, else master)")
    repo_option(p)
    index_option(p)
    p.add_argument("--no-impact", action="store_true", help="skip the impact context (faster)")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="text for a terminal, markdown for a pull-request comment (default: text)")
    backend(p)
    as_user(p)
    json_option(p)


def run(args) -> int:
    progress = _Progress() if sys.stderr.isatty() and not args.json else None
    try:
        diff = workspace(args).diff(args.diff_branch, args.base, impact=not args.no_impact, progress=progress)
    finally:
        if progress is not None:
            progress.clear()
    if args.json:
        print_json(diff.to_json())
    elif args.format == "markdown":
        sys.stdout.write(render_markdown(diff))
    else:
        echo(*render_text(diff).split("\n"))
    return EXIT_OK


class _Progress:
    """One line on a terminal's stderr: the stage and its count."""

    def __call__(self, stage: str, done: int, total: int) -> None:
        count = f" {done}/{total}" if total else ""
        sys.stderr.write(f"\r\x1b[2K{stage}{count}")
        sys.stderr.flush()

    def clear(self) -> None:
        sys.stderr.write("\r\x1b[2K")
        sys.stderr.flush()
