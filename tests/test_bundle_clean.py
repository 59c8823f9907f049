"""A clean bundle: overlaps once, labels honoured inside classes, current first, a token budget,
three formats that parse, context for lone methods, and the CLI's safety and statistics.

Repositories are built in each test and indexed for real (SQLite, FAISS) with the hashing
embedder, a deterministic embedding without weights: these tests are about what the bundle
does with results, not about ranking quality (the shop story with the real model is in
test_samples_with_model.py).
"""

import json
import xml.etree.ElementTree as ET

import pytest
from gittools import GitBuilder

from branchwise.models import Label
from branchwise.review import labels, stats
from branchwise.search.hybrid import SearchRequest
from branchwise.workspace import Workspace
from branchwise_cli.main import main

CART = '''import os
from decimal import Decimal


class Cart:
    """A shopping cart of items and their prices."""

    def __init__(self):
        self.items = {}

    def add_item(self, sku, price):
        """Put an item in the cart."""
        self.items[sku] = Decimal(price)

    def remove_item(self, sku):
        # an item that is not there is not an error
        self.items.pop(sku, None)

    def total(self):
        return sum(self.items.values(), Decimal(0))
'''

EMAIL = '''def send_cancel_email(order, outbox):
    """Tell the customer that the order was cancelled."""
    outbox.append(("cancelled", order))
'''

LEGACY = '''class CancelHandler:
    """Cancels an order once per idempotency key: a cancel email is sent once."""

    def handle(self, order, key, seen):
        if key in seen:
            return seen[key]
        seen[key] = "cancelled"
        return seen[key]
'''


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture
def cart(tmp_path):
    yield from _cart(tmp_path)


@pytest.fixture
def cart_on_each_backend(backend, tmp_path):
    """The cart repository indexed on FAISS, then on Qdrant (local mode, and a server if set)."""
    yield from _cart(tmp_path)


def _cart(tmp_path):
    builder = GitBuilder(tmp_path / "cartshop")
    builder.write("src/shop/cart.py", CART)
    builder.commit("cart")
    workspace = Workspace(builder.path, tmp_path / "index")
    workspace.index(["main"])
    yield builder, workspace
    workspace.close()


@pytest.fixture
def moved(tmp_path):
    """email.py moved unchanged to mailer.py, and a deleted legacy handler, both indexed before."""
    builder = GitBuilder(tmp_path / "moveshop")
    builder.write("src/notify/email.py", EMAIL)
    builder.write("src/orders/legacy.py", LEGACY)
    builder.write("src/orders/service.py", "def cancel(order):\n    return order\n")
    builder.commit("initial")
    workspace = Workspace(builder.path, tmp_path / "index")
    workspace.index(["main"])
    builder.git("mv", "src/notify/email.py", "src/notify/mailer.py")
    builder.delete("src/orders/legacy.py")
    builder.commit("move the mailer, drop the legacy handler")
    workspace.index(["main"])
    yield builder, workspace
    workspace.close()


def everything(workspace, query="cart item", **extra):
    return SearchRequest(query, "main", top_k=40, mode="lexical", **extra)


def bundle_of(workspace, request, **options):
    return workspace.review.build_bundle(request, **options)


def sections(markdown: str) -> tuple[str, str, str]:
    """(code to use, history and references, left out) of a Markdown bundle."""
    rest, _, left_out = markdown.partition("## Left out")
    use, _, history = rest.partition("## History and references")
    return use, history, left_out


def test_a_class_and_its_methods_export_the_code_once(cart):
    _, workspace = cart
    results = workspace.search(everything(workspace))
    names = {r.identity.qualified_name for r in results}
    assert {"Cart", "Cart.add_item", "Cart.remove_item"} <= names
    bundle = bundle_of(workspace, everything(workspace))
    for line in ("def add_item(self, sku, price):", "def remove_item(self, sku):", "def total(self):"):
        assert bundle.text.count(line) == 1, line
    by_name = {e["qualified_name"]: e for e in bundle.manifest["results"]}
    assert by_name["Cart"]["included"]
    cart_rank = by_name["Cart"]["rank"]
    assert by_name["Cart.add_item"]["left_out"] == f"inside rank {cart_rank} (Cart)"
    # the class shows its best member's place: it comes first when a method ranked first
    assert bundle.pieces[0].order == min(by_name[n]["rank"] for n in by_name if n.startswith("Cart"))


def test_a_reference_only_method_inside_a_use_class_is_not_presented_as_usable(cart):
    _, workspace = cart
    results = workspace.search(everything(workspace))
    remove = next(r for r in results if r.identity.qualified_name == "Cart.remove_item")
    workspace.review.set_label(remove, Label.REFERENCE_ONLY, "the tolerant removal idea")
    markdown = bundle_of(workspace, everything(workspace)).text
    use, history, _ = sections(markdown)
    assert "self.items.pop(sku, None)" not in use
    assert "# Cart.remove_item: cut out (labelled reference-only, shown under History and references" in use
    assert "def add_item(self, sku, price):" in use  # the rest of the class is still there
    assert "self.items.pop(sku, None)" in history
    assert "Purpose: reference for the tolerant removal idea only; do not copy the implementation" in history


def test_a_member_labelled_earlier_is_honoured_when_only_its_class_is_found(cart):
    _, workspace = cart
    total = next(r for r in workspace.search(everything(workspace)) if r.identity.qualified_name == "Cart.total")
    labels.set_label(workspace.store.conn, workspace.repo.name, total, Label.EXCLUDE)
    request = everything(workspace, symbol_type="class")
    bundle = bundle_of(workspace, request)
    assert [p.result.identity.qualified_name for p in bundle.pieces] == ["Cart"]
    assert "sum(self.items.values()" not in bundle.text
    assert "# Cart.total: cut out (excluded by the reviewer)" in bundle.text
    assert bundle.manifest["results"][0]["cut_out"] == ["Cart.total"]


def test_a_lone_method_carries_its_class_line_and_the_imports_it_uses(cart_on_each_backend):
    _, workspace = cart_on_each_backend
    request = everything(workspace, "add item price", symbol_type="method")
    results = workspace.search(request)
    add = next(r for r in results if r.identity.qualified_name == "Cart.add_item")
    assert add.imports == ("from decimal import Decimal",) and add.parent == "Cart"
    assert add.signature.startswith("def add_item(self, sku, price)")
    data = add.to_json()
    assert data["parent_qualified_name"] == "Cart" and data["imports"] == ["from decimal import Decimal"]
    assert data["signature"] == add.signature

    markdown = bundle_of(workspace, request).text
    code = markdown.split(". Cart.add_item\n", 1)[1].split("```python\n", 1)[1].split("\n```", 1)[0]
    assert code.splitlines()[:4] == [
        "# context, not part of this chunk:", "from decimal import Decimal", "class Cart:", "# chunk:",
    ]
    assert "import os" not in code  # not used by the method


def test_a_moved_unchanged_history_copy_yields_to_the_current_one(moved):
    _, workspace = moved
    request = SearchRequest("send cancel email", "main", top_k=10, mode="lexical", scope="all")
    results = workspace.search(request)
    old = next(r for r in results if r.path == "src/notify/email.py")
    new = next(r for r in results if r.path == "src/notify/mailer.py")
    assert old.history and old.moved_unchanged and not new.history
    bundle = bundle_of(workspace, request)
    assert bundle.text.count("def send_cancel_email(order, outbox):") == 1
    by_path = {e["path"]: e for e in bundle.manifest["results"]}
    assert by_path["src/notify/mailer.py"]["included"]
    assert by_path["src/notify/email.py"]["left_out"] == (
        f"identical to rank {new.rank} (send_cancel_email at src/notify/mailer.py)")

    # alone, a moved-unchanged history copy is history (--scope all adds no code to use) that
    # says where its text is current
    alone = [old]
    single = workspace.review.build_bundle(request, results=alone)
    use, history, _ = sections(single.text)
    assert "Source: src/notify/email.py (deleted on main; moved unchanged to src/notify/mailer.py#L1-L3)" in history
    assert "Check: deleted here; its text is unchanged at src/notify/mailer.py" in history and "send_cancel_email" not in use
    assert "its text is current code at src/notify/mailer.py#L1-L3" in history


def test_with_scope_all_current_code_comes_first(moved):
    _, workspace = moved
    request = SearchRequest("cancel order idempotency key handle", "main", top_k=4, mode="lexical", scope="all")
    fused = workspace.search(SearchRequest(request.query, "main", top_k=4, mode="lexical", scope="all"))
    history = [r for r in fused if r.history]
    assert history, "the deleted handler is found as history"
    first_history = min(r.rank for r in history)
    assert all(not r.history for r in fused if r.rank < first_history)
    assert all(r.history for r in fused if r.rank >= first_history and r.verdict.value != "excluded")
    markdown = bundle_of(workspace, request).text
    first = markdown.split("\n## 1. ", 1)[1]
    assert "Check: current" in first.split("```\n", 1)[0]
    assert markdown.index("## History and references") < markdown.index("CancelHandler")


def test_max_tokens_is_respected_and_reported(cart, moved):
    _, workspace = moved
    request = SearchRequest("cancel order email", "main", top_k=10, mode="lexical", scope="all")
    full = bundle_of(workspace, request)
    assert full.manifest["tokenizer"].startswith("o200k_base")
    assert full.manifest["total_tokens"] == full.total_tokens > 0
    assert f"- Size: {full.total_tokens} tokens" in full.text
    budget = full.total_tokens - 40
    small = bundle_of(workspace, request, max_tokens=budget)
    assert small.total_tokens <= budget
    assert f"- Size: {small.total_tokens} tokens" in small.text
    left = [e for e in small.manifest["results"] if e["left_out"] == "budget"]
    assert left and all(not e["included"] for e in left)
    kept = [e for e in small.manifest["results"] if e["included"]]
    assert kept and all(e["tokens"] > 0 for e in kept)
    assert small.manifest["max_tokens"] == budget


@pytest.mark.parametrize("fmt", ["markdown", "xml", "json"])
def test_the_three_formats_parse_and_carry_the_same_chunks(cart, fmt):
    _, workspace = cart
    bundle = bundle_of(workspace, everything(workspace), format=fmt)
    names = [p.result.identity.qualified_name for p in bundle.pieces]
    if fmt == "xml":
        root = ET.fromstring(bundle.text)
        chunks = root.findall("chunk")
        assert [c.get("qualified_name") for c in chunks] == names
        assert all(c.get("source") and c.get("version") and c.get("check") for c in chunks)
        assert "def add_item" in chunks[0].find("code").text
        assert int(root.get("total_tokens")) == bundle.total_tokens
    elif fmt == "json":
        document = json.loads(bundle.text)
        assert [c["qualified_name"] for c in document["chunks"]] == names
        assert document["total_tokens"] == bundle.total_tokens
        assert all(c["check"] for c in document["chunks"])
    else:
        assert bundle.text.startswith("# Code for: cart item\n")
        assert all(f". {name}\n" in bundle.text for name in names)


def test_outline_keeps_signatures_docstrings_and_comments_only(cart):
    _, workspace = cart
    cart_result = next(r for r in workspace.search(everything(workspace)) if r.identity.qualified_name == "Cart")
    workspace.review.set_label(cart_result, Label.REFERENCE_ONLY, "the cart's shape")
    request = everything(workspace, symbol_type="class")
    code = bundle_of(workspace, request)
    outline = bundle_of(workspace, request, reference_as="outline")
    _, history, _ = sections(outline.text)
    for kept in ("class Cart:", '"""A shopping cart of items and their prices."""', "def add_item(self, sku, price):",
                 '"""Put an item in the cart."""', "# an item that is not there is not an error"):
        assert kept in history, kept
    for body in ("self.items[sku] = Decimal(price)", "self.items.pop(sku, None)", "return sum("):
        assert body not in outline.text, body
    assert "Note: the cart's shape" in history
    assert outline.total_tokens < code.total_tokens


# the command line ----------------------------------------------------------------------------


def test_export_refuses_to_overwrite_and_to_write_inside_the_index(cart, tmp_path, capsys):
    builder, workspace = cart
    base = ["export", "cart item", "--repo", str(builder.path), "--branch", "main", "--index", str(workspace.index_dir)]
    out = tmp_path / "bundle.md"
    assert main([*base, "--out", str(out)]) == 0
    first = out.read_text()
    out.write_text("mine")
    capsys.readouterr()
    assert main([*base, "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == f"branchwise: {out} exists; pass --force to overwrite it"
    assert out.read_text() == "mine"
    assert main([*base, "--out", str(out), "--force"]) == 0 and out.read_text() != "mine"
    assert "## 1. " in first

    inside = workspace.index_dir / "bundle.md"
    assert main([*base, "--out", str(inside), "--force"]) == 2
    assert "inside the index directory" in capsys.readouterr().err
    assert not inside.exists()


def test_search_appends_a_stats_record_unless_told_not_to(cart, capsys):
    builder, workspace = cart
    base = ["search", "cart item", "--repo", str(builder.path), "--branch", "main", "--index", str(workspace.index_dir)]
    assert main([*base, "--json"]) == 0
    records, _ = stats.load_records(workspace.index_dir)
    assert [r["kind"] for r in records] == ["search"]
    assert records[0]["results"] == len(json.loads(capsys.readouterr().out)["results"])
    assert main([*base, "--no-stats"]) == 0
    assert len(stats.load_records(workspace.index_dir)[0]) == 1


def test_stats_on_a_missing_index_directory_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["stats", "--index", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    # the one message every reading command gives for a missing index
    assert err.strip() == f"branchwise: no index at {tmp_path / 'nowhere'}; run branchwise index first"
    assert err.count("\n") == 1


def test_an_index_at_head_with_only_requested_history_recommends_no_reindex(moved):
    builder, workspace = moved
    request = SearchRequest("cancel order idempotency key email", "main", top_k=10, mode="lexical", scope="all")
    for _ in range(4):
        results = workspace.search(request)
        assert any(r.history for r in results)
        record = workspace.review.record_session("search", "main", results, target_commit=builder.head())
        assert record["failures"] == 0 and record["index_behind"] is False
    summary = stats.summarize(workspace.index_dir, workspace.repo.name, workspace.config)
    assert summary["recommendation"]["reindex"] is False
    assert all(point["failure_ratio"] == 0 for point in summary["trend"])


def test_uncommitted_edits_do_not_call_for_a_reindex(cart):
    builder, workspace = cart
    # three method bodies (a class whose outline is unchanged stays current): over the threshold
    builder.write("src/shop/cart.py", CART.replace("Decimal(0)", "Decimal('0.00')").replace("pop(sku, None)", "pop(sku)")
                  .replace("Decimal(price)", "Decimal(str(price))"))
    results = workspace.search(everything(workspace))
    for _ in range(2):
        record = workspace.review.record_session("search", "main", results, target_commit=builder.head())
    assert record["failures"] > 0 and record["reindexable_failures"] == 0
    advice = stats.summarize(workspace.index_dir, workspace.repo.name, workspace.config)["recommendation"]
    assert advice["reindex"] is False and "re-indexing would not change" in advice["why"]


def test_failures_by_directory_sit_at_the_deepest_directory_with_enough_of_them():
    counts = {"src/orders/handlers": 2, "src/orders/services": 1, "src/notify": 1, "docs": 1}
    assert stats.deepest_directories(counts, 2) == {"src/orders/handlers": 2, "src/orders": 1, "src": 1, "docs": 1}
    assert stats.deepest_directories(counts, 3) == {"src/orders": 3, "src": 1, "docs": 1}


def test_workspace_context_bundle_is_the_one_call_for_tools(cart):
    _, workspace = cart
    bundle = workspace.review.context_bundle("cart item", "main", max_tokens=400, format="json")
    document = json.loads(bundle.text)
    assert document["total_tokens"] == bundle.manifest["total_tokens"] <= 400
    assert bundle.manifest["format"] == "json" and bundle.manifest["bundle"] is None
    assert not (workspace.index_dir / "stats.jsonl").exists()  # nothing written, nothing logged


def test_a_lone_method_can_carry_its_class_outline(cart_on_each_backend):
    _, workspace = cart_on_each_backend
    request = everything(workspace, "add item price", symbol_type="method")
    bundle = bundle_of(workspace, request, class_outline=True)
    add = next(p for p in bundle.pieces if p.result.identity.qualified_name == "Cart.add_item")
    assert add.context[0] == "from decimal import Decimal"
    outline = "\n".join(add.context[1:])
    assert outline.startswith('class Cart:\n    """A shopping cart of items and their prices."""')
    assert "    def remove_item(self, sku):" in outline and "    def total(self):" in outline
    assert "self.items.pop(sku, None)" not in outline and "return sum(" not in outline
