"""Names git allows are names branchwise handles: a Latin-1 file name and branches named with
U+0085 (NEL), U+2028 (LINE SEPARATOR), U+202E (RIGHT-TO-LEFT OVERRIDE) and U+009B (C1 CSI).

One repository holds them all; each command runs on it as a user would (a subprocess of the
real CLI): it is indexed, searched, verified, diffed, inspected, shown in `status` and walked
in a tour, with no traceback, every name kept exactly in JSON and escaped in text.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

LATIN1 = b"caf\xe9.py"  # café.py as Latin-1: not UTF-8
LATIN1_NAME = "caf\\xe9.py"  # its text form (gitnames.py)
BRANCHES = {"odd\u0085name": "odd\\u0085name", "ls\u2028sep": "ls\\u2028sep",
            "rtl\u202eevil": "rtl\\u202eevil", "csi\u009bx": "csi\\u009bx"}
RAW = ("\u0085", "\u2028", "\u202e", "\u009b")
HASHING = {"BRANCHWISE_MODEL": "hashing-384"}


# one repository with every such name ------------------------------------------------------


@pytest.fixture(scope="module")
def odd_repo(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("names")
    repo = GitBuilder(root / "repo")
    repo.write("plain.py", "def plain_helper(x):\n    return x + 1\n")
    repo.write(os.fsdecode(LATIN1), "def brew_coffee(cups):\n    return cups * 2\n")
    repo.commit("init")
    for branch in BRANCHES:
        repo.git("checkout", "-q", "-b", branch, "main")
        repo.write(os.fsdecode(LATIN1), "def brew_coffee(cups):\n    cups = max(cups, 1)\n    return cups * 2\n")
        repo.commit(f"stronger on {branch}")
    repo.checkout("main")
    index = root / "index"
    out = run("index", repo.path, "--all-branches", "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    return repo.path, index


def run(*argv, **kwargs) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True,
                         text=True, env={**os.environ, **HASHING}, **kwargs)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def test_every_branch_and_the_latin1_file_are_indexed(odd_repo):
    repo, index = odd_repo
    out = run("index", repo, "--all-branches", "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    assert {b["branch"] for b in json.loads(out.stdout)["branches"]} == {"main", *BRANCHES}
    rows = json.loads(run("inspect", "--repo", repo, "--branch", "main", "--index", index, "--json").stdout)
    assert {row["path"] for row in rows} == {"plain.py", LATIN1_NAME}


@pytest.mark.parametrize("branch", ["main", *BRANCHES])
def test_search_finds_and_verifies_the_latin1_file_on_every_branch(odd_repo, branch):
    repo, index = odd_repo
    out = run("search", "brew coffee cups", "--repo", repo, "--branch", branch, "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["branch"] == branch
    [hit] = [r for r in answer["results"] if r["qualified_name"] == "brew_coffee"]
    assert hit["path"] == LATIN1_NAME and hit["verdict"] == "current", hit
    assert ("max(cups, 1)" in hit["text"]) == (branch != "main")
    text = run("search", "brew coffee cups", "--repo", repo, "--branch", branch, "--index", index).stdout
    assert LATIN1_NAME in text and not any(char in text for char in RAW)


def test_a_saved_search_and_a_snippet_list_verify_the_latin1_file(odd_repo, tmp_path):
    repo, index = odd_repo
    for branch in ("main", "rtl\u202eevil"):
        saved = tmp_path / "saved.json"
        saved.write_text(run("search", "brew coffee", "--repo", repo, "--branch", branch, "--index", index,
                             "--json").stdout)
        out = run("verify", saved, "--repo", repo, "--index", index, "--json")
        assert out.returncode == 0, out.stderr
        rows = [r for r in json.loads(out.stdout) if r["path"] == LATIN1_NAME]
        assert rows and all(r["verdict"] == "current" for r in rows), rows
    digest = hashlib.sha256((repo / os.fsdecode(LATIN1)).read_bytes()).hexdigest()
    snippets = tmp_path / "snippets.txt"
    snippets.write_text(f"{LATIN1_NAME}\t{digest[:12]}\n")
    out = run("verify", snippets, "--repo", repo, "--json")
    assert out.returncode == 0, out.stderr
    assert [r["verdict"] for r in json.loads(out.stdout)] == ["current"], out.stdout


@pytest.mark.parametrize("branch", list(BRANCHES))
def test_the_diff_of_each_odd_branch_names_the_latin1_file(odd_repo, branch):
    repo, index = odd_repo
    out = run("diff", branch, "--base", "main", "--repo", repo, "--index", index, "--json", "--no-impact")
    assert out.returncode == 0, out.stderr
    diff = json.loads(out.stdout)
    assert diff["branch"] == branch
    assert [(c["kind"], c["path"], c["qualified_name"]) for c in diff["changes"]] == \
        [("changed", LATIN1_NAME, "brew_coffee")]
    text = run("diff", branch, "--base", "main", "--repo", repo, "--index", index, "--no-impact").stdout
    assert BRANCHES[branch] in text and LATIN1_NAME in text
    assert not any(char in text for char in RAW)


def test_status_escapes_every_branch_name_in_text_and_keeps_it_in_json(odd_repo):
    repo, index = odd_repo
    out = run("status", "--repo", repo, "--index", index)
    assert out.returncode == 0, out.stderr
    assert not any(char in out.stdout for char in RAW), out.stdout
    for escaped in BRANCHES.values():
        assert f"{escaped} @ " in out.stdout
    for line in out.stdout.splitlines():  # no name broke a line: every branch line is whole
        if " @ " in line:
            assert line.rstrip().endswith("+00:00"), line
    status = json.loads(run("status", "--repo", repo, "--index", index, "--json").stdout)
    [entry] = status["repositories"]
    assert {b["branch"] for b in entry["branches"]} == {"main", *BRANCHES}
    assert entry["unindexed_branches"] == []


def test_a_tour_on_the_latin1_file_is_checked_and_shown(odd_repo, tmp_path):
    repo, index = odd_repo
    tour = tmp_path / "coffee.toml"
    tour.write_text(f'title = "coffee"\n[[steps]]\npath = "{LATIN1_NAME.replace(chr(92), chr(92) * 2)}"\n'
                    'qualified_name = "brew_coffee"\nnote = "the brewer"\n')
    for branch in ("main", "csi\u009bx"):
        out = run("tour", "check", tour, "--repo", repo, "--branch", branch, "--index", index, "--json")
        [step] = json.loads(out.stdout)["steps"]
        assert step["path"] == LATIN1_NAME and "def brew_coffee" in step["text"], step
        shown = run("tour", "show", tour, "--repo", repo, "--branch", branch, "--index", index)
        assert shown.returncode == 0, shown.stderr
        assert f"Source: {LATIN1_NAME}#L1-" in shown.stdout and "def brew_coffee" in shown.stdout
        assert not any(char in shown.stdout for char in RAW)


def test_index_progress_lines_escape_branch_names(odd_repo, tmp_path):
    repo, _ = odd_repo
    out = run("index", repo, "--all-branches", "--index", tmp_path / "fresh")
    assert out.returncode == 0, out.stderr
    assert not any(char in out.stdout + out.stderr for char in RAW)
    assert "indexing rtl\\u202eevil" in out.stderr


# each problem on its own, in the smallest repository that shows it -------------------------


def small_repo(path: Path, branches: tuple[str, ...] = (), latin1: bool = False) -> Path:
    repo = GitBuilder(path)
    repo.write("plain.py", "def plain_helper(x):\n    return x + 1\n")
    if latin1:
        repo.write(os.fsdecode(LATIN1), "def brew_coffee(cups):\n    return cups * 2\n")
    repo.commit("init")
    for branch in branches:
        repo.branch(branch)
    return repo.path


def test_a_latin1_file_name_does_not_make_the_repository_unindexable(tmp_path):
    repo = small_repo(tmp_path / "repo", latin1=True)
    out = run("index", repo, "--quiet", cwd=repo)
    assert out.returncode == 0, out.stderr
    rows = json.loads(run("inspect", "--repo", repo, "--branch", "main", "--json").stdout)
    assert {row["path"] for row in rows} == {"plain.py", LATIN1_NAME}


@pytest.mark.parametrize("branch", ["odd\u0085name", "ls\u2028sep"])
def test_a_branch_named_with_a_line_break_character_is_one_branch(tmp_path, branch):
    repo = small_repo(tmp_path / "repo", (branch,))
    out = run("index", repo, "--all-branches", "--json")
    assert out.returncode == 0, out.stderr
    assert {b["branch"] for b in json.loads(out.stdout)["branches"]} == {"main", branch}
    status = run("status", "--repo", repo, "--json")
    assert status.returncode == 0, status.stderr
    [entry] = json.loads(status.stdout)["repositories"]
    assert sorted(b["branch"] for b in entry["branches"]) == sorted(["main", branch])
    found = run("search", "plain helper", "--repo", repo, "--branch", branch, "--json")
    assert json.loads(found.stdout)["results"][0]["qualified_name"] == "plain_helper"


def test_status_escapes_direction_overrides_and_c1_controls_in_branch_names(tmp_path):
    repo = small_repo(tmp_path / "repo", ("rtl\u202eevil", "csi\u009bx"))
    assert run("index", repo, "--all-branches", "--quiet").returncode == 0
    out = run("status", "--repo", repo)
    assert out.returncode == 0, out.stderr
    assert "\u202e" not in out.stdout and "\u009b" not in out.stdout
    assert "rtl\\u202eevil @ " in out.stdout and "csi\\u009bx @ " in out.stdout
