"""The MCP server: six read-only tools over an AgentService, on the official SDK, over stdio.

Tool descriptions and input schemas are what an agent reads to decide how to call a tool, so
they say what each tool returns and how to treat it. Any failure becomes an MCP tool error with
one sentence (`isError`), never a crashed server: the next call works as before.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from branchwise import __version__
from branchwise.errors import BranchwiseError, UsageError
from branchwise.mcp_server.service import MAX_ITEMS, MAX_TOP_K, DEFAULT_ANSWER_TOKENS, MIN_ANSWER_TOKENS, AgentService, compact_json
from branchwise.workspace import Workspace

log = logging.getLogger("branchwise.mcp")

INSTRUCTIONS = """\
branchwise answers code questions from a branch-aware index and verifies every answer against
the code as it is now. Each result has a verdict: current / unchanged-older (safe to use),
changed (the text given is the current code), deleted (history: reference only, never copy),
and a `handling` of use or reference-only (reviewer labels applied; excluded code is never
returned); `pinned` results are code a reviewer pinned for this branch, put first when the
question finds them. Quote the `header` with any code you rely on, and call verify_citations before
relying on code from an earlier answer."""

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

Repository = Annotated[str | None, Field(
    description="Repository name; only needed when the server serves several (list_branches names them).")]
Branch = Annotated[str | None, Field(
    description="Branch to answer for; default: the repository's checked-out branch.")]


class _Server(MCPServer):
    """The SDK's server, with argument errors told in one sentence instead of pydantic's report."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            if not isinstance(error.__cause__, ValidationError):
                raise
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg'].lower()}"
                                 for e in error.__cause__.errors())
            raise ToolError(f"invalid arguments for {name}: {problems}.") from None


def build_server(service: AgentService) -> MCPServer:
    server = _Server(name="branchwise", version=__version__, instructions=INSTRUCTIONS)

    @server.tool(annotations=READ_ONLY, description=(
        "Search one branch's code by meaning and name, each result verified against the code now. "
        "Results, best first: path, qualified_name, lines, `verdict` (current, unchanged-older, "
        "changed, deleted, unverifiable), `reason`, `handling` (use or reference-only), a citation "
        "`header` to quote, `text` (`text_kind` full, outline or signature; `text_is` current or "
        "indexed). A large class comes as its outline (`symbol` gives it in full)."))
    def search_code(
        query: Annotated[str, Field(description="What the code does, in words or identifiers.")],
        branch: Branch = None,
        top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K, description="How many results.")] = 10,
        language: Annotated[str | None, Field(description="Only this language, e.g. python, go.")] = None,
        path_prefix: Annotated[str | None, Field(description="Only paths starting with this.")] = None,
        scope: Annotated[Literal["branch", "all"], Field(description="'all' adds other branches and deleted history after the branch's own results.")] = "branch",
        repository: Repository = None,
        detail: Annotated[Literal["outline", "full", "signature"], Field(description="'outline': large classes as outlines; 'full'; 'signature': declarations only.")] = "outline",
        max_tokens: Annotated[int | None, Field(ge=MIN_ANSWER_TOKENS, description="Budget for the whole answer (null: none); later results shrink or are omitted, code is never cut.")] = DEFAULT_ANSWER_TOKENS,
    ) -> CallToolResult:
        return _compact(_answer("search_code", lambda: service.search_code(
            query, branch, top_k, language, path_prefix, scope, repository, detail, max_tokens)))

    @server.tool(annotations=READ_ONLY, description=(
        "The context bundle for a question, as `branchwise export` writes it: Markdown, a citation "
        "header per chunk, duplicates dropped, history reference-only. The whole answer fits "
        "`max_tokens`: results in rank order, each in full, else as its outline. Returns `bundle`, "
        "`tokens`, `answer_tokens`, `included` and `left_out` (with reasons)."))
    def context_bundle(
        query: Annotated[str, Field(description="The question the bundle answers.")],
        branch: Branch = None,
        max_tokens: Annotated[int | None, Field(ge=50, description="Token budget for the whole answer.")] = None,
        top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K, description="How many search results to build the bundle from.")] = 10,
        repository: Repository = None,
    ) -> CallToolResult:
        return _compact(_answer("context_bundle", lambda: service.context_bundle(query, branch, max_tokens, top_k, repository)))

    @server.tool(annotations=READ_ONLY, description=(
        "Re-check code you are about to rely on. Each item is an object {path, content_hash, commit, "
        "qualified_name?} from an earlier answer (content_hash and commit as given there; a prefix of "
        "7+ hex digits is enough), or a line 'path<TAB>sha256-prefix' of a whole file. Returns one "
        "entry per item with `verdict` (current, unchanged-older, changed, deleted, unverifiable) and "
        "`reason`, plus where the symbol is now when it moved."))
    def verify_citations(
        items: Annotated[list[dict[str, Any] | str], Field(min_length=1, max_length=MAX_ITEMS, description="Citations to check.")],
        branch: Branch = None,
        repository: Repository = None,
    ) -> dict[str, Any]:
        return _answer("verify_citations", lambda: service.verify_citations(items, branch, repository))

    @server.tool(annotations=READ_ONLY, description=(
        "The indexed branches of each served repository: indexed commit, when, the branch tip, "
        "commits behind, whether a re-index is recommended, and the branches not indexed."))
    def list_branches() -> dict[str, Any]:
        return _answer("list_branches", service.list_branches)

    @server.tool(annotations=READ_ONLY, description=(
        "What the index covers and how current it is, per repository and branch: indexed commit and "
        "time, commits behind the tip and indexed files changed since, counts by path class and "
        "language, skipped files with reasons, stale records (results that failed verification, "
        "waiting for a re-index), embedding model, and whether a re-index is recommended."))
    def index_status(repository: Repository = None) -> dict[str, Any]:
        return _answer("index_status", lambda: service.index_status(repository))

    @server.tool(annotations=READ_ONLY, description=(
        "The full text of one symbol (a class in full, where search_code gave its outline), with its "
        "citation header and verdict; the current text when it changed since indexing."))
    def symbol(
        path: Annotated[str, Field(description="File path relative to the repository root, e.g. 'src/orders/services/order_service.py'.")],
        qualified_name: Annotated[str, Field(description="Qualified name, e.g. 'OrderService.cancel_order'.")],
        branch: Branch = None,
        repository: Repository = None,
    ) -> dict[str, Any]:
        return _answer("symbol", lambda: service.symbol(path, qualified_name, branch, repository))

    return server


def _compact(answer: dict) -> CallToolResult:
    """The answer as compact JSON text (what the agent reads), and as structured content."""
    return CallToolResult(content=[TextContent(type="text", text=compact_json(answer))], structured_content=answer)


def _answer(tool: str, call: Callable[[], dict]) -> dict:
    """Run one tool call; every failure becomes a one-sentence tool error."""
    try:
        return call()
    except BranchwiseError as error:
        raise ToolError(str(error)) from None
    except sqlite3.DatabaseError as error:
        raise ToolError(f"the index database could not be read ({error}); re-index to repair it") from None
    except Exception as error:  # a bug must not take the server down: report it, keep serving
        log.exception("%s failed", tool)
        raise ToolError(f"{tool} failed unexpectedly: {type(error).__name__}: {error}") from None


def open_workspaces(repos: list[str], index: str | None, user: str | None, backend: dict | None) -> list[Workspace]:
    """The repositories to serve: those named, else every one in the index, else the current one.

    The server only reads: an index directory without an index is refused, never created
    (with the qdrant backend the index lives on the server, as for the CLI's readers)."""
    if repos:
        workspaces = [Workspace(repo, index, user=user, backend=backend, create=False) for repo in repos]
    elif index:
        workspaces = Workspace.all_in_index(index, user=user, backend=backend)
    else:
        workspaces = [Workspace(None, None, user=user, backend=backend, create=False)]
    readable = []
    for ws in workspaces:
        ws.require_readable()
        try:
            ws.restriction
        except BranchwiseError:
            if repos:
                raise
            continue  # all repositories of the index: serve the ones this user may read
        if not ws.indexed_branches():
            raise UsageError(f"{ws.repo.name} has no indexed branch in {ws.index_dir} (run `branchwise index` first)")
        readable.append(ws)
    if not readable:
        raise UsageError("this user may read none of the repositories in the index")
    return readable


def serve(repos: list[str], index: str | None, user: str | None, backend: dict | None, refresh: bool) -> None:
    """Open, warm up and serve until the client closes standard input."""
    from branchwise.mcp_server.refresh import Refresher

    workspaces = open_workspaces(repos, index, user, backend)
    service = AgentService(workspaces, refresher=Refresher() if refresh else None)
    service.warm()
    print(f"branchwise mcp: serving {', '.join(service.workspaces)} from {workspaces[0].index_dir}",
          file=sys.stderr)
    build_server(service).run("stdio")
