"""`python -m bench --quick` works end to end: every item runs and reports numbers.

CI runs this so the benchmark suite cannot rot; it asserts no timings (shared CI machines
are noisy), only that each item finished, produced its figures and kept its correctness
checks (incremental embedding count, one vector per version, verdicts, no torch import).
"""

from __future__ import annotations

import json
import numbers
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ITEMS = ("chunking", "indexing", "storage", "filtered_search", "qdrant", "memory", "verification", "startup",
         "retrieval", "embedding", "cold_start", "retrieval_runtime",
         "realrepo_indexing", "review", "mcp", "ivf_real", "big_repo", "secret_scan")


def _numbers(value) -> list:
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return [value] if isinstance(value, numbers.Number) and not isinstance(value, bool) else []


@pytest.mark.model
def test_quick_bench_reports_every_item(tmp_path, record_property):
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", "--out", str(tmp_path)],
        # a guard against a hang, not a speed check: with one thread (OMP_NUM_THREADS=1) on two
        # busy shared cores the quick run took over 30 minutes
        cwd=ROOT, capture_output=True, text=True, timeout=7200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    doc = json.loads((tmp_path / "latest.json").read_text())
    assert (tmp_path / "latest.md").read_text().startswith("# branchwise benchmarks (quick run)")
    assert not list(tmp_path.glob("*-full.*")), "a quick run must not write a dated full result"
    for item in ITEMS:
        assert "error" not in doc["items"][item], doc["items"][item]
        assert len(_numbers(doc["items"][item])) >= 2, item
    items = doc["items"]
    for name, item in items.items():  # away from ../shared an item that needs it says so, and runs nowhere
        if "skipped" in item:
            assert item["skipped"].startswith("needs shared data") and name not in ITEMS, (name, item)
            record_property("needs_shared_data", f"bench item {name}: {item['skipped']}")
    assert items["indexing"]["incremental"]["check_embedded_equals_expected"]
    assert items["storage"]["vectors_per_version"] == 1.0
    assert items["filtered_search"]["product"]["recall_at_10"] > 0
    assert items["verification"]["results_slow"] > 0
    assert items["verification"]["work_tree"]["results_edited"] > 0
    assert items["filtered_search"]["load_after_1pct_run"]["replay_delta_s"] > 0
    assert items["startup"]["search_cold"]["runs"] >= 3
    ivf = items["ivf_real"]
    assert ivf["real"]["wide"]["queries"] >= 20 and ivf["real"]["narrow"]["queries"] >= 5
    assert ivf["real"]["nlist"] > 1 and ivf["synthetic_same_size"]["nlist"] == ivf["real"]["nlist"]
    assert 0 < ivf["real"]["wide"]["recall_at_10"] <= 1
    assert not any(c["imports_torch"] for c in items["startup"]["light_commands"].values())
    assert items["retrieval"]["questions"] >= 5
    assert items["embedding"]["speedup"] > 0 and items["embedding"]["cosine_min"] > 0.9
    assert items["cold_start"]["onnx-int8"]["imports_torch"] is False
    assert items["cold_start"]["torch"]["imports_torch"] is True
    assert items["retrieval_runtime"]["questions"] >= 5
    replay = items["realrepo_indexing"]["cobra"]["replay"]
    assert replay["commits"] == 3 and all(c["base"].startswith("incremental") for c in replay["commits_detail"])
    assert items["mcp"]["calls"] >= 5 and items["mcp"]["hits_at_10"] >= 1
    big = items["big_repo"]  # issue 34: a search answered while or after `index` ran, with its figures
    for run in (big["stdlib_hashing"], big["stdlib_model"], big["synthetic"]):
        assert run["first_answer_s"] is not None and run["peak_rss_mb"] > 0 and run["embedded"] > 0
    assert big["stdlib_model"]["model_rate_texts"] == big["stdlib_model"]["embedded"]
    assert big["stdlib_model"]["pipeline_vs_model"] > 0 and big["model_resident"]["model_own_mb"] > 0


@pytest.mark.model
def test_the_paired_mcp_bench_times_two_checkouts_pair_by_pair(tmp_path, capsys):
    """Against itself, one sample repository, two rounds: every question answered by both
    servers, the first round apart from the later ones."""
    from bench import mcp_paired

    assert mcp_paired.main(["--baseline", str(tmp_path)]) == 2  # not a checkout
    assert "not a checkout of branchwise" in capsys.readouterr().err
    figures = mcp_paired.run(mcp_paired.ROOT, 2, ("shop",))
    asked = figures["questions"]
    assert asked >= 3
    assert figures["first round"]["calls"] == figures["later rounds"]["calls"] == asked
    assert figures["first round"]["this_p50_ms"] > 0 and figures["later rounds"]["baseline_p50_ms"] > 0
    assert "| later rounds | " in mcp_paired.report(figures)
    bundles = mcp_paired.run(mcp_paired.ROOT, 1, ("shop",), "context_bundle")
    assert bundles["tool"] == "context_bundle" and bundles["first round"]["calls"] == asked
    assert mcp_paired.report(bundles).startswith("`context_bundle`.")
