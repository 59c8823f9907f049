"""`branchwise verify`: re-check retrieved code that was saved earlier, before it is used.

Two inputs are accepted. A snippet list has one
`path<TAB>hash-prefix` a line, where the hash is the sha256 of the whole file as it was when
the snippet was taken; each line is checked against the file in the work tree now. A saved
`search --json` output (one JSON object, or JSON Lines of them, each with "results") is
rebuilt into results and verified symbol by symbol with the `Verifier`.

Changing one character of a recorded hash makes the line no
longer `current`, because the check always hashes the file on disk, never a cached copy.

A saved search output is input too, and may have been edited: its `text`, `content_hash`,
`blob` and `path_class` are never trusted. Each result is rebuilt from git (the symbol as it
is in the blob of `path` at the recorded `commit`) before it is verified; a result whose saved
text or hash differs from that is reported `changed`, and one whose commit, file or symbol
is not in the repository is `unverifiable`. Paths that leave the repository are refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from branchwise.chunking import chunk_file
from branchwise.errors import UsageError
from branchwise.git.names import git_arg
from branchwise.git.repo import GitRepo
from branchwise.models import Chunk, Identity, PathClass, Result, Verdict, version_id
from branchwise.verify import views
from branchwise.verify.verifier import Verifier, find_identity

#: the shortest hash prefix accepted: shorter ones match other contents too easily
MIN_PREFIX = 7
_HEX = re.compile(r"[0-9a-fA-F]*")
_REQUIRED = ("path", "language", "symbol_type", "qualified_name", "commit", "start_line", "end_line", "content_hash")


def verify_input(source: Path | str, repo: GitRepo | str | os.PathLike[str] | None = None, *,
                 branch: str | None = None, against: str | None = None, rules=None,
                 allows: Callable[[str], bool] | None = None) -> list[dict]:
    """Verdicts for a snippet list or a saved `search --json` output.

    `source` is the input's text when it is a str holding a newline or a tab or starting with
    "{", otherwise a file to read (a Path or a file name; "-" reads standard input). `repo` is a GitRepo or its path
    (default: the current directory). `branch` overrides the branch recorded in a JSON input;
    `against` verifies JSON results against that ref. Every returned dict has "path", "verdict"
    and "reason"; snippet lines add "line", "recorded" and "current_hash"; JSON results carry
    the whole `search --json` result object plus "query".
    """
    text = _text_of(source)
    if not isinstance(repo, GitRepo):
        repo = GitRepo(repo if repo is not None else Path.cwd())
    if not text.strip():
        raise UsageError("nothing to verify: the input is empty")
    if text.lstrip().startswith("{"):
        return verify_search_json(text, repo, branch=branch, against=against, rules=rules, allows=allows)
    return verify_snippet_list(text, repo, allows=allows)


# snippet lists ------------------------------------------------------------------------------


def verify_snippet_list(text: str, repo: GitRepo, allows: Callable[[str], bool] | None = None) -> list[dict]:
    """Check `path<TAB>hash-prefix` lines against the work tree (blank and # lines skipped)."""
    if repo.work_tree is None:
        raise UsageError(f"a snippet list is checked against a work tree, and {repo.name} is bare")
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            path, recorded = _parse_snippet_line(number, line)
            if allows is not None and not allows(path):
                raise UsageError(f"line {number}: {path!r} is outside what you may read")
            rows.append(_check_snippet(number, path, recorded, repo))
    return rows


def _parse_snippet_line(number: int, line: str) -> tuple[str, str]:
    path, tab, recorded = line.rpartition("\t")
    if not tab:
        path, recorded = line, ""  # a path without a hash: no version metadata
    path, recorded = path.strip(), recorded.strip().lower()
    if not path:
        raise UsageError(f"line {number}: no path before the tab")
    if Path(path).is_absolute() or ".." in Path(path).parts:
        raise UsageError(f"line {number}: {path!r} must be relative to the repository and stay inside it")
    if recorded and (not _HEX.fullmatch(recorded) or not MIN_PREFIX <= len(recorded) <= 64):
        raise UsageError(
            f"line {number}: {recorded!r} is not a sha256 prefix ({MIN_PREFIX} to 64 hexadecimal digits)"
        )
    return path, recorded


def _check_snippet(number: int, path: str, recorded: str, repo: GitRepo) -> dict:
    row = {"line": number, "path": path, "recorded": recorded, "current_hash": None}
    data = repo.read_work_file(path)
    if data is None:
        return {**row, "verdict": Verdict.DELETED.value, "reason": "file no longer exists"}
    now = hashlib.sha256(data).hexdigest()
    row["current_hash"] = now[: max(len(recorded), 12)]
    if not recorded:
        return {**row, "verdict": Verdict.UNVERIFIABLE.value, "reason": "no hash recorded: a lead, not a fact"}
    if now.startswith(recorded):
        return {**row, "verdict": Verdict.CURRENT.value, "reason": f"file hash matches ({recorded})"}
    return {**row, "verdict": Verdict.CHANGED.value,
            "reason": f"file changed: recorded {recorded}, now {now[: len(recorded)]}"}


# saved search --json output ------------------------------------------------------------------


def verify_search_json(text: str, repo: GitRepo, *, branch: str | None = None, against: str | None = None,
                       rules=None,
                       allows: Callable[[str], bool] | None = None) -> list[dict]:
    rows: list[dict] = []
    verifiers: dict[str, Verifier] = {}
    for number, query in enumerate(_json_objects(text), start=1):
        query_branch = branch or query.get("branch")
        if not isinstance(query_branch, str) or not query_branch:
            raise UsageError(f"query {number}: no branch recorded; give one with --branch")
        if query_branch not in verifiers:
            verifiers[query_branch] = Verifier(repo, query_branch, against=against, rules=rules, allows=allows)
        results = [
            _result_from_json(number, index, item, repo.name) for index, item in enumerate(query["results"], start=1)
        ]
        for index, result in enumerate(results, start=1):
            if allows is not None and not allows(result.path):
                raise UsageError(f"query {number}, result {index}: {result.path!r} is outside what you may read")
        kinds = [result.text_kind for result in results]
        rebuilt = [_rebuild_from_git(result, repo, rules) for result in results]
        verifiers[query_branch].verify([r for r, (problem, _) in zip(results, rebuilt) if problem is None])
        for result, kind, (problem, _) in zip(results, kinds, rebuilt):
            if problem is None and kind != views.FULL:  # verified as what was saved: its outline, its signature
                if kind == views.OUTLINE:
                    views.with_derived_outline(result)
                views.deliver(result, kind)
        for result, (problem, altered) in zip(results, rebuilt):
            if problem is not None:
                result.verdict, result.reason = Verdict.UNVERIFIABLE, problem
            elif altered:
                _report_altered(result)
        rows.extend({"query": query.get("query"), **result.to_json()} for result in results)
    return rows


def _rebuild_from_git(result: Result, repo: GitRepo, rules) -> tuple[str | None, bool]:
    """Replace the saved text, hash, blob, lines and class with git's at the recorded commit.

    Returns why that is impossible (the result is then unverifiable) or None, and whether the
    saved text or hash differed from git's.
    """
    saved_text, saved_hash = result.text, result.content_hash
    result.text, result.blob = "", None
    if not result.commit or not repo.has_commit(result.commit):
        return f"recorded commit {result.commit[:12] or '(none)'} is not in {repo.name}: a lead, not a fact", False
    blob = repo.blob_at(result.commit, result.path)
    if blob is None:
        return f"no file {result.path} at the recorded commit {result.commit[:7]}: a lead, not a fact", False
    chunks = chunk_file(repo.name, result.path, repo.read_blob(blob), rules=rules).chunks
    found = find_identity(chunks, result)
    if found is None:
        return (f"no {result.identity.symbol_type} {result.identity.qualified_name} in {result.path} at the "
                f"recorded commit {result.commit[:7]}: a lead, not a fact"), False
    altered = saved_hash != found.content_hash or (bool(saved_text) and saved_text != _text_of_kind(
        result.text_kind, found, chunks))
    # a container as the index keeps it (its skeleton): verification rebuilds its text and views
    result.text, result.blob, result.content_hash = found.stored_text, blob, found.content_hash
    result.start_line, result.end_line = found.start_line, found.end_line
    result.path_class, result.class_reason = found.path_class, found.class_reason
    result.version_id = version_id(result.identity, found.content_hash)
    return None, altered


def _text_of_kind(kind: str, found: Chunk, chunks: list[Chunk]) -> str:
    """The text a saved result of `kind` carried, as git has it at the recorded commit."""
    if kind == views.SIGNATURE:
        return views.signature_text(found.signature, found.text)
    if kind == views.OUTLINE:
        container = views.container_outline(found, chunks)
        if container is not None:
            return container
        from branchwise.verify.outline import outline

        return outline(found.text, found.identity.path, found.identity.language)
    return found.text


def _report_altered(result: Result) -> None:
    """A saved text or hash that is not git's is never `current`: what was saved is not the code."""
    altered = f"saved text or hash differs from {result.path} at {result.commit[:7]} (the saved result was altered)"
    if result.verdict in (Verdict.CURRENT, Verdict.UNCHANGED_OLDER):
        if result.current_path is None:
            result.current_path = result.path
            result.current_start_line, result.current_end_line = result.start_line, result.end_line
            result.current_text = result.text
        result.verdict = Verdict.CHANGED
    if result.verdict is not Verdict.EXCLUDED:
        result.reason = f"{altered}; {result.reason}"


def _json_objects(text: str) -> list[dict]:
    """One JSON object, or JSON Lines of objects, each with a "results" list."""
    try:
        objects = [json.loads(text)]
    except json.JSONDecodeError:
        objects = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    objects.append(json.loads(line))
                except json.JSONDecodeError as error:
                    raise UsageError(f"line {number}: not JSON ({error.msg})") from None
    for number, item in enumerate(objects, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("results"), list):
            raise UsageError(f"query {number}: expected an object with a \"results\" list (search --json output)")
    return objects


def _result_from_json(query: int, index: int, item: object, repository: str) -> Result:
    if not isinstance(item, dict):
        raise UsageError(f"query {query}, result {index}: not an object")
    missing = [name for name in _REQUIRED if name not in item]
    if missing:
        raise UsageError(f"query {query}, result {index}: missing {', '.join(missing)}")
    _check_inside(query, index, item["path"])
    try:
        identity = Identity(
            str(item.get("repository") or repository), str(item["path"]), str(item["language"]),
            str(item["symbol_type"]), str(item["qualified_name"]),
        )
        content_hash = str(item["content_hash"] or "")
        return Result(
            rank=int(item.get("rank") or index),
            score=float(item.get("score") or 0.0),
            identity=identity,
            branch=str(item.get("branch") or ""),
            commit=str(item["commit"] or ""),
            start_line=int(item["start_line"]),
            end_line=int(item["end_line"]),
            indexed_at=str(item.get("indexed_at") or ""),
            content_hash=content_hash,
            text=str(item.get("text") or ""),
            blob=item.get("blob"),
            version_id=item.get("version_id") or version_id(identity, content_hash),
            path_class=PathClass(item.get("path_class") or PathClass.SOURCE.value),
            text_kind=str(item.get("text_kind")) if item.get("text_kind") in views.DETAILS else views.FULL,
        )
    except (TypeError, ValueError) as error:
        raise UsageError(f"query {query}, result {index}: bad field value ({error})") from None


def _check_inside(query: int, index: int, path: object) -> None:
    """A result's path names a file of the repository: relative, and never through `..`."""
    text = str(path)
    raw = git_arg(text)  # an `\xHH` escape (gitnames.py) is one byte of the name, not a backslash
    parts = PurePosixPath(raw).parts
    if not text or raw.startswith(("/", "\\")) or ".." in parts or "\\" in raw or "\0" in text or (
        len(text) > 1 and text[1] == ":"
    ):
        raise UsageError(f"query {query}, result {index}: path {text!r} is outside the repository")


def _text_of(source: Path | str) -> str:
    if isinstance(source, str) and ("\n" in source or "\t" in source or source.lstrip().startswith("{")):
        return source
    if str(source) == "-":
        return sys.stdin.read()
    path = Path(source)
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text") from None
