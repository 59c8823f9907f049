"""One repository and its index: the service API that the CLI, the review app and tests call.

It opens the git repository and the index directory, resolves the configuration once,
creates the embedder only when an operation needs vectors, and offers every operation
(indexing and its maintenance, search, verification, inspection, export, labels,
statistics, citation headers) as a plain method returning plain data. Every write to the
index database or its vectors happens inside one of these methods, under the index's write
lock; callers never open a transaction or take the lock themselves.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from branchwise.index import grammar_upgrade

from branchwise.review import labels

from branchwise.search import pins

from branchwise.verify import stale

from branchwise.review import stats

from branchwise.review import usage
from branchwise.search.access import Restriction, current_user, restriction_for
from branchwise.review.advice import repository_advice, results_note
from branchwise.backends import Backend, VectorStore
from branchwise.backends.backend import VectorStores
from branchwise.review.bundle import (
    Bundle, BundleContext, BundleReport, CommitDates, LabelledMember, build_bundle, header_for, write_bundle,
)
from branchwise.config import Config
from branchwise.embedding import Embedder, get_embedder
from branchwise.embedding.location import model_available
from branchwise.errors import AccessDeniedError, UsageError
from branchwise.git.names import git_arg
from branchwise.git.repo import GitRepo
from branchwise.index.indexer import BranchSummary, Indexer, Progress, refresh_embeddings
from branchwise.store.lock import WriteLock
from branchwise.index.recipe import ModelChange, RecipeChange
from branchwise.index.recipe import migrate as migrate_recipe
from branchwise.models import Label, Result
from branchwise.search.pins import Pin, PinKey
from branchwise.search.hybrid import BranchInfo, HybridSearch, SearchRequest
from branchwise.git.standpoint import Standpoint, checked_out, enclosing_repository
from branchwise.suggest import with_suggestion
from branchwise.store import DB_FILE, Store, require_index, resolve_index_dir

#: command-line names of the backend choices, as `Workspace(backend={...})` takes them
_BACKEND_FLAGS = {"kind": "backend", "url": "qdrant_url", "path": "qdrant_path"}


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


class Workspace:
    """`user` is who reads (see access.py); `backend` holds the command line's backend choices
    (`kind`, `url`, `path`) or a resolved Backend; both win over the environment and config.toml."""

    def __init__(
        self,
        repo: str | os.PathLike[str] | None,
        index: str | os.PathLike[str] | None = None,
        user: str | None = None,
        backend: Backend | Mapping[str, Any] | None = None,
        create: bool = True,
    ):
        self.repo = GitRepo(repo if repo is not None else enclosing_repository())
        #: False for readers: an index directory without an index is refused, never created
        self.create = create
        self.index_dir = resolve_index_dir(index, self.repo.git_dir)
        flags: dict[str, Any] = {"user": user}
        if not isinstance(backend, Backend):
            flags.update((_BACKEND_FLAGS[key], value) for key, value in (backend or {}).items())
        self.config = Config.resolve(self.index_dir, flags)
        self._backend = backend if isinstance(backend, Backend) else None
        self._store: Store | None = None
        self._dates = CommitDates(self.repo)

    @cached_property
    def backend(self) -> Backend:
        """Where the searchable index lives (resolved when an operation first needs it)."""
        return self._backend or Backend.resolve(self.config)

    @property
    def user(self) -> str | None:
        return self.config.user

    @classmethod
    def all_in_index(cls, index: str | os.PathLike[str], user: str | None = None,
                     backend: Backend | Mapping[str, Any] | None = None) -> list["Workspace"]:
        """A workspace for every repository recorded in the index at `index`."""
        index_dir = resolve_index_dir(index, None)
        store = Store(index_dir, create=False)
        try:
            recorded = store.repositories()
        finally:
            store.close()
        if not recorded:
            raise UsageError(f"the index at {index_dir} holds no repository yet (run `branchwise index`)")
        return [cls(git_arg(path), index_dir, user=user, backend=backend) for _name, path in recorded]

    @classmethod
    def readable_in_index(cls, index: str | os.PathLike[str], user: str | None = None,
                          backend: Backend | Mapping[str, Any] | None = None) -> list["Workspace"]:
        """The workspaces of `all_in_index` that the user may read, without naming the others
        (as `index_statistics` counts only those); a broken access file still refuses."""
        readable, name = [], user
        for ws in cls.all_in_index(index, user=user, backend=backend):
            name = current_user(ws.user)
            try:
                ws.restriction
            except AccessDeniedError:
                ws.close()
                continue
            readable.append(ws)
        if not readable:
            raise AccessDeniedError(f"user {name!r} may read none of the repositories in the index")
        return readable

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.index_dir, create=self.create)
        return self._store

    @cached_property
    def embedder(self) -> Embedder:
        """The model identity that embeds queries: the one the index's vectors were made with.

        After a change of model or runtime the index keeps answering with its recorded
        identity until the next index run has re-embedded every version with the new one.
        """
        recorded = self.store.meta("embedding_model") if (self.index_dir / DB_FILE).exists() else None
        if recorded and recorded != self.config.model_identity and not model_available(recorded):
            raise UsageError(f"this index was embedded with {recorded.partition('+')[0]}, which this "
                             f"installation does not have: run `branchwise index` once to re-embed it "
                             f"with {self.config.model_identity.partition('+')[0]}")
        return get_embedder(recorded or self.config.model_identity)

    @cached_property
    def static_embedder(self) -> Embedder | None:
        """The first dense stage's embedder (issue 47): the static model, embedded by `index`
        in the same pass as parsing. None without one, on the qdrant backend (no static
        channel there yet), or when it is the only dense stage (then it is `embedder`)."""
        identity = self.config.static_identity
        if identity is None or self.backend.kind != "faiss" or identity in (self.embedder.name,
                                                                            self.config.model_identity):
            return None
        return get_embedder(identity)

    def reload(self) -> None:
        """Forget the searcher (and its loaded vectors) after an index run; the model stays loaded."""
        self.__dict__.pop("searcher", None)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    # writing ------------------------------------------------------------------------------

    @contextmanager
    def _writing(self, wait: bool = False) -> Iterator[WriteLock]:
        """The index's write lock: a second writer fails at once, or waits with `wait` (a
        background embedding worker yields it, see lock.py)."""
        with WriteLock(self.index_dir, wait=wait) as lock:
            yield lock
            if self._store is not None and not lock.handed_over:  # a worker handed the lock does it
                self._store.checkpoint()

    def _vector_store(self) -> VectorStore:
        """The backend's vector store, loaded (or rebuilt) as the database stands now."""
        return self.backend.vector_store(
            self.store, self.embedder, self.config.path_weight, self.config.flat_max_vectors
        )

    def _static_vector_store(self) -> VectorStore | None:
        """The static stage's vector store (None without a static stage)."""
        static = self.static_embedder
        if static is None:
            return None
        return self.backend.vector_store(self.store, static, self.config.path_weight, self.config.flat_max_vectors)

    def index(
        self,
        branches: list[str],
        all_branches: bool = False,
        progress: Progress | None = None,
        wait: bool = False,
        prune: bool = False,
        gc: bool = False,
        rebuild: bool = False,
        stale_only: bool = False,
        background: bool = False,
        tags: list[str] | tuple[str, ...] = (),
    ) -> IndexReport:
        """Index branches (default: the checked-out one); then, if asked, forget branches that
        no longer exist and remove unused versions past their retention. `rebuild` first
        recomputes the vectors (FAISS file or Qdrant collections) from the database.

        Files with stale records (see stale.py) are parsed again as well. `stale_only` parses
        only those, at each branch's indexed commit, in the given branches (default: every
        branch with stale records), without moving to the tip.

        Each branch is committed, and searchable by its lexical and name channels, as soon
        as its files are stored; the dense vectors of its new texts follow in the embedding
        stage. With `background` (the local backend) that stage runs in a detached worker
        that takes the write lock over, and this returns at once (see background.py).
        `tags` are indexed as branches named after them (their ref recorded)."""
        if stale_only and not branches and not all_branches:
            names = sorted({f["branch"] for f in stale.pending(self.index_dir, self.repo.name)}
                           & set(self.repo.branches()))
        else:
            names = self._branches_to_index(branches, all_branches, tags)
        with self._writing(wait) as lock:
            if rebuild:  # a rebuild copies whatever the database holds: refuse a damaged one
                self.store.check_integrity()
            # with the configured model: a model change that follows re-embeds nothing twice, and an
            # index recorded with a model this installation lacks can still be brought over
            change = migrate_recipe(self.store, self.repo, self.config, get_embedder(self.config.model_identity), progress)
            model_change = self._refresh_embeddings(progress)
            vectors = self._vector_store()
            static_vectors = self._static_vector_store()
            stages = VectorStores([vectors] + ([static_vectors] if static_vectors is not None else []))
            if rebuild:
                stages.rebuild()
            local = self.backend.kind == "faiss"  # a shared server is published once, complete
            indexer = Indexer(self.store, self.repo, self.config, self.embedder, stages, progress)
            order = _parents_first(names)
            report = IndexReport([], recipe_change=change, model_change=model_change)
            for position, name in enumerate(order):
                if progress is not None:  # a display can name the branch its counts belong to
                    progress(f"branch:{name}", position, len(order))
                paths = stale.pending_paths(self.index_dir, self.repo.name, name)
                at = self._indexed_commit(name) if stale_only else None
                if stale_only and (not paths or at is None):
                    continue
                upgraded = set() if stale_only else grammar_upgrade.paths_to_reparse(self.store, self.repo.name, name)
                summary = indexer.index_branch(name, reparse=set(paths) | upgraded, at=at)
                report.append(summary)
                stale.record_reparsed(self.index_dir, self.repo.name, name, paths, summary.commit)
                if not stale_only:
                    grammar_upgrade.record(self.store, name)
                if local:
                    stages.save()  # the branch is searchable from here on
            stale.compact(self.index_dir)
            if prune:
                report.pruned = indexer.prune_branches()
            if gc:
                report.gc_removed = indexer.collect_garbage()
            stages.save()
            self.store.checkpoint()  # the branches' bulk writes reach the database file before the model starts
            others = [static_vectors] if static_vectors is not None else []
            if static_vectors is not None:
                self._static_stage(static_vectors, vectors, report, order)
            self._embedding_stage(lock, vectors, report, order, progress, background and local, others)
        return report

    def _embedding_first(self, order: list[str]) -> list[str]:
        """The branches whose versions are embedded first: the checked-out one, then the run's."""
        current = None if self.repo.bare else self.repo.current_branch()
        return ([current] if current else []) + [name for name in order if name != current]

    def _static_stage(self, static_vectors: VectorStore, vectors: VectorStore, report: IndexReport,
                      order: list[str]) -> None:
        """The first dense stage: every version missing a static vector gets one now, in the
        foreground (a table lookup per token: seconds where the transformer takes minutes)."""
        from branchwise.index import embedstage

        static = self.static_embedder
        assert static is not None  # only called with a static stage
        work = embedstage.plan(self.store, self.repo.name, static.name, self._embedding_first(order))
        outcome = embedstage.embed_missing(self.store, static, static_vectors, work,
                                           save_each_batch=True, others=[vectors])
        static_vectors.save()
        vectors.save()
        report.embedding["static"] = {"model": static.name, "embedded": outcome.total,
                                      "seconds": round(sum(outcome.seconds.values()), 3)}

    def _embedding_stage(self, lock: WriteLock, vectors: VectorStore, report: IndexReport, order: list[str],
                         progress: Progress | None, background: bool, others: list[VectorStore] | None = None) -> None:
        """Embed what the index is missing (every branch's, not only this run's: an interrupted
        worker's leftovers too), here or in a background worker handed the lock."""
        from branchwise.index import background as worker
        from branchwise.index import embedstage
        from branchwise.store import worker_record

        first = self._embedding_first(order)
        work = embedstage.plan(self.store, self.repo.name, self.embedder.name, first)
        report.embedding.update(missing_texts=work.texts, missing_versions=work.versions)
        if not work.groups:
            worker_record.settle(self.index_dir)
            return
        if background:
            target = worker.Target(self.repo.path, self.index_dir, self.repo.name, self.embedder.name)
            report.embedding.update(background=True, worker_pid=worker.start(target, lock, first, work))
            return
        others = others or []
        outcome = embedstage.embed_missing(self.store, self.embedder, vectors, work, progress,
                                           save_each_batch=self.backend.kind == "faiss", others=others)
        vectors.save()
        for other in others:
            other.save()
        worker_record.settle(self.index_dir)
        report.embedding["embedded"] = outcome.total
        for summary in report:
            summary.embedded += outcome.embedded.get(summary.branch, 0)
            summary.embed_seconds += outcome.model_seconds.get(summary.branch, 0.0)
            summary.seconds += outcome.seconds.get(summary.branch, 0.0)

    def dense_coverage(self, branch: str):
        """How much of a branch's live set the dense channel covers (a `coverage.Coverage`, with
        the static stage's beside it where the index has one), or None where the backend
        cannot tell."""
        info = self.searcher.branch(branch)
        coverage = self.searcher.coverage(info)
        static = self.searcher.static_coverage(info)
        return dataclasses.replace(coverage, static=static) if coverage is not None and static else coverage

    def static_coverage(self, branch: str):
        """How much of a branch's live set the static stage covers (None without one)."""
        return self.searcher.static_coverage(self.searcher.branch(branch))

    def embedding_worker(self) -> dict | None:
        """The background embedding worker's record (worker_record.py), or None."""
        from branchwise.store import worker_record

        return worker_record.read(self.index_dir)

    def _refresh_embeddings(self, progress: Progress | None) -> ModelChange | None:
        """Bring every stored version to the configured model identity (a no-op when unchanged)."""
        configured = get_embedder(self.config.model_identity)
        previous = self.store.meta("embedding_model")
        embedded = refresh_embeddings(self.store, configured, progress)
        cached = self.__dict__.get("embedder")
        if cached is not None and cached.name != configured.name:
            for name in ("embedder", "static_embedder", "searcher"):  # queries now use the identity just recorded
                self.__dict__.pop(name, None)
        if previous is None or previous == configured.name:
            return None
        return ModelChange(previous, configured.name, embedded)

    def collect_garbage(self, retention_days: float | None = None, wait: bool = False) -> int:
        """Remove versions no branch uses once their retention (default: config.toml's) has passed."""
        with self._writing(wait):
            static_vectors = self._static_vector_store()
            vectors = VectorStores([self._vector_store()] + ([static_vectors] if static_vectors is not None else []))
            removed = Indexer(self.store, self.repo, self.config, self.embedder, vectors).collect_garbage(
                retention_days)
            vectors.save()
        return removed

    def _branches_to_index(self, branches: list[str], all_branches: bool,
                           tags: list[str] | tuple[str, ...] = ()) -> list[str]:
        known = self.repo.branches()
        if not known:
            raise UsageError(f"repository {self.repo.name} has no branches to index (no commits yet)")
        tagged = self.repo.select_tags(list(tags))
        if all_branches:  # local and remote-tracking: a fresh clone's release lines included
            return sorted(set(self.repo.branch_names()) | set(self.repo.select_branches(branches)) | set(tagged))
        if branches or tagged:
            return list(dict.fromkeys(self.repo.select_branches(branches) + tagged))
        return [self.standpoint().branch]

    # git hooks ------------------------------------------------------------------------------

    def _work_tree(self) -> Path:
        if self.repo.work_tree is None:
            raise UsageError(f"{self.repo.name} is a bare repository: git runs no commit or checkout hooks there")
        return self.repo.work_tree

    def install_hooks(self) -> dict[str, str]:
        """Install the git hooks that refresh this index in the background (see hooks.py)."""
        from branchwise.index import hooks

        return hooks.install(self._work_tree(), self.index_dir)

    def uninstall_hooks(self) -> dict[str, str]:
        """Remove the hooks and restore those they chained to."""
        from branchwise.index import hooks

        return hooks.uninstall(self._work_tree())

    def hooks_status(self) -> dict:
        """Whether the hooks are installed, and when the last background refresh ran and how it ended."""
        from branchwise.index import hooks

        return hooks.status(self._work_tree(), self.index_dir)

    def _indexed_commit(self, branch: str) -> str | None:
        repo_id = self.store.repo_id(self.repo.name)
        row = self.store.branch(repo_id, branch) if repo_id is not None else None
        return row.commit_sha if row is not None else None

    # reading ------------------------------------------------------------------------------

    def require_index(self) -> None:
        """Refuse (exit 2) when the index directory holds no index yet."""
        require_index(self.index_dir)

    def require_readable(self) -> None:
        """For a reader: refuse (exit 2) a directory without an index, never creating one; with
        the qdrant backend the server holds the index and the directory only keeps local
        labels and statistics, so it may be created."""
        if self.backend.kind == "qdrant":
            self.create = True
        else:
            self.require_index()

    @cached_property
    def restriction(self) -> Restriction | None:
        """What the access file lets the user read here; raises when it is nothing at all."""
        return restriction_for(self.index_dir, self.repo.name, self.user)

    def _restricted(self, request: SearchRequest) -> SearchRequest:
        if self.restriction is None or self.restriction.prefixes is None:
            return request
        allowed = self.restriction.prefixes
        if request.allowed_prefixes is not None:
            allowed = _intersect_prefixes(request.allowed_prefixes, allowed)
        return dataclasses.replace(request, allowed_prefixes=allowed)

    @cached_property
    def searcher(self) -> HybridSearch:
        return self.backend.searcher(self.store, self.repo.name, self.config, self.embedder, self.static_embedder)

    def standpoint(self) -> Standpoint:
        """The branch a command takes when none is named: the checked-out one (standpoint.py)."""
        return checked_out(self.repo)

    def reading_branch(self, typed: str | None) -> str:
        """The indexed branch a reader means by `typed` (None: the checked-out branch): an
        indexed name as it is, else a branch of the repository by any name gitbranches.py
        takes (`origin/release/v2`); refused, with the closest indexed names, when that
        branch is not indexed."""
        try:
            indexed = [b.name for b in self.searcher.branches()]
        except UsageError:  # the repository is not indexed yet, unless the index's model is the problem
            self.embedder
            indexed = []
        if typed is not None and typed in indexed:
            return typed
        name = self.standpoint().branch if typed is None else self._branch_or_indexed(typed, indexed)
        if name not in indexed:
            raise UsageError(with_suggestion(f"branch {name!r} of {self.repo.name} is not indexed (run "
                                             f"`branchwise index --branch {name}`)", name, indexed, "indexed"))
        return name

    def _branch_or_indexed(self, typed: str, indexed: list[str]) -> str:
        try:
            return self.repo.branch_name(typed)
        except UsageError:  # not a branch of the repository: the names to suggest are the indexed ones
            raise UsageError(with_suggestion(f"unknown branch {typed!r} in {self.repo.name}, and not indexed", typed,
                                             indexed or sorted(self.repo.branches()),
                                             "indexed" if indexed else "branches")) from None

    def indexed_branches(self) -> list[BranchInfo]:
        try:
            return self.searcher.branches()
        except UsageError:  # the repository is not in the index yet
            return []

    def search(self, request: SearchRequest, against: str | None = None, verifier=None) -> list[Result]:
        """Search, verify every result against its target, and apply reviewer labels. Results
        of the branch's own code that failed verification are recorded as stale (stale.py).

        `verifier` (for `request.branch`) lets many searches, or a search and its bundle
        context, share one target lookup."""
        from branchwise.verify import views

        if request.detail not in views.DETAILS:
            raise UsageError(f"unknown detail {request.detail!r} (choose from {', '.join(views.DETAILS)})")
        request = dataclasses.replace(self._restricted(request), pinned=self.pinned_keys(request.branch))
        results = self.searcher.search(request)
        (verifier or self.verifier(request.branch, against)).verify(results)
        labels.apply_labels(self.store.conn, results)
        if against is None:  # a failure against some other revision says nothing of the index
            self.record_stale(request.branch, results)
        for result in results:  # the verdict travels with the text it describes
            views.shape(result, request.detail, self.config.container_full_max_lines,
                        self.config.result_full_max_lines)
        return results

    def neighbours(self, branch: str, vectors, depth: int) -> list[list[Result]]:
        """The nearest live symbols of `branch` to each vector, unverified (search.py)."""
        request = self._restricted(SearchRequest(query="", branch=branch, top_k=depth, mode="dense"))
        return self.searcher.neighbours(request, vectors, depth)

    def record_stale(self, branch: str, results: list[Result]) -> None:
        """Record the branch's own results that failed verification, for the next index run
        to parse again (an append-only file, outside the write lock; see stale.py)."""
        checked_out = not self.repo.bare and self.repo.current_branch() == branch
        stale.record_failures(self.index_dir, self.repo.name, branch, results,
                              self.repo.dirty_paths() if checked_out else frozenset())

    def status(self) -> dict:
        """What the index holds of this repository, and how current it is (see status.py)."""
        from branchwise.review.status import repository_status

        return repository_status(self)

    def freshness(self, count_for: set[str] | None = None) -> list[dict]:
        """Each indexed branch's commit against its tip: cheap enough to run before every answer.
        `count_for`: count commits behind only for these branches (default: all)."""
        from branchwise.review.status import branch_freshness

        tips = self.repo.branches()
        return [branch_freshness(self.repo, info, tips, count=count_for is None or info.name in count_for)
                for info in self.indexed_branches()]

    def apply_labels(self, results: list[Result]) -> list[Result]:
        """Give results the reviewer labels stored for their versions (what `search` does)."""
        return labels.apply_labels(self.store.conn, results)

    def _parent_text(self, result: Result) -> str | None:
        """A result's enclosing symbol's whole text (a class around a lone method)."""
        from branchwise.verify.container_text import text_in_file

        if not result.parent:
            return None
        return text_in_file(self.repo, result, result.parent, self.searcher.parent_text(result), same_outline=False)

    def verifier(self, branch: str, against: str | None = None):
        """A verifier for results of `branch`: against its work tree, its tip, or `against`."""
        from branchwise.verify.verifier import Verifier

        restriction = self.restriction
        return Verifier(self.repo, branch, against=against, rules=self.config.chunking_rules(),
                        allows=None if restriction is None else restriction.allows)

    def target_commit(self, branch: str, against: str | None = None) -> str:
        """The commit a search of `branch` is verified against: `against`, else the branch tip."""
        return self.repo.resolve_branch(branch) if against is None else self.repo.resolve(against)

    def verify_snippets(self, source: Path | str, branch: str | None = None, against: str | None = None) -> list[dict]:
        """Verdicts for a snippet list or a saved `search --json` output (see snippets.py)."""
        from branchwise.verify.snippets import verify_input

        return verify_input(source, self.repo, branch=branch, against=against, rules=self.config.chunking_rules(),
                            allows=self._allows)

    def diff(self, branch: str, base: str | None = None, impact: bool = True, refresh: bool = True,
             progress=None):
        """The symbol diff of `branch` against its merge-base with `base` (see branchdiff.py);
        `progress(stage, done, total)` hears of its stages."""
        from branchwise.review.branchdiff import build_diff

        return build_diff(self, branch, base, impact=impact, refresh=refresh, progress=progress)

    def check_tour(self, tour, branch: str):
        """Verify every step of a tour against `branch` (see tours/check.py); a step on code the
        user may not read is withheld (tours/withheld.py)."""
        from branchwise.review.tours import check_tour
        from branchwise.review.tours.withheld import withhold_unreadable

        return withhold_unreadable(check_tour(self, tour, branch), self.may_read)

    def inspect(self, branch: str) -> list[dict]:
        """A branch's live set (what the user may read of it), sorted by path and line."""
        restriction = self.restriction
        return [row for row in self.searcher.live_set(branch)
                if restriction is None or restriction.allows(row["path"])]

    # export and citation headers ----------------------------------------------------------

    def bundle_context(
        self,
        request: SearchRequest,
        results: list[Result],
        against: str | None = None,
        use_indexed_text: frozenset[str] = frozenset(),
        allow_secrets: bool = False,
        verifier=None,
        **options,
    ) -> BundleContext:
        """What a bundle of these results says about where they come from and were checked.
        `verifier`: the one that checked them, when the caller has it; `options` are further
        BundleContext fields: format, max_tokens, reference_as."""
        verifier = verifier or self.verifier(request.branch, against)
        branch = self.searcher.branch(request.branch)
        conn, repository = self.store.conn, self.repo.name

        def member_labels(result: Result) -> list[LabelledMember]:
            from branchwise.verify.container_text import text_in_file

            return [LabelledMember(name, label, text_in_file(self.repo, result, name, text) or text)
                    for name, label, text in
                    labels.member_labels(conn, repository, result.path, result.identity.qualified_name)]

        return BundleContext(
            query=request.query,
            repository=repository,
            branch=request.branch,
            target_commit=verifier.target_commit,
            target=verifier.target,
            target_is_work_tree=verifier.uses_work_tree,
            target_ref=verifier.target_ref,
            repo=self.repo,
            index_commit=branch.commit,
            index_age_seconds=_age_seconds(branch.indexed_at),
            parent_signature=self.searcher.parent_signature,
            parent_text=self._parent_text,
            member_labels=member_labels,
            use_indexed_text=use_indexed_text,
            notes=labels.notes_for(conn, repository, [r.version_id for r in results]),
            allow_secrets=allow_secrets,
            **options,
        )

    def context_bundle(
        self,
        query: str,
        branch: str,
        max_tokens: int | None = None,
        format: str = "markdown",
        *,
        top_k: int = 10,
        scope: str = "branch",
        reference_as: str = "code",
        class_outline: bool = False,
        against: str | None = None,
        allow_secrets: bool = False,
    ) -> Bundle:
        """The verified context bundle for a question on a branch, for a tool to hand to a model:
        `Bundle.text` (markdown, xml or json) and `Bundle.manifest`; nothing is written or logged."""
        request = SearchRequest(query=query, branch=branch, top_k=top_k, scope=scope)
        return self.build_bundle(request, against=against, allow_secrets=allow_secrets, format=format,
                                 max_tokens=max_tokens, reference_as=reference_as, class_outline=class_outline)

    def build_bundle(
        self,
        request: SearchRequest,
        results: list[Result] | None = None,
        against: str | None = None,
        use_indexed_text: frozenset[str] = frozenset(),
        allow_secrets: bool = False,
        **options,
    ) -> Bundle:
        """The bundle for `request` (or for already reviewed `results`), built but not written:
        e.g. the review app's running token count."""
        if results is None:
            results = self.search(request, against)
        context = self.bundle_context(request, results, against, use_indexed_text, allow_secrets, **options)
        return build_bundle(results, context)

    def commit_date(self, commit: str) -> str | None:
        """A commit's date as citation headers show it (YYYY-MM-DD), looked up once."""
        return self._dates(commit)

    def citation_header(self, result: Result, context: BundleContext, dates=None) -> list[str]:
        """The citation header this result carries in a bundle written with `context`.
        `dates` maps a commit to its date (default: looked up in the repository)."""
        return header_for(result, context, dates or self._dates)

    def export(
        self,
        request: SearchRequest,
        out: Path,
        against: str | None = None,
        allow_secrets: bool = False,
        results: list[Result] | None = None,
        use_indexed_text: frozenset[str] = frozenset(),
        force: bool = False,
        record_stats: bool = True,
        **options,
    ) -> BundleReport:
        """Write the bundle for `request` (or for already reviewed `results`), and append the
        session to the failure-statistics log (an append-only file, outside the write lock)
        unless not `record_stats`.
        An existing file is kept unless `force`; nothing is written inside the index directory.
        `options` are further BundleContext fields: format, max_tokens, reference_as."""
        if results is None:
            results = self.search(request, against)
        context = self.bundle_context(request, results, against, use_indexed_text, allow_secrets, **options)
        report = write_bundle(results, Path(out), context, force=force, index_dir=self.index_dir)
        if record_stats:
            stats.record_session(self.index_dir, "export", self.repo.name, request.branch, context.index_commit,
                                 context.index_age_seconds, results, target_commit=context.target_commit,
                                 used=usage.bundle_uses(results, report.entries))
        return report

    # labels -------------------------------------------------------------------------------

    def set_label(self, result: Result, label: Label | None, note: str = "") -> None:
        """Persist a reviewer's label for this result's version (None clears it)."""
        with self._writing():
            if label is None:
                labels.clear_label(self.store.conn, self.repo.name, result.version_id)
            else:
                labels.set_label(self.store.conn, self.repo.name, result, label, note)
        result.label = label

    def clear_labels(self, path: str, qualified_name: str) -> int:
        """Remove the labels of every version of one symbol (`labels clear PATH::NAME`);
        returns how many there were."""
        if self._allows is not None and not self._allows(path):
            raise UsageError(f"{path} is outside what you may read")
        with self._writing():
            found = [r.version_id for r in labels.list_labels(self.store.conn, self.repo.name)
                     if r.path == path and r.qualified_name == qualified_name]
            return sum(labels.clear_label(self.store.conn, self.repo.name, vid) for vid in found)

    def label_record(self, result: Result) -> labels.LabelRecord | None:
        """The stored label of this result's version, whole, or None (what an undo restores)."""
        return labels.label_record(self.store.conn, self.repo.name, result.version_id)

    def restore_label(self, result: Result, record: labels.LabelRecord | None) -> None:
        """Put back the label `label_record` read for this result (None: no label)."""
        with self._writing():
            labels.restore_label(self.store.conn, self.repo.name, result.version_id, record)
        result.label = None if record is None else record.label

    def import_labels(self, path: Path) -> int:
        """Read a labels file (TOML) into this repository's labels, all or none; returns how
        many. Labels for paths the user may not read are refused."""
        allows = self._allows
        with self._writing():
            return labels.import_labels(self.store.conn, self.repo.name, Path(path), allows=allows)

    def export_labels(self, path: Path, force: bool = False) -> int:
        """Write this repository's labels (those the user may read) as TOML; returns how many.
        An existing file is kept unless `force` (outfiles.py)."""
        from branchwise.review.outfiles import refuse_overwrite

        return labels.export_labels(self.store.conn, self.repo.name, refuse_overwrite(Path(path), force),
                                    allows=self._allows)

    def labels(self) -> list[dict]:
        """This repository's labels (those the user may read), by path and name."""
        allows = self._allows
        return [{"path": r.path, "qualified_name": r.qualified_name, "symbol_type": r.symbol_type,
                 "language": r.language, "content_hash": r.content_hash, "version_id": r.version_id,
                 "label": r.label.value, "note": r.note, "reviewer": r.reviewer, "labelled_at": r.labelled_at}
                for r in labels.list_labels(self.store.conn, self.repo.name) if allows is None or allows(r.path)]

    # pins ---------------------------------------------------------------------------------

    def pin(self, result: Result, branch: str, note: str = "") -> None:
        """Pin the result's symbol on `branch`: later searches there put it first whenever
        they find it (see pins.py)."""
        if self._allows is not None and not self._allows(result.path):
            raise UsageError(f"{result.path} is outside what you may read")
        with self._writing():
            pins.pin(self.store.conn, self.repo.name, branch, result, note, labels.default_reviewer())
        result.pinned = not result.history

    def unpin(self, result: Result, branch: str) -> bool:
        """Remove the pin of the result's symbol on `branch`; True if there was one."""
        with self._writing():
            found = pins.unpin(self.store.conn, self.repo.name, branch, result)
        result.pinned = False
        return found

    def pins(self, branch: str | None = None) -> list[Pin]:
        """The pins of this repository (of one branch), those the user may read."""
        allows = self._allows
        return [p for p in pins.list_pins(self.store.conn, self.repo.name, branch) if allows is None or allows(p.path)]

    def pinned_keys(self, branch: str) -> frozenset[PinKey]:
        return pins.pinned_keys(self.store.conn, self.repo.name, branch)

    def live_symbol(self, branch: str, path: str, qualified_name: str) -> Result:
        """The version of one symbol in a branch's live set, with its text read from git (not
        verified yet): what `labels pin` and the MCP `symbol` tool name."""
        from branchwise.models import Identity, PathClass, version_id

        rows = [row for row in self.inspect(branch) if row["path"] == path and row["qualified_name"] == qualified_name]
        if not rows:
            raise UsageError(f"no symbol {qualified_name!r} in {path} on {branch} (search finds symbols by description)")
        row = rows[0]
        identity = Identity(self.repo.name, path, row["language"], row["symbol_type"], qualified_name)
        blob = self.repo.blob_at(row["commit"], path)
        lines = self.repo.read_blob(blob).decode("utf-8", "replace").splitlines(keepends=True) if blob else []
        info = self.searcher.branch(branch)
        return Result(
            rank=1, score=0.0, identity=identity, branch=branch, commit=row["commit"],
            start_line=row["start_line"], end_line=row["end_line"], indexed_at=info.indexed_at,
            content_hash=row["content_hash"], text="".join(lines[row["start_line"] - 1 : row["end_line"]]),
            blob=blob, version_id=version_id(identity, row["content_hash"]),
            path_class=PathClass(row.get("path_class") or PathClass.SOURCE.value),
        )

    def may_read(self, path: str) -> bool:
        """The access check for one path of this repository, for every output that names or
        shows code (raises when the user may not read the repository at all)."""
        restriction = self.restriction
        return restriction is None or restriction.allows(path)

    @property
    def _allows(self):
        """The access rule as a path predicate (None: everything readable); raises when the
        user may not read the repository at all."""
        restriction = self.restriction
        return None if restriction is None or restriction.prefixes is None else restriction.allows

    # statistics ---------------------------------------------------------------------------

    def statistics(self) -> dict:
        """This repository's failure statistics (as the user may see them): trend, breakdowns
        and a recommendation."""
        if not self.create:
            require_index(self.index_dir)
        restriction = self.restriction
        summary = stats.summarize(self.index_dir, self.repo.name, self.config,
                                  view=lambda record: stats.restrict_record(record, restriction))
        summary["recommendation"] = repository_advice(self.status()["branches"], summary["recommendation"])
        return summary

    def results_note(self, branch: str) -> str | None:
        """What an output of `branch`'s results says about its index, when anything: behind
        the tip ("index behind main tip by 2 commits: run `branchwise index` (...)") or
        uncommitted edits (advice.py; the words `status` and `stats` use)."""
        from branchwise.review.status import branch_entry

        info = next((b for b in self.indexed_branches() if b.name == branch), None)
        return None if info is None else results_note(branch_entry(self, info))

    @staticmethod
    def index_statistics(index: str | os.PathLike[str] | None, user: str | None = None) -> dict:
        """The failure statistics of every repository of an index that the user may read,
        without a repository at hand."""
        index_dir = resolve_index_dir(index, None)
        require_index(index_dir)
        config = Config.resolve(index_dir, {"user": user})
        restrictions: dict[str, Restriction | None] = {}

        def view(record: dict) -> dict | None:
            repository = record.get("repository") or ""
            if repository not in restrictions:
                try:
                    restrictions[repository] = restriction_for(index_dir, repository, config.user)
                except AccessDeniedError:
                    return None
            return stats.restrict_record(record, restrictions[repository])

        return stats.summarize(index_dir, None, config, view=view)

    def record_session(self, kind: str, branch: str, results: list[Result], target_commit: str | None = None,
                       info: BranchInfo | None = None, used: list[Result] | None = None) -> dict | None:
        """Append a session's record (a search's, a review's results) to the failure-statistics
        log; `target_commit`, what the results were verified against, lets the statistics tell
        failures that re-indexing would remove from uncommitted edits. `info`: the branch's
        record when the caller has it (the review app, quitting while a worker uses the index).
        `used`: the results taken as `use` (default: for a review, those the reviewer labelled
        `use`; otherwise none)."""
        info = info or next((b for b in self.indexed_branches() if b.name == branch), None)
        if used is None:
            used = usage.review_uses(results) if kind == "review" else []
        return stats.record_session(self.index_dir, kind, self.repo.name, branch, info.commit if info else None,
                                    _age_seconds(info.indexed_at) if info else None, results,
                                    target_commit=target_commit, used=used)

    def used_versions(self, branch: str | None = None, limit: int = 20) -> dict:
        """The versions most often taken as `use` in the logged sessions of this repository (of
        one branch), each verified now against its branch (see usage.py)."""
        if not self.create:
            require_index(self.index_dir)
        restriction = self.restriction
        records, _bad = stats.load_records(self.index_dir, self.repo.name)
        records = [stats.restrict_record(r, restriction) for r in records]
        rows = usage.most_used(records, branch)[:limit]
        verifiers: dict[str, Any] = {}
        for row in rows:
            usage.verify_row(row, self._verifier_for(row["branch"], verifiers), self.repo.name)
            row["pinned"] = usage.pin_key(row) in self.pinned_keys(row["branch"])
        return {"repository": self.repo.name, "branch": branch, "sessions": len(records),
                "limit": limit, "used": rows}

    def _verifier_for(self, branch: str, verifiers: dict[str, Any]):
        """One verifier per branch (None when the branch no longer exists in the repository)."""
        if branch not in verifiers:
            verifiers[branch] = self.verifier(branch) if branch in self.repo.branches() else None
        return verifiers[branch]


def _age_seconds(indexed_at: str) -> float | None:
    try:
        then = datetime.fromisoformat(indexed_at)
    except ValueError:
        return None
    return (datetime.now(timezone.utc) - then).total_seconds()


def _intersect_prefixes(wanted: tuple[str, ...], allowed: tuple[str, ...]) -> tuple[str, ...]:
    """Path prefixes inside both sets: the longer of every pair where one contains the other."""
    both = {a if a.startswith(b) else b for a in wanted for b in allowed if a.startswith(b) or b.startswith(a)}
    return tuple(sorted(both))


def _parents_first(names: list[str]) -> list[str]:
    """Index `main`/`master` first so other branches inherit from it and diff little."""
    return sorted(names, key=lambda n: (n not in ("main", "master"), names.index(n)))
