"""One symbol of a branch's live set as a result, its text read from git (not verified yet):
what `labels pin` and the MCP `symbol` tool name by path and qualified name."""

from __future__ import annotations

from branchwise.errors import UsageError
from branchwise.models import Identity, PathClass, Result, version_id


def live_symbol(ws, branch: str, path: str, qualified_name: str) -> Result:
    """The version of `qualified_name` in `path` on `branch`, as the workspace `ws` may read it."""
    rows = [row for row in ws.inspect(branch) if row["path"] == path and row["qualified_name"] == qualified_name]
    if not rows:
        raise UsageError(f"no symbol {qualified_name!r} in {path} on {branch} (search finds symbols by description)")
    row = rows[0]
    identity = Identity(ws.repo.name, path, row["language"], row["symbol_type"], qualified_name)
    blob = ws.repo.blob_at(row["commit"], path)
    lines = ws.repo.read_blob(blob).decode("utf-8", "replace").splitlines(keepends=True) if blob else []
    info = ws.searcher.branch(branch)
    return Result(
        rank=1, score=0.0, identity=identity, branch=branch, commit=row["commit"],
        start_line=row["start_line"], end_line=row["end_line"], indexed_at=info.indexed_at,
        content_hash=row["content_hash"], text="".join(lines[row["start_line"] - 1 : row["end_line"]]),
        blob=blob, version_id=version_id(identity, row["content_hash"]),
        path_class=PathClass(row.get("path_class") or PathClass.SOURCE.value),
    )
