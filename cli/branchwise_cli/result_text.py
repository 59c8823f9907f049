"""Search results as people and editors read them.

A person wants, per result, where it is in a form a terminal or an editor opens with a click
(`path:line:`, as grep -n and ripgrep print it), what it is, and its first lines of code; the
verdict's reason only when it says more than "current". An editor or a pipe wants one line per
result: ripgrep's `--vimgrep` form, `path:line:column:text`, which vim's quickfix list and
most editors read.

On a terminal the code lines are coloured by their language (pygments, which the review app's
Textual brings along), never in a pipe, with `NO_COLOR` set or `--color never`. Colour is laid
over text whose control characters were escaped first (display.py), so a repository's own
escape sequences still never reach the terminal.
"""

from __future__ import annotations

import os
import textwrap
from functools import lru_cache

from branchwise.display import escape_controls
from branchwise.models import Result, Verdict

#: code lines are indented under their header line
_INDENT = " " * 7
_TAB = 4


def location(result: Result) -> tuple[str, int]:
    """Where the result is cited (citation.cited_location, the rule every front end shares):
    the branch's own code that moved unchanged at its new place, code still in its file at its
    current lines, a history copy where it was indexed."""
    if result.current_start_line and (result.current_path == result.path
                                       or (result.moved_unchanged and not result.history)):
        return result.current_path or result.path, result.current_start_line
    return result.path, result.start_line


def code_of(result: Result) -> str:
    """The text the location shows: the current text where verification found it, else the
    text the result carries."""
    path, _line = location(result)
    return result.current_text if result.current_text is not None and path == result.current_path else result.text


#: what verification says of current code with nothing more to tell (verify.py); any other
#: reason of a current result (moved, redacted, its lines moved) is worth a line
PLAIN_REASONS = frozenset({"indexed at target commit", "indexed at target commit; file clean", "file unchanged",
                           "content identical"})


def plain(result: Result, branch: str) -> bool:
    """The case that needs no words: current code of the searched branch, as it was indexed."""
    return (result.verdict == Verdict.CURRENT and not result.history and result.branch == branch
            and result.reason in PLAIN_REASONS)


def colour_wanted(choice: str, stream) -> bool:
    """`--color`: always, never, or auto (a terminal, and no NO_COLOR in the environment)."""
    if choice != "auto":
        return choice == "always"
    return stream.isatty() and not os.environ.get("NO_COLOR")


@lru_cache(maxsize=64)
def _lexer(path: str):
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def painted(code: list[str], path: str) -> list[str]:
    """`code` (lines already escaped) coloured for a terminal by the language of `path`; as it
    is when pygments knows no lexer for it."""
    lexer = _lexer(path)
    if lexer is None or not code:
        return code
    from pygments import highlight
    from pygments.formatters import TerminalFormatter

    out = highlight("\n".join(code), lexer, TerminalFormatter()).rstrip("\n").split("\n")
    return out if len(out) == len(code) else code


def result_lines(result: Result, branch: str, lines: int | None, colour: bool = False) -> list[str]:
    """A header line (rank, verdict, `path:line:`, symbol), the verdict's reason when the case
    is not plain, then the first `lines` lines of code (None: all of them, 0: none). With
    `colour` every line comes escaped (display.py) and the code lines coloured: print them as
    they are."""
    path, line = location(result)
    verdict = result.verdict.value if result.verdict else "?"
    label = f" [{result.label.value}]" if result.label else ""
    elsewhere = "" if result.branch == branch and not result.history else f"  ({result.branch} @ {result.commit[:7]})"
    out = [f"{result.rank:>3}. {verdict:<15} {path}:{line}: {result.identity.qualified_name}{label}{elsewhere}"]
    if not plain(result, branch) and result.reason:
        out.append(f"{_INDENT}{result.reason}")
    if lines != 0:
        code = code_of(result).expandtabs(_TAB).splitlines()
        # a method's text keeps its file's indentation: shown flush, its shape kept
        shown = [text.rstrip() for text in
                 textwrap.dedent("\n".join(code if lines is None else code[:lines])).splitlines()]
        if colour:
            out = [escape_controls(line) for line in out]
            shown = painted([escape_controls(text) for text in shown], path)
        out += [f"{_INDENT}{text}" for text in shown]
        if result.text_kind != "full" and shown:
            out.append(f"{_INDENT}(its {result.text_kind}; --full for the whole text)")
    return out


def vimgrep_line(result: Result) -> str:
    """`path:line:1:verdict symbol: first line of code`, one line per result."""
    path, line = location(result)
    verdict = result.verdict.value if result.verdict else "?"
    first = next((text.strip() for text in code_of(result).splitlines() if text.strip()), "")
    return f"{path}:{line}:1:{verdict} {result.identity.qualified_name}: {first}"
