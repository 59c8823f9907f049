"""A training run records the environment its floats depend on, and `python -m train env` names
every difference between this machine and a shipped model's run (exit 1), or says it is the same."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

from train.environment import differences, environment

ROOT = Path(__file__).resolve().parent.parent


def _env_command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "train", "env", *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=300)


def test_the_environment_names_the_installed_versions_and_the_base_weights(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    found = environment(tmp_path)
    assert found["packages"]["numpy"] == metadata.version("numpy")
    assert found["packages"]["tokenizers"] == metadata.version("tokenizers")
    assert found["base_weights_sha256"] == hashlib.sha256(b"weights").hexdigest()
    assert found["python"] == ".".join(map(str, sys.version_info[:3])) and found["cores"] >= 1


def test_differences_name_each_changed_entry_nested_or_not():
    recorded = {"python": "3.11.7", "packages": {"torch": "2.13.0", "numpy": "2.4.6"}, "cpu": "X"}
    assert differences(recorded, json.loads(json.dumps(recorded))) == []
    current = {"python": "3.11.7", "packages": {"torch": "2.13.0", "numpy": "2.5.0"}, "cpu": "Y"}
    assert differences(recorded, current) == ["packages.numpy: 2.4.6 -> 2.5.0", "cpu: X -> Y"]


def test_the_env_command_tells_a_shipped_run_from_another_environment(tmp_path):
    unrecorded = tmp_path / "old.json"
    unrecorded.write_text(json.dumps({"fit": {"steps": 96}}))
    first = _env_command(str(unrecorded))
    assert first.returncode == 1 and "records no environment" in first.stderr
    here = json.loads(first.stdout)

    same = tmp_path / "same.json"
    same.write_text(json.dumps({"fit": {"environment": here}}))
    result = _env_command(str(same))
    assert result.returncode == 0, result.stderr
    assert "same environment" in result.stdout

    other = json.loads(json.dumps(here))
    other["packages"]["transformers"] = "0.0.1"
    planted = tmp_path / "other.json"
    planted.write_text(json.dumps({"fit": {"environment": other}}))
    result = _env_command(str(planted))
    assert result.returncode == 1
    assert f"differs: packages.transformers: 0.0.1 -> {here['packages']['transformers']}" in result.stdout
    assert "1 difference(s)" in result.stderr


def test_an_unreadable_training_file_is_one_line_and_exit_2(tmp_path):
    broken = tmp_path / "training.json"
    broken.write_text("{not json")
    result = _env_command(str(broken))
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "cannot read" in result.stderr


def test_a_rebuild_says_first_how_its_environment_differs_from_the_shipped_run(tmp_path, monkeypatch, capsys):
    import branchwise.embedding.location as location
    from train.cli import note_environment

    here = environment()
    recorded = {**here, "packages": {**here["packages"], "transformers": "0.0.1"}}
    (tmp_path / "model-x").mkdir()
    (tmp_path / "model-x" / "training.json").write_text(json.dumps({"fit": {"environment": recorded}}))
    (tmp_path / "model-y").mkdir()
    (tmp_path / "model-y" / "training.json").write_text(json.dumps({"fit": {"steps": 96}}))
    monkeypatch.setattr(location, "SHIPPED_MODELS_DIR", tmp_path)

    assert note_environment(SimpleNamespace(name="model-x")) == 0  # a note, never a refusal
    err = capsys.readouterr().err
    assert f"packages.transformers: 0.0.1 -> {here['packages']['transformers']}" in err
    assert note_environment(SimpleNamespace(name="model-y")) == 0
    assert "records no training environment" in capsys.readouterr().err
    assert note_environment(SimpleNamespace(name="not-shipped")) == 0
    assert capsys.readouterr().err == ""
