"""`pip install` of the built wheel gives a working `branchwise` without torch.

A user installs the package (`pipx install .`), not this checkout's `.venv`: the wheel must
carry the default model and everything its ONNX runtime needs, and nothing may pull torch
or sentence-transformers (the `torch` extra does). The test builds the wheel, installs it into
a new virtual environment (dependencies from the package index, as a user's pip would; the
local pip cache makes it quick after the first time), checks that `import torch` fails there,
and runs `index`, `search` and `export` on a sample repository with the default model. The
size of that environment is measured by bench/install_size.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, **kwargs)


@pytest.fixture(scope="module")
def clean_env(tmp_path_factory) -> Path:
    """A new virtual environment holding only the wheel and its default dependencies."""
    base = tmp_path_factory.mktemp("install")
    wheels = base / "wheels"
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", wheels, ROOT)
    assert built.returncode == 0, built.stderr[-2000:]
    venv = base / "venv"
    assert run(sys.executable, "-m", "venv", venv).returncode == 0
    wheel = next(wheels.glob("branchwise-*.whl"))
    installed = run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel,
                    timeout=1500)
    if installed.returncode != 0 and "No matching distribution" in installed.stderr + installed.stdout:
        pytest.skip(f"the package index cannot be reached: {installed.stderr.strip()[-300:]}")
    assert installed.returncode == 0, installed.stderr[-3000:]
    return venv


def test_the_wheel_installs_without_torch_and_searches_with_the_default_model(clean_env, sample_repos, tmp_path):
    python = clean_env / "bin" / "python"
    for forbidden in ("torch", "sentence_transformers", "transformers"):
        probe = run(python, "-c", f"import {forbidden}")
        assert probe.returncode != 0, f"{forbidden} is importable in the clean environment"
    # the installed package, alone: no checkout on the path, the default model and runtime (a
    # developer's BRANCHWISE_RUNTIME=torch would ask for what this install rightly lacks), and
    # no schema check (docs/schema/ belongs to the checkout, not to the wheel)
    unset = ("PYTHONPATH", "BRANCHWISE_MODEL", "BRANCHWISE_RUNTIME", "BRANCHWISE_CHECK_JSON_SCHEMA")
    env = {key: value for key, value in os.environ.items() if key not in unset}
    env.update(HF_HUB_OFFLINE="1", BRANCHWISE_CACHE_DIR=str(tmp_path / "cache"))
    branchwise = clean_env / "bin" / "branchwise"
    repo, index = sample_repos["shop"], tmp_path / "index"
    indexed = run(branchwise, "index", repo, "--index", index, "--quiet", "--json", env=env, cwd=tmp_path)
    assert indexed.returncode == 0, indexed.stderr[-2000:]
    assert json.loads(indexed.stdout)["branches"][0]["embedded"] > 0
    found = run(branchwise, "search", "make order cancellation idempotent", "--repo", repo, "--branch", "main",
                "--index", index, "--json", env=env, cwd=tmp_path)
    assert found.returncode == 0, found.stderr[-2000:]
    results = json.loads(found.stdout)["results"]
    assert results and all(r["verdict"] in ("current", "excluded") for r in results)
    bundle = tmp_path / "bundle.md"
    exported = run(branchwise, "export", "make order cancellation idempotent", "--repo", repo, "--branch", "main",
                   "--index", index, "--out", bundle, env=env, cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr[-2000:]
    assert "Source: " in bundle.read_text()
    # token counts by our own o200k_base counter, its rank file inside the wheel; no bpe-openai
    counter = run(python, "-c", "from branchwise.review.bundle.tokens import token_counter; print(token_counter().name)",
                  env=env, cwd=tmp_path)
    assert counter.stdout.strip() == "o200k_base (branchwise, tiktoken ranks)", counter.stderr[-2000:]
    assert run(python, "-c", "import bpe_openai").returncode != 0
    # the installed package, not this checkout, answered
    where = run(python, "-c", "import branchwise; print(branchwise.__file__)", env=env, cwd=tmp_path)
    assert str(clean_env) in where.stdout
