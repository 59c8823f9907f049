"""The type checker holds on the core, the review app and the command line.

Its settings (files, strictness, the libraries read as untyped) are `[tool.mypy]` in
pyproject.toml; a clean run is part of the test suite so that it stays clean.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_type_errors():
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues found" in result.stdout
