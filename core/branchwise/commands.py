"""What each CLI command does, over a Workspace; the parser lives in cli.py.

Commands print human-readable text by default and the contract's JSON with `--json`.
Progress goes to stderr, and only when stderr is a terminal.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from branchwise.cli import EXIT_OK, print_json, read_queries
from branchwise.errors import UsageError
from branchwise.models import Result
from branchwise.search import SearchRequest
from branchwise.workspace import Workspace


def _workspace(args, user: bool = True) -> Workspace:
    backend = {"kind": args.backend, "url": args.qdrant_url, "path": args.qdrant_path}
    return Workspace(args.repo, args.index, user=args.user if user else None, backend=backend)


def run_index(args) -> int:
    workspace = _workspace(args, user=False)
    if args.rebuild:
        _rebuild_vectors(workspace)
    summaries = workspace.index(
        args.branch, args.all_branches, progress=_progress_bar(), wait=args.wait, prune=args.prune
    )
    if workspace.recipe_change is not None:
        print(workspace.recipe_change.message(), file=sys.stderr)
    removed = None
    if args.gc:
        from branchwise.indexer import Indexer

        removed = Indexer(workspace.store, workspace.repo, workspace.config, workspace.embedder,
                          vectors=_vector_store(workspace)).collect_garbage()
    if args.json:
        data = {"repository": workspace.repo.name, "index": str(workspace.index_dir),
                "branches": [s.to_json() for s in summaries]}
        if removed is not None:
            data["gc_removed_versions"] = removed
        if workspace.recipe_change is not None:
            data["embedding_recipe_change"] = workspace.recipe_change.to_json()
        print_json(data)
    else:
        for s in summaries:
            print(f"{s.branch} @ {s.commit[:7]}: {s.files_parsed} files parsed, {s.versions_added} new versions, "
                  f"{s.embedded} embedded, {s.reused} reused, {s.tombstoned} tombstoned "
                  f"({s.base}; {s.seconds:.1f}s)")
        if removed is not None:
            print(f"gc: removed {removed} unused versions")
    return EXIT_OK


def _vector_store(workspace: Workspace):
    return workspace.backend.vector_store(workspace.store, workspace.embedder, workspace.config.path_weight)


def _rebuild_vectors(workspace: Workspace) -> None:
    from branchwise.lock import WriteLock

    with WriteLock(workspace.index_dir):
        _vector_store(workspace).rebuild()


def _request(args, query: str) -> SearchRequest:
    if args.top_k < 1:
        raise UsageError("--top-k must be at least 1")
    return SearchRequest(
        query=query, branch=args.branch, top_k=args.top_k, scope=args.scope,
        language=args.language, path_prefix=args.path_prefix, symbol_type=args.symbol_type,
        path_class=args.path_class, mode=args.mode,
    )


def run_search(args) -> int:
    if args.queries:
        queries = read_queries(args.queries)
    elif args.query:
        queries = [args.query]
    else:
        raise UsageError("give a QUERY or --queries FILE")
    requests = [_request(args, query) for query in queries]
    workspace = _workspace(args)
    target = workspace.repo.resolve_branch(args.branch) if args.against is None else workspace.repo.resolve(args.against)
    for query, request in zip(queries, requests):
        results = workspace.search(request, args.against)
        if args.json:
            print_json({"query": query, "branch": args.branch, "target_commit": target,
                        "results": [r.to_json() for r in results]})
        else:
            _print_results(query, args.branch, results)
    return EXIT_OK


def _print_results(query: str, branch: str, results: list[Result]) -> None:
    print(f"# {query}  ({branch}, {len(results)} results)")
    for r in results:
        where = f"{r.path}#L{r.start_line}-L{r.end_line}"
        label = f" [{r.label.value}]" if r.label else ""
        verdict = r.verdict.value if r.verdict else "?"
        print(f"{r.rank:>3}. {verdict:<15} {where}  {r.identity.qualified_name}  "
              f"({r.branch} @ {r.commit[:7]}){label}")
        if r.reason:
            print(f"     {r.reason}")


def run_inspect(args) -> int:
    workspace = _workspace(args)
    rows = workspace.inspect(args.branch)
    if args.json:
        print_json(rows)
    else:
        for row in rows:
            print(f"{row['path']}:{row['start_line']}-{row['end_line']}  {row['symbol_type']:<9} "
                  f"{row['qualified_name']}  {row['content_hash'][:12]}")
    return EXIT_OK


def run_verify(args) -> int:
    from branchwise.snippets import verify_input

    rows = verify_input(args.snippets, repo=args.repo, branch=args.branch, against=args.against)
    if args.json:
        print_json(rows)
    else:
        for row in rows:
            print(f"{row['verdict']:<15} {row['path']}  {row['reason']}")
    return EXIT_OK


def run_export(args) -> int:
    from branchwise.exporting import export_bundle

    workspace = _workspace(args)
    report = export_bundle(workspace, _request(args, args.query), Path(args.out),
                           against=args.against, allow_secrets=args.allow_secrets)
    print(report.summary_line())
    return EXIT_OK


def run_stats(args) -> int:
    from branchwise import stats
    from branchwise.config import Config
    from branchwise.gitrepo import GitRepo
    from branchwise.store import resolve_index_dir

    repo = GitRepo(args.repo) if args.repo else None
    index_dir = resolve_index_dir(args.index, repo.git_dir if repo else None)
    summary = stats.summarize(index_dir, repo.name if repo else None, Config.load(index_dir))
    if args.json:
        print_json(summary)
    else:
        print(stats.render_text(summary))
    return EXIT_OK


def run_labels(args) -> int:
    from branchwise import labels

    workspace = Workspace(args.repo, args.index)
    if args.action == "export":
        count = labels.export_labels(workspace.store.conn, workspace.repo.name, Path(args.file))
        print(f"exported {count} labels to {args.file}")
    else:
        count = labels.import_labels(workspace.store.conn, workspace.repo.name, Path(args.file))
        print(f"imported {count} labels from {args.file}")
    return EXIT_OK


def run_review(args) -> int:
    app_module = importlib.import_module("branchwise_tui.app")
    workspace = _workspace(args)
    workspace.restriction  # refuse a forbidden repository before the app starts
    branch = args.branch or workspace.repo.current_branch()
    if branch is None:
        raise UsageError("HEAD is detached or the repository is bare: name a --branch")
    app = app_module.create_app(workspace, branch=branch, query=args.query, scope=args.scope)
    app.run()
    return EXIT_OK


def _progress_bar():
    if not sys.stderr.isatty():
        return None

    def show(stage: str, done: int, total: int) -> None:
        width = 30
        filled = int(width * done / total) if total else width
        sys.stderr.write(f"\r{stage:<6} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show
