"""Usage memory and pins, on repositories built in the test.

The deterministic hashing embedder is enough: what is tested is bookkeeping (which versions
sessions took as `use`, their verdict now) and the pin rule (a pinned symbol the rankings
found moves to the top on its branch only), not retrieval quality.
"""

from __future__ import annotations

import json

import pytest
from gittools import GitBuilder

from branchwise.models import Label
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_cli.main import main

ORDERS = "src/orders.py"
PRICING = "src/pricing.py"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "proj")
    git.write(ORDERS, "def cancel_order(order):\n    order.status = 'cancelled'\n    return order\n\n\n"
                      "def place_order(cart):\n    return {'items': cart, 'status': 'placed'}\n")
    git.write(PRICING, "def order_total(order):\n    return sum(item.price for item in order.items)\n\n\n"
                       "def discount(order, rate):\n    return order_total(order) * (1 - rate)\n")
    git.write("src/audit.py", "def log_event(event):\n    print('event', event)\n")
    git.commit("start")
    git.branch("feature")
    return git


def run_json(capsys, *argv) -> dict:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def rank_of(results, name: str) -> int | None:
    return next((r.rank for r in results if r.identity.qualified_name == name), None)


# stats --used -----------------------------------------------------------------------------------


def test_a_version_included_three_times_tops_stats_used_with_its_verdict_now(repo, tmp_path, capsys):
    assert main(["index", str(repo.path), "--all-branches"]) == 0
    ws = Workspace(repo.path)
    total = next(r for r in ws.search(SearchRequest("order total price", "main", top_k=5))
                 if r.identity.qualified_name == "order_total")
    ws.close()
    for n in range(3):  # three bundles of order_total alone
        assert main(["export", "order total price sum", "--repo", str(repo.path), "--branch", "main",
                     "--top-k", "1", "--out", str(tmp_path / f"b{n}.md")]) == 0
    assert main(["export", "cancel order status", "--repo", str(repo.path), "--branch", "main",
                 "--top-k", "1", "--out", str(tmp_path / "once.md")]) == 0
    assert main(["search", "order total", "--repo", str(repo.path), "--branch", "main"]) == 0  # found, not used
    manifests = [json.loads((tmp_path / f"b{n}.md.manifest.json").read_text()) for n in range(3)]
    assert all(any(e["qualified_name"] == "order_total" and e.get("section") == "use" for e in m["results"])
               for m in manifests)

    report = run_json(capsys, "stats", "--used", "--repo", str(repo.path), "--json")
    top = report["used"][0]
    assert (top["qualified_name"], top["path"], top["times_used"]) == ("order_total", PRICING, 3)
    assert top["version_id"] == total.version_id and top["by_kind"] == {"export": 3}
    assert top["verdict"] == "current" and top["branch"] == "main" and top["pinned"] is False
    assert all(row["times_used"] <= 3 for row in report["used"])
    assert any(row["qualified_name"] == "cancel_order" and row["times_used"] == 1 for row in report["used"])

    # verified now, not remembered: edit the function in the work tree
    repo.write(PRICING, "def order_total(order):\n    return round(sum(i.price for i in order.items), 2)\n\n\n"
                        "def discount(order, rate):\n    return order_total(order) * (1 - rate)\n")
    again = run_json(capsys, "stats", "--used", "--repo", str(repo.path), "--json", "--limit", "1")
    assert len(again["used"]) == 1 and again["used"][0]["qualified_name"] == "order_total"
    assert again["used"][0]["verdict"] == "changed" and again["limit"] == 1

    assert run_json(capsys, "stats", "--used", "--repo", str(repo.path), "--branch", "feature", "--json")["used"] == []
    capsys.readouterr()
    assert main(["stats", "--used", "--repo", str(repo.path)]) == 0
    text = capsys.readouterr().out
    first = text.splitlines()[2]
    assert "3" in first and "changed" in first and f"{PRICING}::order_total" in first


def test_a_review_counts_use_labels_only_and_bad_options_exit_2(repo, capsys):
    ws = Workspace(repo.path)
    ws.index(["main"])
    results = ws.search(SearchRequest("cancel order", "main", top_k=3))
    ws.review.set_label(results[0], Label.USE)
    ws.review.set_label(results[1], Label.REFERENCE_ONLY)
    ws.review.record_session("review", "main", results, target_commit=ws.target_commit("main"))
    report = ws.review.used_versions()
    assert [(r["qualified_name"], r["by_kind"]) for r in report["used"]] == [
        (results[0].identity.qualified_name, {"review": 1})]
    ws.close()

    capsys.readouterr()
    assert main(["stats", "--used", "--repo", str(repo.path), "--limit", "0"]) == 2
    assert main(["stats", "--repo", str(repo.path), "--branch", "main"]) == 2
    assert capsys.readouterr().err.count("\n") == 2


# pins ---------------------------------------------------------------------------------------------


def test_a_pinned_symbol_ranks_first_for_a_matching_query_on_its_branch_only(repo, capsys):
    ws = Workspace(repo.path)
    ws.index(["main", "feature"])
    query = SearchRequest("order total price", "main", top_k=5)
    before = ws.search(query)
    assert rank_of(before, "order_total") == 1 and rank_of(before, "place_order") not in (None, 1)
    ws.close()

    assert main(["labels", "pin", f"{ORDERS}::place_order", "--repo", str(repo.path), "--branch", "main",
                 "--note", "every order task needs it"]) == 0
    ws = Workspace(repo.path)
    after = ws.search(query)
    assert after[0].identity.qualified_name == "place_order" and after[0].pinned and after[0].rank == 1
    assert [r.pinned for r in after[1:]] == [False] * (len(after) - 1)
    assert rank_of(after, "order_total") == 2
    other = ws.search(SearchRequest("order total price", "feature", top_k=5))
    assert rank_of(other, "order_total") == 1 and not any(r.pinned for r in other)
    # a boost, not an injection: a query whose rankings do not find it leaves it out
    unrelated = ws.search(SearchRequest("log event print", "main", top_k=5, mode="lexical"))
    assert [r.identity.qualified_name for r in unrelated] == ["log_event"]
    assert run_json(capsys, "search", "order total price", "--repo", str(repo.path), "--branch", "main",
                    "--json")["results"][0]["pinned"] is True

    listed = run_json(capsys, "labels", "list", "--repo", str(repo.path), "--json")
    assert [(p["branch"], p["path"], p["qualified_name"], p["note"]) for p in listed["pins"]] == [
        ("main", ORDERS, "place_order", "every order task needs it")]
    capsys.readouterr()
    assert main(["labels", "list", "--repo", str(repo.path)]) == 0
    assert f"PIN main: {ORDERS}::place_order" in capsys.readouterr().out
    assert main(["labels", "unpin", f"{ORDERS}::place_order", "--repo", str(repo.path), "--branch", "main"]) == 0
    assert rank_of(ws.search(query), "order_total") == 1
    capsys.readouterr()
    assert main(["labels", "unpin", f"{ORDERS}::place_order", "--repo", str(repo.path), "--branch", "main"]) == 2
    assert main(["labels", "pin", f"{ORDERS}::nothing_here", "--repo", str(repo.path), "--branch", "main"]) == 2
    assert main(["labels", "pin", ORDERS, "--repo", str(repo.path), "--branch", "main"]) == 2
    assert capsys.readouterr().err.count("\n") == 3


def test_pins_survive_an_export_import_round_trip(repo, tmp_path, capsys):
    ws = Workspace(repo.path)
    ws.index(["main"])
    query = SearchRequest("order total price", "main", top_k=5)
    place = next(r for r in ws.search(query) if r.identity.qualified_name == "place_order")
    ws.review.pin(place, "main", "orders")
    ws.review.set_label(place, Label.USE, "the one to copy")
    ws.close()
    exported = tmp_path / "labels.toml"
    assert main(["labels", "export", str(exported), "--repo", str(repo.path)]) == 0
    text = exported.read_text()
    assert "[[pin]]" in text and "[[label]]" in text

    fresh = tmp_path / "fresh-index"
    other = Workspace(repo.path, fresh)
    other.index(["main"])
    assert rank_of(other.search(query), "order_total") == 1
    other.close()
    assert main(["labels", "import", str(exported), "--repo", str(repo.path), "--index", str(fresh)]) == 0
    other = Workspace(repo.path, fresh)
    [pin] = other.review.pins()
    assert (pin.branch, pin.path, pin.qualified_name, pin.note) == ("main", ORDERS, "place_order", "orders")
    first = other.search(query)[0]
    assert first.identity.qualified_name == "place_order" and first.pinned and first.label is Label.USE
    other.close()

    # a file edited by hand (a comment: read by the full TOML parser) carries its pins as well
    third = tmp_path / "third-index"
    Workspace(repo.path, third).index(["main"])
    edited = tmp_path / "edited.toml"
    edited.write_text("# kept in the repository\n" + text)
    assert main(["labels", "import", str(edited), "--repo", str(repo.path), "--index", str(third)]) == 0
    assert [p.qualified_name for p in Workspace(repo.path, third).review.pins()] == ["place_order"]


def test_a_bad_pin_in_a_labels_file_imports_nothing(repo, tmp_path, capsys):
    ws = Workspace(repo.path)
    ws.index(["main"])
    bad = tmp_path / "bad.toml"
    bad.write_text('repository = "proj"\n\n[[label]]\npath = "src/pricing.py"\nqualified_name = "discount"\n'
                   'symbol_type = "function"\nlanguage = "python"\ncontent_hash = "' + "a" * 64 + '"\n'
                   'label = "use"\n\n[[pin]]\nbranch = "main"\npath = "../outside.py"\n'
                   'qualified_name = "x"\nsymbol_type = "function"\nlanguage = "python"\n')
    capsys.readouterr()
    assert main(["labels", "import", str(bad), "--repo", str(repo.path)]) == 2
    assert "pin #1" in capsys.readouterr().err
    assert ws.review.labels() == [] and ws.review.pins() == []


def test_the_mcp_tools_search_with_the_pins_and_count_bundled_chunks_as_used(repo):
    from branchwise.mcp_server.service import AgentService

    ws = Workspace(repo.path)
    ws.index(["main"])
    ws.review.pin(ws.live_symbol("main", ORDERS, "place_order"), "main")
    service = AgentService([Workspace(repo.path, create=False)])
    found = service.search_code("order total price", branch="main", top_k=3)
    assert found["results"][0]["qualified_name"] == "place_order" and found["results"][0]["pinned"] is True
    bundle = service.context_bundle("order total price", branch="main", top_k=2)
    assert bundle["included"][0]["qualified_name"] == "place_order"
    [row, *_] = ws.review.used_versions("main")["used"]
    assert (row["qualified_name"], row["by_kind"], row["pinned"], row["verdict"]) == (
        "place_order", {"mcp": 1}, True, "current")
