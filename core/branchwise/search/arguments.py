"""The one check of a search's filter arguments, for every caller: the CLI, the MCP tools, the library.

A filter with a fixed vocabulary (`language`, `symbol_type`, `path_class`) that is given a value
outside it would match nothing and answer "no results", which reads as "there is no such
code". So an unknown value is refused with the list of valid ones (and the closest, for a
typo: `pyhton` -> "did you mean python?"), with the same sentence
whether it came from `--language`, from an MCP tool's `language` or from a `SearchRequest`
built in code (`HybridSearch.search` checks every request).
"""

from __future__ import annotations

from collections.abc import Callable

from branchwise.chunking import vocabulary
from branchwise.errors import UsageError
from branchwise.models import PathClass
from branchwise.suggest import closest

#: filter name -> (the word the message uses, its valid values)
FILTERS: dict[str, tuple[str, Callable[[], tuple[str, ...]]]] = {
    "language": ("language", vocabulary.languages),
    "symbol_type": ("symbol type", vocabulary.symbol_types),
    "path_class": ("path class", lambda: tuple(c.value for c in PathClass)),
}


def valid_values(name: str) -> tuple[str, ...]:
    """The values the filter `name` (language, symbol_type, path_class) accepts."""
    return FILTERS[name][1]()


def choice_problem(name: str, value: object) -> str | None:
    """None when `value` is valid for the filter `name`, else the sentence that says why not."""
    word, values = FILTERS[name]
    allowed = values()
    if isinstance(value, str) and value in allowed:
        return None
    hint = closest(value, allowed) if isinstance(value, str) else ""
    return f"unknown {word} {value!r}{f' ({hint})' if hint else ''}; valid: {', '.join(allowed)}"


def check_filters(**filters: object) -> None:
    """Raise UsageError for the first filter given a value outside its vocabulary (None: unset)."""
    for name, value in filters.items():
        if value is not None:
            problem = choice_problem(name, value)
            if problem is not None:
                raise UsageError(problem)
