"""A branch diff as text for a terminal and as Markdown for a pull-request comment.

Both start with the summary (public signatures changed, symbols deleted or renamed that the
base still references, the files with the most changes) and list the changes in reading order
(source, tests, docs, examples, configuration, CI; generated and vendored apart). A change
shows its first callers with how each was found, and its similar code on one line, so that
the whole reads in a minute; `--json` has everything.
"""

from __future__ import annotations

from branchwise.display import escape_controls, escape_text
from branchwise.review.branchdiff import BranchDiff, SymbolChange
from branchwise.review.diffsummary import GROUPS, signature_of

GROUP_TITLES = {"source": "Source", "test": "Tests", "docs": "Docs", "example": "Examples",
                "config": "Configuration", "ci": "CI"}
#: callers shown under a change in text (the rest are counted)
TEXT_CALLERS = 3
SUMMARY_ROWS = 10
SIGNATURE_WIDTH = 160
#: a pull-request comment holds 65,536 characters; the Markdown stops listing well before
MARKDOWN_BUDGET = 60_000
MARKDOWN_TOP_CHANGES = 15


def counts_line(diff: BranchDiff) -> str:
    counts = ", ".join(f"{n} {kind}" for kind, n in diff.counts().items() if n) or "no symbol changes"
    return f"{len(diff.changes)} changed symbols in {len({c.path for c in diff.changes})} files: {counts}"


# text ----------------------------------------------------------------------------------------


def render_text(diff: BranchDiff) -> str:
    """The diff for a terminal, one change per line: each line's names are escaped before the
    lines are joined, so a line break in a file name cannot start a forged line."""
    lines = [
        f"# {diff.branch} @ {diff.branch_commit[:7]} against {diff.base} @ {diff.base_commit[:7]} "
        f"(merge-base {diff.merge_base[:7]})",
        counts_line(diff),
    ]
    if diff.hint:
        return "\n".join(map(escape_controls, lines + ["", diff.hint]))
    lines += _text_summary(diff)
    for group in GROUPS:
        changes = [c for c in diff.changes if c.group == group]
        if changes:
            lines += ["", f"## {GROUP_TITLES[group]} ({len(changes)} changes in {len({c.path for c in changes})} files)"]
            lines += _by_file(changes, impact=diff.impact_branch is not None)
    if diff.apart:
        lines += ["", f"## Set apart ({len(diff.apart)}: generated, vendored, backup or fixture code)"]
        lines += _by_file(diff.apart, impact=False)
    if diff.impact_branch is None:
        lines += ["", "(impact context not looked up)"]
    return "\n".join(map(escape_controls, lines))


def _text_summary(diff: BranchDiff) -> list[str]:
    s = diff.summary
    lines: list[str] = []
    if s.signatures:
        lines += ["", f"## Public signatures changed ({len(s.signatures)})"]
        for change in s.signatures[:SUMMARY_ROWS]:
            old, new = _signatures(change)
            lines += [f"  {change.path}  {change.qualified_name}  ({_callers_phrase(change)})",
                      f"      was {old}", f"      now {new}"]
        lines += _more(len(s.signatures) - SUMMARY_ROWS, "      ")
    if s.still_referenced:
        lines += ["", f"## Deleted or renamed, still referenced on {diff.impact_branch} ({len(s.still_referenced)})"]
        for change in s.still_referenced[:SUMMARY_ROWS]:
            lines.append(f"  {change.kind:<8} {change.old.path}  {_old_new(change)}  ({_callers_phrase(change)})")
            for hit in [h for h in change.impact if h.kind == "caller"][:TEXT_CALLERS]:
                lines.append(f"      {_how(hit):<10} {hit.result.path}:{hit.line}  {hit.result.identity.qualified_name}")
        lines += _more(len(s.still_referenced) - SUMMARY_ROWS, "      ")
    if s.top_files:
        lines += ["", "## Files with the most changed symbols",
                  "  " + ", ".join(f"{path} ({n})" for path, n in s.top_files)]
    return lines


def _by_file(changes: list[SymbolChange], impact: bool) -> list[str]:
    lines: list[str] = []
    current = None
    for change in changes:
        if change.path != current:
            current = change.path
            lines += ["", f"{current}  ({sum(c.path == current for c in changes)})"]
        lines.append(f"  {change.kind:<8} {change.qualified_name}  {_where(change)}")
        if impact:
            callers = [h for h in change.impact if h.kind == "caller"]
            for hit in callers[:TEXT_CALLERS]:
                r = hit.result
                lines.append(f"      {_how(hit):<10} {r.path}:{hit.line}  {r.identity.qualified_name}  "
                             f"[{r.verdict.value if r.verdict else '?'}]")
            if change.callers_total > TEXT_CALLERS:
                lines.append(f"      … {change.callers_total - min(TEXT_CALLERS, len(callers))} more "
                             f"({_callers_phrase(change)} in all)")
            similar = [h.result for h in change.impact if h.kind == "similar"]
            if similar:
                lines.append("      similar: " + ", ".join(f"{r.identity.qualified_name} ({r.path})" for r in similar))
    return lines


def _where(change: SymbolChange) -> str:
    old, new = change.old, change.new
    parts = []
    if old is not None:
        name = f" {old.qualified_name}" if new is None or old.qualified_name != new.qualified_name else ""
        place = f"{old.path}#" if new is None or old.path != new.path else ""
        parts.append(f"was {place}L{old.start_line}-L{old.end_line}{name}")
    if new is not None:
        parts.append(f"now L{new.start_line}-L{new.end_line}")
    if change.base_status in ("changed", "deleted"):
        parts.append(f"also {change.base_status} on the base since the merge-base")
    return "; ".join(parts)


# markdown ------------------------------------------------------------------------------------


def render_markdown(diff: BranchDiff) -> str:
    """A pull-request comment: the summary and the top changes with callers, the rest folded;
    every control character of a name escaped as the text format escapes it (display.py)."""
    return escape_text(_markdown(diff))


def _markdown(diff: BranchDiff) -> str:
    out = [f"### branchwise: `{_md(diff.branch)}` against `{_md(diff.base)}`", "",
           f"{counts_line(diff)} (merge-base `{diff.merge_base[:7]}`, {diff.branch} @ `{diff.branch_commit[:7]}`, "
           f"{diff.base} @ `{diff.base_commit[:7]}`)."]
    if diff.hint:
        return "\n".join(out + ["", f"> {diff.hint}"]) + "\n"
    s = diff.summary
    if s.signatures:
        out += ["", f"**Public signatures changed ({len(s.signatures)})**", ""]
        for change in s.signatures[:SUMMARY_ROWS]:
            old, new = _signatures(change)
            out.append(f"- `{_code(change.qualified_name)}` in `{_code(change.path)}` ({_callers_phrase(change)}): "
                       f"`{_code(old)}` → `{_code(new)}`")
        out += _md_more(len(s.signatures) - SUMMARY_ROWS)
    if s.still_referenced:
        out += ["", f"**Deleted or renamed, still referenced on `{_md(diff.impact_branch or diff.base)}` "
                    f"({len(s.still_referenced)})**", ""]
        for change in s.still_referenced[:SUMMARY_ROWS]:
            refs = ", ".join([f"`{_code(h.result.path)}:{h.line}` {_how(h)}"
                              for h in change.impact if h.kind == "caller"][:TEXT_CALLERS])
            out.append(f"- {change.kind} `{_code(_old_new(change))}` (`{_code(change.old.path)}`), "
                       f"{_callers_phrase(change)}: {refs}")
        out += _md_more(len(s.still_referenced) - SUMMARY_ROWS)
    if s.top_files:
        out += ["", "**Files with the most changed symbols:** "
                + ", ".join(f"`{_code(p)}` ({n})" for p, n in s.top_files)]
    top = [c for c in diff.changes if c.group == "source"][:MARKDOWN_TOP_CHANGES]
    if top:
        out += ["", f"**Top changes** (of {len(diff.changes)})", ""]
        for change in top:
            out.append(_md_change(change, diff.impact_branch is not None))
    out += _md_details(diff, MARKDOWN_BUDGET - len("\n".join(out)))
    return "\n".join(out) + "\n"


def _md_change(change: SymbolChange, impact: bool) -> str:
    line = f"- {change.kind} `{_code(change.qualified_name)}` in `{_code(change.path)}`"
    if not impact:
        return line
    callers = [h for h in change.impact if h.kind == "caller"]
    if callers:
        shown = ", ".join(f"`{_code(h.result.identity.qualified_name)}` ({_how(h)}, `{_code(h.result.path)}:{h.line}`)"
                          for h in callers[:TEXT_CALLERS])
        more = f" and {change.callers_total - min(TEXT_CALLERS, len(callers))} more" \
            if change.callers_total > TEXT_CALLERS else ""
        line += f"; callers: {shown}{more}"
    return line


def _md_details(diff: BranchDiff, budget: int) -> list[str]:
    """Every change by group, folded; a group that does not fit the comment's `budget` is named."""
    out: list[str] = []
    used = 0
    for group in GROUPS:
        changes = [c for c in diff.changes if c.group == group]
        if not changes:
            continue
        body = []
        for path in dict.fromkeys(c.path for c in changes):
            in_file = [c for c in changes if c.path == path]
            body.append(f"- `{_code(path)}`: " + ", ".join(f"{c.kind} `{_code(c.qualified_name)}`" for c in in_file))
        text = "\n".join(body)
        if used + len(text) > budget:
            out += ["", f"<details><summary>{GROUP_TITLES[group]}: {len(changes)} changes</summary>", "",
                    "Too many to list in a comment: run `branchwise diff` for all of them.", "", "</details>"]
            continue
        used += len(text)
        out += ["", f"<details><summary>{GROUP_TITLES[group]}: {len(changes)} changes in "
                    f"{len({c.path for c in changes})} files</summary>", "", text, "", "</details>"]
    if diff.apart:
        out += ["", f"<details><summary>Set apart: {len(diff.apart)} changes in generated, vendored, backup or "
                    f"fixture code</summary>", "",
                ", ".join(sorted({f'`{_code(c.path)}`' for c in diff.apart})), "", "</details>"]
    return out


# shared --------------------------------------------------------------------------------------


def _signatures(change: SymbolChange) -> tuple[str, str]:
    language = change.symbol.identity.language
    return (_short(signature_of(change.old.text, language)) if change.old else "",
            _short(signature_of(change.new.text, language)) if change.new else "")


def _short(text: str, width: int = SIGNATURE_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _callers_phrase(change: SymbolChange) -> str:
    """`3 callers`, or `3 callers, 40 possible` when some call a method on an object of unknown type."""
    n, possible = change.callers_certain, change.callers_total - change.callers_certain
    phrase = f"{n} caller{'s' if n != 1 else ''}"
    return f"{phrase}, {possible} possible" if possible else phrase


def _how(hit) -> str:
    """How a caller was found; `?` marks a method called on an object of unknown type."""
    return f"{hit.how}{'' if hit.certain else '?'}"


def _old_new(change: SymbolChange) -> str:
    """`old` or `old -> new` of a deleted or renamed change (the summary's entries have an old side)."""
    old = change.old.qualified_name if change.old is not None else change.qualified_name
    if change.kind == "renamed" and change.new is not None:
        return f"{old} -> {change.new.qualified_name}"
    return old


def _more(n: int, indent: str) -> list[str]:
    return [f"{indent}… and {n} more (--json lists all)"] if n > 0 else []


def _md_more(n: int) -> list[str]:
    return [f"- … and {n} more"] if n > 0 else []


def _code(text: str) -> str:
    """Text inside a Markdown code span: a backtick would end it, a control character is escaped
    (a line break in a name is shown as `\\n`, not folded into a space)."""
    return " ".join(escape_controls(text).replace("`", "'").split())


def _md(text: str) -> str:
    return _code(text)
