"""Search results as people and editors read them (result_text.py): per result a header with
the verdict, `path:line:` and the symbol, then its first lines of code; the reason only when
the case is not plain; `--vimgrep` one line per result."""

from __future__ import annotations

import re

import pytest
from cli_run import branchwise
from gittools import GitBuilder

REFUND = "def refund_payment(order):\n    total = order.total\n    notify_by_email(order)\n    return -total\n"


def run(*argv, cwd, code: int = 0) -> str:
    out = branchwise(*argv, cwd=cwd)
    assert out.returncode == code, out.stderr
    return out.stdout if code == 0 else out.stderr


@pytest.fixture
def repo(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "shop")
    builder.write("src/pay.py", "import os\n\n\nclass Payments:\n    def refund_payment(self, order):\n"
                  "        total = order.total\n        notify_by_email(order)\n        return -total\n")
    builder.commit("init")
    run("index", "--quiet", cwd=builder.path)
    return builder


def test_a_result_shows_where_what_and_its_first_lines(repo):
    out = run("search", "refund a payment and notify by email", "--top-k", "1", "--no-stats", cwd=repo.path)
    lines = out.splitlines()
    assert lines[1] == "  1. current         src/pay.py:5: Payments.refund_payment"
    # the method's lines, shown flush with their shape kept; the plain case says no reason
    assert lines[2:] == ["       def refund_payment(self, order):", "           total = order.total",
                         "           notify_by_email(order)"]
    assert run("search", "refund", "--top-k", "1", "--lines", "0", "--no-stats", cwd=repo.path).splitlines()[2:] == []
    full = run("search", "refund", "--top-k", "1", "--full", "--no-stats", cwd=repo.path).splitlines()
    assert full[-1] == "           return -total"


def test_the_reason_is_said_when_the_case_is_not_plain(repo):
    (repo.path / "src" / "pay.py").write_text("class Payments:\n    pass\n")
    out = run("search", "refund a payment", "--top-k", "1", "--no-stats", cwd=repo.path)
    header, reason = out.splitlines()[2:4]  # after the query line and the work-tree line
    assert header.startswith("  1. deleted ") and "src/pay.py:5: Payments.refund_payment" in header
    assert reason.startswith("       ") and reason.strip()


def test_vimgrep_is_one_line_per_result(repo):
    out = run("search", "refund a payment", "--vimgrep", "--no-stats", cwd=repo.path)
    assert out.splitlines()[0] == "src/pay.py:5:1:current Payments.refund_payment: def refund_payment(self, order):"
    assert all(re.match(r"^[^:]+:\d+:1:\S+ ", line) for line in out.splitlines())


def test_bad_combinations_are_one_line(repo):
    assert "--lines must be 0 or more" in run("search", "x", "--lines", "-1", cwd=repo.path, code=2)
    assert "--json or --vimgrep" in run("search", "x", "--json", "--vimgrep", cwd=repo.path, code=2)


def on_a_terminal(*argv, cwd, **env) -> str:
    """stdout of the command line run with a terminal (a pseudo-terminal) as its stdout."""
    import os
    import pty
    import subprocess
    import sys

    from cli_run import ENV

    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "branchwise_cli", *argv], stdout=follower,
                               stderr=subprocess.DEVNULL, env={**ENV, **env}, cwd=cwd)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait()
    os.close(leader)
    return b"".join(chunks).decode().replace("\r\n", "\n")


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_code_is_coloured_on_a_terminal_and_never_in_a_pipe_or_with_no_color(repo):
    asked = ("search", "refund a payment", "--top-k", "1", "--no-stats")
    piped = run(*asked, cwd=repo.path)
    assert "\x1b" not in piped
    terminal = on_a_terminal(*asked, cwd=repo.path)
    assert ANSI.search(terminal) and ANSI.sub("", terminal) == piped  # the same text, coloured
    assert "\x1b" not in on_a_terminal(*asked, cwd=repo.path, NO_COLOR="1")
    assert "\x1b" not in on_a_terminal(*asked, "--color", "never", cwd=repo.path)
    forced = run(*asked, "--color", "always", cwd=repo.path)
    assert ANSI.search(forced) and ANSI.sub("", forced) == piped


def test_colour_never_lets_the_repository_s_own_escape_sequences_through(tmp_path):
    builder = GitBuilder(tmp_path / "odd")
    builder.write("src/odd.py", "def refund_payment(order):\n    return '\x1b[2J\x1b]0;owned\x07'\n")
    builder.commit("init")
    run("index", "--quiet", cwd=builder.path)
    out = run("search", "refund payment", "--top-k", "1", "--no-stats", "--color", "always", cwd=builder.path)
    assert "\x1b[2J" not in out and "\x1b]0;" not in out and "\x07" not in out
    assert "\\x1b[2J" in ANSI.sub("", out)  # shown, escaped
