"""Coloured verdict badges and label marks for the results table.

DataTable cells are Rich text, which CSS cannot reach, so the colours of the six verdicts live
here, in one table, and the machine names of verdicts and labels are shown as they are.
"""

from __future__ import annotations

from rich.text import Text

from branchwise.models import Label, Verdict

VERDICT_STYLES = {
    Verdict.CURRENT: "bold green",
    Verdict.UNCHANGED_OLDER: "bold dark_cyan",
    Verdict.CHANGED: "bold yellow",
    Verdict.DELETED: "bold red",
    Verdict.EXCLUDED: "grey50",
    Verdict.UNVERIFIABLE: "bold magenta",
}

LABEL_STYLES = {
    Label.USE: "bold green",
    Label.REFERENCE_ONLY: "bold cyan",
    Label.EXCLUDE: "bold grey50",
}


def verdict_badge(verdict: Verdict | None, label: Label | None = None) -> Text:
    """`changed` in yellow, followed by the reviewer's label (e.g. `→ reference-only`) once set."""
    badge = Text(verdict.value if verdict else "unverified", style=VERDICT_STYLES[verdict] if verdict else "italic")
    if label is not None:
        badge.append(" → ")
        badge.append(label.value, style=LABEL_STYLES[label])
    return badge
