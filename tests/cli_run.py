"""The command line as a user runs it, for tests: `python -m branchwise_cli` in a directory,
with the hashing embedder and the test git identity, never a traceback; or on a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from gittools import GIT_ENV

ENV = {**os.environ, **GIT_ENV, "BRANCHWISE_MODEL": "hashing-384"}


def branchwise(*argv, cwd) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True,
                         text=True, env=ENV, cwd=cwd)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def in_terminal(*argv, env: dict | None = None, columns: int = 120) -> tuple[int, str]:
    """Run with stdin, stdout and stderr on a pseudo-terminal; returns (exit code, what it drew).
    `env`: the environment (default ENV, the hashing embedder)."""
    main, child = pty.openpty()
    env = {**(ENV if env is None else env), "COLUMNS": str(columns), "LINES": "30", "TERM": "xterm-256color"}
    process = subprocess.Popen([sys.executable, "-m", "branchwise_cli", *map(str, argv)],
                               stdin=child, stdout=child, stderr=child, env=env)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    return process.wait(timeout=300), b"".join(chunks).decode("utf-8", "replace")
