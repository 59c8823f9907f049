"""Issue 48, item 5: ignore files and vendored code are left out of the index, and `status` says why.

Real repositories: a `.branchwiseignore` (gitignore syntax, read from the indexed commit, so
branches differ), the person's own ignore file, `.gitattributes` `linguist-vendored`,
`linguist-generated` and `-diff`, and well-known vendored folders (fmt's `test/gtest/`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.chunking import ChunkingRules, classify_path, vendored_pattern
from branchwise.git.pathrules import IgnoreRules, path_marks
from branchwise.models import PathClass
from branchwise.workspace import Workspace

CODE = "def {name}(x):\n    return x + 1\n"
C_CODE = "int {name}(int x) {{\n    return x + 1;\n}}\n"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


def cli(*argv: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)],
                         capture_output=True, text=True, cwd=cwd)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def files_of(ws: Workspace, branch: str = "main") -> set[str]:
    return {row["path"] for row in ws.inspect(branch)}


def skipped(ws: Workspace, branch: str = "main") -> dict[str, str]:
    status = ws.status()
    entry = next(b for b in status["branches"] if b["branch"] == branch)
    return {s["path"]: s["reason"] for s in entry["skipped_files"]}


@pytest.fixture
def repo(tmp_path) -> GitBuilder:
    builder = GitBuilder(tmp_path / "project")
    for path in ("src/core.py", "test/gtest/gtest.cc", "third_party/zlib/inflate.c", "libs/json/json.py",
                 "generated/api.py", "build/out.py", "notes/keep.py", "assets/app.py"):
        name = Path(path).stem.replace("-", "_")
        builder.write(path, C_CODE.format(name=name) if path.endswith((".c", ".cc")) else CODE.format(name=name))
    builder.write(".branchwiseignore", "# our build output\nbuild/\nnotes/*\n!notes/keep.py\n")
    builder.write(".gitattributes", "libs/json linguist-vendored\nassets/** -diff\n"
                                    "third_party/zlib/** linguist-vendored=false\n")
    builder.commit("project")
    return builder


def test_ignored_and_vendored_files_are_left_out_with_their_reason(repo, tmp_path):
    ws = Workspace(repo.path, tmp_path / "index")
    report = ws.index(["main"])
    indexed = {path for path in files_of(ws) if not path.startswith(".")}
    assert indexed == {"src/core.py", "notes/keep.py", "third_party/zlib/inflate.c", "generated/api.py",
                       "assets/app.py"}
    reasons = skipped(ws)
    assert reasons["build/out.py"] == "ignored: .branchwiseignore: build/"
    assert reasons["test/gtest/gtest.cc"] == "vendored: path matches *test*/gtest/*"
    assert reasons["libs/json/json.py"] == "vendored: libs/json marked linguist-vendored in .gitattributes"
    assert "third_party/zlib/inflate.c" not in reasons  # linguist-vendored=false: the project's own
    assert report[0].left_out == {"ignored": 1, "vendored": 2}
    classes = {row["path"]: row["path_class"] for row in ws.inspect("main")}
    assert classes["assets/app.py"] == "generated"  # -diff
    assert classes["third_party/zlib/inflate.c"] == "source"
    assert ws.status()["branches"][0]["skipped_by_reason"] == {"vendored": 2, "ignored": 1}


def test_branches_differ_and_a_changed_ignore_file_takes_effect(repo, tmp_path):
    repo.branch("feature")
    repo.checkout("feature")
    repo.write(".branchwiseignore", "src/\n")
    repo.commit("feature ignores src")
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main", "feature"])
    assert "src/core.py" in files_of(ws, "main")
    assert "src/core.py" not in files_of(ws, "feature")
    assert "build/out.py" in files_of(ws, "feature")  # inherited from main, let in here
    assert skipped(ws, "feature")["src/core.py"] == "ignored: .branchwiseignore: src/"
    # the ignore file changes again: what it lets in comes back, what it names goes
    repo.write(".branchwiseignore", "build/\n")
    repo.commit("feature ignores build again")
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["feature"])
    assert "src/core.py" in files_of(ws, "feature")
    assert "build/out.py" not in files_of(ws, "feature")
    assert "src/core.py" not in skipped(ws, "feature")


def test_the_users_own_ignore_file_and_index_vendored(repo, tmp_path, monkeypatch):
    config = tmp_path / "config"
    (config / "branchwise").mkdir(parents=True)
    (config / "branchwise" / "ignore").write_text("*.c\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main"])
    assert skipped(ws)["third_party/zlib/inflate.c"].startswith("ignored: ")
    assert skipped(ws)["third_party/zlib/inflate.c"].endswith("branchwise/ignore: *.c")
    # the setting changes: an index run without a new commit applies it
    (config / "branchwise" / "ignore").write_text("")
    (config / "branchwise" / "config.toml").write_text("[chunking]\nindex_vendored = true\n")
    ws = Workspace(repo.path, tmp_path / "index")
    ws.index(["main"])
    classes = {row["path"]: row["path_class"] for row in ws.inspect("main")}
    assert classes["test/gtest/gtest.cc"] == "vendored"
    assert classes["libs/json/json.py"] == "vendored"
    assert classes["third_party/zlib/inflate.c"] == "source"
    assert set(skipped(ws)) == {"build/out.py"}  # the repository's ignore file still holds


def test_status_lists_what_was_left_out(repo, tmp_path):
    out = cli("index", repo.path, "--branch", "main", "--index", tmp_path / "index", "--quiet")
    assert out.returncode == 0, out.stderr
    out = cli("status", "--index", tmp_path / "index", cwd=repo.path)
    assert out.returncode == 0, out.stderr
    assert "left out 3 files: vendored 2, ignored 1" in out.stdout
    assert "      test/gtest/gtest.cc: vendored: path matches *test*/gtest/*" in out.stdout
    assert "      build/out.py: ignored: .branchwiseignore: build/" in out.stdout
    out = cli("index", repo.path, "--branch", "main", "--index", tmp_path / "index2", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["branches"][0]["left_out"] == {"ignored": 1, "vendored": 2}


# the rules themselves ------------------------------------------------------------------------


def test_known_vendored_trees_leave_a_frameworks_own_repository_alone():
    rules = ChunkingRules()
    assert vendored_pattern("test/gtest/src/gtest-all.cc", rules)
    assert vendored_pattern("tests/catch2/catch.hpp", rules)
    assert vendored_pattern("deps/hiredis/hiredis.c", rules) == "deps/"
    assert vendored_pattern("external/glfw/x.c", rules) == "external/"
    assert vendored_pattern("googletest/src/gtest.cc", rules) is None  # googletest's own repository
    assert vendored_pattern("src/catch2/catch_all.hpp", rules) is None  # Catch2's own
    assert vendored_pattern("test/format-test.cc", rules) is None


def test_gitattributes_last_line_wins_and_macros():
    text = ("vendor/** linguist-vendored\nvendor/ours/** -linguist-vendored\n*.lock -diff\n"
            "*.bin binary\ngen/*.py linguist-generated=true\n# c.py linguist-vendored\n")
    marks = path_marks(text, ["vendor/x/a.py", "vendor/ours/b.py", "a.lock", "x.bin", "gen/c.py", "c.py"])
    assert marks.classes["vendor/x/a.py"][0] == PathClass.VENDORED
    assert "vendor/ours/b.py" in marks.not_vendored and "vendor/ours/b.py" not in marks.classes
    assert marks.classes["a.lock"] == (PathClass.GENERATED, "generated: *.lock marked -diff in .gitattributes")
    assert marks.classes["x.bin"][0] == PathClass.GENERATED
    assert marks.classes["gen/c.py"][0] == PathClass.GENERATED
    assert "c.py" not in marks.classes
    rules = ChunkingRules()
    assert classify_path("vendor/ours/b.py", b"x = 1\n", rules, marks=marks) == (PathClass.SOURCE, "")


def test_ignore_rules_negation_and_order():
    rules = IgnoreRules.from_texts([("~/.config/branchwise/ignore", "*.log\n"),
                                    (".branchwiseignore", "!keep.log\n/build\n")])
    assert rules.reason("x/a.log") == "ignored: ~/.config/branchwise/ignore: *.log"
    assert rules.reason("keep.log") is None
    assert rules.reason("build/a.py") == "ignored: .branchwiseignore: /build"
    assert rules.reason("src/build/a.py") is None
    assert IgnoreRules.from_texts([(".branchwiseignore", "\n# nothing\n")]).reason("a.py") is None
