"""The chunking bench runs and reports what the bench suite reads."""

from __future__ import annotations

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "chunking_bench.py"


def test_bench_reports_symbols_and_speed():
    spec = importlib.util.spec_from_file_location("chunking_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.run(n_symbols=200)
    assert result["symbols"] >= 200
    assert result["seconds"] > 0 and result["symbols_per_second"] > 0
