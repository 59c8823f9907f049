"""For a question about how something works, the files whose code as a whole resembles it.

A mechanism ("how the multi interface drives socket event loop transfers", "how does a group
pick the subcommand to run") lives in a file or two more than in one symbol, and the channels
rank symbols one at a time: a helper elsewhere whose few lines share the question's words can
outrank every chunk of the file that does the work. So the files of the allowed set are ranked
by the question's similarity to the mean of each file's chunk vectors, and each candidate gains
`file_weight / (rrf_k + its file's rank)`, a reciprocal-rank credit like a channel's, before
the role prior. Only for a question that asks how (question_shape.asks_how): a question that
describes a behaviour ("print a line to the terminal") asks for the one symbol that does it,
and there the file's standing let a near-tie turn over (bench/results/2026-12-07-ranking-s64.md).
A C or C++ prototype gains nothing: its definition takes its score (ranking_stage), and a
header's standing says nothing of the file the definition lives in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from branchwise.models import Result
from branchwise.ranking import RankingSettings
from branchwise.search.ranking_stage import is_prototype

#: vectors summed at a time: a sort and a copy of this many rows at most
_SLICE = 20_000


class FileMeans:
    """The normalised mean vector of each file's chunks in one allowed set."""

    def __init__(self, parts: Iterable[tuple[np.ndarray, np.ndarray]], paths: Mapping[int, str], dim: int):
        """`parts`: (version rows, their vectors) in any number of pieces; `paths`: the path of
        each allowed version row (rows not in it are left out)."""
        self.names = sorted(set(paths.values()))
        slot_of = {name: slot for slot, name in enumerate(self.names)}
        sums = np.zeros((len(self.names), dim), dtype=np.float32)
        for ids, vectors in parts:
            for start in range(0, len(ids), _SLICE):
                slots = np.fromiter((slot_of.get(paths.get(int(row), ""), -1) for row in ids[start:start + _SLICE]),
                                    dtype=np.int64)
                kept = np.flatnonzero(slots >= 0)
                if not kept.size:
                    continue
                order = kept[np.argsort(slots[kept], kind="stable")]
                ordered = slots[order]
                firsts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
                sums[ordered[firsts]] += np.add.reduceat(vectors[start:start + _SLICE][order], firsts, axis=0)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        self.means = sums / np.maximum(norms, 1e-12)
        self._ranked = np.flatnonzero(norms[:, 0] > 0)  # a file none of whose chunks has a vector yet ranks nowhere

    def ranks(self, query: np.ndarray) -> dict[str, int]:
        """Each file's 1-based rank by the cosine of `query` (a unit vector) to its mean."""
        order = self._ranked[np.argsort(-(self.means[self._ranked] @ query.astype(np.float32)), kind="stable")]
        return {self.names[slot]: rank for rank, slot in enumerate(order, 1)}


def file_credit(result: Result, ranks: Mapping[str, int] | None, settings: RankingSettings) -> float:
    """What a candidate's file adds to its fused score (0 without file ranks, or for a prototype)."""
    rank = ranks.get(result.identity.path) if ranks else None
    if rank is None or is_prototype(result):
        return 0.0
    return settings.file_weight / (settings.rrf_k + rank)
