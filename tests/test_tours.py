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

from branchwise.chunking import chunk_file
from branchwise_cli.main import main
from branchwise.gitrepo import GitRepo
from branchwise.symbols import innermost_at
from branchwise.tours import Step, Tour, load_tour
from branchwise.tours.record import step_at
from gittools import GitBuilder

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
    assert (moved["verdict"], moved["status"]) == ("deleted", "moved")
    assert moved["path"] == "src/notifications/mailer.py" and moved["qualified_name"] == "EmailNotifier"
    mailer = (shop / "src/notifications/mailer.py").read_text().splitlines()
    assert mailer[moved["start_line"] - 1].startswith("class EmailNotifier")
    assert data["decayed"] == 2


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
    old = git.commit("start")
    git.write("shop/cart.py", '"""Carts."""\n\nimport math\n\nTAX = 0.2\n\n\n' + body)  # 7 lines above
    git.commit("shift")
    codetour = {"title": "Cart", "ref": old, "steps": [
        {"file": "shop/cart.py", "line": 6, "description": "the total"},
        {"file": "shop/cart.py", "selection": {"start": {"line": 10, "character": 1}, "end": {"line": 10, "character": 5}},
         "description": "checkout"},
        {"description": "a step without a file"},
    ]}
    source = tmp_path / "cart.tour"
    source.write_text(json.dumps(codetour))
    assert _tour(["import-codetour", str(source)], git.path, tmp_path, "--out", "cart") == 0
    assert "skipped step 3" in capsys.readouterr().out
    tour = load_tour(git.path / ".branchwise/tours/cart.toml")
    assert [s.qualified_name for s in tour.steps] == ["Cart.total", "checkout"]
    assert _tour(["check", "cart"], git.path, tmp_path) == 0  # lines shifted, text identical: not decayed
    out = tmp_path / "cart-now.tour"
    assert _tour(["export-codetour", "cart"], git.path, tmp_path, "--out", str(out), "--branch", "main") == 0
    exported = json.loads(out.read_text())
    repo = GitRepo(git.path)
    chunks = chunk_file(repo.name, "shop/cart.py", (git.path / "shop/cart.py").read_bytes()).chunks
    assert [innermost_at(chunks, s["line"]).identity.qualified_name for s in exported["steps"]] == ["Cart.total", "checkout"]
    assert [s["line"] for s in exported["steps"]] == [12, 16]
    assert exported["ref"] == repo.resolve("main")


def test_bad_tour_files_are_one_line_and_exit_2(tmp_path, shop_repo, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text('title = "x"\n[[steps]]\nnote = "no anchor"\n')
    assert _tour(["check", str(bad)], shop_repo, tmp_path) == 2
    assert _tour(["check", str(tmp_path / "missing.toml")], shop_repo, tmp_path) == 2
    assert _tour(["import-codetour", str(bad)], shop_repo, tmp_path, "--out", "x") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("branchwise: ") for line in err)


def test_record_from_labels_keeps_use_labelled_results_in_rank_order(shop_repo, tmp_path, monkeypatch, capsys):
    from branchwise.models import Label
    from branchwise.search import SearchRequest
    from branchwise.workspace import Workspace

    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    ws = Workspace(shop_repo, tmp_path / "index")
    ws.index(["main"])
    query = "cancel an order and refund it"
    results = ws.search(SearchRequest(query, "main", top_k=6))
    chosen = [results[3], results[0]]  # labelled out of rank order; the tour follows the ranking
    for number, result in enumerate(chosen):
        ws.set_label(result, Label.USE, note=f"note {number}")
    ws.set_label(results[1], Label.REFERENCE_ONLY, note="not a step")
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
