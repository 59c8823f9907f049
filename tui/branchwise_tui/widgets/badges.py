"""Coloured verdict badges and label marks for the results table.

DataTable cells are Rich text, which CSS cannot reach, so the colours of the six verdicts live
here, in one table, and the machine names of verdicts and labels are shown as they are (in a
narrow table the label is shortened to its first letters).
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

SHORT_LABELS = {Label.USE: "use", Label.REFERENCE_ONLY: "ref", Label.EXCLUDE: "excl"}


def verdict_badge(verdict: Verdict | None, label: Label | None = None, text_choice: str | None = None,
                  compact: bool = False) -> Text:
    """`changed` in yellow, then which text the bundle takes (`t`), then the reviewer's label.

    e.g. `changed [indexed] → reference-only`; compact: `changed [idx] → ref`.
    """
    badge = Text(verdict.value if verdict else "unverified", style=VERDICT_STYLES[verdict] if verdict else "italic")
    if text_choice:
        badge.append(f" [{text_choice[:3] if compact else text_choice}]", style="yellow")
    if label is not None:
        badge.append("→" if compact else " → ")
        badge.append(SHORT_LABELS[label] if compact else label.value, style=LABEL_STYLES[label])
    return badge
