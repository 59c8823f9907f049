"""What the index covers and how current it is: the answer to "when was this built, and of what?".

For each indexed branch of a repository: the indexed commit and when, how far the branch tip
has moved since (commits, and which indexed files changed), the live set counted by path
class and language, the files an index run left out and why, and the stale records still
waiting for a re-parse (see stale.py), and its dense coverage (how many of its versions the
model has embedded yet). The repository adds the embedding model and recipe, the background
embedding worker's progress and, when a hooks module is installed, the state of its git hooks. `branchwise status`, the review
app's status screen and the MCP server's `index_status` all print this one structure.

Everything is read from git refs and the index; nothing here writes.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone

from branchwise.display import escape_controls
from branchwise.git.names import name_from_git
from branchwise.git.repo import GitRepo
from branchwise.review.advice import branch_advice, branch_line
from branchwise.search.coverage import Coverage
from branchwise.search.hybrid import BranchInfo
from branchwise.store import stale
from branchwise.wording import plural


def freshness(ws, count_for: set[str] | None = None) -> list[dict]:
    """Each indexed branch of the workspace `ws` against its tip: cheap enough to run before
    every answer. `count_for`: count commits behind only for these branches (default: all)."""
    tips = ws.repo.branches()
    return [branch_freshness(ws.repo, info, tips, count=count_for is None or info.name in count_for)
            for info in ws.indexed_branches()]


def branch_freshness(repo: GitRepo, info: BranchInfo, tips: dict[str, str] | None = None, count: bool = True) -> dict:
    """An indexed branch against its tip: refs and (`count`) one `rev-list --count`, no file read."""
    tips = repo.branches() if tips is None else tips
    tip = tips.get(info.name)
    behind = 0 if tip == info.commit else (repo.commits_between(info.commit, tip) if tip and count else None)
    return {
        "branch": info.name,
        "indexed_commit": info.commit,
        "indexed_at": info.indexed_at,
        "age_seconds": age_seconds(info.indexed_at),
        "tip": tip,
        "branch_exists": tip is not None,
        "tip_moved": tip is not None and tip != info.commit,
        "commits_behind": behind,
    }


def branch_entry(workspace, info: BranchInfo, tips: dict[str, str] | None = None) -> dict:
    """One indexed branch's whole status entry, its re-index advice included (advice.py)."""
    repo, store = workspace.repo, workspace.store
    restriction = workspace.restriction
    allows = restriction.allows if restriction is not None else (lambda path: True)
    repo_id = store.repo_id(repo.name)
    failures = [f for f in stale.pending(workspace.index_dir, repo.name)
                if f.get("branch") == info.name and allows(str(f.get("path")))]
    checked_out = repo.current_branch()
    dirty = repo.dirty_paths() if checked_out == info.name else frozenset()
    entry = branch_freshness(repo, info, tips)
    live = workspace.inspect(info.name)
    indexed_paths = {row["path"] for row in live}
    changed = []
    if entry["tip_moved"]:
        changed = sorted(c.path for c in repo.changed_files(info.commit, entry["tip"]) if c.path in indexed_paths)
    stored = store.branch(repo_id, info.name) if repo_id is not None else None
    skipped = [{"path": path, "reason": reason} for path, reason in
               (store.skipped_files(stored.id) if stored is not None else []) if allows(path)]
    # the index holds committed code: edits not yet committed are the work tree's, not its
    uncommitted = sorted(p for p in dirty & indexed_paths if allows(p))
    # a failure met in an uncommitted edit that is committed or undone since is neither: the
    # new commit shows as changed files, and the next index run re-parses the file anyway
    in_work_tree = [f for f in failures if f.get("path") in uncommitted]
    committed = [f for f in failures if not f.get("uncommitted") and f.get("path") not in uncommitted]
    entry.update(
        ref=stored.ref or None if stored is not None else None,
        indexed_files_changed=len(changed),
        changed_files=changed[:50],
        files=len(indexed_paths),
        symbols=len(live),
        by_path_class=dict(Counter(row.get("path_class") or "source" for row in live).most_common()),
        by_language=dict(Counter(row["language"] for row in live).most_common()),
        skipped_files=skipped,
        skipped_by_reason=dict(Counter(_reason_kind(s["reason"]) for s in skipped).most_common()),
        stale_records=len(failures),
        stale_records_uncommitted=len(in_work_tree),
        stale_records_committed=len(committed),
        work_tree_files_changed=len(uncommitted),
        work_tree_changed_files=uncommitted[:50],
    )
    coverage = workspace.dense_coverage(info.name)
    entry["dense_coverage"] = coverage.to_json() if coverage is not None else None
    entry["reindex_recommended"], entry["why"] = branch_advice(entry)
    entry["work_tree"] = _work_tree_advice(entry)
    return entry


def repository_status(workspace) -> dict:
    """The whole status of one repository in the index (see the module docstring); `workspace`
    is the Workspace whose `status()` calls this."""
    repo = workspace.repo
    tips = repo.branches()
    branches = [branch_entry(workspace, info, tips) for info in workspace.indexed_branches()]
    return {
        "repository": repo.name,
        "path": name_from_git(str(repo.path)),
        "index": str(workspace.index_dir),
        "checked_out": repo.current_branch(),
        "embedding": {"model": workspace.config.model, "path_weight": workspace.config.path_weight,
                      "recipe": workspace.store.meta("embedding_recipe")},
        "branches": branches,
        "unindexed_branches": sorted(set(repo.branch_names()) - {b["branch"] for b in branches}),
        "stale_records": [f for f in stale.pending(workspace.index_dir, repo.name) if _allowed(workspace, f)],
        "hooks": hooks_state(workspace),
        "embedding_worker": workspace.embedding_worker(),
    }


def hooks_state(workspace) -> dict | None:
    """The git hooks' state (`Workspace.hooks`); None for a bare repository, where git runs no hooks."""
    if workspace.repo.work_tree is None:
        return None
    return workspace.hooks.status()


def _allowed(workspace, failure: dict) -> bool:
    restriction = workspace.restriction
    return restriction is None or restriction.allows(str(failure.get("path")))


def _work_tree_advice(entry: dict) -> str | None:
    """For the checked-out branch with uncommitted edits to indexed files: what to do (None
    when the work tree agrees with the index). Re-indexing alone cannot help: it reads commits."""
    files, failed = entry["work_tree_files_changed"], entry["stale_records_uncommitted"]
    if not files and not failed:
        return None
    parts = [f"{plural(files, 'indexed file')} with uncommitted edits"] if files else []
    if failed:
        parts.append(f"{plural(failed, 'record')} failed verification against them")
    return "work tree differs from the index: commit, then index (" + "; ".join(parts) + ")"


def _reason_kind(reason: str) -> str:
    """A skip reason without its specifics ("file too large (2 MB > 1 MB)" -> "file too large")."""
    return reason.split("(")[0].split(":")[0].strip() or reason


def age_seconds(indexed_at: str) -> float | None:
    """Seconds since an ISO 8601 time (None when it cannot be read)."""
    try:
        return round((datetime.now(timezone.utc) - datetime.fromisoformat(indexed_at)).total_seconds(), 1)
    except (TypeError, ValueError):
        return None


# rendering ---------------------------------------------------------------------------------


def render_text(status: dict) -> str:
    """The status for a terminal (the review app's screen shows the same lines)."""
    embedding = status["embedding"]
    lines = [f"{status['repository']}  ({status['path']})", f"  index: {status['index']}",
             f"  model: {embedding['model']} ({model_settings(embedding)})"]
    if status.get("hooks") is not None:
        lines.append(f"  hooks: {hooks_line(status['hooks'])}")
    worker = worker_line(status.get("embedding_worker"))
    if worker is not None:
        lines.append(f"  embedding: {worker}")
    if not status["branches"]:
        lines.append("  no branch indexed yet: run `branchwise index`")
    for b in status["branches"]:
        mark = "*" if b["branch"] == status.get("checked_out") else " "
        lines += [
            "",
            f" {mark}{b['branch']} @ {b['indexed_commit'][:7]}, indexed {b['indexed_at']}{ref_words(b.get('ref'))}",
            f"    tip: {tip_line(b)}",
            f"    {plural(b['files'], 'file')}, {plural(b['symbols'], 'symbol')}; by class: {_counts(b['by_path_class'])}; "
            f"by language: {_counts(b['by_language'])}",
        ]
        coverage = b.get("dense_coverage")
        if coverage and not coverage["complete"]:
            lines.append(f"    {Coverage.from_json(coverage).line()}")
        lines += _left_out_lines(b)
        lines.append(f"    {branch_line(b)}")
        if b.get("work_tree"):
            lines.append(f"    {b['work_tree']}")
            lines += [f"      {path}" for path in b.get("work_tree_changed_files", [])[:20]]
    if status["unindexed_branches"]:
        lines += ["", f"  not indexed: {', '.join(status['unindexed_branches'])}"]
    if status["stale_records"]:
        lines += ["", f"  stale records ({len(status['stale_records'])}; the next index run re-parses their files):"]
        lines += [f"    {f['branch']}: {f['path']} ({f.get('qualified_name')}) {f['verdict']} at {f['time'][:19]}"
                  for f in status["stale_records"]]
    return "\n".join(escape_controls(line) for line in lines)  # names inside cannot break or reorder lines


def ref_words(ref: str | None) -> str:
    """" (from origin/release/v2)" for a branch taken from a remote-tracking ref, " (tag)" for
    a tag; nothing for a local branch, the plain case."""
    if ref and ref.startswith("refs/remotes/"):
        return f" (from {ref.removeprefix('refs/remotes/')})"
    return " (tag)" if ref and ref.startswith("refs/tags/") else ""


def model_settings(embedding: dict) -> str:
    """"recipe outline-2; path weight 0.25": the recorded recipe names the path weight its
    vectors were made with; the configured one is added only when it differs."""
    recipe, weight = embedding.get("recipe"), f"path weight {embedding['path_weight']:g}"
    if not recipe:
        return weight
    settings = f"recipe {recipe}"
    return settings if recipe.endswith(weight) else f"{settings}; configured {weight} (the next index run applies it)"


def tip_line(b: dict, short: bool = False) -> str:
    """One branch's entry against its tip, in words (`short`: for a narrow table column)."""
    if not b["branch_exists"]:
        return "branch gone" if short else "the branch no longer exists"
    if not b["tip_moved"]:
        return "at tip" if short else "indexed at the tip"
    behind = "?" if b["commits_behind"] is None else b["commits_behind"]
    if short:
        return f"{behind} behind, {b['indexed_files_changed']} changed"
    return f"{b['tip'][:7]}, {behind} commit(s) ahead; {b['indexed_files_changed']} indexed file(s) changed"


def worker_line(record: dict | None) -> str | None:
    """The background embedding worker in words, while it matters (None once it is done)."""
    if not record or record.get("state") not in ("running", "interrupted", "failed"):
        return None
    if record["state"] == "interrupted":
        return (f"the background worker (pid {record.get('pid')}) stopped after {record.get('done', 0):,} of "
                f"{record.get('total', 0):,} texts; the next `branchwise index` embeds the rest")
    if record["state"] == "failed":
        return f"the background worker failed: {record.get('message', '')}"
    rate, eta = record.get("rate"), record.get("eta_seconds")
    pace = f", {rate:,.0f} texts/s" if rate else ""
    left = f", about {_duration(eta)} left" if eta is not None else ""
    return (f"in the background (pid {record.get('pid')}): {record.get('done', 0):,} of "
            f"{record.get('total', 0):,} texts{pace}{left}")


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 60}m {seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def hooks_line(hooks: dict) -> str:
    if hooks.get("installed"):
        line = "installed"
    else:
        line = "not installed (" + ", ".join(f"{n}: {v}" for n, v in (hooks.get("hooks") or {}).items()) + ")"
    last = hooks.get("last_refresh")
    return f"{line}; last background refresh {last}" if last else line


def _left_out_lines(branch: dict, examples: int = 3) -> list[str]:
    """The files a branch's index left out: the count by reason, then a few of each reason."""
    skipped = branch["skipped_files"]
    if not skipped:
        return []
    lines = [f"    left out {plural(len(skipped), 'file')}: {_counts(branch['skipped_by_reason'])}"]
    for kind, count in branch["skipped_by_reason"].items():
        some = [s for s in skipped if _reason_kind(s["reason"]) == kind][:examples]
        lines += [f"      {s['path']}: {s['reason']}" for s in some]
        if count > len(some):
            lines.append(f"      ... and {count - len(some)} more {kind} (--json lists all)")
    return lines


def _counts(counts: dict) -> str:
    return ", ".join(f"{name} {n}" for name, n in counts.items()) or "none"
