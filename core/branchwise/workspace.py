"""One repository and its index: the object that the CLI commands and the review app share.

It opens the git repository and the index directory, loads the configuration, creates the
embedder only when a command needs vectors, and offers the operations as plain methods that
return plain data, so the TUI stays a thin layer over the core.
"""

from __future__ import annotations

import dataclasses
import os
from functools import cached_property

from branchwise.access import Restriction, restriction_for
from branchwise.backend import Backend
from branchwise.config import Config
from branchwise.embedding import Embedder, get_embedder
from branchwise.errors import UsageError
from branchwise.gitrepo import GitRepo
from branchwise.indexer import BranchSummary, Indexer, Progress
from branchwise.lock import WriteLock
from branchwise.models import Label, Result
from branchwise.search import BranchInfo, HybridSearch, SearchRequest
from branchwise.store import Store, resolve_index_dir


class Workspace:
    """`user` is who reads (see access.py): None means BRANCHWISE_USER, else the OS user."""

    def __init__(
        self,
        repo: str | os.PathLike[str] | None,
        index: str | os.PathLike[str] | None = None,
        user: str | None = None,
        backend: Backend | dict | None = None,
    ):
        self.repo = GitRepo(repo if repo is not None else ".")
        self.index_dir = resolve_index_dir(index, self.repo.git_dir)
        self.config = Config.load(self.index_dir)
        self.user = user
        #: where the searchable index lives; a dict holds the command line's choices
        self.backend = backend if isinstance(backend, Backend) else Backend.resolve(self.config, **(backend or {}))
        self._store: Store | None = None
        #: what the last `index` did when the index was made with another embedding recipe
        self.recipe_change = None

    @property
    def store(self) -> Store:
        if self._store is None:
            self._store = Store(self.index_dir)
        return self._store

    @cached_property
    def embedder(self) -> Embedder:
        return get_embedder(self.config.model)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    # indexing -----------------------------------------------------------------------------

    def index(
        self,
        branches: list[str],
        all_branches: bool = False,
        progress: Progress | None = None,
        wait: bool = False,
        prune: bool = False,
    ) -> list[BranchSummary]:
        known = self.repo.branches()
        if not known:
            raise UsageError(f"repository {self.repo.name} has no branches to index (no commits yet)")
        names = sorted(known) if all_branches else list(branches)
        if not names:
            current = self.repo.current_branch()
            if current is None:
                raise UsageError("HEAD is detached or the repository is bare: name a --branch")
            names = [current]
        for name in names:
            if name not in known:
                raise UsageError(f"unknown branch {name!r} in {self.repo.name}")
        with WriteLock(self.index_dir, wait=wait):
            from branchwise import recipe

            self.recipe_change = recipe.migrate(self.store, self.repo, self.config, self.embedder, progress)
            vectors = self.backend.vector_store(self.store, self.embedder, self.config.path_weight)
            indexer = Indexer(self.store, self.repo, self.config, self.embedder, progress, vectors)
            summaries = [indexer.index_branch(name) for name in _parents_first(names)]
            if prune:
                indexer.prune_branches()
            vectors.save()
        return summaries

    # reading ------------------------------------------------------------------------------

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
        return self.backend.searcher(self.store, self.repo.name, self.config, self.embedder)

    def indexed_branches(self) -> list[BranchInfo]:
        try:
            return self.searcher.branches()
        except UsageError:  # the repository is not in the index yet
            return []

    def search(self, request: SearchRequest, against: str | None = None) -> list[Result]:
        """Search, verify every result against its target, and apply reviewer labels."""
        from branchwise import labels

        results = self.searcher.search(self._restricted(request))
        self.verifier(request.branch, against).verify(results)
        labels.apply_labels(self.store.conn, results)
        return results

    def verifier(self, branch: str, against: str | None = None):
        """A verifier for results of `branch`: against its work tree, its tip, or `against`."""
        from branchwise.verify import Verifier

        return Verifier(self.repo, branch, against=against, rules=self.config.chunking_rules())

    def set_label(self, result: Result, label: Label | None, note: str = "") -> None:
        """Persist a reviewer's label for this result's version (None clears it)."""
        from branchwise import labels

        if label is None:
            labels.clear_label(self.store.conn, self.repo.name, result.version_id)
        else:
            labels.set_label(self.store.conn, self.repo.name, result, label, note)
        result.label = label

    def inspect(self, branch: str) -> list[dict]:
        """A branch's live set (what the user may read of it), sorted by path and line."""
        restriction = self.restriction
        return [row for row in self.searcher.live_set(branch)
                if restriction is None or restriction.allows(row["path"])]


def _intersect_prefixes(wanted: tuple[str, ...], allowed: tuple[str, ...]) -> tuple[str, ...]:
    """Path prefixes inside both sets: the longer of every pair where one contains the other."""
    both = {a if a.startswith(b) else b for a in wanted for b in allowed if a.startswith(b) or b.startswith(a)}
    return tuple(sorted(both))


def _parents_first(names: list[str]) -> list[str]:
    """Index `main`/`master` first so other branches inherit from it and diff little."""
    return sorted(names, key=lambda n: (n not in ("main", "master"), names.index(n)))
