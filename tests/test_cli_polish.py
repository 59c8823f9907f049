"""The command line's polish: `--version`, one-line errors without a doubled prefix, help and
defaults on every option, refused bad input (unknown filter values, blank queries, an empty
queries file), read-only commands that never create an index, `review`'s refusals before the
app opens, and progress for `index` (a live display on a terminal, plain lines otherwise,
nothing with `--quiet`) and a waiting note for `search` on a terminal.

Every case runs the real `branchwise` command in a subprocess (under a pseudo-terminal where a
terminal is the point) over the shop sample, indexed with the deterministic hashing embedder.
"""

from __future__ import annotations

import argparse
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import in_terminal

ENV = {**os.environ, "BRANCHWISE_MODEL": "hashing-384"}


def cli(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)],
                          capture_output=True, text=True, env=ENV, timeout=300)


def cli_in_terminal(*argv, columns: int = 120) -> tuple[int, str]:
    return in_terminal(*argv, env=ENV, columns=columns)


def one_line(done: subprocess.CompletedProcess, code: int = 2) -> str:
    assert done.returncode == code, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("branchwise: ") and "branchwise: branchwise" not in lines[0], lines[0]
    assert "Traceback" not in done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def shop(sample_repos, tmp_path_factory) -> tuple[Path, Path]:
    index = tmp_path_factory.mktemp("cli-polish") / "index"
    done = cli("index", sample_repos["shop"], "--all-branches", "--index", index, "--quiet")
    assert done.returncode == 0, done.stderr
    return sample_repos["shop"], index


def where(shop) -> list:
    repo, index = shop
    return ["--repo", repo, "--index", index, "--branch", "main"]


def test_version():
    done = cli("--version")
    assert done.returncode == 0
    from branchwise import __version__
    assert done.stdout.strip() == f"branchwise {__version__}"


def test_bare_command_is_one_line_without_a_doubled_prefix():
    line = one_line(cli())
    assert line.startswith("branchwise: the following arguments are required: COMMAND")


def test_a_subcommand_error_names_the_subcommand_once(shop):
    line = one_line(cli("export", "q"))
    assert line.startswith("branchwise: export: the following arguments are required: --out")
    assert "branchwise export --help" in line


def test_every_option_has_help_and_shows_its_default():
    from branchwise_cli.main import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert len(commands) >= 8
    for name, sub in commands.items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"{name} {action.dest} has no help"
            help_text = sub.format_help()
            if action.option_strings and action.default not in (None, False, [], argparse.SUPPRESS):
                assert f"default: {action.default}" in " ".join(help_text.split()) or "default" in action.help, \
                    f"{name} {action.dest}: default {action.default!r} not shown"
        if any(a.dest == "symbol_type" for a in sub._actions):
            assert "class, config, constant" in " ".join(sub.format_help().split())


@pytest.mark.parametrize("option, value, listed", [
    ("--symbol-type", "banana", "class, config, constant, enum"),
    ("--language", "klingon", "go, haskell, html"),
    ("--path-class", "x", "source, test, fixture"),
])
def test_unknown_filter_values_are_refused_with_the_valid_ones(shop, option, value, listed):
    for command in (["search", "q"], ["export", "q", "--out", "never.md"]):
        line = one_line(cli(*command, *where(shop), option, value))
        assert repr(value) in line and listed in line


def test_blank_queries_are_refused(shop, tmp_path):
    assert "the query is blank" in one_line(cli("search", "   ", *where(shop)))
    assert "the query is blank" in one_line(cli("export", " \t ", *where(shop), "--out", tmp_path / "b.md"))
    assert not (tmp_path / "b.md").exists()


def test_an_empty_queries_file_is_refused(shop, tmp_path):
    empty = tmp_path / "queries.txt"
    empty.write_text("\n   \n")
    line = one_line(cli("search", "--queries", empty, *where(shop)))
    assert f"no queries in {empty}" in line


@pytest.mark.parametrize("command", [
    ["search", "q", "--branch", "main"],
    ["inspect", "--branch", "main"],
    ["export", "q", "--branch", "main", "--out", "x.md"],
    ["stats"],
    ["labels", "export", "labels.toml"],
])
def test_read_only_commands_never_create_an_index(shop, tmp_path, command):
    repo, _ = shop
    missing = tmp_path / "typo-index"
    line = one_line(cli(*command, "--repo", repo, "--index", missing))
    assert line == f"branchwise: no index at {missing}; run branchwise index first"
    assert not missing.exists()


def test_stats_of_an_index_directory_without_an_index_is_refused(tmp_path):
    missing = tmp_path / "nothing"
    assert one_line(cli("stats", "--index", missing)) == f"branchwise: no index at {missing}; run branchwise index first"
    assert not missing.exists()


def test_review_without_a_terminal_refuses(shop):
    line = one_line(cli("review", *where(shop)))
    assert "needs a terminal" in line


def test_review_of_a_branch_that_is_not_indexed_refuses_before_the_app_opens(shop):
    code, drawn = cli_in_terminal("review", *where(shop)[:-2], "--branch", "nosuch")
    assert code == 2
    lines = [line for line in drawn.replace("\r", "").splitlines() if line.strip()]
    assert lines == [lines[0]] and lines[0].startswith("branchwise: unknown branch 'nosuch'"), drawn
    assert "not indexed" in lines[0]
    assert "indexed: " in lines[0] and "main" in lines[0]
    assert "\x1b[?1049h" not in drawn  # the app never took the screen


def test_review_without_an_index_refuses_in_a_terminal(shop, tmp_path):
    repo, _ = shop
    code, drawn = cli_in_terminal("review", "--repo", repo, "--index", tmp_path / "none", "--branch", "main")
    assert code == 2 and "no index at" in drawn and not (tmp_path / "none").exists()


def test_index_prints_plain_progress_lines_when_not_a_terminal(sample_repos, tmp_path):
    done = cli("index", sample_repos["shop"], "--branch", "main", "--index", tmp_path / "i")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[0] == "indexing main (branch 1 of 1)"
    assert any(line.strip().startswith("main: parse ") and " files changed in " in line for line in lines), lines
    assert any(line.strip().startswith("main: embed ") and " symbols in " in line for line in lines), lines
    assert "\x1b[" not in done.stderr  # no terminal control codes in a log
    assert done.stdout.startswith("main @ ")


def test_index_quiet_prints_nothing(sample_repos, tmp_path):
    done = cli("index", sample_repos["shop"], "--all-branches", "--index", tmp_path / "i", "--quiet")
    assert done.returncode == 0 and done.stdout == "" and done.stderr == ""


def test_index_shows_a_live_progress_display_on_a_terminal(sample_repos, tmp_path):
    code, drawn = cli_in_terminal("index", sample_repos["shop"], "--all-branches", "--index", tmp_path / "i")
    assert code == 0, drawn
    assert "main (1/4) files" in drawn and "main (1/4) symbols" in drawn
    assert "release/1.x (4/4)" in drawn and "ETA" in drawn and "━" in drawn
    assert "files/s" in drawn


def test_search_says_it_is_loading_on_a_terminal_only(shop):
    code, drawn = cli_in_terminal("search", "cancel an order", *where(shop))
    assert code == 0, drawn
    assert "branchwise: loading the model and searching …" in drawn
    assert "# cancel an order" in drawn
    piped = cli("search", "cancel an order", *where(shop))
    assert piped.returncode == 0 and piped.stderr == ""


def test_review_in_a_terminal_quits_on_q_restores_the_terminal_and_records_the_session(shop, tmp_path):
    """The real `branchwise review` under a pseudo-terminal: results drawn, `q`, and it is gone."""
    import json
    import re
    import select
    import time

    repo, index = shop
    stats_log = index / "stats.jsonl"
    before = stats_log.read_text().count("\n") if stats_log.exists() else 0
    main, child = pty.openpty()
    env = {**ENV, "COLUMNS": "100", "LINES": "30", "TERM": "xterm-256color"}
    process = subprocess.Popen([sys.executable, "-m", "branchwise_cli", "review", "cancel an order",
                                *where(shop)], stdin=child, stdout=child, stderr=child, env=env)
    os.close(child)
    drawn = b""

    def read_until(marker: bytes, limit: float) -> bool:
        nonlocal drawn
        deadline = time.monotonic() + limit
        while not re.search(marker, drawn) and time.monotonic() < deadline:
            if select.select([main], [], [], 0.2)[0]:
                try:
                    drawn += os.read(main, 65536)
                except OSError:
                    return False
        return re.search(marker, drawn) is not None

    assert read_until(rb"[1-9][0-9]* results", 240), drawn[-2000:]  # "N results": the search is done
    os.write(main, b"q")
    read_until(rb"\x1b\[\?1049l", 60)  # keep draining the terminal, or the app blocks writing to it
    code = process.wait(timeout=60)
    os.close(main)
    assert code == 0
    assert b"\x1b[?1049l" in drawn  # the alternate screen was left: the terminal is restored
    records = [json.loads(line) for line in stats_log.read_text().splitlines()]
    assert len(records) == before + 1 and records[-1]["kind"] == "review"
