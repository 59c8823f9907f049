"""One rule for code that moved unchanged past the index (issue 46, truth 1): the branch's own
function moved to another file, committed, not re-indexed, is what a fresh index would list
there, `unchanged-older` at its new place, with that place cited, in CLI text, CLI JSON, the
export bundle, MCP `search_code` and the statistics alike (docs/verification.md, "Moved code").
Real git, SQLite, FAISS; the hashing embedder (the verdict does not depend on the model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.mcp_server.service import AgentService
from branchwise.workspace import Workspace

NAMING = '''def detect_program_name(path=None):
    """Work out the program name shown in usage lines from the module path or argv."""
    if path is None:
        path = "prog"
    return path.rsplit("/", 1)[-1]
'''
QUESTION = "detect program name usage lines module path argv"


@pytest.fixture
def moved(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    return build_moved(tmp_path)


def build_moved(tmp_path: Path) -> tuple[GitBuilder, Path]:
    """`detect_program_name` indexed in cli/utils.py, then moved unchanged to cli/_progname.py
    and committed, not re-indexed (the review app's snapshot builds the same)."""
    repo = GitBuilder(tmp_path / "cli")
    repo.write("cli/utils.py", "import os\n\n\ndef other():\n    return os.sep\n\n\n" + NAMING)
    repo.commit("naming in utils")
    index = tmp_path / "index"
    ws = Workspace(repo.path, index)
    ws.index(["main"])
    ws.close()
    repo.write("cli/utils.py", "import os\n\n\ndef other():\n    return os.sep\n")
    repo.write("cli/_progname.py", "\n" + NAMING)
    repo.commit("move detect_program_name, unchanged")
    return repo, index


def branchwise(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "branchwise_cli", *args], capture_output=True, text=True)


def test_every_front_end_gives_the_same_verdict_and_place(moved):
    repo, index = moved
    common = ["--repo", str(repo.path), "--index", str(index), "--branch", "main"]
    as_json = json.loads(branchwise("search", QUESTION, *common, "--json").stdout)
    hit = next(r for r in as_json["results"] if r["qualified_name"] == "detect_program_name")
    assert hit["verdict"] == "unchanged-older"
    assert (hit["current_path"], hit["current_start_line"], hit["current_end_line"]) == ("cli/_progname.py", 2, 6)

    text = branchwise("search", QUESTION, *common).stdout
    line = next(ln for ln in text.splitlines() if "detect_program_name" in ln and ln.split()[0].endswith("."))
    assert "unchanged-older" in line and "cli/_progname.py:2:" in line and "deleted" not in line

    out = repo.path.parent / "bundle.md"
    done = branchwise("export", QUESTION, *common, "--out", str(out))
    assert done.returncode == 0, done.stderr
    bundle = out.read_text()
    assert "Check: unchanged-older at its new place; moved unchanged to cli/_progname.py" in bundle
    assert "Source: cli/_progname.py#L2-L6 (detect_program_name)" in bundle
    assert "do not copy" not in bundle.split("detect_program_name", 1)[1].split("```", 2)[0]

    service = AgentService([Workspace(repo.path, index)])
    answer = service.search_code(QUESTION, branch="main")
    row = next(r for r in answer["results"] if r["qualified_name"] == "detect_program_name")
    assert row["verdict"] == "unchanged-older" and (row["path"], row["start_line"]) == ("cli/_progname.py", 2)
    assert row["indexed"]["path"] == "cli/utils.py" and row["handling"] == "use"

    stats = json.loads(branchwise("stats", "--repo", str(repo.path), "--index", str(index), "--json").stdout)
    assert stats["verdicts"] == {"unchanged-older": 8}  # four sessions, two results each, none a failure
    assert all(session["failures"] == 0 for session in stats["trend"])
