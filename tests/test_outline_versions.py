"""Classes are versioned by their outline: a method edit is the method's new version alone.

Real git repositories, the real index (SQLite, FAISS) and the deterministic hashing embedder:
branches that edit different method bodies share one class version, every reader still gets
the class's exact lines from the branch it asked about, and verification says the method is
`changed` while its class, whose outline did not change, is `current`.
"""

from __future__ import annotations

import pytest
from gittools import GitBuilder

from branchwise.models import Verdict
from branchwise.search.hybrid import SearchRequest
from branchwise.verify.views import delivered
from branchwise.workspace import Workspace

CART = '''"""A shopping cart."""


class Cart:
    """Items and their prices."""

    currency = "EUR"

    def add_item(self, sku, price):
        self.items[sku] = price
        return self

    def total(self):
        return sum(self.items.values())
'''
FASTER_ADD = CART.replace("        self.items[sku] = price\n", "        self.items.setdefault(sku, price)\n")
CHEAPER_TOTAL = CART.replace("return sum(self.items.values())", "return round(sum(self.items.values()), 2)")
PATH = "src/shop/cart.py"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture
def shop(tmp_path):
    """`main` with the cart, `fast-add` and `rounding` each editing one method body."""
    builder = GitBuilder(tmp_path / "shop")
    builder.write(PATH, CART)
    builder.commit("cart")
    for branch, text in (("fast-add", FASTER_ADD), ("rounding", CHEAPER_TOTAL)):
        builder.branch(branch, "main")
        builder.checkout(branch)
        builder.write(PATH, text)
        builder.commit(branch)
    builder.checkout("main")
    workspace = Workspace(builder.path, tmp_path / "index")
    summaries = workspace.index(["main", "fast-add", "rounding"])
    yield builder, workspace, summaries
    workspace.close()


def live(workspace, branch: str) -> dict[str, str]:
    return {row["qualified_name"]: row["content_hash"] for row in workspace.inspect(branch)}


def found(workspace, branch: str, name: str, query: str = "cart add item total"):
    request = SearchRequest(query, branch, top_k=20, mode="lexical")
    return next(r for r in workspace.search(request) if r.identity.qualified_name == name)


def test_a_method_edit_adds_the_method_version_only(shop):
    _, workspace, summaries = shop
    main, fast, rounding = (live(workspace, b) for b in ("main", "fast-add", "rounding"))
    assert main["Cart"] == fast["Cart"] == rounding["Cart"]  # one class version for three branches
    assert fast["Cart.add_item"] != main["Cart.add_item"] and fast["Cart.total"] == main["Cart.total"]
    assert rounding["Cart.total"] != main["Cart.total"]
    assert [s.versions_added for s in summaries[1:]] == [1, 1]


def test_each_branch_reads_its_own_whole_class(shop):
    _, workspace, _ = shop
    for branch, text in (("main", CART), ("fast-add", FASTER_ADD), ("rounding", CHEAPER_TOTAL)):
        cart = found(workspace, branch, "Cart")
        assert cart.text == text.split("\n", 3)[3].rstrip("\n")  # the class's exact lines there
        assert cart.verdict in (Verdict.CURRENT, Verdict.UNCHANGED_OLDER), cart.reason


def test_a_method_edit_in_the_work_tree_changes_the_method_not_the_class(shop):
    builder, workspace, _ = shop
    builder.write(PATH, FASTER_ADD)  # main is checked out: the work tree is the target
    add = found(workspace, "main", "Cart.add_item")
    cart = found(workspace, "main", "Cart")
    total = found(workspace, "main", "Cart.total")
    assert add.verdict is Verdict.CHANGED and "setdefault" in add.current_text
    assert total.verdict is Verdict.CURRENT
    # the class's full text is what the result carries: a member edit changes it, and the
    # reason names the member; its outline, verified as an outline, is current
    assert cart.verdict is Verdict.CHANGED and cart.changed_members == ("Cart.add_item",), cart.reason
    assert "Cart.add_item" in cart.reason
    assert "setdefault" in cart.current_text and "setdefault" not in cart.text
    outline = delivered(cart, "outline")
    assert (outline.text_kind, outline.verdict) == ("outline", Verdict.CURRENT), outline.reason
    assert "def add_item(self, sku, price):" in outline.text and "setdefault" not in outline.text


def test_an_outline_edit_changes_the_class(shop):
    builder, workspace, _ = shop
    for edited in (CART.replace("def total(self):", "def total(self, tax=0):"),  # a member signature
                   CART.replace("def total(self):", "def grand_total(self):"),  # a member renamed
                   CART.replace('currency = "EUR"', 'currency = "USD"'),  # a field
                   CART.replace("Items and their prices.", "Items, prices.")):  # the docstring
        builder.write(PATH, edited)
        cart = found(workspace, "main", "Cart")
        assert cart.verdict is Verdict.CHANGED, (edited, cart.reason)
        assert cart.current_text == edited.split("\n", 3)[3].rstrip("\n")


def test_an_export_of_the_class_holds_each_line_once(shop, tmp_path):
    _, workspace, _ = shop
    request = SearchRequest("cart add item total", "fast-add", top_k=20, mode="lexical")
    report = workspace.review.export(request, tmp_path / "bundle.md")
    text = (tmp_path / "bundle.md").read_text()
    assert text.count("self.items.setdefault(sku, price)") == 1  # fast-add's method body, once
    assert "self.items[sku] = price" not in text  # not main's
    assert text.count('currency = "EUR"') == 1
    assert "\ue000" not in text  # no marker of the stored skeleton leaks out
    assert report is not None


def test_a_branch_diff_names_the_method_and_shows_whole_classes(shop):
    builder, workspace, _ = shop
    diff = workspace.diff("fast-add", "main", impact=False)
    assert [(c.kind, c.qualified_name) for c in diff.changes] == [("changed", "Cart.add_item")]
    builder.checkout("fast-add")
    builder.write(PATH, FASTER_ADD.replace("def total(self):", "def total(self, tax=0):"))
    builder.commit("a tax on the total")
    builder.checkout("main")
    diff = workspace.diff("fast-add", "main", impact=False)
    changed = {c.qualified_name: c for c in diff.changes}
    assert set(changed) == {"Cart", "Cart.add_item", "Cart.total"}  # a member signature is outline
    assert changed["Cart"].new.text.startswith("class Cart:") and "\ue000" not in changed["Cart"].new.text
    assert "setdefault" in changed["Cart"].new.text


def test_a_tour_step_recorded_with_the_class_lines_hash_still_holds(shop, tmp_path, capsys):
    """Tours live in repositories: a class step written before outline keys names the hash of
    the class's lines, and a later method edit leaves it `ok`, as the class's outline is."""
    import json
    from dataclasses import replace

    from branchwise.git.repo import GitRepo
    from branchwise.review.tours import Tour
    from branchwise.review.tours.record import step_at
    from branchwise_cli.main import main

    builder, workspace, _ = shop
    workspace.close()
    repo = GitRepo(builder.path)
    commit = builder.head("main")
    step = step_at(repo, commit, PATH, "Cart", "the cart")
    [cart] = [c for c in workspace_chunks(repo, commit) if c.identity.qualified_name == "Cart"]
    assert step.content_hash == cart.content_hash != cart.lines_hash
    path = Tour("cart", steps=[replace(step, content_hash=cart.lines_hash)]).save(builder.path / "cart.toml")
    builder.write(PATH, CHEAPER_TOTAL)
    builder.commit("round the total on main")
    code = main(["tour", "check", str(path), "--repo", str(builder.path), "--index", str(tmp_path / "index"), "--json"])
    [checked] = json.loads(capsys.readouterr().out)["steps"]
    assert (code, checked["status"], checked["verdict"]) == (0, "ok", "unchanged-older"), checked["reason"]


def workspace_chunks(repo, commit):
    from branchwise.chunking import chunk_file

    return chunk_file(repo.name, PATH, repo.read_blob(repo.blob_at(commit, PATH))).chunks
