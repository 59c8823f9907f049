"""A result verified against another ref than the branch asked (`--against REV`) cites that ref.

Issue 29: the citation header must name the commit *and* the ref a text was verified against
and delivered from. Here main is indexed, then a branch `next` changes one function, deletes
another and leaves a third alone; main is searched and exported verified against `next`. The
current text of the changed function comes from `next`, so its Version line must say
`next @ <next's commit>` (not `main @ <next's commit>`, a commit main never had); the deleted
function is gone on `next`, not on main; the unchanged one names where it was found identical.
Real git, SQLite, FAISS; the hashing embedder (no verdict depends on the model).
"""

from __future__ import annotations

import json

import pytest
from gittools import GitBuilder

from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_cli.main import main

PATH = "src/shipping.py"
SOURCE = '''"""Shipping."""


def quote_parcel(weight):
    return 4 + weight * 2


def label_parcel(parcel):
    return f"PARCEL {parcel}"


def track_parcel(code):
    return code.upper()
'''
NEXT = SOURCE.replace("return 4 + weight * 2", "return 5 + weight * 3").replace(
    '''

def track_parcel(code):
    return code.upper()
''', "")


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture
def shipping(tmp_path):
    builder = GitBuilder(tmp_path / "shipping")
    builder.write(PATH, SOURCE)
    main_commit = builder.commit("parcels")
    ws = Workspace(builder.path, tmp_path / "index")
    ws.index(["main"])
    builder.branch("next")
    builder.checkout("next")
    builder.write(PATH, NEXT)
    next_commit = builder.commit("dearer parcels, no tracking")
    builder.checkout("main")
    yield ws, main_commit, next_commit
    ws.close()


def _headers(markdown: str) -> dict[str, list[str]]:
    """Each chunk's citation header, by the qualified name of its heading ("### 1. quote_parcel")."""
    headers = {}
    for name in ("quote_parcel", "label_parcel", "track_parcel"):
        if f". {name}\n" in markdown:
            section = markdown.split(f". {name}\n", 1)[1]
            headers[name] = section.split("```text\n", 1)[1].split("\n```", 1)[0].splitlines()
    return headers


def test_a_bundle_verified_against_another_ref_cites_that_ref_and_its_commit(shipping, tmp_path):
    ws, main_commit, next_commit = shipping
    request = SearchRequest("parcel", "main", top_k=10, mode="lexical")
    results = ws.search(request, against="next")
    verdicts = {r.identity.qualified_name: r.verdict.value for r in results}
    assert verdicts == {"quote_parcel": "changed", "label_parcel": "unchanged-older", "track_parcel": "deleted"}

    bundle = ws.review.build_bundle(request, against="next")
    headers = _headers(bundle.text)
    # the current text is next's: its Version names next and next's commit
    assert headers["quote_parcel"][1].startswith(f"Version: next @ {next_commit[:7]}")
    assert "return 5 + weight * 3" in bundle.text
    assert f"main @ {next_commit[:7]}" not in bundle.text  # main never was at next's commit
    assert headers["quote_parcel"][2].startswith(f"Check: changed; showing the current text at next @ {next_commit[:7]}")
    # the indexed text is main's, found identical on next: both are named
    assert headers["label_parcel"][1].startswith(f"Version: main @ {main_commit[:7]}")
    assert headers["label_parcel"][2] == (
        f"Check: unchanged-older; older commit, content identical at next @ {next_commit[:7]}")
    # track_parcel is still on main: it is gone on next
    assert headers["track_parcel"][0] == f"Source: {PATH} (deleted on next)"


def test_the_exported_bundle_and_its_manifest_name_the_ref_verified_against(shipping, tmp_path, capsys):
    ws, _main_commit, next_commit = shipping
    repo, index = ws.repo.path, ws.index_dir
    out = tmp_path / "parcel.md"
    code = main(["export", "parcel", "--repo", str(repo), "--branch", "main", "--index", str(index),
                 "--against", "next", "--mode", "lexical", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    text = out.read_text()
    assert f"Version: next @ {next_commit[:7]}" in text
    assert f"main @ {next_commit[:7]}" not in text
    manifest = json.loads(out.with_name(out.name + ".manifest.json").read_text())
    assert manifest["target_commit"] == next_commit


def test_without_another_ref_the_header_names_the_branch_as_before(shipping):
    ws, main_commit, _next_commit = shipping
    request = SearchRequest("parcel", "main", top_k=10, mode="lexical")
    headers = _headers(ws.review.build_bundle(request).text)
    assert set(headers) == {"quote_parcel", "label_parcel", "track_parcel"}
    for lines in headers.values():
        assert lines[1].startswith(f"Version: main @ {main_commit[:7]}")
        assert lines[2] == "Check: current; content hash matches"

