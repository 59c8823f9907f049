"""The results table: one row per result, sorted, filtered and marked as the reviewer asks.

It owns the mapping from rows to results, so the app can ask which result is selected (or
marked) and tell it to redraw after a label changed; it reports the highlighted result upward
with a message instead of reaching into the preview. Its columns are laid out again on every
resize (see `columns.py`), so nothing is cut at 80 columns and nothing is wasted at 200.
"""

from __future__ import annotations

from dataclasses import dataclass

from branchwise.display import escape_controls
from branchwise.models import PathClass, Result, Verdict
from branchwise.verify.citation import cited_path
from branchwise.wording import plural
from rich.text import Text
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import DataTable

from branchwise_tui.textmatch import fuzzy_match, natural_key
from branchwise_tui.widgets.badges import verdict_badge
from branchwise_tui.widgets.columns import (
    COLUMNS,
    SAME_EVERYWHERE_CANDIDATES,
    elide_middle,
    elide_path,
    elide_symbol,
    layout,
)
from branchwise_tui.widgets.lists import KeyTable

#: the rank cell's mark of a pinned symbol (offered first on this branch)
PIN = "⚑"
#: below this many columns the verdict badge shortens labels (`→ref`)
COMPACT_BELOW = 110
SCROLLBAR = 2
VERDICT_ORDER = {verdict: i for i, verdict in enumerate(Verdict)}


@dataclass(frozen=True)
class Filter:
    """Which results to show; None means any. `label` "none" means unlabelled; `text` is
    matched fuzzily (as fzf does) against the row's `path::symbol`."""

    verdict: Verdict | None = None
    label: str | None = None
    path_class: PathClass | None = None
    text: str = ""

    def accepts(self, result: Result) -> bool:
        label = result.label.value if result.label else "none"
        return ((self.verdict is None or result.verdict is self.verdict)
                and (self.label is None or label == self.label)
                and (self.path_class is None or result.path_class is self.path_class)
                and (not self.text.strip() or fuzzy_match(self.text, f"{cited_path(result)}::{result.identity.qualified_name}")))

    def describe(self) -> str:
        parts = [f"“{self.text.strip()}”" if self.text.strip() else "",
                 f"verdict={self.verdict.value}" if self.verdict else "",
                 f"label={self.label}" if self.label else "",
                 f"class={self.path_class.value}" if self.path_class else ""]
        return " ".join(p for p in parts if p)


SORT_KEYS = {
    "rank": lambda r, dates: r.rank,
    "verdict": lambda r, dates: VERDICT_ORDER.get(r.verdict, len(VERDICT_ORDER)),
    "score": lambda r, dates: r.score,
    "path": lambda r, dates: natural_key(cited_path(r)),
    "symbol": lambda r, dates: natural_key(r.identity.qualified_name),
    "branch": lambda r, dates: natural_key(r.branch),
    "commit": lambda r, dates: r.commit,
    "indexed": lambda r, dates: dates.get(r.commit, ""),
}


class ResultsTable(KeyTable):
    #: the tokens of the bundle as reviewed so far, shown under the table (None: not counted yet)
    bundle_tokens: reactive[int | None] = reactive(None)

    class Highlighted(Message):
        """The cursor is on `result` (None when the table is empty)."""

        def __init__(self, result: Result | None) -> None:
            super().__init__()
            self.result = result

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self._results: list[Result] = []  # in ranking order
        self.rows_shown: list[Result] = []  # filtered and sorted: row i shows rows_shown[i]
        self.dates: dict[str, str] = {}  # commit -> commit date
        self.indexed_text: set[str] = set()  # version ids of changed results bundled as indexed
        self.marked: set[str] = set()  # version ids
        self.sort_key = "rank"
        self.sort_reverse = False
        self.filter = Filter()
        self.show_score = False
        self._widths: dict[str, int] = {}
        self._same: dict[str, str] = {}  # column -> the value every shown row has in it

    # what is shown ----------------------------------------------------------------------------

    @property
    def selected(self) -> Result | None:
        if not self.rows_shown or self.cursor_row < 0:
            return None
        return self.rows_shown[min(self.cursor_row, len(self.rows_shown) - 1)]

    @property
    def targets(self) -> list[Result]:
        """What a label key acts on: the marked results shown, else the selected one."""
        marked = [r for r in self.rows_shown if r.version_id in self.marked]
        if marked:
            return marked
        return [self.selected] if self.selected is not None else []

    def show(self, results: list[Result], dates: dict[str, str]) -> None:
        """Take new results (in ranking order); marks and the cursor start afresh."""
        self._results = list(results)
        self.dates = dict(dates)
        self.marked.clear()
        self.rebuild(keep=None)

    def rebuild(self, keep: Result | None | bool = True) -> None:
        """Apply the sort and filter and lay the columns out for the current width.

        `keep`: True keeps the cursor on the selected result, a Result moves it there, None
        puts it on the first row.
        """
        if keep is True:
            keep = self.selected
        rows = [r for r in self._results if self.filter.accepts(r)]
        key = SORT_KEYS[self.sort_key]
        rows.sort(key=lambda r: (key(r, self.dates), r.rank), reverse=self.sort_reverse)
        self.rows_shown = rows
        self._layout_columns()
        self._fill()
        if rows:
            row = next((i for i, r in enumerate(rows) if r is keep), 0)
            self.move_cursor(row=row, animate=False)
        self._update_title()
        self.post_message(self.Highlighted(self.selected))

    def _available(self) -> int:
        return max(40, self.content_region.width - SCROLLBAR) if self.content_region.width else 78

    def _compact(self) -> bool:
        return self._available() < COMPACT_BELOW

    def _layout_columns(self) -> None:
        compact = self._compact()
        wanted: dict[str, int] = {}
        values: dict[str, set[str]] = {key: set() for key in SAME_EVERYWHERE_CANDIDATES}
        for result in self.rows_shown:
            for key, text in self._plain(result, compact).items():
                wanted[key] = max(wanted.get(key, 0), len(text))
                if key in values:
                    values[key].add(text)
            wanted["filename"] = max(wanted.get("filename", 0), len(cited_path(result).rsplit("/", 1)[-1]))
            last_part = result.identity.qualified_name.rsplit(".", 1)[-1]
            wanted["last_part"] = max(wanted.get("last_part", 0), len(escape_controls(last_part)))
        self._same = {key: next(iter(found)) for key, found in values.items() if len(found) == 1}
        hidden = frozenset() if self.show_score else frozenset({"score"})
        # rows from several branches (all history) cannot be told apart without the branch
        required = frozenset({"score"} if self.show_score else set()) | (
            frozenset({"branch"}) if len(values["branch"]) > 1 else frozenset()) | (
            frozenset({"rank"}) if self.marked or any(r.pinned for r in self.rows_shown) else frozenset())
        self._widths = layout(self._available(), wanted, hidden, constant=frozenset(self._same), required=required)
        self.clear(columns=True)
        titles = {c.key: c.title for c in COLUMNS}
        for key, width in self._widths.items():
            title = titles[key]
            if key == self.sort_key and (key != "rank" or self.sort_reverse):
                title += " ▼" if self.sort_reverse else " ▲"
            self.add_column(title, width=width, key=key)

    def _plain(self, result: Result, compact: bool) -> dict[str, str]:
        return {
            "rank": ("●" if result.version_id in self.marked else "") + (PIN if result.pinned else "") + str(result.rank),
            "verdict": self._badge(result, compact).plain,
            "score": f"{result.score:.3f}",
            "path": escape_controls(cited_path(result)),  # moved unchanged: its new place
            "symbol": escape_controls(result.identity.qualified_name),
            "branch": escape_controls(result.branch),
            "commit": result.commit[:7],
            "indexed": self.dates.get(result.commit, ""),
        }

    def _badge(self, result: Result, compact: bool) -> Text:
        choice = None
        if result.verdict is Verdict.CHANGED and result.current_text is not None:
            choice = "indexed" if result.version_id in self.indexed_text else "current"
        return verdict_badge(result.verdict, result.label, choice, compact)

    def _cells(self, result: Result) -> list:
        compact = self._compact()
        plain = self._plain(result, compact)
        widths = self._widths
        cells: list[Text | str] = []
        for key in widths:
            if key == "verdict":
                cells.append(self._badge(result, compact))
            elif key == "path":
                cells.append(elide_path(plain["path"], widths["path"]))
            elif key == "symbol":
                cells.append(elide_symbol(plain["symbol"], widths["symbol"]))
            elif key == "rank" and result.version_id in self.marked:
                cells.append(Text(plain["rank"], style="bold reverse"))
            elif key == "rank" and result.pinned:
                cells.append(Text(plain["rank"], style="bold magenta"))
            else:
                cells.append(elide_middle(plain[key], widths[key]))
        return cells

    def _fill(self) -> None:
        for row, result in enumerate(self.rows_shown):
            self.add_row(*self._cells(result), key=result.version_id + f"#{row}")

    def _update_title(self) -> None:
        count = (f"{len(self.rows_shown)} of {plural(len(self._results), 'result')}" if self.filter.describe()
                 else plural(len(self._results), "result"))
        parts = [count]
        if self.filter.describe():
            parts.append(f"filter {self.filter.describe()}")
        if self.sort_key != "rank" or self.sort_reverse:
            parts.append(f"sorted by {self.sort_key}{' ▼' if self.sort_reverse else ''}")
        common = self._common()
        if common:
            parts.append(common)
        pinned = sum(r.pinned for r in self.rows_shown)
        if pinned:
            parts.append(f"{PIN} {pinned} pinned")
        if self.marked:
            parts.append(f"{len(self.marked)} marked")
        self.border_title = " · ".join(parts)

    def _common(self) -> str:
        """What every row shares in the columns left out for it, e.g. `all from main@46670eb, 2026-08-20`."""
        same = {key: value for key, value in self._same.items() if key not in self._widths and value}
        if not same:
            return ""
        where = same.get("branch", "")
        if "commit" in same:
            where = f"{where}@{same['commit']}" if where else f"commit {same['commit']}"
        if "indexed" in same:
            where += f", {same['indexed']}" if where else same["indexed"]
        return f"all from {where}"

    def watch_bundle_tokens(self, tokens: int | None) -> None:
        self.border_subtitle = "" if tokens is None else f"bundle: {tokens:,} tokens"

    # reviewer actions -------------------------------------------------------------------------

    def refresh_results(self) -> None:
        """Redraw every row after labels or text choices changed (the cursor stays)."""
        self.rebuild(keep=True)

    def sort_by(self, key: str) -> None:
        """Sort by `key`; sorting by the same key again reverses the order."""
        if key == self.sort_key:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_key, self.sort_reverse = key, False
        self.rebuild()

    def next_sort(self) -> None:
        """Sort by the next shown column (wrapping round to the ranking)."""
        keys = list(self._widths) or ["rank"]
        index = keys.index(self.sort_key) if self.sort_key in keys else -1
        self.sort_key, self.sort_reverse = keys[(index + 1) % len(keys)], False
        self.rebuild()

    def set_filter(self, new: Filter) -> None:
        self.filter = new
        self.rebuild()

    def toggle_score(self) -> None:
        self.show_score = not self.show_score
        self.rebuild()

    def toggle_mark(self) -> None:
        result = self.selected
        if result is None:
            return
        self.marked.symmetric_difference_update({result.version_id})
        self.rebuild()
        if self.cursor_row < len(self.rows_shown) - 1:
            self.move_cursor(row=self.cursor_row + 1)

    def mark_all(self) -> None:
        """Mark every shown row; when all are marked already, clear the marks."""
        shown = {r.version_id for r in self.rows_shown}
        self.marked = set() if shown <= self.marked else self.marked | shown
        self.rebuild()

    # events -------------------------------------------------------------------------------------

    def on_resize(self) -> None:
        if self._results:
            self.rebuild()
        else:
            self._layout_columns()

    def on_mount(self) -> None:
        self._layout_columns()
        self._update_title()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.sort_by(str(event.column_key.value))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self.post_message(self.Highlighted(self.selected))
