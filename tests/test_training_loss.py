"""train/fit.py's batch loss: in-batch negatives plus hard negatives, one way or both ways."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from train.fit import batch_loss  # noqa: E402


def _cross_entropy(row: list[float], right: int) -> float:
    return -row[right] + math.log(sum(math.exp(x) for x in row))


def test_each_question_picks_its_code_among_the_batch_and_the_hard_negatives():
    # 2 questions x (2 own code texts + 2 hard negatives)
    scores = [[5.0, 1.0, 4.0, 0.0],
              [2.0, 3.0, 0.0, 1.0]]
    expected = (_cross_entropy(scores[0], 0) + _cross_entropy(scores[1], 1)) / 2
    assert float(batch_loss(torch.tensor(scores))) == pytest.approx(expected, rel=1e-6)


def test_the_symmetric_loss_adds_each_code_text_picking_its_question_without_the_negatives():
    scores = [[5.0, 1.0, 4.0, 0.0],
              [4.5, 3.0, 0.0, 1.0]]
    forward = (_cross_entropy(scores[0], 0) + _cross_entropy(scores[1], 1)) / 2
    columns = [[scores[0][0], scores[1][0]], [scores[0][1], scores[1][1]]]
    backward = (_cross_entropy(columns[0], 0) + _cross_entropy(columns[1], 1)) / 2
    assert float(batch_loss(torch.tensor(scores), symmetric=True)) == pytest.approx((forward + backward) / 2, rel=1e-6)
    # the two directions see different contests: the hard negatives only the first, question 1's
    # pull on code text 0 (4.5 against its own 3.0) both
    assert backward != pytest.approx(forward)
