"""Turning what an agent cites back into results that the Verifier can check.

An agent holds on to less than a `search --json` result: often just a path, a content hash and
a commit from an earlier answer, or a snippet line `path<TAB>sha256-prefix` of a whole file.
A (path, hash, commit) is found again by chunking the file as it was at that commit and
matching the symbol's content hash; a hash that names no symbol there is taken as the whole
file's sha256, as in a snippet line.
"""

from __future__ import annotations

import hashlib

from branchwise.chunking import chunk_file
from branchwise.errors import UsageError
from branchwise.git.repo import GitRepo
from branchwise.models import Identity, Result, Verdict
from branchwise.verify.snippets import MIN_PREFIX


def citation_result(repo: GitRepo, item: dict, rules, branch: str) -> Result | None:
    """The indexed symbol an item cites, rebuilt from git; None when the hash names no symbol."""
    path, wanted, commit = item["path"], item["content_hash"].lower(), item.get("commit")
    if not commit:
        return None
    commit = repo.resolve(commit)
    blob = repo.blob_at(commit, path)
    if blob is None:
        return None
    for chunk in chunk_file(repo.name, path, repo.read_blob(blob), rules).chunks:
        # a class cited before classes were keyed by their outline names its lines' hash
        if (chunk.content_hash.startswith(wanted) or chunk.lines_hash.startswith(wanted)) \
                and _named(item, chunk.identity):
            return Result(
                rank=0, score=0.0, identity=chunk.identity, branch=branch, commit=commit,
                start_line=chunk.start_line, end_line=chunk.end_line, indexed_at="",
                content_hash=chunk.content_hash, text=chunk.text, blob=blob,
                version_id=chunk.version_id, signature=chunk.signature, docstring=chunk.docstring,
                parent=chunk.parent.qualified_name if chunk.parent else None, path_class=chunk.path_class,
                class_reason=chunk.class_reason,
            )
    return None


def _named(item: dict, identity: Identity) -> bool:
    name = item.get("qualified_name")
    return not name or name == identity.qualified_name


def file_hash_check(repo: GitRepo, path: str, wanted: str, target_commit: str, work_tree: bool) -> dict:
    """A whole-file sha256 prefix against the file at the target (the work tree when checked out)."""
    if work_tree:
        data = repo.read_work_file(path)
    else:
        blob = repo.blob_at(target_commit, path)
        data = repo.read_blob(blob) if blob else None
    if data is None:
        return {"verdict": Verdict.DELETED.value, "reason": "file no longer exists"}
    now = hashlib.sha256(data).hexdigest()
    if not wanted:
        return {"verdict": Verdict.UNVERIFIABLE.value, "reason": "no hash given: a lead, not a fact"}
    if now.startswith(wanted):
        return {"verdict": Verdict.CURRENT.value, "reason": f"file hash matches ({wanted})"}
    return {"verdict": Verdict.CHANGED.value,
            "reason": f"no indexed symbol has this hash, and the file's hash differs (now {now[:len(wanted)]})"}


def parse_item(item: object, number: int) -> dict:
    """One citation: an object with path and content_hash (commit, qualified_name optional) or a
    snippet line `path<TAB>hash-prefix`; a bad one raises UsageError naming its position."""
    if isinstance(item, str):
        path, tab, recorded = item.rpartition("\t")
        if not tab:
            path, recorded = item, ""
        item = {"path": path.strip(), "content_hash": recorded.strip()}
    if not isinstance(item, dict) or not isinstance(item.get("path"), str) or not item["path"].strip():
        raise UsageError(f"item {number} needs a path (an object with path and content_hash, "
                         "or a `path<TAB>hash` line)")
    wanted = str(item.get("content_hash") or "").strip().lower()
    if wanted and (len(wanted) < MIN_PREFIX or any(c not in "0123456789abcdef" for c in wanted)):
        raise UsageError(f"item {number}: content_hash must be at least {MIN_PREFIX} hexadecimal digits")
    path = item["path"].strip()
    if path.startswith("/") or ".." in path.split("/"):
        raise UsageError(f"item {number}: the path must be relative to the repository and stay inside it")
    return {**item, "path": path, "content_hash": wanted}

