"""train/fit.py's batches: a plain shuffle by default, runs of one file's pairs with `group`."""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from train.fit import BATCH, make_batches  # noqa: E402

#: 50 files of 8 pairs: 400 pairs, 12 whole batches of 32
PAIRS = [{"source": "python-stdlib", "path": f"lib/m{f}.py", "query": f"q{f}-{k}"}
         for f in range(50) for k in range(8)]


def _files(batch: list[int]) -> Counter:
    return Counter(PAIRS[i]["path"] for i in batch)


def test_the_plain_shuffle_is_the_recipe_before_grouping():
    order = list(range(len(PAIRS)))
    random.Random(27).shuffle(order)
    assert make_batches(PAIRS, random.Random(27)) == [order[i:i + BATCH] for i in range(0, 384, BATCH)]


def test_every_pair_appears_at_most_once_and_only_the_last_partial_batch_is_dropped():
    for group in (0, 4):
        batches = make_batches(PAIRS, random.Random(3), group)
        flat = [i for batch in batches for i in batch]
        assert len(batches) == len(PAIRS) // BATCH and all(len(b) == BATCH for b in batches)
        assert len(flat) == len(set(flat))


def test_grouped_batches_hold_runs_of_one_file():
    # a file's 8 pairs as one run: 32 consecutive pairs then span at most 5 files
    whole_files = make_batches(PAIRS, random.Random(3), group=8)
    assert all(len(_files(batch)) <= 5 for batch in whole_files)
    # runs of 4: a question meets more of its own file's siblings than in a plain shuffle
    grouped = make_batches(PAIRS, random.Random(3), group=4)
    plain = make_batches(PAIRS, random.Random(3))

    def siblings(batches):
        return sum(count - 1 for batch in batches for count in _files(batch).values())
    assert siblings(grouped) > 2 * siblings(plain)
