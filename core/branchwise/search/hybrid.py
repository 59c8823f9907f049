"""Branch-filtered hybrid search: dense and lexical rankings over one live set, fused.

The allowed set (the branch's live set, or every version of the repository for
`scope="all"`, narrowed by the filters) is fixed *before* ranking: FAISS gets it as an ID
selector and FTS5 as a row filter, so another branch's code can neither appear nor push a
visible result out of the top k. Generated, backup, fixture and vendored code never takes a
usable result's place: it is listed after the usable results, marked for exclusion.

`HybridSearch` is that pipeline, shared by every backend; `Searcher` runs it over the local
SQLite database and FAISS, `qdrant.QdrantSearcher` over a Qdrant server's payloads.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from branchwise.embedding import Embedder
from branchwise.errors import UsageError
from branchwise.models import EXCLUDED_CLASSES, Identity, Result
from branchwise.ranking import RankingSettings, fuse, prior_factor, role_of, wanted_roles, with_coverage
from branchwise.search.arguments import check_filters
from branchwise.search.coverage import Coverage
from branchwise.search.docrank import DocstringReranker
from branchwise.search.file_channel import file_credit
from branchwise.search.pins import pinned_first
from branchwise.search.question_shape import asks_how
from branchwise.search.ranking_stage import restage
from branchwise.suggest import closest

if TYPE_CHECKING:
    from branchwise.config import Config

#: "static" ranks by the static stage alone (no ONNX session: embedding/static_model.py)
MODES = ("fused", "dense", "lexical", "static")
#: the most results one search returns: each asks the rankings for five times as many
#: candidates, so an unbounded k would allocate without limit
MAX_TOP_K = 1000


@dataclass
class SearchRequest:
    query: str
    branch: str
    top_k: int = 10
    scope: str = "branch"  # "branch" or "all"
    language: str | None = None
    path_prefix: str | None = None
    symbol_type: str | None = None
    path_class: str | None = None
    mode: str = "fused"
    #: what the access file lets the user read (None: everything); narrows the allowed set
    allowed_prefixes: tuple[str, ...] | None = None
    #: pinned symbols of the branch, (path, language, symbol_type, qualified_name): moved to the
    #: top when the rankings find them (see pins.py)
    pinned: frozenset[tuple[str, str, str, str]] = frozenset()
    #: what each result carries once verified (views.py): "full" text, "outline" (a large
    #: container as its outline, everything else in full) or "signature"
    detail: str = "full"


@dataclass
class BranchInfo:
    id: int
    name: str
    commit: str
    indexed_at: str


def check_top_k(top_k: object) -> None:
    """A usable result count: an integer from 1 to MAX_TOP_K (UsageError otherwise)."""
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise UsageError(f"--top-k must be a whole number from 1 to {MAX_TOP_K}, not {top_k}")


class HybridSearch:
    """Dense, lexical and name rankings over one allowed set, fused and turned into results.

    A backend supplies the branch records, the allowed set (`_scope`, fixed before any
    ranking), the three rankings over it and the result of a ranked key.
    """

    repository: str
    config: Config
    embedder: Embedder
    #: the static stage's embedder, its own channel `static` (None: no static stage)
    static: Embedder | None = None

    def __init__(self) -> None:
        self._query_vectors: dict[str, np.ndarray] = {}
        self._static_query_vectors: dict[str, np.ndarray] = {}

    def search(self, request: SearchRequest) -> list[Result]:
        if request.mode not in MODES:
            raise UsageError(f"unknown ranking mode {request.mode!r} (choose from {', '.join(MODES)})")
        if request.scope not in ("branch", "all"):
            raise UsageError(f"unknown scope {request.scope!r} (choose branch or all)")
        check_top_k(request.top_k)
        check_filters(language=request.language, symbol_type=request.symbol_type, path_class=request.path_class)
        branch = self.branch(request.branch)
        if request.scope == "all":
            return self._with_history(request, branch)
        return self._search(request, branch)

    def _with_history(self, request: SearchRequest, branch: BranchInfo) -> list[Result]:
        """`--scope all` adds, never changes: the branch's own results exactly as `--scope
        branch` gives them, in the same order, then up to top_k/2 history results (other
        branches, deleted code) of identities the branch does not have live (an identity the
        branch has is shown as its live version or not at all)."""
        own = self._search(replace(request, scope="branch"), branch)
        live = self._live_identities(branch)
        seen = {result.identity for result in own}
        history: list[Result] = []
        for result in self._search(request, branch, assemble=False):
            if len(history) >= max(1, request.top_k // 2):
                break
            if not result.history or result.identity in seen or result.identity in live:
                continue
            if result.path_class in EXCLUDED_CLASSES:
                continue
            seen.add(result.identity)
            history.append(result)
        ordered = own + history
        for rank, result in enumerate(ordered, 1):
            result.rank = rank
        return ordered

    def _live_identities(self, branch: BranchInfo) -> frozenset[Identity]:
        """The identities of a branch's live set (remembered per indexed commit)."""
        key = (branch.name, branch.commit)
        cached = self.__dict__.setdefault("_live_cache", {})
        if key not in cached:
            cached.clear()
            cached[key] = frozenset(Identity(self.repository, row["path"], row["language"], row["symbol_type"],
                                             row["qualified_name"]) for row in self.live_set(branch.name))
        return cached[key]

    def _search(self, request: SearchRequest, branch: BranchInfo, assemble: bool = True) -> list[Result]:
        """The ranked results over the request's allowed set: assembled (usable, then
        excluded), or every fused candidate in order (`assemble` off)."""
        scope = self._scope(branch, request)
        depth = max(50, request.top_k * 5)
        if request.mode == "static" and self.static is None:
            raise UsageError("this index has no static stage (see static_model in the configuration)")
        fused = request.mode == "fused"
        coverages = {"dense": self.coverage(branch)} if fused else {}
        if fused and self.static is not None:
            coverages["static"] = self.static_coverage(branch)
        rankings = {}
        if request.mode == "dense" or (fused and not _stage_not_started(coverages["dense"], self.static)):
            rankings["dense"] = self._dense(self._query_vector(request.query), scope, depth)
        if self.static is not None and (request.mode == "static" or (fused and _stands_in(coverages, rankings))):
            rankings["static"] = self._static(self._static_query_vector(request.query), scope, depth)
        if request.mode in ("fused", "lexical"):
            rankings["lexical"] = self._lexical(request.query, scope, depth)
        if fused:
            rankings["name"] = self._names(request.query, scope, depth)
        ids = self._version_ids(list({key: None for ranking in rankings.values() for key, _score in ranking}))
        rankings = {channel: self._settle_ties(ranking, ids) for channel, ranking in rankings.items()}
        files = None
        if "dense" in rankings and len(rankings) > 1 and self.ranking_settings.file_weight > 0 \
                and asks_how(request.query):
            files = self._file_ranks(self._query_vector(request.query), scope)
        ranked = pinned_first(self._ranked(request.query, rankings, branch, coverages, request.top_k, files),
                              request.pinned)
        return self._assemble(ranked, branch, request) if assemble else ranked

    def neighbours(self, request: SearchRequest, vectors: np.ndarray, depth: int) -> list[list[Result]]:
        """The `depth` nearest live symbols of `request.branch` to each of many vectors (a
        branch diff's changes), in one pass: the allowed set is fixed once, a version met
        twice is one result. Unverified; excluded code (generated, vendored) left out."""
        branch = self.branch(request.branch)
        scope = self._scope(branch, request)
        made: dict[Any, Result] = {}
        out: list[list[Result]] = []
        for ranking in self._dense_many(vectors, scope, depth):
            found = []
            for key, score in self._settle_ties(ranking):
                if key not in made:
                    made[key] = self._result(key, score, branch)
                result = made[key]
                if result.path_class not in EXCLUDED_CLASSES and not result.history:
                    found.append((score, result))
            out.append([result for _score, result in found])
        return out

    def _ranked(self, question: str, rankings: dict[str, list[tuple[Any, float]]], branch: BranchInfo,
                coverages: dict[str, Coverage | None] | None = None, page: int = 10,
                files: dict[str, int] | None = None) -> list[Result]:
        """The fused candidates as results, each scored with the role prior and carrying its
        per-channel ranks, best first (ties keep the fusion's order; in fused mode the first
        `page` spread over files, ranking_stage.restage). `files`: the rank of each file for a
        question that asks how something works (file_channel.py). While a dense stage
        (`dense`, `static`) covers only part of the live set (`coverages`), its weight shrinks
        with it."""
        settings = self.ranking_settings
        unranked: dict[str, set] = {}
        for stage, coverage in (coverages or {}).items():
            if coverage is None or coverage.complete or stage not in rankings or len(rankings) < 2:
                continue
            settings = with_coverage(settings, stage, coverage.share)
            ranked_here = {key for key, _score in rankings[stage]}
            others = {key for channel, ranking in rankings.items() if channel != stage
                      for key, _score in ranking if key not in ranked_here}
            unranked[stage] = self._without_vector(others, stage)
        dense = (coverages or {}).get("dense")
        if "static" in rankings and "dense" in rankings and dense is not None:
            # the static stage stands in for the transformer where it has not embedded yet
            settings = with_coverage(settings, "static", 1.0 - dense.share)
        wanted = wanted_roles(question)

        def prior(result: Result) -> float:
            role = role_of(result.path, result.path_class.value, result.identity.language,
                           result.identity.qualified_name)
            return prior_factor(role, wanted, settings, result.identity.symbol_type)

        items = list(fuse(rankings, settings, unranked))
        results = self._results([(item.key, item.score) for item in items], branch)
        for item, result in zip(items, results):
            result.score = (item.score + file_credit(result, files, settings)) * prior(result)
            result.dense_rank = item.ranks.get("dense")
            result.lexical_rank = item.ranks.get("lexical")
            result.name_rank = item.ranks.get("name")
            result.static_rank = item.ranks.get("static")
        results.sort(key=lambda r: r.score, reverse=True)
        if len(rankings) > 1:  # fused: a single-channel mode stays that channel
            if "dense" in rankings and settings.doc_weight > 0:
                results = self._docstring_reranker.rerank(self._query_vector(question), results,
                                                          settings.doc_weight, int(settings.doc_depth), prior)
            results = restage(question, results, settings, prior, page)
        return results

    @property
    def _docstring_reranker(self) -> DocstringReranker:
        if "_doc_reranker" not in self.__dict__:
            self.__dict__["_doc_reranker"] = DocstringReranker(self.embedder.embed)
        return self.__dict__["_doc_reranker"]

    @property
    def ranking_settings(self) -> RankingSettings:
        return self.config.ranking_settings()

    def _query_vector(self, query: str) -> np.ndarray:
        """The query's embedding, remembered: the review app asks again on every branch switch."""
        return _remembered(self._query_vectors, self.embedder, query)

    def _static_query_vector(self, query: str) -> np.ndarray:
        """The query's static embedding (a table lookup), remembered as `_query_vector` is."""
        assert self.static is not None, "no static stage"
        return _remembered(self._static_query_vectors, self.static, query)

    def _settle_ties(self, ranking: list[tuple[Any, float]],
                     ids: dict[Any, str] | None = None) -> list[tuple[Any, float]]:
        """Equal scores (a function copied to another file, say) in version-id order, so every
        backend ranks alike; scores equal to 5 decimals count as equal (engines round apart).
        `ids`: the version ids of the ranked keys, when the caller read them for several rankings."""
        ids = self._version_ids([key for key, _score in ranking]) if ids is None else ids
        return sorted(ranking, key=lambda item: (-round(item[1], 5), ids[item[0]]))

    # what a backend supplies ----------------------------------------------------------------

    def coverage(self, branch: BranchInfo) -> Coverage | None:
        """How many of the branch's live versions the dense channel can rank (None: unknown)."""
        return None

    def static_coverage(self, branch: BranchInfo) -> Coverage | None:
        """How many of the branch's live versions the static channel can rank (None: no static stage)."""
        return None

    def _without_vector(self, keys: set, channel: str = "dense") -> set:
        """Those of `keys` that a dense stage's channel cannot rank yet (no vector made)."""
        return set()

    def _version_ids(self, keys: list[Any]) -> dict[Any, str]:
        """The version id of each ranked key."""
        raise NotImplementedError

    def branches(self) -> list[BranchInfo]:
        raise NotImplementedError

    def branch(self, name: str) -> BranchInfo:
        for info in self.branches():
            if info.name == name:
                return info
        names = [b.name for b in self.branches()]
        hint = closest(name, names)
        raise UsageError(f"branch {name!r} of {self.repository} is not indexed (indexed: {', '.join(names) or 'none'})"
                         + (f"; {hint}" if hint else ""))

    def _scope(self, branch: BranchInfo, request: SearchRequest) -> Any:
        raise NotImplementedError

    def _dense(self, vector: np.ndarray, scope: Any, depth: int) -> list[tuple[Any, float]]:
        raise NotImplementedError

    def _static(self, vector: np.ndarray, scope: Any, depth: int) -> list[tuple[Any, float]]:
        """The static stage's ranking (backends with a static stage)."""
        raise NotImplementedError

    def _dense_many(self, vectors: np.ndarray, scope: Any, depth: int) -> list[list[tuple[Any, float]]]:
        """`_dense` for each vector; a backend may answer them in one call."""
        return [self._dense(vector, scope, depth) for vector in vectors]

    def _lexical(self, question: str, scope: Any, depth: int) -> list[tuple[Any, float]]:
        raise NotImplementedError

    def _names(self, question: str, scope: Any, depth: int) -> list[tuple[Any, float]]:
        raise NotImplementedError

    def _file_ranks(self, vector: np.ndarray, scope: Any) -> dict[str, int]:
        """Each file of the allowed set's rank by the question's similarity to the mean of its
        chunks' vectors (file_channel.py); a backend that cannot read its vectors ranks none."""
        return {}

    def _result(self, key: Any, score: float, branch: BranchInfo) -> Result:
        raise NotImplementedError

    def _results(self, scored: list[tuple[Any, float]], branch: BranchInfo) -> list[Result]:
        """`_result` for each (key, score); a backend may read them all at once."""
        return [self._result(key, score, branch) for key, score in scored]

    def parent_signature(self, result: Result) -> str | None:
        """The signature line of a result's enclosing symbol (for bundle headers)."""
        raise NotImplementedError

    def parent_text(self, result: Result) -> str | None:
        """The text of a result's enclosing symbol, as last indexed (for bundle context)."""
        raise NotImplementedError

    def live_set(self, branch: str) -> list[dict]:
        """A branch's live set, sorted by path and line (what `inspect` prints)."""
        raise NotImplementedError

    # turning ranked keys into results -------------------------------------------------------

    def _assemble(self, ranked: list[Result], branch: BranchInfo, request: SearchRequest) -> list[Result]:
        """Up to top_k results of the branch, then up to top_k/2 history results (--scope all),
        then up to top_k/2 excluded ones ranked among them: history and excluded code inform,
        they never take a current result's place or rank above it."""
        usable: list[Result] = []
        history: dict[Identity, Result] = {}
        excluded: list[Result] = []
        seen: set[Identity] = set()  # --scope all: one version per identity, the live one, else the best
        side_slots = max(1, request.top_k // 2)
        for result in ranked:
            if len(usable) >= request.top_k and (request.scope != "all" or len(history) >= side_slots):
                break
            if result.identity in seen or (result.history and result.identity in history):
                continue
            if result.history:
                if len(history) < side_slots:
                    history[result.identity] = result
                continue
            seen.add(result.identity)
            history.pop(result.identity, None)
            if result.path_class in EXCLUDED_CLASSES:
                if len(excluded) < side_slots and len(usable) < request.top_k:
                    excluded.append(result)
            elif len(usable) < request.top_k:
                usable.append(result)
        ordered = usable + list(history.values()) + excluded
        for rank, result in enumerate(ordered, 1):
            result.rank = rank
        return ordered


def _remembered(cache: dict[str, np.ndarray], embedder: Embedder, query: str) -> np.ndarray:
    """`embedder`'s vector of `query`, from `cache` (its 256 latest queries) when it is there."""
    if query not in cache:
        if len(cache) >= 256:
            cache.pop(next(iter(cache)))
        cache[query] = embedder.embed([query])[0]
    return cache[query]


def _stage_not_started(dense: Coverage | None, static: Embedder | None) -> bool:
    """Whether the transformer has embedded none of the branch yet while a static stage
    answers: then the dense channel would rank nothing, and its query need not be embedded
    (no ONNX session on the path of a search right after `index`)."""
    return static is not None and dense is not None and dense.embedded == 0 and dense.total > 0


def place_live(result: Result, queried: str, name: str, commit: str, indexed_at: str, where: tuple) -> None:
    """The version is live on branch `name` (blob, start, end): history unless it is the queried one."""
    result.branch, result.commit, result.indexed_at = name, commit, indexed_at
    result.blob, result.start_line, result.end_line = where
    if name != queried:
        result.history, result.history_note = True, f"on {name}"


def place_history(result: Result, tombstone: tuple | None) -> None:
    """The version is live nowhere: where it was last seen (branch, deleted at, last commit,
    blob, start, end, when), or only where it was first indexed."""
    result.history = True
    if tombstone is None:
        result.history_note = f"first seen on {result.branch}"
        return
    name, deleted_at, last_commit, blob, start, end, at = tombstone
    result.branch, result.commit, result.indexed_at = name, last_commit, at
    result.blob, result.start_line, result.end_line = blob, start, end
    result.history_note = f"removed on {name} at {deleted_at[:7]}"


def _stands_in(coverages: dict[str, Coverage | None], rankings: dict) -> bool:
    """Whether a fused search needs the static stage: while the transformer stage has not
    embedded the whole branch (or is not in use). Once it has, the transformer's vectors
    replace the static ones: on the peer benchmark, click and cobra the two fused together
    were not better than the transformer alone (bench/results/2026-12-06-ranking-stage.md)."""
    dense = coverages.get("dense")
    return "dense" not in rankings or dense is None or not dense.complete

