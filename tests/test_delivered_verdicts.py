"""The verdict describes the text delivered with it (issue 29, item 1), over a built repository.

Index at one commit; the next commit changes one method body of a small class and one of a large
class. Then, for `search --json`, the exported bundle, the MCP `search_code` answer and a tour
step on each class, an oracle that reads the class from the target's file decides whether the
text delivered is the target's text (or, for an outline, a faithful outline of it), and the
verdict must agree: "current"/"unchanged-older" only for text that is the target's, `changed`
(naming the member) for an older full text, and an outline labelled as one. Real git, SQLite,
FAISS; the hashing embedder (no verdict depends on the model).
"""

from __future__ import annotations

import json

import pytest
from delivered_oracle import agrees, is_outline_of
from gittools import GitBuilder

from branchwise.chunking import chunk_file
from branchwise.git.repo import GitRepo
from branchwise.mcp_server.service import AgentService
from branchwise.review.tours import Tour, check_tour
from branchwise.review.tours.record import step_at
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_cli.main import main

PATH = "src/ledger.py"
METHODS = "\n".join(f'''
    def report_{n}(self, entries):
        """Report number {n} of the ledger."""
        lines = [str(entry) for entry in entries]
        return "\\n".join(lines) + "{n}"
''' for n in range(12))
SOURCE = f'''"""Ledgers."""


class Small:
    """A small ledger: two methods."""

    currency = "EUR"

    def add(self, amount):
        self.entries.append(amount)

    def total(self):
        return sum(self.entries)


class Big:
    """A big ledger with many reports."""

    limit = 100
{METHODS}
    def balance(self, entries):
        return sum(entries) - self.limit
'''
EDITED = SOURCE.replace("        return sum(self.entries)\n", "        return round(sum(self.entries), 2)\n").replace(
    "        return sum(entries) - self.limit\n", "        return max(0, sum(entries) - self.limit)\n")


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture
def ledger(tmp_path):
    builder = GitBuilder(tmp_path / "ledger")
    builder.write(PATH, SOURCE)
    builder.commit("ledgers")
    index = tmp_path / "index"
    ws = Workspace(builder.path, index)
    ws.index(["main"])
    ws.close()
    builder.write(PATH, EDITED)
    builder.commit("round the small total; the big balance never negative")
    yield builder, index


def target_class(builder, name: str) -> str:
    """The oracle: the class's lines in the target's file (main's tip, checked out and clean)."""
    repo = GitRepo(builder.path)
    data = repo.read_blob(repo.blob_at(repo.resolve_branch("main"), PATH))
    [chunk] = [c for c in chunk_file("ledger", PATH, data).chunks if c.identity.qualified_name == name]
    return chunk.text


def test_search_json_delivers_text_its_verdict_describes(ledger, capsys):
    builder, index = ledger
    code = main(["search", "ledger total balance reports", "--repo", str(builder.path), "--branch", "main",
                 "--index", str(index), "--json", "--top-k", "30", "--mode", "lexical", "--no-stats"])
    assert code == 0
    results = {r["qualified_name"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    small, big = results["Small"], results["Big"]
    # the small class carries its full indexed text: older than the target, so `changed`, naming the member
    assert small["text_kind"] == "full" and small["verdict"] == "changed", small["reason"]
    assert small["changed_members"] == ["Small.total"] and "Small.total" in small["reason"]
    assert small["current_text"].rstrip("\n") == target_class(builder, "Small").rstrip("\n")
    # the large class carries its outline, verified as an outline
    assert big["text_kind"] == "outline" and big["verdict"] == "unchanged-older", big["reason"]
    assert "outline identical" in big["reason"] and "Big.balance" in big["reason"]
    assert "def balance(self, entries):" in big["text"] and "sum(entries)" not in big["text"]
    for name in ("Small", "Big"):
        result = results[name]
        assert agrees(result["text"], result["text_kind"], result["verdict"], target_class(builder, name)), name
    # the full text is one flag away, and then it is `changed`
    main(["search", "ledger total balance reports", "--repo", str(builder.path), "--branch", "main",
          "--index", str(index), "--json", "--top-k", "30", "--mode", "lexical", "--no-stats", "--full"])
    full = {r["qualified_name"]: r for r in json.loads(capsys.readouterr().out)["results"]}["Big"]
    assert (full["text_kind"], full["verdict"], full["changed_members"]) == ("full", "changed", ["Big.balance"])
    assert agrees(full["text"], "full", full["verdict"], target_class(builder, "Big"))


def test_the_bundle_says_it_shows_the_current_text(ledger):
    builder, index = ledger
    ws = Workspace(builder.path, index)
    request = SearchRequest("ledger total balance reports", "main", top_k=30, mode="lexical")
    bundle = ws.review.build_bundle(request, format="json")
    chunks = {c["qualified_name"]: c for c in json.loads(bundle.text)["chunks"]}
    for name, member in (("Small", "Small.total"), ("Big", "Big.balance")):
        chunk = chunks[name]
        check = next(line for line in chunk["header"] if line.startswith("Check: "))
        # the code shown is the target's, and the header says so, naming what changed since
        assert chunk["code"].rstrip("\n") == target_class(builder, name).rstrip("\n")
        assert check.startswith("Check: changed; showing the current text at ") and member in check, check
        assert "content identical" not in check
    ws.close()


def test_mcp_search_code_delivers_text_its_verdict_describes(ledger):
    builder, index = ledger
    service = AgentService([Workspace(builder.path, index, create=False)])
    for detail in ("outline", "full"):
        answer = service.search_code("ledger total balance reports", branch="main", top_k=30, detail=detail,
                                     max_tokens=None)
        entries = {e["qualified_name"]: e for e in answer["results"]}
        for name in ("Small", "Big"):
            entry = entries[name]
            target = target_class(builder, name)
            if entry["text_is"] == "current":  # a changed result shows the target's text
                assert entry["verdict"] == "changed"
                assert agrees(entry["text"], entry["text_kind"], "current", target), (detail, name)
            else:
                assert agrees(entry["text"], entry["text_kind"], entry["verdict"], target), (detail, name)
        assert entries["Big"]["text_kind"] == ("outline" if detail == "outline" else "full")
        assert entries["Small"]["changed_members"] == ["Small.total"]


def test_a_tour_step_on_a_class_is_verified_as_its_outline(ledger):
    builder, index = ledger
    repo = GitRepo(builder.path)
    first = repo.resolve("main~1")
    ws = Workspace(builder.path, index)
    tour = Tour("ledgers", steps=[step_at(repo, first, PATH, name, name) for name in ("Small", "Big")])
    checked = check_tour(ws, tour, "main")
    for step, name in zip(checked.steps, ("Small", "Big")):
        assert step.result.text_kind == "outline" and step.verdict.value == "unchanged-older", step.reason
        assert "outline identical" in step.reason
        assert is_outline_of(step.text, target_class(builder, name)), step.text
    ws.close()


def test_a_saved_outline_verifies_as_an_outline_not_as_altered(ledger, capsys, tmp_path):
    builder, index = ledger
    main(["search", "ledger total balance reports", "--repo", str(builder.path), "--branch", "main",
          "--index", str(index), "--json", "--top-k", "30", "--mode", "lexical", "--no-stats"])
    saved = tmp_path / "saved.json"
    saved.write_text(capsys.readouterr().out)
    assert main(["verify", str(saved), "--repo", str(builder.path), "--index", str(index), "--json"]) == 0
    rows = {r["qualified_name"]: r for r in json.loads(capsys.readouterr().out)}
    big = rows["Big"]
    assert big["text_kind"] == "outline" and big["verdict"] == "unchanged-older", big["reason"]
    assert "altered" not in big["reason"]
    small = rows["Small"]
    assert (small["text_kind"], small["verdict"]) == ("full", "changed") and "altered" not in small["reason"]
    # an outline edited by hand is caught as altered
    document = json.loads(saved.read_text())
    for result in document["results"]:
        if result["qualified_name"] == "Big":
            result["text"] = result["text"].replace("def balance", "def balance_everything")
    saved.write_text(json.dumps(document))
    main(["verify", str(saved), "--repo", str(builder.path), "--index", str(index), "--json"])
    rows = {r["qualified_name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["Big"]["verdict"] == "changed" and "altered" in rows["Big"]["reason"]
