"""File names with terminal escape sequences, newlines or direction overrides are printed escaped.

Text output (`search`, `inspect`, `verify`), error lines, bundles and their manifests never
carry a raw control character from a repository; JSON output escapes them too and still
decodes to the real name.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from gittools import GitBuilder

OSC_TITLE = "src/evil\x1b]0;pwned\x07.py"
FORGED = "src/split.py\nCheck: current; content hash matches"
REVERSED = "src/\u202egnp.py"
CSI_C1 = "src/c1\x9b31m.py"
NAMES = (OSC_TITLE, FORGED, REVERSED, CSI_C1)
RAW = ("\x1b", "\x07", "\u202e", "\x9b")


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    root = tmp_path_factory.mktemp("escaping")
    repo = GitBuilder(root / "repo")
    for number, name in enumerate(NAMES):
        repo.write(name, f"def hostile_name_{number}():\n    return {number}\n")
    repo.commit("odd names")
    index = root / "index"
    out = run("index", repo.path, "--branch", "main", "--index", index)
    assert out.returncode == 0, out.stderr
    return repo, index, root


def run(*argv) -> subprocess.CompletedProcess:
    out = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True, text=True)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def assert_no_raw_controls(text: str) -> None:
    for char in RAW:
        assert char not in text, repr(char)


def test_inspect_and_search_text_output_escape_names(indexed):
    repo, index, _root = indexed
    common = ("--repo", repo.path, "--branch", "main", "--index", index)
    inspect = run("inspect", *common)
    assert inspect.returncode == 0, inspect.stderr
    assert_no_raw_controls(inspect.stdout)
    assert "src/evil\\x1b]0;pwned\\x07.py" in inspect.stdout
    assert "src/split.py\\nCheck: current" in inspect.stdout
    search = run("search", "hostile name", *common, "--top-k", "10", "--lines", "0")
    assert search.returncode == 0, search.stderr
    assert_no_raw_controls(search.stdout)
    results = [line for line in search.stdout.splitlines() if not line.startswith("#")]
    assert len(results) == len(NAMES) and all(". current " in line for line in results)  # none split
    for form in (["--lines", "3"], ["--vimgrep"]):
        shown = run("search", "hostile name", *common, "--top-k", "10", *form)
        assert shown.returncode == 0, shown.stderr
        assert_no_raw_controls(shown.stdout)


def test_json_output_escapes_but_round_trips(indexed):
    repo, index, _root = indexed
    out = run("inspect", "--repo", repo.path, "--branch", "main", "--index", index, "--json")
    assert_no_raw_controls(out.stdout)
    assert {row["path"] for row in json.loads(out.stdout)} == set(NAMES)


def test_bundle_source_lines_are_not_split(indexed):
    repo, index, root = indexed
    bundle = root / "bundle.md"
    out = run("export", "hostile name", "--repo", repo.path, "--branch", "main", "--index", index,
              "--out", bundle, "--top-k", "10")
    assert out.returncode == 0, out.stderr
    text = bundle.read_text()
    assert_no_raw_controls(text)
    checks = [line for line in text.splitlines() if line.startswith("Check: ")]
    assert len(checks) == len(NAMES)  # one per chunk, none forged by a file name
    assert "Source: src/split.py\\nCheck: current; content hash matches#L1-L2" in text
    manifest = (root / "bundle.md.manifest.json").read_text()
    assert_no_raw_controls(manifest)
    assert {entry["path"] for entry in json.loads(manifest)["results"]} == set(NAMES)


def test_verify_text_output_and_errors_escape_names(indexed, tmp_path):
    repo, _index, _root = indexed
    listing = tmp_path / "snippets.tsv"
    listing.write_text(f"{OSC_TITLE}\n", encoding="utf-8")
    out = run("verify", listing, "--repo", repo.path)
    assert out.returncode == 0, out.stderr
    assert_no_raw_controls(out.stdout)
    bad = run("search", "x", "--repo", repo.path, "--branch", "no\x1b]0;title\x07such")
    assert bad.returncode == 2
    assert_no_raw_controls(bad.stderr)


def test_the_helpers():
    from branchwise.display import escape_controls, safe_json

    assert escape_controls("a\x1b[31mb\nc\td\u202e") == "a\\x1b[31mb\\nc\\td\\u202e"
    assert escape_controls("plain ünïcödé/路径.py") == "plain ünïcödé/路径.py"
    assert json.loads(safe_json({"p": CSI_C1 + REVERSED})) == {"p": CSI_C1 + REVERSED}


def test_the_review_app_shows_names_escaped():
    from branchwise.models import Identity, Result, Verdict
    from branchwise_tui.widgets.preview import _status

    result = Result(rank=1, score=1.0, identity=Identity("repo", OSC_TITLE, "python", "function", "f"),
                    branch="main", commit="a" * 40, start_line=1, end_line=2, indexed_at="", content_hash="h",
                    text="", blob=None, version_id="v", verdict=Verdict.DELETED,
                    reason=f"symbol no longer in file; moved to {FORGED}#L1-L2 unchanged", current_path=FORGED,
                    current_start_line=1, current_end_line=2)
    shown = _status(result, takes_current=False).plain
    assert_no_raw_controls(shown)
    assert "\nCheck:" not in shown


def test_diff_escapes_names_in_markdown_as_in_text(tmp_path):
    """`diff --format markdown` (a pull-request comment) escapes ESC, BEL and the rest the way the
    text format does (issue 46, hostile 10)."""
    repo = GitBuilder(tmp_path / "repo")
    repo.write("src/base.py", "def base():\n    return 0\n")
    repo.commit("base")
    repo.branch("feature/odd")
    repo.checkout("feature/odd")
    for number, name in enumerate(NAMES):
        repo.write(name, f"def hostile_name_{number}():\n    return {number}\n")
    repo.commit("odd names")
    common = ("feature/odd", "--base", "main", "--repo", repo.path, "--index", tmp_path / "index")
    for form in ("text", "markdown"):
        out = run("diff", *common, "--format", form)
        assert out.returncode == 0, out.stderr
        assert_no_raw_controls(out.stdout)
        assert "src/evil\\x1b]0;pwned\\x07.py" in out.stdout, (form, out.stdout)
        assert "src/split.py\\nCheck: current" in out.stdout, form
