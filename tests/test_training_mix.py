"""train/mix.py: the weight average of a fine-tuned model with its base (WiSE-FT).

Real safetensors files of the base model's layout, small enough to check every number."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from safetensors.numpy import load_file, save_file

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from train.mix import mix  # noqa: E402


def _model(folder: Path, weights: dict) -> Path:
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "1_Pooling" / "config.json").write_text("{}")
    (folder / "config.json").write_text('{"model_type": "bert"}')
    save_file(weights, str(folder / "model.safetensors"))
    return folder


def test_every_float_weight_is_the_weighted_average_and_the_rest_is_copied(tmp_path):
    rng = np.random.default_rng(0)
    tuned = {"layer.weight": rng.standard_normal((4, 3)).astype(np.float32),
             "layer.bias": rng.standard_normal(3).astype(np.float16),
             "position_ids": np.arange(5, dtype=np.int64)}
    base = {"layer.weight": rng.standard_normal((4, 3)).astype(np.float32),
            "layer.bias": rng.standard_normal(3).astype(np.float32),
            "position_ids": np.zeros(5, dtype=np.int64)}
    out = mix(_model(tmp_path / "tuned", tuned), _model(tmp_path / "base", base), 0.25, tmp_path / "mixed")
    mixed = load_file(str(out / "model.safetensors"))
    assert np.allclose(mixed["layer.weight"], 0.25 * tuned["layer.weight"] + 0.75 * base["layer.weight"], atol=1e-6)
    assert mixed["layer.bias"].dtype == np.float16  # each weight keeps the tuned model's precision
    assert np.allclose(mixed["layer.bias"], 0.25 * tuned["layer.bias"].astype(np.float32) + 0.75 * base["layer.bias"], atol=1e-3)
    assert np.array_equal(mixed["position_ids"], tuned["position_ids"])  # not a weight: the tuned model's
    assert (out / "1_Pooling" / "config.json").is_file() and (out / "config.json").read_text() == '{"model_type": "bert"}'
    whole = mix(tmp_path / "tuned", tmp_path / "base", 1.0, tmp_path / "same")
    assert np.array_equal(load_file(str(whole / "model.safetensors"))["layer.weight"], tuned["layer.weight"])


def test_a_base_of_another_layout_or_an_alpha_outside_zero_to_one_is_refused(tmp_path):
    tuned = _model(tmp_path / "tuned", {"a.weight": np.ones(2, dtype=np.float32)})
    other = _model(tmp_path / "other", {"b.weight": np.ones(2, dtype=np.float32)})
    with pytest.raises(ValueError, match="lacks a.weight"):
        mix(tuned, other, 0.5, tmp_path / "out")
    with pytest.raises(ValueError, match="alpha"):
        mix(tuned, tuned, 1.5, tmp_path / "out")
    assert not (tmp_path / "out").exists()
