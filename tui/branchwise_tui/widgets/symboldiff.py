"""A symbol's old and new text as one diff with the real line numbers of both files.

A unified diff of two chunks numbers lines from 1; a reviewer wants the file's own numbers
(line 68 of src/config.rs at the branch tip, line 67 at the merge-base), so each row carries
the old and the new line number, blank on the side where the line does not exist.
"""

from __future__ import annotations

from difflib import SequenceMatcher

from rich.text import Text

STYLES = {"-": "red", "+": "green", " ": ""}


def numbered_diff(old: str | None, old_start: int | None, new: str | None, new_start: int | None) -> Text:
    a = (old or "").splitlines()
    b = (new or "").splitlines()
    rows: list[tuple[str, int | None, int | None, str]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            rows += [(" ", (old_start or 1) + i, (new_start or 1) + j, a[i])
                     for i, j in zip(range(i1, i2), range(j1, j2))]
            continue
        rows += [("-", (old_start or 1) + i, None, a[i]) for i in range(i1, i2)]
        rows += [("+", None, (new_start or 1) + j, b[j]) for j in range(j1, j2)]
    width = len(str(max([n for _, o, w, _ in rows for n in (o, w) if n is not None], default=1)))
    out = Text(no_wrap=True)
    for sign, o, n, line in rows:
        numbers = f"{'' if o is None else o:>{width}} {'' if n is None else n:>{width}} "
        out.append(numbers, style="dim")
        out.append(f"{sign} {line}\n", style=STYLES[sign])
    out.rstrip()
    return out
