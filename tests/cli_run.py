"""The command line as a user runs it, for tests: `python -m branchwise_cli` in a directory,
with the hashing embedder and the test git identity, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

from gittools import GIT_ENV

ENV = {**os.environ, **GIT_ENV, "BRANCHWISE_MODEL": "hashing-384"}


def branchwise(*argv, cwd) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True,
                         text=True, env=ENV, cwd=cwd)
    assert "Traceback" not in out.stderr, out.stderr
    return out
