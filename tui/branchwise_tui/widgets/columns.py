"""Which result columns fit a width, and how wide each one is.

The table must stay readable from 80 columns up: the verdict, the symbol (at least its last
name part) and the file name are always shown, and so is the branch when the rows come from
several branches; the other columns join in priority order while they fit, a column holding
the same value on every row only once the path and symbol have all they want, and whatever
width is left goes to the path and the symbol. Paths are shortened in the middle so the file
name (the end) and the top directory (the start) both survive; symbols before their last
name part, so that part survives whole.
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
    Column("rank", "#", 3, 1),  # required while rows are marked or pinned: it shows ● and ⚑
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
#: the symbol's readable width, given first; then, before any optional column joins, up to
SYMBOL_FIRST = 24
SYMBOL_BEFORE_OPTIONAL = 40
#: fixed columns longer than this are shortened in the middle
MAX_WIDTH = {"branch": 16}
#: the narrowest a column gives way to when even the required ones do not fit
MINIMUM = {"path": 14, "branch": 12}
#: columns that may hold the same value on every row (then they say nothing a title cannot)
SAME_EVERYWHERE_CANDIDATES = ("branch", "commit", "indexed")


def layout(available: int, wanted: dict[str, int], hidden: frozenset[str] = frozenset(),
           constant: frozenset[str] = frozenset(), required: frozenset[str] = frozenset()) -> dict[str, int]:
    """Column key -> width for a table `available` cells wide, in display order.

    `wanted` is the widest value of each column in the current rows, plus "filename": the
    longest file name and "last_part": the longest last part of a dotted symbol name.
    `constant` names the columns whose value is the same on every row: they join only once
    the path and the symbol have all they want. `required` columns (the branch when rows come
    from several branches, the score when asked for) are always shown.

    The path and the symbol first get a readable width (the whole file name; the symbol's
    last name part whole, else `SYMBOL_FIRST` cells), the symbol grows up to
    `SYMBOL_BEFORE_OPTIONAL` cells if there is room, then the optional columns that vary
    join by priority while they fit, what is left grows the path and the symbol as `GROWTH`
    says, and last the constant columns join if there is still room.
    """
    shown = [c for c in COLUMNS if c.key not in hidden]
    keep = {c.key for c in shown if c.priority == 0} | (required & {c.key for c in shown})
    widths = {key: _fixed(_column(key), wanted) for key in keep}
    widths["path"] = max(widths["path"], min(wanted.get("path", 0), wanted.get("filename", 0) + 2))
    symbol_first = max(SYMBOL_FIRST, wanted.get("last_part", 0) + 1)
    widths["symbol"] = max(widths["symbol"], min(wanted.get("symbol", 0), symbol_first))
    last_part = min(widths["symbol"], max(_column("symbol").width, wanted.get("last_part", 0) + 1))
    # too narrow even for that: the path gives way first, then the symbol down to a readable
    # width, the branch to a few cells, and last the symbol down to its last name part
    for key, floor in (("path", MINIMUM["path"]), ("symbol", max(last_part, min(widths["symbol"], 24))),
                       ("branch", MINIMUM["branch"]), ("symbol", last_part)):
        used = _used(widths)
        if used > available and key in widths:
            widths[key] = max(min(widths[key], floor), widths[key] - (used - available))
    used = _used(widths)
    grow = max(0, min(available - used, min(wanted.get("symbol", 0), SYMBOL_BEFORE_OPTIONAL) - widths["symbol"]))
    widths["symbol"] += grow
    used += grow
    optional = sorted((c for c in shown if c.key not in keep), key=lambda c: c.priority)
    for column in [c for c in optional if c.key not in constant]:
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
    for column in [c for c in optional if c.key in constant]:
        width = _fixed(column, wanted)
        if width + PADDING <= spare:
            widths[column.key] = width
            spare -= width + PADDING
    return {c.key: widths[c.key] for c in shown if c.key in widths}


def _used(widths: dict[str, int]) -> int:
    return sum(widths.values()) + PADDING * len(widths)


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


def elide_symbol(name: str, width: int) -> str:
    """A dotted name in at most `width` cells with its last part whole: what is cut is the end
    of the part before it (`Opt…resolve_envvar_value`: the start of the class name still tells
    `Option`'s from `Parameter`'s); a last part longer than the width is cut in its middle."""
    if len(name) <= width:
        return name
    prefix, _, last = name.rpartition(".")
    if len(last) + 1 > width:
        return elide_middle(last, width)
    room = width - len(last) - 1  # the ellipsis stands for the rest of the prefix and the dot
    return f"{prefix[:room]}…{last}"


def elide_path(path: str, width: int) -> str:
    """A path shortened in the middle; the file name is kept whole whenever it fits."""
    if len(path) <= width:
        return path
    name = path.rsplit("/", 1)[-1]
    if len(name) + 2 > width:
        return elide_middle(name, width)
    head = width - len(name) - 2  # "…/" joins the start to the name
    return f"{path[:head]}…/{name}" if head > 0 else f"…/{name}"
