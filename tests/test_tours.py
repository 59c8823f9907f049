"""Tours on the shop sample and a CodeTour round trip, through the CLI and the core.

The shop tour is written at the March commit with steps on `CancelOrderHandler` (deleted in
September), `CreateOrderHandler.handle` (unchanged since) and `EmailNotifier` (its file was
renamed email.py -> mailer.py), and checked at main's tip.
"""

from __future__ import annotations

import json
import subprocess
import tomllib

import pytest
from gittools import GitBuilder

from branchwise.chunking import chunk_file
from branchwise.git.repo import GitRepo
from branchwise.review.tours import Step, Tour, load_tour
from branchwise.review.tours.record import step_at
from branchwise.verify.symbols import innermost_at
from branchwise_cli.main import main

MARCH = [
    ("src/orders/handlers/cancel_handler.py", "CancelOrderHandler", "Cancelling is idempotent: see the key check."),
    ("src/orders/handlers/create_handler.py", "CreateOrderHandler.handle", "Orders are created here."),
    ("src/notifications/email.py", "EmailNotifier", "The customer hears about it by e-mail."),
]


def _march_commit(repo: GitRepo) -> str:
    out = subprocess.run(["git", "log", "--reverse", "--format=%H", "main"], cwd=repo.path,
                         capture_output=True, text=True, check=True).stdout
    return out.split()[0]


def _anchored_step(repo: GitRepo, commit: str, path: str, name: str, note: str) -> Step:
    return step_at(repo, commit, path, name, note)


@pytest.fixture
def march_tour(shop_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    repo = GitRepo(shop_repo)
    march = _march_commit(repo)
    tour = Tour(title="Cancelling an order", description="Written in March",
                steps=[_anchored_step(repo, march, *step) for step in MARCH])
    path = tour.save(shop_repo / ".branchwise" / "tours" / "cancel.toml")
    return shop_repo, path


def _tour(args, shop_repo, tmp_path, *extra):
    return main(["tour", *args, "--repo", str(shop_repo), "--index", str(tmp_path / "index"), *extra])


def test_check_reports_deleted_unchanged_and_moved_steps(march_tour, tmp_path, capsys):
    shop, path = march_tour
    assert _tour(["check", "cancel"], shop, tmp_path, "--json") == 1
    data = json.loads(capsys.readouterr().out)
    deleted, unchanged, moved = data["steps"]
    assert (deleted["verdict"], deleted["status"]) == ("deleted", "deleted")
    assert deleted["path"] is None and "file deleted" in deleted["reason"]
    assert unchanged["verdict"] == "unchanged-older" and unchanged["status"] == "ok"
    assert unchanged["path"] == "src/orders/handlers/create_handler.py"
    # text intact in another file: a passing verdict, with the new place
    assert (moved["verdict"], moved["status"]) == ("unchanged-older", "moved")
    assert moved["path"] == "src/notifications/mailer.py" and moved["qualified_name"] == "EmailNotifier"
    assert "moved src/notifications/email.py -> src/notifications/mailer.py#L" in moved["reason"]
    mailer = (shop / "src/notifications/mailer.py").read_text().splitlines()
    assert mailer[moved["start_line"] - 1].startswith("class EmailNotifier")
    assert data["decayed"] == 1


def test_fix_reanchors_the_moved_step_and_leaves_the_deleted_one(march_tour, tmp_path, capsys):
    shop, path = march_tour
    assert _tour(["fix", str(path)], shop, tmp_path) == 1
    out = capsys.readouterr().out
    assert "re-anchored step 3 (moved)" in out and "needs a human: step 1 (deleted)" in out
    steps = tomllib.loads(path.read_text())["steps"]
    assert steps[2]["path"] == "src/notifications/mailer.py"
    assert steps[0]["path"] == "src/orders/handlers/cancel_handler.py"  # left for a human
    assert _tour(["check", str(path)], shop, tmp_path) == 1  # the deleted step still decays the tour
    capsys.readouterr()
    tour = load_tour(path)
    del tour.steps[0]
    tour.save()
    assert _tour(["check", str(path)], shop, tmp_path, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["verdict"] for s in data["steps"]] == ["current", "current"]


def test_show_prints_notes_headers_and_current_code(march_tour, tmp_path, capsys):
    shop, path = march_tour
    assert _tour(["show", "cancel"], shop, tmp_path) == 0
    out = capsys.readouterr().out
    assert "Source: src/notifications/mailer.py#L" in out and "(EmailNotifier)" in out
    assert "class EmailNotifier" in out and "The customer hears about it by e-mail." in out
    assert "Source: src/orders/handlers/cancel_handler.py (CancelOrderHandler; deleted on main)" in out


def test_a_renamed_function_is_found_and_reanchored(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "r")
    git.write("m.py", "def first(x):\n    return x\n\n\ndef parse_total(text):\n    return sum(map(int, text.split()))\n")
    start = git.commit("start")
    git.write("m.py", "def first(x):\n    return x\n\n\ndef sum_numbers(text):\n    return sum(map(int, text.split()))\n")
    git.commit("rename")
    repo = GitRepo(git.path)
    tour = Tour("t", steps=[_anchored_step(repo, start, "m.py", "parse_total", "totals")])
    path = tour.save(git.path / "t.toml")
    assert _tour(["check", str(path)], git.path, tmp_path, "--json") == 1
    [step] = json.loads(capsys.readouterr().out)["steps"]
    assert step["status"] == "renamed" and step["qualified_name"] == "sum_numbers"
    assert _tour(["fix", str(path)], git.path, tmp_path) == 0
    assert load_tour(path).steps[0].qualified_name == "sum_numbers"
    assert _tour(["check", str(path)], git.path, tmp_path) == 0


def test_codetour_round_trip_keeps_steps_on_their_symbols(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "ct")
    body = "class Cart:\n    def add(self, item):\n        self.items.append(item)\n\n    def total(self):\n        return sum(self.items)\n\n\ndef checkout(cart):\n    return cart.total()\n"
    git.write("shop/cart.py", body)
    git.write("README.md", "# Shop\n")
    old = git.commit("start")
    git.write("shop/cart.py", '"""Carts."""\n\nimport math\n\nTAX = 0.2\n\n\n' + body)  # 7 lines above
    git.commit("shift")
    codetour = {"title": "Cart", "ref": old, "steps": [
        {"file": "shop/cart.py", "line": 6, "description": "the total"},
        {"file": "shop/cart.py", "selection": {"start": {"line": 10, "character": 1}, "end": {"line": 10, "character": 5}},
         "description": "checkout"},
        {"title": "Welcome", "description": "a step without a file"},
        {"directory": "shop", "description": "the shop package"},
        {"file": "./README.md", "description": "a whole file"},
        {"file": "shop/gone.py", "line": 1, "description": "not in the repository"},
    ]}
    source = tmp_path / "cart.tour"
    source.write_text(json.dumps(codetour))
    assert _tour(["import-codetour", str(source)], git.path, tmp_path, "--out", "cart") == 0
    out = capsys.readouterr().out
    assert "skipped step 6: no file shop/gone.py" in out and "skipped step 3" not in out
    tour = load_tour(git.path / ".branchwise/tours/cart.toml")
    assert [s.kind for s in tour.steps] == ["symbol", "symbol", "note", "directory", "file"]
    assert [s.qualified_name for s in tour.steps[:2]] == ["Cart.total", "checkout"]
    assert tour.steps[2].note == "Welcome\n\na step without a file"
    assert (tour.steps[3].directory, tour.steps[4].path) == ("shop", "README.md")
    assert _tour(["check", "cart"], git.path, tmp_path, "--json") == 0  # lines shifted, text identical: not decayed
    statuses = [(s["verdict"], s["status"]) for s in json.loads(capsys.readouterr().out)["steps"]]
    assert statuses[2:] == [("unverifiable", "note"), ("current", "ok"), ("current", "ok")]
    out = tmp_path / "cart-now.tour"
    assert _tour(["export-codetour", "cart"], git.path, tmp_path, "--out", str(out), "--branch", "main") == 0
    exported = json.loads(out.read_text())
    repo = GitRepo(git.path)
    chunks = chunk_file(repo.name, "shop/cart.py", (git.path / "shop/cart.py").read_bytes()).chunks
    code = exported["steps"][:2]
    assert [innermost_at(chunks, s["line"]).identity.qualified_name for s in code] == ["Cart.total", "checkout"]
    assert [s["line"] for s in code] == [12, 16]
    assert exported["steps"][2:] == [
        {"title": "Welcome", "description": "Welcome\n\na step without a file"},
        {"directory": "shop", "description": "the shop package"},
        {"file": "README.md", "description": "a whole file", "title": ""},
    ]
    assert exported["ref"] == repo.resolve("main")


def test_export_codetour_leaves_out_deleted_steps_and_says_so(march_tour, tmp_path, capsys):
    shop, path = march_tour
    out = tmp_path / "cancel.tour"
    assert _tour(["export-codetour", "cancel", "--branch", "main"], shop, tmp_path, "--out", str(out)) == 0
    said = capsys.readouterr().out
    assert "left out step 1 (deleted): src/orders/handlers/cancel_handler.py (CancelOrderHandler)" in said
    steps = json.loads(out.read_text())["steps"]
    assert [s["file"] for s in steps] == ["src/orders/handlers/create_handler.py", "src/notifications/mailer.py"]


def test_export_codetour_refuses_to_overwrite_without_force(march_tour, tmp_path, capsys):
    shop, path = march_tour
    out = tmp_path / "cancel.tour"
    out.write_text("keep me")
    assert _tour(["export-codetour", "cancel", "--branch", "main"], shop, tmp_path, "--out", str(out)) == 2
    assert capsys.readouterr().err.strip() == f"branchwise: {out} exists; pass --force to overwrite it"
    assert out.read_text() == "keep me"
    assert _tour(["export-codetour", "cancel", "--branch", "main"], shop, tmp_path, "--out", str(out), "--force") == 0
    assert json.loads(out.read_text())["title"] == "Cancelling an order"


@pytest.mark.parametrize("steps, says", [
    ([{"file": "../outside.py", "line": 1}], "file '../outside.py' is outside the repository"),
    ([{"file": "/etc/passwd", "line": 1}], "file '/etc/passwd' is outside the repository"),
    ([{"directory": "a/../../b"}], "directory 'a/../../b' is outside the repository"),
    ([1, 2], "step 1: a step must be an object"),
    ([{"file": 7, "line": 1}], "step 1: `file` must be a string"),
    ([{"file": "m.py", "line": "3"}], "step 1: `line` must be a positive integer"),
    ([{"file": "m.py", "selection": "all"}], "step 1: `selection` must have a `start` with a positive `line`"),
    ([{"file": "m.py", "line": 1, "description": ["x"]}], "step 1: `description` must be a string"),
    ([{"file": "gone.py", "line": 1}], "no step of the CodeTour could be imported (step 1: no file gone.py at HEAD)"),
])
def test_bad_codetour_steps_are_refused_with_one_line(tmp_path, monkeypatch, capsys, steps, says):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "r")
    git.write("m.py", "def f():\n    return 1\n")
    git.commit("start")
    source = tmp_path / "bad.tour"
    source.write_text(json.dumps({"title": "bad", "steps": steps}))
    assert _tour(["import-codetour", str(source)], git.path, tmp_path, "--out", "bad") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("branchwise: ") and says in err[0], err
    assert not (git.path / ".branchwise/tours/bad.toml").exists()


def test_import_codetour_refuses_to_overwrite_a_tour_without_force(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "r")
    git.write("m.py", "def f():\n    return 1\n")
    git.commit("start")
    existing = git.path / ".branchwise/tours/t.toml"
    existing.parent.mkdir(parents=True)
    existing.write_text('title = "mine"\n')
    source = tmp_path / "t.tour"
    source.write_text(json.dumps({"title": "theirs", "steps": [{"file": "m.py", "line": 2}]}))
    assert _tour(["import-codetour", str(source)], git.path, tmp_path, "--out", "t") == 2
    assert "exists; pass --force" in capsys.readouterr().err
    assert existing.read_text() == 'title = "mine"\n'
    assert _tour(["import-codetour", str(source)], git.path, tmp_path, "--out", "t", "--force") == 0
    assert load_tour(existing).steps[0].qualified_name == "f"


def test_a_tour_step_path_outside_the_repository_is_one_line(tmp_path, shop_repo, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('title = "x"\n[[steps]]\npath = "../../etc/passwd"\nqualified_name = "f"\n')
    assert _tour(["check", str(bad)], shop_repo, tmp_path) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"branchwise: tour {bad}, step 1: path '../../etc/passwd' is not a path inside the repository"]


def test_a_hand_written_tour_is_anchored_at_its_own_commit(tmp_path, monkeypatch, capsys):
    """No hashes, as the example of docs/tours.md: written at one commit, code shifted, moved, edited
    and deleted at the next. Only the deleted step decays the tour."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "h")
    git.write("app/core.py", "def shifted(x):\n    return x + 1\n\n\ndef doomed(y):\n    return y * 2\n")
    git.write("app/util.py", "def travels(text):\n    return text.strip().lower()\n\n\ndef edited(n):\n    return n - 1\n")
    git.write(".branchwise/tours/walk.toml", "\n".join([
        'title = "Walk"',
        '[[steps]]', 'path = "app/core.py"', 'qualified_name = "shifted"', 'note = "one"',
        '[[steps]]', 'path = "app/util.py"', 'qualified_name = "travels"', 'note = "two"',
        '[[steps]]', 'path = "app/util.py"', 'qualified_name = "edited"', 'note = "three"',
        '[[steps]]', 'path = "app/core.py"', 'qualified_name = "doomed"', 'note = "four"',
    ]) + "\n")
    git.write(".branchwise/tours/kept.toml", "\n".join([  # the same steps but the one to be deleted
        'title = "Kept"',
        '[[steps]]', 'path = "app/core.py"', 'qualified_name = "shifted"',
        '[[steps]]', 'path = "app/util.py"', 'qualified_name = "travels"',
        '[[steps]]', 'path = "app/util.py"', 'qualified_name = "edited"',
    ]) + "\n")
    written = git.commit("code and its tours")
    git.write("app/core.py", "import os\n\nLIMIT = 3\n\n\ndef shifted(x):\n    return x + 1\n")  # doomed deleted
    git.write("app/text.py", "def travels(text):\n    return text.strip().lower()\n")  # moved as is
    git.write("app/numbers.py", "def edited(n):\n    return n - 2\n")  # moved and edited
    git.delete("app/util.py")
    git.commit("shift, move and delete")
    assert _tour(["check", "walk"], git.path, tmp_path, "--json") == 1
    shifted, travels, edited, doomed = json.loads(capsys.readouterr().out)["steps"]
    assert (shifted["verdict"], shifted["status"], shifted["path"]) == ("current", "lines-shifted", "app/core.py")
    assert (shifted["start_line"], shifted["end_line"]) == (6, 7)
    assert f"lines shifted 1-2 -> 6-7 since {written[:7]}" in shifted["reason"]
    assert "anchored now; `tour fix` records it" in shifted["reason"]
    assert (travels["verdict"], travels["status"], travels["path"]) == ("current", "moved", "app/text.py")
    assert "moved app/util.py -> app/text.py#L1-L2" in travels["reason"]
    assert (edited["verdict"], edited["status"], edited["path"]) == ("current", "moved", "app/numbers.py")
    assert edited["text"].rstrip() == "def edited(n):\n    return n - 2"
    assert (doomed["verdict"], doomed["status"], doomed["path"]) == ("deleted", "deleted", None)
    # shifted, moved and moved-and-edited steps are no decay: without the deleted one, exit 0
    assert _tour(["check", "kept"], git.path, tmp_path, "--json") == 0
    kept = json.loads(capsys.readouterr().out)["steps"]
    assert [(s["status"], s["path"]) for s in kept] == [
        ("lines-shifted", "app/core.py"), ("moved", "app/text.py"), ("moved", "app/numbers.py")]
    capsys.readouterr()
    tour = git.path / ".branchwise/tours/walk.toml"
    assert _tour(["fix", str(tour)], git.path, tmp_path) == 1  # records hashes; the deleted step is left
    steps = tomllib.loads(tour.read_text())["steps"]
    assert [s["path"] for s in steps] == ["app/core.py", "app/text.py", "app/numbers.py", "app/core.py"]
    assert all(s.get("content_hash") for s in steps[:3]) and "content_hash" not in steps[3]


def test_a_hand_written_step_in_an_uncommitted_tour_is_anchored_at_the_target(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "u")
    git.write("m.py", "def here():\n    return 1\n")
    git.commit("start")
    tour = tmp_path / "walk.toml"  # outside the repository: no commit of its own
    tour.write_text('title = "w"\n[[steps]]\npath = "m.py"\nqualified_name = "here"\n'
                    '[[steps]]\npath = "m.py"\nqualified_name = "nowhere"\n')
    assert _tour(["check", str(tour)], git.path, tmp_path, "--json") == 1
    here, nowhere = json.loads(capsys.readouterr().out)["steps"]
    assert (here["verdict"], here["status"], here["reason"]) == ("current", "ok", "anchored now; `tour fix` records it")
    assert nowhere["verdict"] == "deleted" and "no commit of the tour file" in nowhere["reason"]


def test_bad_tour_files_are_one_line_and_exit_2(tmp_path, shop_repo, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('title = "x"\n[[steps]]\nqualified_name = "f"\nnote = "a name in no file"\n')
    assert _tour(["check", str(bad)], shop_repo, tmp_path) == 2
    assert _tour(["check", str(tmp_path / "missing.toml")], shop_repo, tmp_path) == 2
    assert _tour(["import-codetour", str(bad)], shop_repo, tmp_path, "--out", "x") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("branchwise: ") for line in err)


def test_record_from_labels_keeps_use_labelled_results_in_rank_order(shop_repo, tmp_path, monkeypatch, capsys):
    from branchwise.models import Label
    from branchwise.search.hybrid import SearchRequest
    from branchwise.workspace import Workspace

    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    ws = Workspace(shop_repo, tmp_path / "index")
    ws.index(["main"])
    query = "cancel an order and refund it"
    results = ws.search(SearchRequest(query, "main", top_k=6))
    chosen = [results[3], results[0]]  # labelled out of rank order; the tour follows the ranking
    for number, result in enumerate(chosen):
        ws.review.set_label(result, Label.USE, note=f"note {number}")
    ws.review.set_label(results[1], Label.REFERENCE_ONLY, note="not a step")
    ws.close()
    assert _tour(["record", "from-review", "--branch", "main", "--from-labels", "--query", query],
                 shop_repo, tmp_path) == 0
    tour = load_tour(shop_repo / ".branchwise/tours/from-review.toml")
    assert [(s.path, s.qualified_name, s.note) for s in tour.steps] == [
        (results[0].path, results[0].identity.qualified_name, "note 1"),
        (results[3].path, results[3].identity.qualified_name, "note 0"),
    ]
    assert tour.title == "from review"
    capsys.readouterr()
    assert _tour(["check", "from-review", "--branch", "main"], shop_repo, tmp_path, "--json") == 0
    assert {s["verdict"] for s in json.loads(capsys.readouterr().out)["steps"]} == {"current"}


def test_a_query_step_is_answered_on_the_branch(shop_repo, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    path = tmp_path / "q.toml"
    path.write_text('title = "q"\n[[steps]]\nquery = "ensure cancellable"\nnote = "the rule"\n')
    assert _tour(["check", str(path), "--branch", "main"], shop_repo, tmp_path) == 2  # not indexed: says so
    assert "not in the index" in capsys.readouterr().err
    assert main(["index", str(shop_repo), "--branch", "main", "--index", str(tmp_path / "index")]) == 0
    capsys.readouterr()
    assert _tour(["check", str(path), "--branch", "main"], shop_repo, tmp_path, "--json") == 0
    [step] = json.loads(capsys.readouterr().out)["steps"]
    assert step["verdict"] == "current" and step["path"] and step["start_line"] >= 1
    assert step["qualified_name"] and step["end_line"] >= step["start_line"] and step["text"]


def test_a_step_with_a_hash_but_no_commit_is_looked_for_from_the_tour_files_commit(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "c")
    git.write("a.py", "def keep(x):\n    return x * 3\n")
    start = git.commit("start")
    step = step_at(GitRepo(git.path), start, "a.py", "keep", "kept")
    wrong = Step(note="a hash typed in by hand", path="a.py", qualified_name="keep", content_hash="0" * 64)
    step.commit = None
    Tour("c", steps=[step, wrong]).save(git.path / ".branchwise/tours/c.toml")
    git.commit("the tour")
    git.write("b.py", "def keep(x):\n    return x * 3\n")
    git.delete("a.py")
    git.commit("move")
    assert _tour(["check", "c"], git.path, tmp_path, "--json") == 1
    moved, typed = json.loads(capsys.readouterr().out)["steps"]
    assert (moved["verdict"], moved["status"], moved["path"]) == ("unchanged-older", "moved", "b.py")
    assert typed["verdict"] == "deleted"  # its hash is nowhere: not taken for the moved text


def test_a_hand_written_step_renamed_in_its_file_is_renamed_not_deleted(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "n")
    git.write("m.py", "def first(x):\n    return x\n\n\ndef parse_total(text):\n    return sum(map(int, text.split()))\n")
    git.write("walk.toml", 'title = "w"\n[[steps]]\npath = "m.py"\nqualified_name = "parse_total"\n')
    git.commit("start")
    git.write("m.py", "def first(x):\n    return x\n\n\ndef sum_numbers(text):\n    return sum(map(int, text.split()))\n")
    git.commit("rename")
    assert _tour(["check", str(git.path / "walk.toml")], git.path, tmp_path, "--json") == 1
    [step] = json.loads(capsys.readouterr().out)["steps"]
    assert (step["status"], step["qualified_name"], step["path"]) == ("renamed", "sum_numbers", "m.py")
    assert _tour(["fix", str(git.path / "walk.toml")], git.path, tmp_path) == 0
    assert load_tour(git.path / "walk.toml").steps[0].qualified_name == "sum_numbers"


def test_the_first_fix_after_record_reports_the_steps_it_anchored(tmp_path, monkeypatch, capsys):
    """`tour record` anchors each step at the commit the index saw; the branch has moved on since,
    so the first `tour fix` records the newer commit for every step and says so (issue 46: it
    used to print `(0 re-anchored, 0 left)` while rewriting every step)."""
    from branchwise.models import Label
    from branchwise.search.hybrid import SearchRequest
    from branchwise.workspace import Workspace

    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "r")
    git.write("app/orders.py", "def cancel_order(order):\n    return order\n\n\ndef refund(order):\n    return 0\n")
    indexed = git.commit("orders")
    ws = Workspace(git.path, tmp_path / "index")
    ws.index(["main"])
    for result in ws.search(SearchRequest("cancel order refund", "main", top_k=2)):
        ws.review.set_label(result, Label.USE)
    ws.close()
    git.write("README.md", "# Orders\n")
    moved_on = git.commit("docs")
    assert _tour(["record", "walk", "--branch", "main", "--from-labels"], git.path, tmp_path) == 0
    path = git.path / ".branchwise/tours/walk.toml"
    assert {s.commit for s in load_tour(path).steps} == {indexed}
    capsys.readouterr()
    assert _tour(["fix", "walk", "--branch", "main"], git.path, tmp_path) == 0
    out = capsys.readouterr().out
    assert out.count("anchored step ") == 2 and "(2 anchored, 0 re-anchored, 0 left)" in out, out
    assert {s.commit for s in load_tour(path).steps} == {moved_on}
    capsys.readouterr()
    assert _tour(["fix", "walk", "--branch", "main"], git.path, tmp_path) == 0  # nothing left to record
    assert "(0 anchored, 0 re-anchored, 0 left)" in capsys.readouterr().out


@pytest.mark.parametrize("action, own, foreign", [
    ("record", ("--from-labels", "--title"), ("--out", "--json")),
    ("import-codetour", ("--out", "--force"), ("--from-labels", "--branch")),
    ("check", ("--branch", "--json"), ("--from-labels", "--out")),
])
def test_each_tour_action_prints_its_own_help(action, own, foreign, capsys):
    with pytest.raises(SystemExit) as done:
        main(["tour", action, "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: branchwise tour {action} ")
    assert all(flag in out for flag in own) and not any(flag in out for flag in foreign), out
    with pytest.raises(SystemExit):
        main(["tour", "--help"])
    assert "{check,fix,show,record,import-codetour,export-codetour}" in capsys.readouterr().out
