"""A checked tour for people and models: each step's note, citation header and current code.

`tour show` prints it; the review app's tour player and its export write the same steps as a
bundle ("explain this codebase along this path"), so what a person walks and what a model
reads carry the same headers and verdicts.
"""

from __future__ import annotations

from git.exc import BadName

from branchwise.git.repo import GitRepo
from branchwise.review.reviewbundle import ReviewBundle, Section
from branchwise.review.tours.check import StepCheck, TourCheck
from branchwise.verify.citation import version_string
from branchwise.wording import plural


def step_header(check: TourCheck, item: StepCheck, dates=None) -> list[str]:
    """The citation header of one step: where its code is now, which version, and the check."""
    date = dates(check.target_commit) if dates else None
    if item.step.kind in ("note", "file", "directory"):
        lines = [] if item.step.kind == "note" else [f"Source: {item.step.anchor}",
                                                       f"Version: {version_string(check.branch, check.target_commit, date)}"]
    elif item.path is None:
        step = item.step
        last = item.result.commit if item.result is not None and item.result.commit else step.commit
        lines = [f"Source: {step.path} ({step.qualified_name}; {item.status} on {check.branch})"]
        if last:
            lines.append(f"Version: last seen at {last[:7]}")
    else:
        lines = [f"Source: {item.path}#L{item.start_line}-L{item.end_line} ({item.qualified_name})",
                 f"Version: {version_string(check.branch, check.target_commit, date)}"]
    lines.append(f"Check: {item.verdict.value}; {item.reason}".rstrip("; "))
    return lines


def step_text(item: StepCheck) -> str:
    """The code a step shows: its current text, or the text last seen when it is gone."""
    if item.text is not None:
        return item.text
    return item.result.text if item.result is not None else ""


def render_show(check: TourCheck, repo: GitRepo | None = None) -> str:
    dates = _dates(repo)
    lines = [f"# {check.tour.title}", ""]
    if check.tour.description:
        lines += [check.tour.description, ""]
    lines.append(f"{plural(len(check.steps), 'step')}, checked against {check.target}; {len(check.decayed)} decayed")
    for item in check.steps:
        lines += ["", f"## {item.number}. {item.step.note.strip().splitlines()[0] if item.step.note.strip() else item.step.anchor}"]
        lines += [f"   {line}" for line in step_header(check, item, dates)]
        if item.step.note.strip().count("\n"):
            lines += ["", item.step.note.strip()]
        lines += ["", *(f"    {line}" for line in step_text(item).rstrip("\n").splitlines())]
    return "\n".join(lines)


def tour_bundle(check: TourCheck, repo: GitRepo | None = None) -> ReviewBundle:
    """The tour as a bundle for a model: steps in order, each with its note and header."""
    dates = _dates(repo)
    facts = [f"- Tour: {check.tour.title}", f"- Branch: {check.branch}",
             f"- Target: {check.target}, commit {check.target_commit}",
             f"- Steps: {len(check.steps)}; {len(check.decayed)} no longer current (their last-seen text is shown)"]
    if check.tour.description:
        facts.insert(1, f"- About: {check.tour.description}")
    bundle = ReviewBundle(title=f"A walk through {check.tour.title}", facts=facts,
                          manifest={"kind": "tour", **{k: v for k, v in check.to_json().items() if k != "steps"}})
    for item in check.steps:
        language = item.result.identity.language if item.result is not None else "text"
        entry = {k: v for k, v in item.to_json().items() if k != "text"}
        bundle.sections.append(Section(
            heading=f"Step {item.number}: {item.qualified_name or item.step.anchor}",
            header=step_header(check, item, dates), language=language, text=step_text(item),
            entry=entry, prose=item.step.note,
        ))
    return bundle


def _dates(repo: GitRepo | None):
    if repo is None:
        return None

    def date(commit: str) -> str | None:
        try:
            return repo.commit_time(commit).date().isoformat()
        except (ValueError, BadName):  # an unknown commit simply has no date
            return None

    return date
