"""Issue 48, item 6: index progress whose numbers agree with the summary, and a Ctrl-C that says
what was kept and how to carry on (a real `branchwise index` process sent SIGINT)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise_cli.progress import BranchWatch

CODE = "def f_{n}(x):\n    return x + {n}\n\n\nclass C_{n}:\n    def m(self):\n        return {n}\n"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def cli(*argv: str | Path) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def test_the_progress_count_and_the_summary_say_the_same_files(tmp_path):
    repo = GitBuilder(tmp_path / "repo")
    for n in range(8):
        repo.write(f"src/m{n}.py", CODE.format(n=n))
    repo.write("vendor/lib/x.py", CODE.format(n=99))
    repo.commit("eight modules")
    repo.branch("slim")
    repo.checkout("slim")
    for n in range(5):
        repo.delete(f"src/m{n}.py")
    repo.write("src/m7.py", CODE.format(n=70))
    repo.commit("slim")
    out = cli("index", repo.path, "--branch", "main", "--branch", "slim", "--index", tmp_path / "i")
    assert out.returncode == 0, out.stderr
    bars = re.findall(r"^  (\S+): parse (\d+) files changed in", out.stderr, re.M)
    summaries = dict(re.findall(r"^(\S+) @ \w+: (\d+) files changed", out.stdout, re.M))
    assert dict(bars) == summaries, (out.stderr, out.stdout)
    assert "main @ " in out.stdout and "9 files changed (8 parsed, 1 left out)" in out.stdout
    assert "6 files changed (1 parsed, 5 removed)" in out.stdout  # slim: inherited from main


def test_an_interrupt_line_names_what_was_kept():
    watch = BranchWatch(None)
    assert watch.kept().startswith("nothing new was stored; run `branchwise index` again")
    watch("branch:main", 0, 2)
    watch("parse", 3, 10)
    watch("branch:release/1.x", 1, 2)
    assert watch.kept() == ("kept: main stored and searchable; release/1.x was not stored (its changes were "
                            "rolled back); run `branchwise index` again: it parses and embeds only what is missing")
    watch("embedding:main", 0, 2)
    assert watch.kept().startswith("kept: main, release/1.x stored and searchable, and the vectors embedded so far")


def _big_repo(path: Path) -> GitBuilder:
    """Three unrelated branches (no inheritance: each is parsed whole) of many files."""
    repo = GitBuilder(path)
    for branch in ("main", "second", "third"):
        if branch != "main":
            repo.git("checkout", "-q", "--orphan", branch)
            repo.git("rm", "-rq", "--cached", ".")
            for old in path.glob("src*"):
                subprocess.run(["rm", "-rf", str(old)], check=True)
        for n in range(1500):
            repo.write(f"src_{branch}/m{n}.py", CODE.format(n=n))
        repo.commit(branch)
    repo.checkout("main")
    return repo


def test_ctrl_c_prints_one_line_keeps_stored_branches_and_a_second_run_finishes(tmp_path):
    repo = _big_repo(tmp_path / "big")
    env = {**os.environ, "BRANCHWISE_PARSE_PROCESSES": "1"}
    index = tmp_path / "i"
    # a person's Ctrl-C reaches a program whose SIGINT is not ignored; a suite started in the
    # background by a shell without job control inherits SIGINT ignored, and so would the child
    process = subprocess.Popen(
        [sys.executable, "-m", "branchwise_cli", "index", str(repo.path), "--all-branches", "--index", str(index)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert process.stderr is not None
    lines = []
    deadline = time.monotonic() + 120
    for line in process.stderr:
        lines.append(line)
        if line.startswith("indexing second") or time.monotonic() > deadline:
            time.sleep(0.2)
            process.send_signal(signal.SIGINT)
            break
    rest = process.communicate(timeout=60)[1]
    stderr = "".join(lines) + rest
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    said = [line for line in stderr.splitlines() if "interrupted" in line]
    assert len(said) == 1, stderr
    assert said[0].startswith("branchwise: interrupted; kept: main stored and searchable"), said
    assert "run `branchwise index` again: it parses and embeds only what is missing" in said[0]
    assert stderr.splitlines()[-1] == said[0]  # nothing printed after it, no bar again
    assert stderr.count("indexing main (branch 1 of 3)") == 1
    # what was kept is searchable, and a second run does only the rest
    out = cli("index", repo.path, "--all-branches", "--index", index, "--quiet", "--json")
    assert out.returncode == 0, out.stderr
    branches = {b["branch"]: b for b in json.loads(out.stdout)["branches"]}
    assert branches["main"]["base"] == "up to date"
    assert branches["third"]["files_parsed"] == 1500
