"""One index run of a workspace: branches in order, then the embedding stages.

Each branch is committed, and searchable by its lexical and name channels, as soon as its
files are stored; the dense vectors of its new texts follow: the static model's in the
foreground (a table lookup per token), the transformer's here or in a background worker
handed the write lock (background.py). The workspace (`ws`) supplies the opened repository,
store, configuration, embedders and vector stores; this module decides what is done in
which order.
"""

from __future__ import annotations

from typing import Any

from branchwise.backends import VectorStore
from branchwise.backends.backend import VectorStores
from branchwise.embedding import get_embedder
from branchwise.embedding.static_model import is_static_model
from branchwise.errors import UsageError
from branchwise.index import embedstage, grammar_upgrade
from branchwise.index.indexer import BranchSummary, Indexer, Progress, refresh_embeddings
from branchwise.index.recipe import ModelChange, RecipeChange
from branchwise.index.recipe import migrate as migrate_recipe
from branchwise.store import stale
from branchwise.store.lock import WriteLock


class IndexReport(list[BranchSummary]):
    """The branches an index run brought up to date, in order, and what its maintenance did."""

    def __init__(self, summaries: list[BranchSummary], pruned: list[str] | None = None,
                 gc_removed: int | None = None, recipe_change: RecipeChange | None = None,
                 model_change: ModelChange | None = None):
        super().__init__(summaries)
        self.pruned = pruned or []
        self.gc_removed = gc_removed  # None: no garbage collection was asked for
        #: set when the index had been made with another embedding recipe and was migrated
        self.recipe_change = recipe_change
        #: set when the index's vectors were of another model identity and were re-embedded
        self.model_change = model_change
        #: the embedding stage: what was missing, what this run embedded, and whether a
        #: background worker goes on with the rest (see embedstage.py, background.py)
        self.embedding: dict[str, Any] = {"missing_texts": 0, "missing_versions": 0, "embedded": 0,
                                          "background": False, "worker_pid": None}


def index(ws, branches: list[str], all_branches: bool = False, progress: Progress | None = None,
          wait: bool = False, prune: bool = False, gc: bool = False, rebuild: bool = False,
          stale_only: bool = False, background: bool = False, tags: list[str] | tuple[str, ...] = ()) -> IndexReport:
    """What `Workspace.index` does (its docstring says what each option means)."""
    if stale_only and not branches and not all_branches:
        names = sorted({f["branch"] for f in stale.pending(ws.index_dir, ws.repo.name)} & set(ws.repo.branches()))
    else:
        names = branches_to_index(ws, branches, all_branches, tags)
    with ws.writing(wait) as lock:
        if rebuild:  # a rebuild copies whatever the database holds: refuse a damaged one
            ws.store.check_integrity()
        # with the configured model: a model change that follows re-embeds nothing twice, and an
        # index recorded with a model this installation lacks can still be brought over
        change = migrate_recipe(ws.store, ws.repo, ws.config, get_embedder(ws.config.model_identity), progress)
        report = IndexReport([], recipe_change=change, model_change=refresh_model(ws, progress))
        vectors, static_vectors = ws.vector_store(), ws.static_vector_store()
        stages = VectorStores([vectors] + ([static_vectors] if static_vectors is not None else []))
        if rebuild:
            stages.rebuild()
        local = ws.backend.kind == "faiss"  # a shared server is published once, complete
        ahead = (ws.static_embedder.name if static_vectors is not None
                 else ws.embedder.name if is_static_model(ws.embedder.name) else None)
        indexer = Indexer(ws.store, ws.repo, ws.config, ws.embedder, stages, progress, ahead)
        order = parents_first(names)
        _index_branches(ws, indexer, stages, order, report, progress, stale_only, local)
        if prune:
            report.pruned = indexer.prune_branches()
        if gc:
            report.gc_removed = indexer.collect_garbage()
        stages.save()
        if static_vectors is None and not is_static_model(ws.embedder.name):
            ws.store.checkpoint()  # the branches' bulk writes reach the database file before the model starts
        # else the static stage follows, seconds long, and checkpoints when done: the branches'
        # pages and its own in one copy (one pair of fsyncs less), before any transformer starts
        if static_vectors is not None:
            _static_stage(ws, static_vectors, vectors, report, order, local)
            report.embedding["static"]["embedded"] += indexer.ahead_embedded
            report.embedding["static"]["with_files"] = indexer.ahead_embedded  # by the parse workers
        others = [static_vectors] if static_vectors is not None else []
        _embedding_stage(ws, lock, vectors, report, order, progress, background and local, others)
        if static_vectors is None and ahead is not None:
            report.embedding["embedded"] += indexer.ahead_embedded
    return report


def _index_branches(ws, indexer: Indexer, stages: VectorStores, order: list[str], report: IndexReport,
                    progress: Progress | None, stale_only: bool, local: bool) -> None:
    """Each branch in turn, with its stale files (and, unless `stale_only`, files that have
    gained a grammar) parsed again; a local index is saved after each, searchable from there."""
    for position, name in enumerate(order):
        if progress is not None:  # a display can name the branch its counts belong to
            progress(f"branch:{name}", position, len(order))
        paths = stale.pending_paths(ws.index_dir, ws.repo.name, name)
        at = _indexed_commit(ws, name) if stale_only else None
        if stale_only and (not paths or at is None):
            continue
        upgraded = set() if stale_only else grammar_upgrade.paths_to_reparse(ws.store, ws.repo.name, name)
        summary = indexer.index_branch(name, reparse=set(paths) | upgraded, at=at)
        report.append(summary)
        stale.record_reparsed(ws.index_dir, ws.repo.name, name, paths, summary.commit)
        if not stale_only:
            grammar_upgrade.record(ws.store, name)
        if local:
            stages.save()
    stale.compact(ws.index_dir)


def embedding_first(ws, order: list[str]) -> list[str]:
    """The branches whose versions are embedded first: the checked-out one, then the run's."""
    current = None if ws.repo.bare else ws.repo.current_branch()
    return ([current] if current else []) + [name for name in order if name != current]


def _static_stage(ws, static_vectors: VectorStore, vectors: VectorStore, report: IndexReport,
                  order: list[str], local: bool) -> None:
    """The first dense stage: every version missing a static vector gets one now, in the
    foreground (a table lookup per token: seconds where the transformer takes minutes); a
    local index saves each batch, a shared server is published once, after the stage."""
    static = ws.static_embedder
    assert static is not None  # only called with a static stage
    work = embedstage.plan(ws.store, ws.repo.name, static.name, embedding_first(ws, order))
    outcome = embedstage.embed_missing(ws.store, static, static_vectors, work, save_each_batch=local,
                                       others=[vectors] if local else [])
    static_vectors.save()
    vectors.save()
    report.embedding["static"] = {"model": static.name, "embedded": outcome.total,
                                  "seconds": round(sum(outcome.seconds.values()), 3)}


def _embedding_stage(ws, lock: WriteLock, vectors: VectorStore, report: IndexReport, order: list[str],
                     progress: Progress | None, background: bool, others: list[VectorStore]) -> None:
    """Embed what the index is missing (every branch's, not only this run's: an interrupted
    worker's leftovers too), here or in a background worker handed the lock."""
    from branchwise.index import background as worker
    from branchwise.store import worker_record

    first = embedding_first(ws, order)
    work = embedstage.plan(ws.store, ws.repo.name, ws.embedder.name, first)
    report.embedding.update(missing_texts=work.texts, missing_versions=work.versions)
    if not work.groups:
        worker_record.settle(ws.index_dir)
        return
    if background:
        target = worker.Target(ws.repo.path, ws.index_dir, ws.repo.name, ws.embedder.name)
        report.embedding.update(background=True, worker_pid=worker.start(target, lock, first, work))
        return
    outcome = embedstage.embed_missing(ws.store, ws.embedder, vectors, work, progress,
                                       save_each_batch=ws.backend.kind == "faiss", others=others)
    for store in [vectors, *others]:
        store.save()
    worker_record.settle(ws.index_dir)
    report.embedding["embedded"] = outcome.total
    for summary in report:
        summary.embedded += outcome.embedded.get(summary.branch, 0)
        summary.embed_seconds += outcome.model_seconds.get(summary.branch, 0.0)
        summary.seconds += outcome.seconds.get(summary.branch, 0.0)


def refresh_model(ws, progress: Progress | None) -> ModelChange | None:
    """Bring every stored version to the configured model identity (a no-op when unchanged)."""
    configured = get_embedder(ws.config.model_identity)
    previous = ws.store.meta("embedding_model")
    embedded = refresh_embeddings(ws.store, configured, progress)
    cached = ws.__dict__.get("embedder")
    if cached is not None and cached.name != configured.name:
        for name in ("embedder", "static_embedder", "searcher"):  # queries now use the identity just recorded
            ws.__dict__.pop(name, None)
    if previous is None or previous == configured.name:
        return None
    return ModelChange(previous, configured.name, embedded)


def collect_garbage(ws, retention_days: float | None = None, wait: bool = False) -> int:
    """Remove versions no branch uses once their retention (default: config.toml's) has passed."""
    with ws.writing(wait):
        static_vectors = ws.static_vector_store()
        vectors = VectorStores([ws.vector_store()] + ([static_vectors] if static_vectors is not None else []))
        removed = Indexer(ws.store, ws.repo, ws.config, ws.embedder, vectors).collect_garbage(retention_days)
        vectors.save()
    return removed


def branches_to_index(ws, branches: list[str], all_branches: bool, tags: list[str] | tuple[str, ...] = ()) -> list[str]:
    known = ws.repo.branches()
    if not known:
        raise UsageError(f"repository {ws.repo.name} has no branches to index (no commits yet)")
    tagged = ws.repo.select_tags(list(tags))
    if all_branches:  # local and remote-tracking: a fresh clone's release lines included
        return sorted(set(ws.repo.branch_names()) | set(ws.repo.select_branches(branches)) | set(tagged))
    if branches or tagged:
        return list(dict.fromkeys(ws.repo.select_branches(branches) + tagged))
    return [ws.standpoint().branch]


def _indexed_commit(ws, branch: str) -> str | None:
    repo_id = ws.store.repo_id(ws.repo.name)
    row = ws.store.branch(repo_id, branch) if repo_id is not None else None
    return row.commit_sha if row is not None else None


def parents_first(names: list[str]) -> list[str]:
    """Index `main`/`master` first so other branches inherit from it and diff little."""
    return sorted(names, key=lambda n: (n not in ("main", "master"), names.index(n)))
