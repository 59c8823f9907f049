"""The failure-statistics log: records, trend, breakdowns and the re-index recommendation."""

import json

import pytest

from branchwise.config import Config
from branchwise.errors import UsageError
from branchwise.models import Identity, Label, Result, Verdict
from branchwise.review.stats import load_records, recommend, record_session, render_text, sparkline, summarize


def make_result(path: str, verdict: Verdict, reason: str = "", label: Label | None = None, rank: int = 1) -> Result:
    identity = Identity("shop", path, "python", "function", path.rsplit("/", 1)[-1])
    result = Result(
        rank=rank, score=1.0, identity=identity, branch="main", commit="a" * 40, start_line=1, end_line=3,
        indexed_at="2026-01-01T00:00:00+00:00", content_hash="h" * 64, text="def f():\n    pass\n",
        blob=None, version_id=f"v-{path}",
    )
    result.verdict, result.reason, result.label = verdict, reason, label
    return result


def session(failures: int, total: int = 10) -> list[Result]:
    """`total` results of which `failures` are changed, plus one excluded (outside the ratio)."""
    results = [make_result(f"src/f{i}.py", Verdict.CHANGED, "symbol text differs; now lines 3-9") for i in range(failures)]
    results += [make_result(f"lib/ok{i}.py", Verdict.CURRENT) for i in range(total - failures)]
    results.append(make_result("gen/client.py", Verdict.EXCLUDED, "generated file"))
    return results


def test_record_counts_verdicts_reasons_directories_and_overrides(tmp_path):
    results = [
        make_result("src/orders/a.py", Verdict.CHANGED, "symbol text differs from indexed version; now lines 4-9"),
        make_result("src/orders/b.py", Verdict.UNCHANGED_OLDER,
                    "moved unchanged to src/x.py#L1-L3 (file deleted at target at src/orders/b.py#L1-L3; the index is behind)"),
        make_result("src/orders/c.py", Verdict.DELETED, "file deleted at target"),
        make_result("setup.py", Verdict.CURRENT, "indexed at target commit", label=Label.EXCLUDE),
        make_result("vendor/x.py", Verdict.EXCLUDED, "vendored code"),
        make_result("docs/y.py", Verdict.UNVERIFIABLE, "no version metadata"),
    ]
    results[1].current_path, results[1].moved = "src/x.py", True  # current at its new place, not a failure
    record = record_session(tmp_path, "export", "shop", "main", "c" * 40, 3600.0, results)

    assert record["verdicts"] == {"changed": 1, "current": 1, "deleted": 1, "excluded": 1, "unchanged-older": 1,
                                  "unverifiable": 1}
    assert record["considered"] == 5 and record["failures"] == 3 and record["failure_ratio"] == 0.6
    assert record["moved_unchanged"] == 1
    assert record["reasons"] == {
        "changed: symbol text differs from indexed version": 1,
        "deleted: file deleted at target": 1,
        "unverifiable: no version metadata": 1,
    }
    assert record["directories"] == {"src/orders": 2, "docs": 1}
    assert [o["path"] for o in record["overrides"]] == ["setup.py"]
    assert record["overrides"][0]["default"] == "use" and record["overrides"][0]["label"] == "exclude"
    assert record["commits"] == {"a" * 40: 6}
    logged = [json.loads(line) for line in (tmp_path / "stats.jsonl").read_text().splitlines()]
    assert logged == [record]


def test_record_refuses_bad_kind_and_missing_index(tmp_path):
    with pytest.raises(UsageError, match="session kind"):
        record_session(tmp_path, "party", "shop", "main", None, None, [])
    with pytest.raises(UsageError, match="no index directory"):
        record_session(tmp_path / "nope", "export", "shop", "main", None, None, [])


def test_rising_trend_recommends_reindex(tmp_path):
    for failures in (0, 1, 2, 3):
        record_session(tmp_path, "review", "shop", "main", "c" * 40, 60.0, session(failures))
    summary = summarize(tmp_path, config=Config(failure_threshold=0.5, rising_sessions=3))

    assert [t["failure_ratio"] for t in summary["trend"]] == [0.0, 0.1, 0.2, 0.3]
    assert summary["recommendation"]["reindex"] is True
    assert "rose in 3 consecutive sessions (0% -> 10% -> 20% -> 30%)" in summary["recommendation"]["why"]
    assert summary["by_reason"] == {"changed: symbol text differs": 6}
    assert summary["by_directory"] == {"src": 6}
    assert summary["verdicts"]["excluded"] == 4

    text = render_text(summary)
    assert "▁▁▂▃" in text
    assert "Re-index recommended: failure ratio rose in 3 consecutive sessions" in text
    assert "changed: symbol text differs  6" in text
    assert "██████░░░░░░░░░░░░░░   30%  3/10" in text


def test_threshold_and_steady_ratio(tmp_path):
    config = Config(failure_threshold=0.4, rising_sessions=3)
    assert recommend([0.1, 0.5], config)["reindex"] is True
    assert "exceeds the 40% threshold" in recommend([0.1, 0.5], config)["why"]
    assert recommend([0.3, 0.1, 0.2, 0.3], config)["reindex"] is False  # rose twice only
    assert recommend([], config)["reindex"] is False
    assert recommend([None, None], config)["why"] == "no verified sessions recorded yet"


def test_summary_filters_repository_and_skips_bad_lines(tmp_path):
    record_session(tmp_path, "export", "shop", "main", None, None, session(5))
    record_session(tmp_path, "export", "engine", "main", None, None, session(1))
    with (tmp_path / "stats.jsonl").open("a") as log:
        log.write("{not json\n")
    records, bad = load_records(tmp_path, "engine")
    assert [r["repository"] for r in records] == ["engine"] and bad == 1

    summary = summarize(tmp_path, repository="shop", config=Config())
    assert summary["sessions"] == 1 and summary["unreadable_lines"] == 1
    assert summary["recommendation"]["reindex"] is True  # 50% > 40%
    assert "1 unreadable line(s)" in render_text(summary)


def test_empty_log_and_sparkline_edges(tmp_path):
    assert render_text(summarize(tmp_path)).startswith("No sessions recorded yet")
    assert sparkline([0.0, 0.5, 1.0, None]) == "▁▅█·"
    # a session with only excluded results has no ratio and does not break the trend
    record_session(tmp_path, "search", "shop", "main", None, None, [make_result("g.py", Verdict.EXCLUDED)])
    assert summarize(tmp_path)["trend"][0]["failure_ratio"] is None
