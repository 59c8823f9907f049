"""One repository and its index: the facade that the CLI, the review app, MCP and tests call.

It opens the git repository, the index directory and the configuration once, creates the
embedder only when an operation needs vectors, and hands each job to the layer that owns it:
an index run to index/run.py, a search to search/ and its verification to verify/, the
reviewer's labels, pins, bundles and statistics to `review` (review/desk.py). Every write to
the index database or its vectors happens under the index's write lock (`writing`); callers
never open a transaction or take the lock themselves.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from branchwise.backends import Backend, VectorStore
from branchwise.config import Config
from branchwise.embedding import Embedder, get_embedder
from branchwise.embedding.location import recorded_identity
from branchwise.errors import AccessDeniedError, UsageError
from branchwise.git.names import git_arg
from branchwise.git.repo import GitRepo
from branchwise.git.standpoint import Standpoint, checked_out, enclosing_repository, meant_branch
from branchwise.models import Result
from branchwise.store import (DB_FILE, Store, recorded_repositories, require_index, resolve_index_dir, stale,
                              worker_record)
from branchwise.store.lock import WriteLock

if TYPE_CHECKING:  # the write side and its migrations load only when an index run starts
    from branchwise.index.run import IndexReport, Progress
    from branchwise.review.desk import Review
    from branchwise.search.access import ReadAccess, Restriction
    from branchwise.search.hybrid import BranchInfo, HybridSearch, SearchRequest

#: command-line names of the backend choices, as `Workspace(backend={...})` takes them
_BACKEND_FLAGS = {"kind": "backend", "url": "qdrant_url", "path": "qdrant_path"}


class Workspace:
    """`user` is who reads (access.py); `backend` the command line's backend choices (`kind`, `url`,
    `path`) or a resolved Backend; both win over the environment and config.toml."""

    def __init__(self, repo: str | os.PathLike[str] | None, index: str | os.PathLike[str] | None = None,
                 user: str | None = None, backend: Backend | Mapping[str, Any] | None = None, create: bool = True):
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
        return [cls(git_arg(path), index_dir, user=user, backend=backend) for path in recorded_repositories(index_dir)]

    @classmethod
    def readable_in_index(cls, index: str | os.PathLike[str], user: str | None = None,
                          backend: Backend | Mapping[str, Any] | None = None) -> list["Workspace"]:
        """The workspaces of `all_in_index` that the user may read, without naming the others."""
        every = cls.all_in_index(index, user=user, backend=backend)
        readable = [ws for ws in every if ws.access.readable()]
        for ws in set(every) - set(readable):
            ws.close()
        if not readable:
            from branchwise.search.access import current_user
            raise AccessDeniedError(f"user {current_user(every[-1].user)!r} may read none of the repositories in the index")
        return readable

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.index_dir, create=self.create)
        return self._store

    @cached_property
    def embedder(self) -> Embedder:
        """The model that embeds queries: the one the index's vectors were made with (recipe.py)."""
        recorded = self.store.meta("embedding_model") if (self.index_dir / DB_FILE).exists() else None
        return get_embedder(recorded_identity(recorded, self.config.model_identity))

    @cached_property
    def static_embedder(self) -> Embedder | None:
        """The first dense stage's model (None without one, or when it is `embedder`)."""
        identity = self.config.static_identity
        if identity is None or identity in (self.embedder.name, self.config.model_identity):
            return None
        return get_embedder(identity)

    def reload(self) -> None:
        """Forget the searcher (and its loaded vectors) after an index run; the model stays loaded."""
        self.__dict__.pop("searcher", None)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
        self.repo.close()

    @contextmanager
    def writing(self, wait: bool = False) -> Iterator[WriteLock]:
        """The index's write lock: a second writer fails at once, or waits with `wait` (lock.py)."""
        with WriteLock(self.index_dir, wait=wait) as lock:
            yield lock
            if self._store is not None and not lock.handed_over:  # a worker handed the lock does it
                self._store.checkpoint()

    def vector_store(self) -> VectorStore:
        """The backend's vector store, loaded (or rebuilt) as the database stands now."""
        return self.backend.vector_store(self.store, self.embedder, self.config.path_weight,
                                         self.config.flat_max_vectors, self.static_embedder)

    def static_vector_store(self) -> VectorStore | None:
        """The static stage's vector store (None without a static stage)."""
        static = self.static_embedder
        return None if static is None else self.backend.static_vector_store(
            self.store, static, self.config.path_weight, self.config.flat_max_vectors)

    def index(self, branches: list[str], all_branches: bool = False, progress: Progress | None = None,
              wait: bool = False, prune: bool = False, gc: bool = False, rebuild: bool = False,
              stale_only: bool = False, background: bool = False, tags: list[str] | tuple[str, ...] = ()) -> IndexReport:
        """Index branches (default: the checked-out one), with `prune`, `gc`, `rebuild`, stale-file
        and background-embedding options and `tags` as branches: index/run.py says what each does."""
        from branchwise.index import run
        return run.index(self, branches, all_branches, progress, wait, prune, gc, rebuild, stale_only, background, tags)

    def collect_garbage(self, retention_days: float | None = None, wait: bool = False) -> int:
        """Remove versions no branch uses once their retention (default: config.toml's) has passed."""
        from branchwise.index import run
        return run.collect_garbage(self, retention_days, wait)

    def dense_coverage(self, branch: str):
        """How much of a branch's live set the dense channel covers, the static stage's beside it (coverage.py)."""
        info = self.searcher.branch(branch)
        coverage, static = self.searcher.coverage(info), self.searcher.static_coverage(info)
        return dataclasses.replace(coverage, static=static) if coverage is not None and static else coverage

    def static_coverage(self, branch: str):
        """How much of a branch's live set the static stage covers (None without one)."""
        return self.searcher.static_coverage(self.searcher.branch(branch))

    def embedding_worker(self) -> dict | None:
        """The background embedding worker's record (worker_record.py), or None."""
        return worker_record.read(self.index_dir)

    @cached_property
    def hooks(self):
        """The git hooks that refresh this index in the background (index/hooks.py)."""
        from branchwise.index.hooks import RepositoryHooks
        return RepositoryHooks(self.repo, self.index_dir)

    def require_readable(self) -> None:
        """For a reader: refuse (exit 2) a directory without an index, never creating one (with
        qdrant the server holds the index; the directory keeps only labels and statistics)."""
        if self.backend.kind == "qdrant":
            self.create = True
        else:
            require_index(self.index_dir)

    @cached_property
    def access(self) -> ReadAccess:
        """What the user may read of this repository (search/access.py)."""
        from branchwise.search.access import ReadAccess
        return ReadAccess(self.index_dir, self.repo.name, self.user)

    @property
    def restriction(self) -> Restriction | None:
        return self.access.restriction

    @cached_property
    def searcher(self) -> HybridSearch:
        return self.backend.searcher(self.store, self.repo.name, self.config, self.embedder, self.static_embedder)

    def standpoint(self) -> Standpoint:
        """The branch a command takes when none is named: the checked-out one (standpoint.py)."""
        return checked_out(self.repo)

    def reading_branch(self, typed: str | None) -> str:
        """The indexed branch a reader means by `typed` (None: the checked-out one; standpoint.py)."""
        try:
            indexed = [b.name for b in self.searcher.branches()]
        except UsageError:  # the repository is not indexed yet, unless the index's model is the problem
            self.embedder
            indexed = []
        return meant_branch(self.repo, typed, indexed)

    def indexed_branches(self) -> list[BranchInfo]:
        try:
            return self.searcher.branches()
        except UsageError:  # the repository is not in the index yet
            return []

    def search(self, request: SearchRequest, against: str | None = None, verifier=None) -> list[Result]:
        """Search, verify every result against its target, apply reviewer labels, and record the
        branch's own results that failed as stale (stale.py). `verifier` (for `request.branch`)
        lets many searches, or a search and its bundle, share one target lookup."""
        from branchwise.review import labels
        from branchwise.verify import views
        if request.detail not in views.DETAILS:
            raise UsageError(f"unknown detail {request.detail!r} (choose from {', '.join(views.DETAILS)})")
        request = dataclasses.replace(request, allowed_prefixes=self.access.narrowed(request.allowed_prefixes),
                                      pinned=self.review.pinned_keys(request.branch))
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
        from branchwise.search.hybrid import SearchRequest
        request = SearchRequest(query="", branch=branch, top_k=depth, mode="dense",
                                allowed_prefixes=self.access.narrowed(None))
        return self.searcher.neighbours(request, vectors, depth)

    def record_stale(self, branch: str, results: list[Result]) -> None:
        """Record the branch's own results that failed verification, for the next index run (stale.py)."""
        stale.record_failures(self.index_dir, self.repo.name, branch, results, lambda: self.repo.dirty_check()
                              if not self.repo.bare and self.repo.current_branch() == branch else frozenset())

    def status(self) -> dict:
        """What the index holds of this repository, and how current it is (see status.py)."""
        from branchwise.review.status import repository_status
        return repository_status(self)

    def freshness(self, count_for: set[str] | None = None) -> list[dict]:
        """Each indexed branch's commit against its tip (commits behind counted for `count_for`, default all)."""
        from branchwise.review.status import freshness
        return freshness(self, count_for)

    def apply_labels(self, results: list[Result]) -> list[Result]:
        """Give results the reviewer labels stored for their versions (what `search` does)."""
        from branchwise.review import labels
        return labels.apply_labels(self.store.conn, results)

    def verifier(self, branch: str, against: str | None = None):
        """A verifier for results of `branch`: against its work tree, its tip, or `against`."""
        from branchwise.verify.verifier import Verifier
        return Verifier(self.repo, branch, against, rules=self.config.chunking_rules(),
                        allows=None if self.restriction is None else self.restriction.allows)

    def target_commit(self, branch: str, against: str | None = None) -> str:
        """The commit a search of `branch` is verified against: `against`, else the branch tip."""
        return self.repo.resolve_branch(branch) if against is None else self.repo.resolve(against)

    def verify_snippets(self, source: Path | str, branch: str | None = None, against: str | None = None) -> list[dict]:
        """Verdicts for a snippet list or a saved `search --json` output (see snippets.py)."""
        from branchwise.verify.snippets import verify_input
        return verify_input(source, self.repo, branch=branch, against=against, rules=self.config.chunking_rules(),
                            allows=self.access.allows)

    def diff(self, branch: str, base: str | None = None, impact: bool = True, refresh: bool = True, progress=None):
        """The symbol diff of `branch` against its merge-base with `base` (branchdiff.py)."""
        from branchwise.review.branchdiff import build_diff
        return build_diff(self, branch, base, impact=impact, refresh=refresh, progress=progress)

    def check_tour(self, tour, branch: str):
        """Verify every step of a tour against `branch`, withholding steps the user may not read (tours/)."""
        from branchwise.review.tours import check_tour
        from branchwise.review.tours.withheld import withhold_unreadable
        return withhold_unreadable(check_tour(self, tour, branch), self.access.may_read)

    def inspect(self, branch: str) -> list[dict]:
        """A branch's live set (what the user may read of it), sorted by path and line."""
        return [row for row in self.searcher.live_set(branch) if self.access.may_read(row["path"])]

    def live_symbol(self, branch: str, path: str, qualified_name: str) -> Result:
        """The version of one symbol in a branch's live set, its text read from git (verify/live.py)."""
        from branchwise.verify.live import live_symbol
        return live_symbol(self, branch, path, qualified_name)

    @cached_property
    def review(self) -> Review:
        """The reviewer's jobs: labels, pins, bundles and export, statistics (review/desk.py)."""
        from branchwise.review.desk import Review
        return Review(self)
