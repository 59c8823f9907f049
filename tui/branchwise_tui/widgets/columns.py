"""Which result columns fit a width, and how wide each one is.

The table must stay readable from 80 columns up: the verdict, the symbol and the file name are
always shown, the other columns join in priority order while they fit, and whatever width is
left goes to the path and the symbol. Paths are shortened in the middle so the file name (the
end) and the top directory (the start) both survive.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Cell padding DataTable puts around every column (one space each side).
PADDING = 2


@dataclass(frozen=True)
class Column:
    key: str
    title: str
    width: int  # preferred width; for path and symbol the minimum
    priority: int  # 0: always shown; higher numbers are hidden first


COLUMNS = (
    Column("rank", "#", 3, 1),
    Column("verdict", "Verdict", 10, 0),
    Column("score", "Score", 6, 5),
    Column("path", "Path", 14, 0),
    Column("symbol", "Symbol", 12, 0),
    Column("branch", "Branch", 8, 3),
    Column("commit", "Commit", 7, 4),
    Column("indexed", "Indexed", 10, 2),
)
FLEXIBLE = ("path", "symbol")
#: how the spare width is shared: the symbol up to 40 cells, then the whole path, then the rest
GROWTH = (("symbol", 40), ("path", None), ("symbol", None))
#: the symbol's readable width, given before any optional column joins
SYMBOL_FIRST = 24
#: fixed columns longer than this are shortened in the middle
MAX_WIDTH = {"branch": 16}


def layout(available: int, wanted: dict[str, int], hidden: frozenset[str] = frozenset()) -> dict[str, int]:
    """Column key -> width for a table `available` cells wide, in display order.

    `wanted` is the widest value of each column in the current rows, plus "filename": the
    longest file name. The path and the symbol first get a readable width (the whole file name,
    `SYMBOL_FIRST` cells of symbol), optional columns join by priority while they fit, and what
    is left grows them as `GROWTH` says, up to what they want.
    """
    shown = [c for c in COLUMNS if c.key not in hidden]
    widths = {c.key: _fixed(c, wanted) for c in shown if c.priority == 0}
    widths["path"] = max(widths["path"], min(wanted.get("path", 0), wanted.get("filename", 0) + 2))
    widths["symbol"] = max(widths["symbol"], min(wanted.get("symbol", 0), SYMBOL_FIRST))
    used = sum(widths.values()) + PADDING * len(widths)
    if used > available:  # too narrow even for that: the path gives way down to its minimum
        widths["path"] = max(_column("path").width, widths["path"] - (used - available))
        used = sum(widths.values()) + PADDING * len(widths)
    for column in sorted((c for c in shown if c.priority), key=lambda c: c.priority):
        width = _fixed(column, wanted)
        if used + width + PADDING <= available:
            widths[column.key] = width
            used += width + PADDING
    spare = max(0, available - used)
    for key, upto in GROWTH:
        limit = wanted.get(key, 0) if upto is None else min(upto, wanted.get(key, 0))
        grow = min(spare, max(0, limit - widths[key]))
        widths[key] += grow
        spare -= grow
    return {c.key: widths[c.key] for c in shown if c.key in widths}


def _column(key: str) -> Column:
    return next(c for c in COLUMNS if c.key == key)


def _fixed(column: Column, wanted: dict[str, int]) -> int:
    if column.key in FLEXIBLE:
        return column.width
    width = max(len(column.title), wanted.get(column.key, column.width))
    return min(width, MAX_WIDTH.get(column.key, width))


def elide_middle(text: str, width: int) -> str:
    """`text` in at most `width` cells, cut in the middle and keeping more of the end."""
    if len(text) <= width:
        return text
    if width <= 1:
        return text[-width:] if width else ""
    tail = (width - 1) * 2 // 3
    head = width - 1 - tail
    return f"{text[:head]}…{text[len(text) - tail:]}"


def elide_path(path: str, width: int) -> str:
    """A path shortened in the middle; the file name is kept whole whenever it fits."""
    if len(path) <= width:
        return path
    name = path.rsplit("/", 1)[-1]
    if len(name) + 2 > width:
        return elide_middle(name, width)
    head = width - len(name) - 2  # "…/" joins the start to the name
    return f"{path[:head]}…/{name}" if head > 0 else f"…/{name}"
