"""What each MCP tool does, over Workspace objects: plain arguments in, plain data out.

One `AgentService` serves one or more repositories of one index for the life of the server
process, so the model is loaded once and stays warm. Every answer starts with the same three
steps: pick the repository and branch (default: the checked-out branch), reload the search
index when an index run changed it, and compare the indexed commit with the branch tip. The
access restriction of `--as USER` is the Workspace's, applied before ranking by its search
and checked here for tools that name a path. Calls are serialised: the Workspace's database
connection and git reader are shared.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from branchwise.chunking import load_chunker
from branchwise.errors import UsageError
from branchwise.mcp_server.answer_size import compact_json, echoed, with_token_count
from branchwise.mcp_server.bundle_answer import BundleAnswer
from branchwise.mcp_server.citations import citation_result, file_hash_check, parse_item
from branchwise.models import Label, Result
from branchwise.review import usage
from branchwise.review.bundle import BundleContext, shown_for
from branchwise.review.bundle.tokens import token_counter
from branchwise.review.labels import effective_label
from branchwise.search.hybrid import SearchRequest
from branchwise.verify import views
from branchwise.workspace import Workspace

MAX_TOP_K = 50
MAX_ITEMS = 200
#: the smallest answer budget worth asking for: the answer's frame alone takes about 150 tokens
MIN_ANSWER_TOKENS = 200
#: a search answer's default budget: the best results in full, later ones as outlines or
#: signatures (each one `symbol` call from its full text); None asks for no limit
DEFAULT_ANSWER_TOKENS = 3000
#: what each result can shrink to, largest first, under a budget
_SMALLER = {views.FULL: (views.FULL, views.OUTLINE, views.SIGNATURE),
            views.OUTLINE: (views.OUTLINE, views.SIGNATURE), views.SIGNATURE: (views.SIGNATURE,)}


class AgentService:
    def __init__(self, workspaces: list[Workspace], refresher=None):
        if not workspaces:
            raise UsageError("no repository to serve")
        self.workspaces = {ws.repo.name: ws for ws in workspaces}
        self.refresher = refresher
        self._lock = threading.RLock()
        self._generations: dict[str, int] = {}

    def warm(self) -> None:
        """Load now what answering needs, so the first question is answered as fast as the next:
        the model, each index and its review desk, the token counter an answer's budget is
        counted with, and the chunker the verifier outlines a large result with."""
        with self._lock:
            for ws in self.workspaces.values():
                ws.embedder.embed(["warm up"])
                ws.indexed_branches()
                ws.freshness()
                ws.review  # the review desk is made, and its modules loaded, once
                self._generations[ws.repo.name] = ws.store.generation()
            token_counter()
            load_chunker()

    # the tools --------------------------------------------------------------------------

    def search_code(self, query: str, branch: str | None = None, top_k: int = 10, language: str | None = None,
                    path_prefix: str | None = None, scope: str = "branch", repository: str | None = None,
                    detail: str = views.OUTLINE, max_tokens: int | None = DEFAULT_ANSWER_TOKENS) -> dict:
        if not query.strip():
            raise UsageError("query is empty: describe the code you are looking for")
        if not 1 <= top_k <= MAX_TOP_K:
            raise UsageError(f"top_k must be between 1 and {MAX_TOP_K}")
        if scope not in ("branch", "all"):
            raise UsageError("scope must be 'branch' (the branch's code) or 'all' (with other branches and history)")
        if detail not in views.DETAILS:
            raise UsageError(f"detail must be one of {', '.join(views.DETAILS)}")
        if max_tokens is not None and max_tokens < MIN_ANSWER_TOKENS:
            raise UsageError(f"max_tokens must be at least {MIN_ANSWER_TOKENS} (the answer's frame takes about 150)")
        with self._lock, self._held(repository):
            ws, branch, freshness = self._open(repository, branch)
            request = SearchRequest(query=query, branch=branch, top_k=top_k, scope=scope,
                                    language=language, path_prefix=path_prefix, detail=detail)
            verifier = ws.verifier(branch)
            results = ws.search(request, verifier=verifier)
            context = ws.review.bundle_context(request, results, verifier=verifier)
            kept = [r for r in results if effective_label(r) is not Label.EXCLUDE]
            self._record(ws, branch, results, verifier)
            answer: dict[str, Any] = {
                "query": echoed(query), "repository": ws.repo.name, "branch": branch,
                "target": context.target, "target_commit": context.target_commit,
                "freshness": freshness, "detail": detail, "max_tokens": max_tokens,
                "results": [], "excluded": len(results) - len(kept), "omitted": [],
            }
            coverage = ws.dense_coverage(branch)
            answer["dense_coverage"] = coverage.to_json() if coverage is not None else None
            if max_tokens is None:
                answer["results"] = [_entry(ws, r, context) for r in kept]
                return with_token_count(answer)
            candidates = [(r, [k for k in _SMALLER[r.text_kind] if k in r.views] or [r.text_kind]) for r in kept]
            return _within(answer, candidates, lambda r: _entry(ws, r, context), max_tokens)

    def context_bundle(self, query: str, branch: str | None = None, max_tokens: int | None = None,
                       top_k: int = 10, repository: str | None = None) -> dict:
        if not query.strip():
            raise UsageError("query is empty: describe the code you are looking for")
        if max_tokens is not None and max_tokens < 50:
            raise UsageError("max_tokens must be at least 50 (the bundle's title alone takes about that)")
        if not 1 <= top_k <= MAX_TOP_K:
            raise UsageError(f"top_k must be between 1 and {MAX_TOP_K}")
        with self._lock, self._held(repository):
            ws, branch, freshness = self._open(repository, branch)
            request = SearchRequest(query=query, branch=branch, top_k=top_k)
            verifier = ws.verifier(branch)
            results = ws.search(request, verifier=verifier)
            answer, entries = BundleAnswer(ws, request, results, freshness).within(max_tokens)
            self._record(ws, branch, results, verifier, used=usage.bundle_uses(results, entries))
            return answer

    def verify_citations(self, items: list, branch: str | None = None, repository: str | None = None) -> dict:
        if not isinstance(items, list) or not items:
            raise UsageError("items must be a non-empty list of citations")
        if len(items) > MAX_ITEMS:
            raise UsageError(f"at most {MAX_ITEMS} items per call")
        parsed = [parse_item(item, number) for number, item in enumerate(items, start=1)]
        with self._lock:
            ws, branch, freshness = self._open(repository, branch)
            verifier = ws.verifier(branch)
            rules = ws.config.chunking_rules()
            rows, checked = [], []
            for item in parsed:
                row = {"path": item["path"], "content_hash": item["content_hash"], "commit": item.get("commit")}
                if not self._allowed(ws, item["path"]):
                    rows.append({**row, "verdict": None, "reason": "outside what this user may read"})
                    continue
                result = citation_result(ws.repo, item, rules, branch) if item["content_hash"] else None
                if result is None:
                    rows.append({**row, **file_hash_check(ws.repo, item["path"], item["content_hash"],
                                                         verifier.target_commit, verifier.uses_work_tree)})
                    continue
                verifier.verify([result])
                checked.append(result)
                row.update(qualified_name=result.identity.qualified_name, verdict=result.verdict and result.verdict.value,
                           reason=result.reason)
                if result.current_path is not None:
                    row.update(current_path=result.current_path, current_start_line=result.current_start_line,
                               current_end_line=result.current_end_line)
                rows.append(row)
            ws.record_stale(branch, checked)
            self._record(ws, branch, checked, verifier)
            return {"repository": ws.repo.name, "branch": branch, "target": verifier.target,
                    "target_commit": verifier.target_commit, "freshness": freshness, "items": rows}

    def list_branches(self) -> dict:
        with self._lock:
            repositories = []
            for ws in self.workspaces.values():
                self._reload_if_changed(ws)
                fresh = ws.freshness()
                self._maybe_refresh(ws, fresh)
                for entry in fresh:
                    entry["reindex_recommended"] = entry["tip_moved"] or not entry["branch_exists"]
                repositories.append({"repository": ws.repo.name, "checked_out": ws.repo.current_branch(),
                                     "branches": fresh,
                                     "unindexed_branches": sorted(set(ws.repo.branch_names()) - {b["branch"] for b in fresh})})
            return {"repositories": repositories}

    def index_status(self, repository: str | None = None) -> dict:
        with self._lock:
            chosen = [self._workspace(repository)] if repository else list(self.workspaces.values())
            statuses = []
            for ws in chosen:
                self._reload_if_changed(ws)
                status = ws.status()
                self._maybe_refresh(ws, status["branches"])
                if self.refresher is not None:
                    status["refresh"] = self.refresher.state(ws.repo.name)
                statuses.append(status)
            return {"repositories": statuses}

    def symbol(self, path: str, qualified_name: str, branch: str | None = None, repository: str | None = None) -> dict:
        with self._lock:
            ws, branch, freshness = self._open(repository, branch)
            if not self._allowed(ws, path):
                raise UsageError(f"no symbol {qualified_name!r} in {path} on {branch} that this user may read")
            result = ws.live_symbol(branch, path, qualified_name)
            verifier = ws.verifier(branch)
            verifier.verify([result])
            views.deliver(result, views.FULL)  # the whole text, verified as the whole text
            ws.apply_labels([result])
            context = ws.review.bundle_context(SearchRequest(query=qualified_name, branch=branch), [result], verifier=verifier)
            self._record(ws, branch, [result], verifier)
            return {"repository": ws.repo.name, "branch": branch, "target": context.target,
                    "freshness": freshness, **_entry(ws, result, context)}

    # shared steps -----------------------------------------------------------------------

    def _workspace(self, repository: str | None) -> Workspace:
        if repository is None:
            if len(self.workspaces) == 1:
                return next(iter(self.workspaces.values()))
            raise UsageError(f"several repositories are served: name one in `repository` "
                             f"({', '.join(sorted(self.workspaces))})")
        if repository not in self.workspaces:
            raise UsageError(f"repository {repository!r} is not served here (served: "
                             f"{', '.join(sorted(self.workspaces))})")
        return self.workspaces[repository]

    @contextmanager
    def _held(self, repository: str | None) -> Iterator[None]:
        """One question reads the repository's refs once (refcache.py), and its index's
        generation and branches once (database.py); an unknown repository is refused here as
        `_open` would refuse it."""
        ws = self._workspace(repository)
        with ws.repo.refs_held(), ws.store.held():
            yield

    def _open(self, repository: str | None, branch: str | None) -> tuple[Workspace, str, dict]:
        ws = self._workspace(repository)
        self._reload_if_changed(ws)
        branch = ws.reading_branch(branch)  # the checked-out one by default; suggestions for a typo
        fresh = {entry["branch"]: entry for entry in ws.freshness(count_for={branch})}
        if branch not in fresh:
            raise UsageError(f"branch {branch!r} of {ws.repo.name} is not indexed "
                             f"(indexed: {', '.join(sorted(fresh)) or 'none'})")
        self._maybe_refresh(ws, list(fresh.values()))
        return ws, branch, fresh[branch]

    def _reload_if_changed(self, ws: Workspace) -> None:
        """A finished index run (ours in the background, or anyone's) changed the generation."""
        generation = ws.store.generation()
        if self._generations.get(ws.repo.name, generation) != generation:
            ws.reload()
        self._generations[ws.repo.name] = generation

    def _maybe_refresh(self, ws: Workspace, freshness: list[dict]) -> None:
        if self.refresher is not None:
            moved = [entry["branch"] for entry in freshness if entry["tip_moved"]]
            if moved:
                self.refresher.request(ws, moved)

    def _allowed(self, ws: Workspace, path: str) -> bool:
        return ws.access.may_read(path)

    def _record(self, ws: Workspace, branch: str, results: list[Result], verifier,
                used: list[Result] | None = None) -> None:
        if results:
            ws.review.record_session("mcp", branch, results, target_commit=verifier.target_commit, used=used)

def _entry(ws: Workspace, result: Result, context: BundleContext) -> dict:
    """One result as an agent gets it: what to read, its citation header and how to treat it.
    Commits and hashes are 12-digit prefixes (verify_citations takes prefixes); fields that say
    nothing (no reviewer label, not pinned) are left out, to keep the answer affordable."""
    shown = shown_for(result, context)
    indexed: dict[str, Any] = {"commit": result.commit[:12], "content_hash": result.content_hash[:12],
                               "start_line": result.start_line, "end_line": result.end_line}
    entry: dict[str, Any] = {
        "rank": result.rank, "path": shown.path, "qualified_name": result.identity.qualified_name,
        "symbol_type": result.identity.symbol_type, "language": result.identity.language,
        "start_line": shown.start_line, "end_line": shown.end_line,
        "verdict": result.verdict.value if result.verdict else None, "reason": result.reason,
        "handling": shown.label.value,
        "header": "\n".join(ws.review.citation_header(result, context)),
        "text": shown.text, "text_is": "current" if shown.current else "indexed", "text_kind": result.text_kind,
        "indexed": indexed,
    }
    if result.path != shown.path:
        indexed["path"] = result.path
    if result.branch != context.branch:
        indexed["branch"] = result.branch
    if result.label is not None:
        entry["reviewer_label"] = result.label.value
    if result.pinned:
        entry["pinned"] = True
    if result.changed_members:
        entry["changed_members"] = list(result.changed_members)
    if result.history:
        entry["history"] = result.history_note or True
    if shown.note:
        entry["reviewer_note"] = shown.note
    return entry


def _within(answer: dict, candidates: list, entry_of, max_tokens: int) -> dict:
    """The answer with as many results as fit in `max_tokens`, in rank order, each as the
    largest of its kinds that fits (full, outline, signature); a result that fits in none is
    omitted with everything after it, never cut inside its code."""
    count = token_counter()
    frame = count(compact_json({**answer, "tokens": max_tokens, "omitted": [c[0].rank for c in candidates]}))
    if frame > max_tokens:
        raise UsageError(f"max_tokens {max_tokens} is too small for the answer's frame alone "
                         f"({frame} tokens with no result): ask for max_tokens {frame} or more")
    used = frame
    for position, (result, kinds) in enumerate(candidates):
        chosen = None
        for kind in kinds:
            entry = entry_of(views.delivered(result, kind))
            cost = count(compact_json(entry)) + 1
            if used + cost <= max_tokens:
                chosen = entry
                break
        if chosen is None:
            answer["omitted"] = [c[0].rank for c in candidates[position:]]
            break
        answer["results"].append(chosen)
        used += cost
    with_token_count(answer)
    while answer["tokens"] > max_tokens and answer["results"]:  # the sum of parts undercounted
        answer["omitted"].insert(0, answer["results"].pop()["rank"])
        with_token_count(answer)
    return answer
