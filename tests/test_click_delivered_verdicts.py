"""The verdict describes the text delivered with it (issue 29, item 1), over the click bundle.

The built-repository test (test_delivered_verdicts.py) changes one method of a class; here a real
project does it many times over: a branch indexed at click's release/8.0, then moved to
release/8.1 without a re-index. In `src/click/types.py` between the two, `ParamType`,
`FuncParamType`, `StringParamType` and `DateTime` had method bodies changed under identical
signatures and outline, so their content hash (outline_key.py) is unchanged: the case issue 29
measured, an older class text passed as `unchanged-older`. Others changed a signature, others
nothing. For `search --json` (outline and `--full`), the exported bundle, the MCP
`search_code` answer and a tour step on every class of the file, an oracle that reads the two
versions of the file decides whether the text delivered is the target's text (or a faithful
outline of it), and the verdict must agree; a changed class names exactly the members whose text
differs between the two versions.

Which results a search returns is not asserted (the filters make the set of classes complete,
whatever the ranking); every result returned is checked. Hashing embedder: no verdict depends on
the model.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from delivered_oracle import GOOD, agrees, changed_direct_members, chunks_at, is_outline_of

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shared_data import realrepo_bundle  # noqa: E402

from bench.realrepos import clone  # noqa: E402
from branchwise.git.repo import GitRepo  # noqa: E402
from branchwise.mcp_server.service import AgentService  # noqa: E402
from branchwise.review.tours import Tour, check_tour  # noqa: E402
from branchwise.review.tours.record import step_at  # noqa: E402
from branchwise.search.hybrid import SearchRequest  # noqa: E402
from branchwise.workspace import Workspace  # noqa: E402
from branchwise_cli.main import main  # noqa: E402

CORE = "src/click/types.py"
QUERY = "convert a command line value to a parameter type"
INDEXED, TARGET = "origin/release/8.0", "origin/release/8.1"


@pytest.fixture(scope="module")
def click(tmp_path_factory):
    """(repository, index directory, the file's chunks as indexed, the file's chunks at the target)."""
    realrepo_bundle("click")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BRANCHWISE_MODEL", "hashing-384")
        source = clone("click", tmp_path_factory.mktemp("realrepos"))
        path = tmp_path_factory.mktemp("click") / "click"
        subprocess.run(["git", "clone", "-q", str(source), str(path)], check=True)
        subprocess.run(["git", "-C", str(path), "branch", "-q", "older", INDEXED], check=True)
        index = tmp_path_factory.mktemp("click-index")
        ws = Workspace(path, index)
        ws.index(["older"])
        ws.close()
        subprocess.run(["git", "-C", str(path), "branch", "-q", "-f", "older", TARGET], check=True)
        repo = GitRepo(path)
        yield path, index, chunks_at(repo, INDEXED, CORE), chunks_at(repo, TARGET, CORE)


def classes(chunks: dict) -> list[str]:
    return [name for name, c in chunks.items() if c.identity.symbol_type == "class"]


def check_delivered(name: str, text: str, kind: str, verdict: str, indexed: dict, target: dict) -> None:
    """One delivered result against the oracle; a deleted one is absent from the target's file."""
    if verdict == "deleted":
        assert name not in target, name
        return
    assert agrees(text, kind, verdict, target[name].text), (name, kind, verdict)
    if kind == "full" and name in indexed:  # an indexed full text: changed exactly when it differs
        assert (verdict in GOOD) == (indexed[name].text == target[name].text), name


def test_search_json_delivers_text_its_verdict_describes(click, capsys):
    path, index, indexed, target = click
    for flags in ([], ["--full"]):
        capsys.readouterr()
        assert main(["search", QUERY, "--repo", str(path), "--branch", "older", "--index", str(index), "--json",
                     "--path-prefix", CORE, "--symbol-type", "class", "--top-k", "100", "--no-stats", *flags]) == 0
        results = json.loads(capsys.readouterr().out)["results"]
        assert sorted(r["qualified_name"] for r in results) == sorted(classes(indexed)), flags  # every class
        changed = 0
        for r in results:
            name = r["qualified_name"]
            check_delivered(name, r["text"], r["text_kind"], r["verdict"], indexed, target)
            differs = changed_direct_members(indexed, target, name)
            if r["text_kind"] == "full" and differs:
                assert r["verdict"] == "changed" and set(r["changed_members"]) == differs, (name, r["reason"])
                assert all(member in r["reason"] for member in differs), r["reason"]
                assert r["current_text"].rstrip("\n") == target[name].text.rstrip("\n")
                changed += 1
        if flags:
            assert changed >= 3, "click changed methods of several classes from 8.0 to 8.1"


def test_the_bundle_shows_the_current_text_and_says_what_changed(click):
    path, index, indexed, target = click
    ws = Workspace(path, index)
    request = SearchRequest(QUERY, "older", top_k=100, path_prefix=CORE, symbol_type="class")
    chunks = json.loads(ws.review.build_bundle(request, format="json").text)["chunks"]
    ws.close()
    assert chunks
    for chunk in chunks:
        name = chunk["qualified_name"]
        # the code shown is the target's (or its outline), and the check line says so
        assert chunk["code"].rstrip("\n") == target[name].text.rstrip("\n") or is_outline_of(
            chunk["code"].rstrip("\n"), target[name].text), name
        if indexed[name].text == target[name].text:
            assert "content identical" in chunk["check"] or "hash matches" in chunk["check"], chunk["check"]
        else:
            assert chunk["check"].startswith("changed; showing the current text at "), chunk["check"]
            assert all(member in chunk["check"] for member in changed_direct_members(indexed, target, name)), name


def test_mcp_search_code_delivers_text_its_verdict_describes(click):
    path, index, indexed, target = click
    service = AgentService([Workspace(path, index, create=False)])
    for detail in ("outline", "full"):
        answer = service.search_code(QUERY, branch="older", top_k=50, path_prefix=CORE, detail=detail, max_tokens=None)
        assert answer["results"]
        for entry in answer["results"]:
            name = entry["qualified_name"]
            if entry["text_is"] == "current":  # a changed result shows the target's text
                assert entry["verdict"] == "changed", name
                assert agrees(entry["text"], entry["text_kind"], "current", target[name].text), (detail, name)
            else:
                check_delivered(name, entry["text"], entry["text_kind"], entry["verdict"], indexed, target)


def test_a_tour_step_on_every_class_is_verified_as_the_text_it_shows(click):
    path, index, indexed, target = click
    repo = GitRepo(path)
    commit = repo.resolve(INDEXED)
    names = classes(indexed)
    ws = Workspace(path, index)
    checked = check_tour(ws, Tour("click classes", steps=[step_at(repo, commit, CORE, n, n) for n in names]), "older")
    ws.close()
    for step, name in zip(checked.steps, names, strict=True):
        assert step.text is not None, (name, step.reason)
        kind = step.result.text_kind
        if kind == "outline":
            assert step.verdict.value not in GOOD or is_outline_of(step.text, target[name].text), (name, step.reason)
        else:
            assert step.text.rstrip("\n") == target[name].text.rstrip("\n"), name  # a step shows where it is now
            assert (step.verdict.value in GOOD) == (indexed[name].text == target[name].text), (name, step.reason)
