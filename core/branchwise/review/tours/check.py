"""Checking a tour against a branch, and re-anchoring what can be re-anchored.

Each anchored step becomes a search result as it was last seen (its commit, lines and content
hash) and goes through the same verification as search results: the version, file, symbol and
existence steps, the search for the same text moved to another file, and here also a rename
(the same text under another name in the same file). `status` says what a reader and `fix` need
to know beyond the verdict: `ok`, `lines-shifted`, `moved`, `renamed` (these three `fix` can
re-anchor), `changed`, `deleted`, `unverifiable`, and `note` for a step with no code.

A step whose text is intact in another file (`moved`) keeps a passing verdict, with its new
place: the code it shows is the code it was written about. A step written by hand (no content
hash) is anchored at the tour file's own last commit, or at the target when the file has none:
found by name where it says is `current` ("anchored now"), found elsewhere since that commit is
`moved`, and only a symbol found nowhere is `deleted`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from git.exc import GitCommandError

from branchwise.chunking import chunk_file
from branchwise.errors import UsageError
from branchwise.models import Chunk, Result, Verdict, version_id
from branchwise.review.tours.tourfile import Step, Tour
from branchwise.search.hybrid import SearchRequest
from branchwise.verify.symbols import shape_hash, short_name
from branchwise.verify.views import OUTLINE, REDACTION_CLAUSE, deliver, redaction_note

if TYPE_CHECKING:
    from branchwise.verify.verifier import Verifier

GOOD = frozenset({Verdict.CURRENT, Verdict.UNCHANGED_OLDER})
FIXABLE = frozenset({"lines-shifted", "moved", "renamed"})


@dataclass
class StepCheck:
    number: int
    step: Step
    verdict: Verdict
    reason: str
    status: str
    result: Result | None  # the verified result (None when nothing could be resolved)
    #: where the step's code is now, and its text there (None when it is gone)
    path: str | None = None
    qualified_name: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    text: str | None = None

    def __post_init__(self) -> None:
        # the reason says when the text shown has redacted secrets, however the step was checked
        if self.text and REDACTION_CLAUSE not in self.reason:
            self.reason += redaction_note(self.text, None)

    @property
    def decayed(self) -> bool:
        return self.status != "note" and self.verdict not in GOOD

    def to_json(self) -> dict:
        return {
            "step": self.number,
            "anchor": self.step.anchor,
            "note": self.step.note,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "status": self.status,
            "path": self.path,
            "qualified_name": self.qualified_name,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "text": self.text,
            "text_kind": self.result.text_kind if self.result is not None else None,
        }


@dataclass
class TourCheck:
    tour: Tour
    branch: str
    target: str  # e.g. "the work tree of main (HEAD 9f3c1ab)"
    target_commit: str
    steps: list[StepCheck]

    @property
    def decayed(self) -> list[StepCheck]:
        return [s for s in self.steps if s.decayed]

    def to_json(self) -> dict:
        return {"tour": self.tour.title, "file": str(self.tour.path) if self.tour.path else None,
                "branch": self.branch, "target": self.target, "target_commit": self.target_commit,
                "decayed": len(self.decayed), "steps": [s.to_json() for s in self.steps]}


def check_tour(workspace, tour: Tour, branch: str) -> TourCheck:
    verifier = workspace.verifier(branch)
    anchor = _tour_file_commit(workspace.repo, tour)
    checks = []
    for number, step in enumerate(tour.steps, 1):
        kind = step.kind
        if step.query is not None:
            checks.append(_check_query(workspace, number, step, step.query, branch))
        elif step.path is not None and kind == "symbol":
            if step.content_hash:
                checks.append(_check_anchor(workspace, verifier, number, step, step.path, branch, anchor))
            else:
                checks.append(_check_hand_written(workspace, verifier, number, step, step.path, anchor))
        elif kind in ("file", "directory"):
            checks.append(_check_place(verifier, number, step))
        else:
            checks.append(StepCheck(number, step, Verdict.UNVERIFIABLE, "a note: no code to check", "note", None))
    return TourCheck(tour, branch, verifier.target, verifier.target_commit, checks)


def fix_tour(check: TourCheck, uses_work_tree_paths: frozenset[str] = frozenset()
             ) -> tuple[list[StepCheck], list[StepCheck], list[StepCheck]]:
    """Re-anchor the steps whose text is intact elsewhere; return (re-anchored, left for a
    human, anchored): a step in place whose record was brought up to date (a hand-written step
    given its hash, a recorded one its newer commit) is anchored, not re-anchored, and counted.

    A re-anchored step records the target commit as where it was seen, unless its file has
    uncommitted edits (`uses_work_tree_paths`), in which case only its anchor and lines move.
    """
    fixed: list = []
    left: list = []
    anchored: list = []
    for item in check.steps:
        step = item.step
        refreshable = item.status in FIXABLE | {"ok"} or (item.status == "unverifiable" and item.result)
        if item.step.kind != "symbol" or not refreshable:
            if item.decayed:
                left.append(item)
            continue
        updated = replace(step, path=item.path, qualified_name=item.qualified_name,
                          start_line=item.start_line, end_line=item.end_line,
                          content_hash=item.result.content_hash if item.result else step.content_hash)
        if item.path not in uses_work_tree_paths:
            updated.commit = check.target_commit
        if item.result is not None:
            updated.symbol_type = item.result.identity.symbol_type
            updated.language = item.result.identity.language
        if updated != step:
            check.tour.steps[item.number - 1] = updated
            (fixed if item.status in FIXABLE else anchored).append(item)
    return fixed, left, anchored


# one step ---------------------------------------------------------------------------------


def _check_query(workspace, number: int, step: Step, query: str, branch: str) -> StepCheck:
    results = workspace.search(SearchRequest(query=query, branch=branch, top_k=1))
    if not results:
        return StepCheck(number, step, Verdict.UNVERIFIABLE, "the query finds nothing on this branch",
                         "unverifiable", None)
    top = results[0]
    path, start, end, text = _location(top)
    return StepCheck(number, step, top.verdict, f"top result of the query; {top.reason}",
                     "ok" if top.verdict in GOOD else top.verdict.value, top, path=path,
                     qualified_name=top.identity.qualified_name, start_line=start, end_line=end, text=text)


def _check_anchor(workspace, verifier: "Verifier", number: int, step: Step, path: str, branch: str,
                  anchor: str | None = None) -> StepCheck:
    repo = workspace.repo
    commit, seen = _seen_chunk(workspace, step, path, anchor)
    if seen is not None and not step.commit and not seen.has_hash(step.content_hash or ""):
        seen = None  # the tour file's commit holds other text than the hash the step records
    if seen is None:
        return _by_name_only(verifier, number, step, path, repo.name)
    identity = seen.identity
    # a class step recorded before classes were keyed by their outline names its lines' hash
    content_hash = seen.content_hash if not step.content_hash or seen.has_hash(step.content_hash) else step.content_hash
    result = Result(
        rank=number, score=0.0, identity=identity, branch=branch, commit=commit,
        start_line=step.start_line or seen.start_line, end_line=step.end_line or seen.end_line,
        indexed_at="", content_hash=content_hash, text=seen.stored_text,
        blob=repo.blob_at(commit, path), version_id=version_id(identity, content_hash),
    )
    verifier.verify([result])
    deliver(result, OUTLINE)  # a class step is about its outline, and is verified as one (views.py)
    assert result.verdict is not None, "Verifier.verify gives every result a verdict"
    if result.verdict is Verdict.DELETED and result.current_path is None:
        renamed = _renamed(verifier, result, seen)
        if renamed is not None:
            result.current_path = renamed.identity.path
            result.current_start_line, result.current_end_line = renamed.start_line, renamed.end_line
            result.current_text = renamed.text
            result.reason += f"; renamed to {renamed.identity.qualified_name} in the same file, text otherwise identical"
            return _finish(number, step, result, "renamed", renamed.identity.qualified_name)
    if result.moved_unchanged:
        new_name = _moved_name(verifier, result, result.current_path or result.path)
        if new_name != identity.qualified_name:
            return _finish(number, step, result, "renamed", new_name)
        result.verdict = Verdict.CURRENT if commit == verifier.target_commit else Verdict.UNCHANGED_OLDER
        result.reason = (f"{'content identical' if result.verdict is Verdict.CURRENT else 'older commit, content identical'}"
                         f"; moved {path} -> {_place(result)}")
        return _finish(number, step, result, "moved", new_name)
    if result.verdict in GOOD:
        shifted = result.current_start_line is not None and (
            (result.current_start_line, result.current_end_line) != (step.start_line, step.end_line))
        return _finish(number, step, result, "lines-shifted" if shifted else "ok", identity.qualified_name)
    return _finish(number, step, result, result.verdict.value, identity.qualified_name)


def _finish(number: int, step: Step, result: Result, status: str, name: str) -> StepCheck:
    assert result.verdict is not None, "Verifier.verify gives every result a verdict"
    path, start, end, text = _location(result)
    return StepCheck(number, step, result.verdict, result.reason, status, result,
                     path if status != "deleted" else None, name if status != "deleted" else None,
                     start if status != "deleted" else None, end if status != "deleted" else None,
                     text if status != "deleted" else None)


def _location(result: Result) -> tuple[str, int | None, int | None, str | None]:
    if result.current_path is not None:
        return result.current_path, result.current_start_line, result.current_end_line, result.current_text
    return result.path, result.start_line, result.end_line, result.text


def _by_name_only(verifier: "Verifier", number: int, step: Step, path: str, repository: str) -> StepCheck:
    """A step whose recorded commit is unknown (hand-written, or rebased away): found by name
    at the target and compared with the recorded hash, if any."""
    found = [c for c in verifier.current_chunks(repository, path)
             if c.identity.qualified_name == step.qualified_name
             and (not step.symbol_type or c.identity.symbol_type == step.symbol_type)]
    if not found:
        return StepCheck(number, step, Verdict.DELETED, f"no {step.qualified_name} in {path} at "
                         f"{verifier.target} (and no recorded commit to look for it elsewhere)", "deleted", None)
    recorded = step.content_hash
    chunk = min(found, key=lambda c: not (recorded and c.has_hash(recorded)))
    if not recorded:
        verdict, reason = Verdict.UNVERIFIABLE, "no content hash recorded for this step (`tour fix` records one)"
    elif chunk.has_hash(recorded):
        verdict, reason = Verdict.UNCHANGED_OLDER, "content identical (found by name; no known commit recorded)"
    else:
        verdict, reason = Verdict.CHANGED, f"symbol text differs from the recorded hash; now lines {chunk.start_line}-{chunk.end_line}"
    result = Result(
        rank=number, score=0.0, identity=chunk.identity, branch="", commit="", start_line=chunk.start_line,
        end_line=chunk.end_line, indexed_at="", content_hash=chunk.content_hash, text=chunk.text, blob=None,
        version_id=version_id(chunk.identity, chunk.content_hash), verdict=verdict, reason=reason,
    )
    status = {Verdict.UNCHANGED_OLDER: "ok", Verdict.CHANGED: "changed"}.get(verdict, "unverifiable")
    return StepCheck(number, step, verdict, reason, status, result,
                     path, step.qualified_name, chunk.start_line, chunk.end_line, chunk.text)


def _seen_chunk(workspace, step: Step, path: str, anchor: str | None = None) -> tuple[str, Chunk | None]:
    """The step's recorded commit (resolved; else `anchor`, the tour file's last commit) and its
    symbol as it was there."""
    repo = workspace.repo
    try:
        commit = repo.resolve(step.commit) if step.commit else anchor
    except UsageError:
        commit = None
    if not commit:
        return "", None
    blob = repo.blob_at(commit, path)
    if blob is None:
        return commit, None
    chunks = chunk_file(repo.name, path, repo.read_blob(blob), workspace.config.chunking_rules()).chunks
    named = [c for c in chunks if c.identity.qualified_name == step.qualified_name
             and (not step.symbol_type or c.identity.symbol_type == step.symbol_type)]
    recorded = step.content_hash
    if recorded:
        named.sort(key=lambda c: not c.has_hash(recorded))
    return commit, (named[0] if named else None)


def _check_hand_written(workspace, verifier: "Verifier", number: int, step: Step, path: str,
                        anchor: str | None) -> StepCheck:
    """A step with no content hash: the symbol it names, wherever it is now.

    Anchored at the step's own commit, else the tour file's last commit (`anchor`), else at the
    target: found by name in its file is `current`, found in another file since the anchor
    commit (same text, or the same name in a file changed since) is `moved`, a new name for the
    same text in the same file is `renamed`, and only a symbol found nowhere is `deleted`.
    """
    repo = workspace.repo
    commit, seen = _seen_chunk(workspace, step, path, anchor)
    since = f" since {commit[:7]}" if commit else ""
    now = _named(verifier.current_chunks(repo.name, path), step)
    if now:
        before = (step.start_line, step.end_line) if step.start_line and step.end_line else (
            (seen.start_line, seen.end_line) if seen is not None else None)
        chunk = min(now, key=lambda c: abs(c.start_line - (before[0] if before else 0)))
        shift = "" if before is None or before == (chunk.start_line, chunk.end_line) else (
            f"lines shifted {before[0]}-{before[1]} -> {chunk.start_line}-{chunk.end_line}{since}; ")
        return _anchored_now(verifier, number, step, path, chunk, "lines-shifted" if shift else "ok",
                             f"{shift}anchored now; `tour fix` records it")
    if seen is None:
        elsewhere = (f", nor at {commit[:7]} (the tour's commit)" if commit
                     else " (no commit of the tour file to look for it elsewhere)")
        return StepCheck(number, step, Verdict.DELETED, f"no {step.qualified_name} in {path} at "
                         f"{verifier.target}{elsewhere}", "deleted", None)
    result = Result(
        rank=number, score=0.0, identity=seen.identity, branch=verifier.branch, commit=commit,
        start_line=seen.start_line, end_line=seen.end_line, indexed_at="", content_hash=seen.content_hash,
        text=seen.text, blob=repo.blob_at(commit, path), version_id=version_id(seen.identity, seen.content_hash),
    )
    verifier.verify([result])
    if result.current_path is not None:
        there = next((c for c in verifier.current_chunks(repo.name, result.current_path)
                      if c.content_hash == result.content_hash and c.start_line == result.current_start_line), None)
        if there is not None and there.identity.qualified_name == seen.identity.qualified_name:
            return _anchored_now(verifier, number, step, result.current_path, there, "moved",
                                 f"moved {path} -> {_place(result)}{since}, text identical; anchored now; "
                                 "`tour fix` records it")
        if there is not None:
            return _finish(number, step, result, "renamed", there.identity.qualified_name)
    renamed = _renamed(verifier, result, seen) if result.current_path is None else None
    if renamed is not None:
        result.current_path = renamed.identity.path
        result.current_start_line, result.current_end_line = renamed.start_line, renamed.end_line
        result.current_text = renamed.text
        result.reason = (f"no {step.qualified_name} in {path}; renamed to {renamed.identity.qualified_name}"
                         f"{since} in the same file, text otherwise identical")
        return _finish(number, step, result, "renamed", renamed.identity.qualified_name)
    namesake = _same_name_elsewhere(workspace, verifier, step, commit, path)
    if namesake is not None:
        return _anchored_now(verifier, number, step, namesake.identity.path, namesake, "moved",
                             f"moved {path} -> {namesake.identity.path}#L{namesake.start_line}-L{namesake.end_line}"
                             f"{since} (found by name, text edited); anchored now; `tour fix` records it")
    return StepCheck(number, step, Verdict.DELETED, f"no {step.qualified_name} in {path} at {verifier.target}, "
                     f"nor anywhere else its text or name went{since}", "deleted", result)


def _anchored_now(verifier: "Verifier", number: int, step: Step, path: str, chunk: Chunk, status: str,
                  reason: str) -> StepCheck:
    result = Result(
        rank=number, score=0.0, identity=chunk.identity, branch=verifier.branch, commit=verifier.target_commit,
        start_line=chunk.start_line, end_line=chunk.end_line, indexed_at="", content_hash=chunk.content_hash,
        text=chunk.text, blob=None, version_id=version_id(chunk.identity, chunk.content_hash),
        verdict=Verdict.CURRENT, reason=reason,
    )
    return StepCheck(number, step, Verdict.CURRENT, reason, status, result, path, chunk.identity.qualified_name,
                     chunk.start_line, chunk.end_line, chunk.text)


def _same_name_elsewhere(workspace, verifier: "Verifier", step: Step, commit: str, path: str) -> Chunk | None:
    """The step's symbol by name in a file (same suffix) added or changed since `commit`."""
    repo = workspace.repo
    try:
        changed = {c.path for c in repo.changed_files(commit, verifier.target_commit) if c.new_blob is not None}
    except GitCommandError:
        changed = set()
    changed |= verifier.dirty.paths()
    if verifier.uses_work_tree:
        changed |= repo.untracked_paths()
    suffix = PurePosixPath(path).suffix.lower()
    for candidate in sorted(changed):
        if candidate == path or PurePosixPath(candidate).suffix.lower() != suffix or not verifier.allows(candidate):
            continue
        found = _named(verifier.current_chunks(repo.name, candidate), step)
        if found:
            return found[0]
    return None


def _check_place(verifier: "Verifier", number: int, step: Step) -> StepCheck:
    """A whole-file or directory step (from CodeTour): there at the target, or not."""
    if step.directory is not None:
        where, there = f"{step.directory.rstrip('/')}/", verifier.holds_directory(step.directory)
        what = "directory"
    else:
        assert step.path is not None
        where, there, what = step.path, verifier.holds_file(step.path), "file"
    if not there:
        return StepCheck(number, step, Verdict.DELETED, f"no {what} {where} at {verifier.target}", "deleted", None)
    return StepCheck(number, step, Verdict.CURRENT, f"{what} present at {verifier.target}", "ok", None,
                     path=step.path, start_line=step.start_line, end_line=step.end_line)


def _tour_file_commit(repo, tour: Tour) -> str | None:
    """The last commit that changed the tour's file, when the file is in this repository."""
    root = repo.work_tree
    if tour.path is None or root is None:
        return None
    try:
        relative = Path(tour.path).resolve().relative_to(root).as_posix()
    except (ValueError, OSError):
        return None
    return repo.last_commit_touching(relative)


def _named(chunks: list[Chunk], step: Step) -> list[Chunk]:
    return [c for c in chunks if c.identity.qualified_name == step.qualified_name
            and (not step.symbol_type or c.identity.symbol_type == step.symbol_type)]


def _place(result: Result) -> str:
    return f"{result.current_path}#L{result.current_start_line}-L{result.current_end_line}"


def _renamed(verifier: "Verifier", result: Result, seen: Chunk) -> Chunk | None:
    """The same text under another name in the same file (only when the text is the one seen)."""
    if seen.content_hash != result.content_hash:
        return None
    shape = shape_hash(seen.text, short_name(seen.identity.qualified_name))
    for chunk in verifier.current_chunks(result.identity.repository, result.path):
        if chunk.identity.symbol_type == seen.identity.symbol_type and \
                shape_hash(chunk.text, short_name(chunk.identity.qualified_name)) == shape:
            return chunk
    return None


def _moved_name(verifier: "Verifier", result: Result, current_path: str) -> str:
    for chunk in verifier.current_chunks(result.identity.repository, current_path):
        if chunk.content_hash == result.content_hash and chunk.start_line == result.current_start_line:
            return chunk.identity.qualified_name
    return result.identity.qualified_name

