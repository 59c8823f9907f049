"""The first page spread over files (search/page_spread.py), on hand-made results: a repeat of a
file gives its slot only to a new file's result that scores at least the threshold's share of it
and weighs no less. Its effect on real retrieval is measured by `python -m bench.peer` and
`bench.realrepos` (bench/results/2026-12-07-ranking-s62.md)."""

from __future__ import annotations

from dataclasses import replace

from branchwise.models import Identity, PathClass, Result
from branchwise.ranking import RankingSettings
from branchwise.search.page_spread import spread
from branchwise.search.ranking_stage import restage

OFF = RankingSettings(definition_boost=0, path_boost=0, file_coherence=0, file_decay=1, reexport_weight=1, file_spread=1)


def result(path: str, name: str, score: float, path_class: PathClass = PathClass.SOURCE) -> Result:
    return Result(rank=0, score=score, identity=Identity("r", path, "python", "function", name), branch="main",
                  commit="c", start_line=1, end_line=2, indexed_at="", content_hash=name, text="", blob=None,
                  version_id=name, path_class=path_class)


def order(results: list[Result]) -> list[str]:
    return [r.identity.qualified_name for r in results]


def same_weight(_result: Result) -> float:
    return 1.0


def test_a_repeat_gives_its_slot_to_a_new_file_scoring_at_least_the_threshold_share_of_it():
    def candidates(newcomer_score: float) -> list[Result]:
        return [result("a.py", "a1", 1.0), result("a.py", "a2", 0.9), result("a.py", "a3", 0.8), result("b.py", "b1", 0.7),
                result("c.py", "c1", newcomer_score), result("d.py", "d1", 0.3)]

    # a3 (a.py shown twice above it) gives way to c1 (0.45 >= 0.5 x 0.8); a2 keeps its slot:
    # d1 (0.3) is under half of it. The page keeps its order, the newcomer follows it.
    assert order(spread(candidates(0.45), 4, 0.5, same_weight)) == ["a1", "a2", "b1", "c1", "a3", "d1"]
    assert order(spread(candidates(0.39), 4, 0.5, same_weight)) == ["a1", "a2", "a3", "b1", "c1", "d1"]
    spread_out = spread(candidates(0.45), 4, 0.5, same_weight)
    assert [r.score for r in spread_out] == [1.0, 0.9, 0.7, 0.45, 0.8, 0.3]  # scores are left as they were


def test_repeats_of_a_lower_role_then_of_the_file_shown_most_give_way_first():
    def tests_weigh_less(r: Result) -> float:
        return 0.4 if r.identity.path.startswith("tests/") else 1.0

    candidates = [result("a.py", "a1", 1.0), result("tests/t.py", "t1", 0.95), result("tests/t.py", "t2", 0.9),
                  result("a.py", "a2", 0.85), result("c.py", "c1", 0.5)]
    # the source repeat a2 is lower on the page, but the test's repeat gives way first
    assert order(spread(candidates, 4, 0.5, tests_weigh_less)) == ["a1", "t1", "a2", "c1", "t2"]

    candidates = [result("a.py", "a1", 1.0), result("a.py", "a2", 0.95), result("b.py", "b1", 0.9),
                  result("a.py", "a3", 0.85), result("b.py", "b2", 0.8), result("c.py", "c1", 0.5)]
    # b2 is the weakest repeat, but a.py is shown three times
    assert order(spread(candidates, 5, 0.5, same_weight)) == ["a1", "a2", "b1", "b2", "c1", "a3"]


def test_a_test_never_takes_the_slot_of_source():
    def tests_weigh_less(r: Result) -> float:
        return 0.4 if r.identity.path.startswith("tests/") else 1.0

    candidates = [result("a.py", "a1", 1.0), result("a.py", "a2", 0.9), result("tests/t.py", "t1", 0.8)]
    assert order(spread(candidates, 2, 0.5, tests_weigh_less)) == ["a1", "a2", "t1"]
    assert order(spread(candidates, 2, 0.5, same_weight)) == ["a1", "t1", "a2"]


def test_a_stepped_back_reexport_never_takes_the_slot_of_a_definition():
    def candidates() -> list[Result]:
        return [result("a.py", "a1", 1.0), result("a.py", "a2", 0.9), result("pkg/__init__.py", "a2", 0.95),
                result("c.py", "c1", 0.2)]

    # the re-export steps back to 0.475 (>= half of a2) but weighs half of a2: it keeps its place
    staged = restage("what", candidates(), replace(OFF, reexport_weight=0.5, file_spread=0.5), page=2)
    assert order(staged) == ["a1", "a2", "a2", "c1"] and staged[2].identity.path == "pkg/__init__.py"
    staged = restage("what", candidates(), replace(OFF, file_spread=0.5), page=2)  # no step-back: it is a new file
    assert order(staged)[:2] == ["a1", "a2"] and staged[1].identity.path == "pkg/__init__.py"


def test_results_placed_aside_take_no_slot_and_keep_their_place():
    vendored = result("vendor/v.py", "v1", 0.95, PathClass.VENDORED)
    candidates = [result("a.py", "a1", 1.0), vendored, result("a.py", "a2", 0.9), result("c.py", "c1", 0.6)]

    def shown(r: Result) -> bool:
        return r.path_class is not PathClass.VENDORED

    # the page of two is a1 and a2, both a.py: c1 takes a2's slot; the vendored result stays second
    assert order(spread(candidates, 2, 0.5, same_weight, shown)) == ["a1", "v1", "c1", "a2"]


def test_the_spread_is_off_at_one():
    candidates = [result("a.py", "a1", 1.0), result("a.py", "a2", 0.9), result("c.py", "c1", 0.6)]
    assert order(restage("what", candidates, OFF, page=2)) == ["a1", "a2", "c1"]
    assert order(restage("what", candidates, replace(OFF, file_spread=0.5), page=2)) == ["a1", "c1", "a2"]
