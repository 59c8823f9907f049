"""The peer benchmark is scored exactly as the peer scores (bench/peer.py): checked against a
hand-made two-file case whose NDCG@10 is worked out by hand, and against the corner cases of
its README (suffix matching at a `/` boundary, line spans, a rank hitting two targets, targets
the index cannot reach)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.peer import Hit, PlainBM25, Target, paths_match, reachable_targets, repeated_slots, score_task  # noqa: E402


def test_two_files_with_known_ndcg():
    # targets: all of a.py, and lines 10-20 of b.py; the index covers both
    targets = [Target("src/a.py"), Target("src/b.py", 10, 20)]
    results = [
        Hit("src/c.py", 1, 5),     # rank 1: misses both
        Hit("src/b.py", 30, 40),   # rank 2: right file, lines outside the span
        Hit("src/a.py", 1, 9),     # rank 3: hits a.py (no span: any line)
        Hit("src/b.py", 15, 25),   # rank 4: overlaps b.py's span
        Hit("src/a.py", 50, 60),   # rank 5: a.py again, already hit at 3: no second gain
    ]
    chunks = [Hit("src/a.py", 1, 60), Hit("src/b.py", 1, 40), Hit("src/c.py", 1, 5)]
    reachable = reachable_targets(targets, chunks)
    assert reachable == 2
    expected = (1 / math.log2(4) + 1 / math.log2(5)) / (1 / math.log2(2) + 1 / math.log2(3))
    scored = score_task(results, targets, reachable)
    assert scored["ndcg10"] == pytest.approx(expected)
    assert scored["ndcg10"] == pytest.approx(0.5706, abs=1e-4)
    assert scored["first"] == 3
    assert repeated_slots(results) == 2  # b.py at 4 and a.py at 5 repeat a file shown above


def test_one_rank_hitting_two_targets_gains_once_and_only_the_top_ten_count():
    targets = [Target("a.py"), Target("a.py", 1, 3)]
    assert score_task([Hit("a.py", 1, 2)], targets, 2)["ndcg10"] == pytest.approx(1 / (1 + 1 / math.log2(3)))
    late = [Hit("x.py", 1, 1)] * 10 + [Hit("a.py", 1, 2)]
    assert score_task(late, targets, 2) == {"ndcg10": 0.0, "first": None}


def test_unreachable_targets_do_not_count_against_the_tool():
    targets = [Target("lib/a.rb"), Target("lib/gone.rb")]
    chunks = [Hit("lib/a.rb", 1, 10)]
    reachable = reachable_targets(targets, chunks)
    assert reachable == 1
    assert score_task([Hit("lib/a.rb", 1, 10)], targets, reachable)["ndcg10"] == 1.0
    assert score_task([], targets, 0)["ndcg10"] == 0.0


def test_paths_match_by_suffix_at_a_slash_boundary_only():
    assert paths_match("src/Text/Pandoc/Writers/HTML.hs", "Writers/HTML.hs")
    assert paths_match("Writers/HTML.hs", "src/Text/Pandoc/Writers/HTML.hs")
    assert not paths_match("src/XHTML.hs", "HTML.hs")
    assert paths_match("a.py", "a.py")


def test_plain_bm25_ranks_the_document_with_the_rarer_term_first():
    bm25 = PlainBM25(["def parse_args(): return args", "def render(): return html", "args args args"])
    ranking = bm25.rank("render args")
    assert ranking[0] == 1 and set(ranking) == {0, 1, 2}
    assert bm25.rank("nothing_matches") == []


@pytest.mark.model
def test_quick_slice_runs_and_clears_the_bm25_floor(tmp_path):
    """`python -m bench.peer --quick` (five small repositories of five languages) runs end to
    end, and the product's fused ranking clears the plain-BM25 floor it is measured against."""
    import json
    import subprocess

    from bench.peer import BUNDLE_DIRS, data_dir
    from bench.realrepos import MISSING_PREFIX

    if data_dir() is None:
        pytest.skip(f"{MISSING_PREFIX}: no peer benchmark in {', '.join(map(str, BUNDLE_DIRS))} "
                    "(set BRANCHWISE_PEERBENCH)")
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-m", "bench.peer", "--quick", "--mode", "fused", "--mode", "bm25",
                           "--cache", str(tmp_path / "cache"), "--out", str(tmp_path), "--label", "quick"],
                          cwd=root, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads(next(tmp_path.glob("*-peer-quick.json")).read_text())
    assert set(doc["repos"]) == {"express", "redux", "sinatra", "zig-clap", "requests"}
    fused, floor = doc["aggregate"]["fused"]["ndcg10"], doc["aggregate"]["bm25"]["ndcg10"]
    assert fused > floor, (fused, floor)
