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


def test_bench_reports_symbols_per_second_for_every_language():
    spec = importlib.util.spec_from_file_location("chunking_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rates = module.per_language(seconds_each=0.0)  # one round each
    assert {"python", "c", "cpp", "csharp", "ruby", "php", "kotlin", "swift", "scala", "bash", "lua",
            "elixir", "haskell", "zig"} <= set(rates)
    for figures in rates.values():
        assert figures["symbols"] > 0 and figures["symbols_per_second"] > 0
    assert rates["python"]["vs_python"] == 1.0
