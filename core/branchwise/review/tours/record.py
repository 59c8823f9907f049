"""Recording a tour from a review: the code a reviewer marked `use`, with their notes.

With a query, the steps are that query's `use`-labelled results on the branch in rank order
(the order the reviewer saw them); without one, every `use`-labelled version live on the
branch, in the order the labels were given. Either way each step is anchored at the branch's
verification target, so the new tour starts out `current`.
"""

from __future__ import annotations

from branchwise.chunking import chunk_file
from branchwise.errors import UsageError
from branchwise.git.repo import GitRepo
from branchwise.models import Identity, Label, Result
from branchwise.review import labels
from branchwise.review.tours.tourfile import Step, Tour
from branchwise.search.hybrid import SearchRequest


def record_tour(workspace, branch: str, title: str, from_labels: bool,
                query: str | None = None) -> Tour:
    tour = Tour(title=title, description=f"Recorded from the review of {query!r}" if query else "")
    if not from_labels:
        return tour
    conn, repository = workspace.store.conn, workspace.repo.name
    if query:
        results = [r for r in workspace.search(SearchRequest(query=query, branch=branch, top_k=50))
                   if r.label is Label.USE and not r.history]
    else:
        results = _labelled_live(workspace, branch)
    notes = labels.notes_for(conn, repository, [r.version_id for r in results])
    target = workspace.verifier(branch).target_commit
    for result in results:
        where_path = result.current_path or result.path
        tour.steps.append(Step(
            note=notes.get(result.version_id, ""), path=where_path,
            qualified_name=result.identity.qualified_name, symbol_type=result.identity.symbol_type,
            language=result.identity.language,
            start_line=result.current_start_line or result.start_line,
            end_line=result.current_end_line or result.end_line,
            content_hash=result.content_hash, commit=target if result.commit == target else result.commit,
        ))
    return tour


def _labelled_live(workspace, branch: str) -> list[Result]:
    """`use`-labelled versions live on `branch`, verified, in labelling order."""
    records = sorted((r for r in labels.list_labels(workspace.store.conn, workspace.repo.name)
                      if r.label is Label.USE), key=lambda r: r.labelled_at)
    live = {(row["path"], row["qualified_name"], row["content_hash"]): row for row in workspace.inspect(branch)}
    results: list[Result] = []
    for record in records:
        row = live.get((record.path, record.qualified_name, record.content_hash))
        if row is None:
            continue
        results.append(Result(
            rank=len(results) + 1, score=0.0, identity=Identity(workspace.repo.name, record.path, record.language,
                                                                  record.symbol_type, record.qualified_name), branch=branch,
            commit=row["commit"], start_line=row["start_line"], end_line=row["end_line"], indexed_at="",
            content_hash=record.content_hash, text="", blob=None, version_id=record.version_id,
        ))
    return results



def step_at(repo: GitRepo, commit: str, path: str, qualified_name: str, note: str = "", rules=None) -> Step:
    """A step anchored on a symbol as it is at `commit` (its lines and content hash there)."""
    blob = repo.blob_at(commit, path)
    if blob is None:
        raise UsageError(f"no file {path} at {commit[:7]}")
    chunks = chunk_file(repo.name, path, repo.read_blob(blob), rules).chunks
    found = [c for c in chunks if c.identity.qualified_name == qualified_name]
    if not found:
        raise UsageError(f"no symbol {qualified_name} in {path} at {commit[:7]}")
    chunk = found[0]
    return Step(note=note, path=path, qualified_name=qualified_name, symbol_type=chunk.identity.symbol_type,
                language=chunk.identity.language, start_line=chunk.start_line, end_line=chunk.end_line,
                content_hash=chunk.content_hash, commit=commit)
