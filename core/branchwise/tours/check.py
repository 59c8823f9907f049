"""Checking a tour against a branch, and re-anchoring what can be re-anchored.

Each anchored step becomes a search result as it was last seen (its commit, lines and content
hash) and goes through the same verification as search results: the version, file, symbol and
existence steps, the search for the same text moved to another file, and here also a rename
(the same text under another name in the same file). `status` says what a reader and `fix` need
to know beyond the verdict: `ok`, `lines-shifted`, `moved`, `renamed` (these three `fix` can
re-anchor), `changed`, `deleted`, `unverifiable`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from branchwise.chunking import chunk_file
from branchwise.errors import UsageError
from branchwise.models import Chunk, Result, Verdict, version_id
from branchwise.search import SearchRequest
from branchwise.symbols import shape_hash, short_name
from branchwise.tours.tourfile import Step, Tour
from branchwise.views import OUTLINE, deliver

if TYPE_CHECKING:
    from branchwise.verify import Verifier

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

    @property
    def decayed(self) -> bool:
        return self.verdict not in GOOD

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
    checks = []
    for number, step in enumerate(tour.steps, 1):
        if step.query is not None:
            checks.append(_check_query(workspace, number, step, step.query, branch))
        elif step.path is not None:
            checks.append(_check_anchor(workspace, verifier, number, step, step.path, branch))
        else:
            raise UsageError(f"tour {tour.title!r}, step {number}: anchor it on `path` + `qualified_name`, or on a `query`")
    return TourCheck(tour, branch, verifier.target, verifier.target_commit, checks)


def fix_tour(check: TourCheck, uses_work_tree_paths: frozenset[str] = frozenset()) -> tuple[list[StepCheck], list[StepCheck]]:
    """Re-anchor the steps whose text is intact elsewhere; return (fixed, left for a human).

    A re-anchored step records the target commit as where it was seen, unless its file has
    uncommitted edits (`uses_work_tree_paths`), in which case only its anchor and lines move.
    """
    fixed, left = [], []
    for item in check.steps:
        step = item.step
        refreshable = item.status in FIXABLE | {"ok"} or (item.status == "unverifiable" and item.result)
        if item.step.query is not None or not refreshable:
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
            if item.status in FIXABLE:
                fixed.append(item)
    return fixed, left


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


def _check_anchor(workspace, verifier: "Verifier", number: int, step: Step, path: str, branch: str) -> StepCheck:
    repo = workspace.repo
    commit, seen = _seen_chunk(workspace, step, path)
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
    if result.verdict is Verdict.DELETED and result.current_path is not None:
        new_name = _moved_name(verifier, result, result.current_path)
        status = "moved" if new_name == identity.qualified_name else "renamed"
        return _finish(number, step, result, status, new_name)
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


def _seen_chunk(workspace, step: Step, path: str) -> tuple[str, Chunk | None]:
    """The step's recorded commit (resolved) and its symbol as it was there."""
    if not step.commit:
        return "", None
    repo = workspace.repo
    try:
        commit = repo.resolve(step.commit)
    except UsageError:
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

