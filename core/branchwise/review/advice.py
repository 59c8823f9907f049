"""One advice for re-indexing: whether `branchwise index` would help, and in what words.

`status` judges a branch by its index against its tip; `stats` judged the index by the
failure ratios of past sessions, so the two could disagree ("No re-index needed" beside "index
behind the branch tip"). Both now take the advice from here, from the same per-branch entry
(status.py builds it), and every output that shows results (search, export) prints the same
line when there is something to say. Re-indexing reads commits: uncommitted edits call for a
commit first, which the work-tree line says.
"""

from __future__ import annotations

from branchwise.wording import plural

FIX = "run `branchwise index`"


def branch_advice(entry: dict) -> tuple[bool, str]:
    """(re-index recommended, why) for one indexed branch's status entry."""
    if not entry["branch_exists"]:
        return True, "the branch no longer exists: `index --prune` forgets it"
    reasons = []
    if entry["indexed_files_changed"]:
        reasons.append(f"{entry['indexed_files_changed']} indexed file(s) changed in "
                       f"{entry['commits_behind']} commit(s) since the indexed commit")
    committed_failures = entry["stale_records_committed"]
    if committed_failures:
        reasons.append(f"{plural(committed_failures, 'record')} failed verification against committed code")
    if reasons:
        return True, "; ".join(reasons)
    if entry["tip_moved"]:
        return False, f"{entry['commits_behind']} commit(s) behind the tip, but no indexed file changed"
    return False, "indexed at the branch tip"


def reason(entry: dict) -> str:
    """The advice's words for one branch, without the verdict ("index behind main tip by 2
    commits: run `branchwise index` (...)")."""
    why = entry["why"]
    if not entry["reindex_recommended"] or not entry["branch_exists"]:
        return why
    if entry["tip_moved"] and entry["indexed_files_changed"]:
        behind = "?" if entry["commits_behind"] is None else plural(entry["commits_behind"], "commit")
        return f"index behind {entry['branch']} tip by {behind}: {FIX} ({why})"
    return f"{why}: {FIX}"


def branch_line(entry: dict) -> str:
    """"re-index recommended: ..." or "no re-index needed: ...", for one branch."""
    verdict = "re-index recommended" if entry["reindex_recommended"] else "no re-index needed"
    return f"{verdict}: {reason(entry)}"


def results_note(entry: dict) -> str | None:
    """The line an output of results carries about its branch's index (None: nothing to say):
    the re-index advice when there is one, else the work tree's uncommitted edits."""
    if entry["reindex_recommended"]:
        return reason(entry)
    return entry.get("work_tree")


def repository_advice(branches: list[dict], sessions: dict) -> dict:
    """The advice `stats` gives for a repository: the index's state decides (re-indexing
    changes nothing for a branch indexed at its tip), in the words `status` uses per branch;
    `sessions` (stats.recommend's, from the logged failure ratios) is kept beside it."""
    if not branches:
        return sessions
    needed = [b for b in branches if b["reindex_recommended"]]
    by_reason: dict[str, list[str]] = {}
    for branch in needed or branches:  # branches with the same words are named together
        by_reason.setdefault(reason(branch), []).append(branch["branch"])
    why = "; ".join(f"{', '.join(names)}: {words}" for words, names in by_reason.items())
    if not needed and sessions.get("reindex"):
        why += f" (past sessions: {sessions['why']}; the index has caught up since)"
    return {"reindex": bool(needed), "why": why, "sessions": sessions}
