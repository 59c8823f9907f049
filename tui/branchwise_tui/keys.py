"""Every key of the review app in one table: the bindings, the help screen, the palette and the
key bar are all built from it, so none of them can disagree with what the keys do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Key:
    key: str  # Textual key name(s) for the binding
    shown: str  # how the key is written in the help and the key bar
    action: str
    title: str  # short: key bar and palette
    description: str  # one line: help screen and palette
    group: str
    priority: int  # key bar: lower numbers stay when the width runs out; 0 never shown there
    bound: bool = True  # False: a key of the widgets (moving, scrolling), listed in the help only
    #: handled as it arrives, before the keys typed after it are routed: they go where it sends the focus
    first: bool = False


KEYS = (
    Key("u", "u", "label('use')", "use", "label: use it (again: clear)", "Review", 2),
    Key("r", "r", "label('reference-only')", "ref", "label: reference-only, the idea", "Review", 2),
    Key("x", "x", "label('exclude')", "excl", "label: exclude from the bundle", "Review", 2),
    Key("t", "t", "toggle_text", "cur/idx", "changed: current/indexed text", "Review", 6),
    Key("n", "n", "edit_note", "note", "write a note (the label stays)", "Review", 7),
    Key("P", "P", "toggle_pin", "pin", "pin: first here (again: unpin)", "Review", 7),
    Key("U", "U", "undo", "undo", "undo the last label or note", "Review", 3),
    Key("space", "space", "toggle_mark", "mark", "mark row (labels act on marks)", "Review", 6),
    Key("asterisk", "*", "mark_all", "mark all", "mark all shown (again: none)", "Review", 8),
    Key("enter", "⏎", "open_editor", "open", "open in $EDITOR at the line", "Act", 3),
    Key("c", "c", "copy('citation')", "copy", "copy the citation header", "Act", 5),
    Key("p", "p", "copy('location')", "path", "copy path:line", "Act", 9),
    Key("y", "y", "copy('chunk')", "chunk", "copy the chunk's text", "Act", 9),
    Key("e", "e", "export", "export", "bundle preview, then write it", "Act", 3),
    Key("slash", "/", "focus_query", "query", "edit the query; Enter searches", "View", 1, first=True),
    Key("b", "b", "focus_branch", "branch", "choose the branch", "View", 4),
    Key("a", "a", "toggle_scope", "history", "this branch / all history", "View", 4),
    Key("o", "o", "next_sort", "sort", "sort by the next column", "View", 7),
    Key("O", "O", "reverse_sort", "reverse", "reverse the sort order", "View", 0),
    Key("f", "f", "filter", "filter", "filter text/verdict/label/class", "View", 5),
    Key("S", "S", "toggle_score", "score", "show/hide the score column", "View", 9),
    Key("s", "s", "stats", "stats", "stats: is the index behind?", "Index", 8),
    Key("i", "i", "refresh_index", "re-index", "re-index, then search again", "Index", 8),
    Key("I", "I", "index_status", "status", "index status and stale records", "Index", 0),
    Key("question_mark", "?", "help", "help", "this help", "App", 1),
    Key("q", "q", "quit", "quit", "quit (saves session stats)", "App", 1),
    Key("", "Tab ⇧Tab", "", "", "next/previous field or pane", "Move", 0, bound=False),
    Key("", "↑↓ j k", "", "", "a row, a line", "Move", 0, bound=False),
    Key("", "PgUp PgDn", "", "", "a page", "Move", 0, bound=False),
    Key("", "Home g  End G", "", "", "first/last row, top/bottom", "Move", 0, bound=False),
    Key("", "Esc", "", "", "back to the results, cancel", "Move", 0, bound=False),
    Key("", "Enter", "", "", "apply a dialog", "Move", 0, bound=False),
)
