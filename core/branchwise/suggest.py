"""The "did you mean" of every refusal of a name: a typo gets the closest valid names, or the
list when it is short, in the same words from the CLI, the MCP tools and the library."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: up to this many valid names are listed whole when none is close
_LIST_AT_MOST = 12


def closest(value: str, valid: Iterable[str]) -> str:
    """"did you mean main?" when some valid names are close to `value`, else ""."""
    close = difflib.get_close_matches(value, list(dict.fromkeys(valid)), n=3, cutoff=0.6)
    return "did you mean " + " or ".join(close) + "?" if close else ""


def did_you_mean(value: str, valid: Iterable[str], what: str = "") -> str:
    """"did you mean main?", or "valid: a, b, c" (`what` names them: "indexed: a, b"), or ""
    when there is nothing to offer."""
    names = list(dict.fromkeys(valid))
    hint = closest(value, names)
    if hint:
        return hint
    if not names:
        return ""
    shown = ", ".join(names[:_LIST_AT_MOST])
    more = f" and {len(names) - _LIST_AT_MOST} more" if len(names) > _LIST_AT_MOST else ""
    return f"{what or 'valid'}: {shown}{more}"


def with_suggestion(message: str, value: str, valid: Iterable[str], what: str = "") -> str:
    """`message`, then the suggestion after a semicolon when there is one."""
    hint = did_you_mean(value, valid, what)
    return f"{message}; {hint}" if hint else message
