"""Output that says only what is true: counts in the right number, headings that match their
rows, `verify` naming the symbol, and `labels clear` for the label no command could remove."""

from __future__ import annotations

import json

import pytest
from gittools import GitBuilder

from branchwise.review import stats
from branchwise.wording import plural
from branchwise_cli.main import main


def test_plural():
    assert [plural(n, "session") for n in (0, 1, 2)] == ["0 sessions", "1 session", "2 sessions"]
    assert plural(1, "entry", "entries") == "1 entry" and plural(3, "entry", "entries") == "3 entries"


def _log(index_dir, directories: dict[str, int], sessions: int = 1) -> None:
    index_dir.mkdir(exist_ok=True)
    record = {"time": "2026-01-01T00:00:00+00:00", "kind": "search", "repository": "r", "branch": "main",
              "failure_ratio": 0.5, "failures": sum(directories.values()), "considered": 2 * sum(directories.values()),
              "directories": directories}
    (index_dir / "stats.jsonl").write_text("".join(json.dumps(record) + "\n" for _ in range(sessions)))


def test_stats_headings_match_their_rows(tmp_path):
    # src/orders/a + src/orders/b gather at src/orders (3 >= 2); src/click stays alone with 1
    _log(tmp_path / "index", {"src/orders/a": 2, "src/orders/b": 1, "docs/click": 1})
    summary = stats.summarize(tmp_path / "index")
    assert summary["by_directory"] == {"src/orders/a": 2, "src/orders": 1, "docs/click": 1}
    assert summary["directories_below_min"] == ["docs/click"]
    text = stats.render_text(summary)
    grouped, scattered = text.split("Failures in directories with fewer than 2")
    assert "Failures by directory (each at its deepest directory with at least 2):" in grouped
    assert "src/orders/a  2" in grouped and "src/orders    1" in grouped and "docs/click" not in grouped
    assert "docs/click" in scattered and "src/orders" not in scattered
    assert "(1 session; " in text and "Last 1 session:" in text and "1 sessions" not in text


def test_only_scattered_failures_have_no_grouped_heading(tmp_path):
    _log(tmp_path / "index", {"src/click": 1, "docs": 1})
    text = stats.render_text(stats.summarize(tmp_path / "index"))
    assert "Failures by directory" not in text  # nothing reached 2: no heading claims otherwise
    assert "Failures in directories with fewer than 2 (none of their parents has 2):\n  src/click  1\n  docs       1" in text


@pytest.fixture
def indexed(tmp_path, monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    git = GitBuilder(tmp_path / "proj")
    git.write("src/orders.py", "def cancel_order(order_id):\n    return order_id\n\n\n"
                               "def place_order(cart):\n    return cart\n")
    git.commit("start")
    index = str(tmp_path / "index")
    assert main(["index", str(git.path), "--index", index, "--quiet"]) == 0
    return git, index


def test_verify_names_the_symbol_and_a_tour_counts_one_step(indexed, tmp_path, capsys):
    git, index = indexed
    capsys.readouterr()
    assert main(["search", "cancel an order", "--repo", str(git.path), "--branch", "main", "--index", index,
                 "--json", "--top-k", "1"]) == 0
    saved = tmp_path / "saved.json"
    saved.write_text(capsys.readouterr().out)
    [result] = json.loads(saved.read_text())["results"]
    assert main(["verify", str(saved), "--repo", str(git.path), "--index", index]) == 0
    [line] = capsys.readouterr().out.strip().splitlines()
    assert f" {result['path']}::{result['qualified_name']}  " in line, line
    tour = tmp_path / "t.toml"
    tour.write_text('title = "t"\n[[steps]]\npath = "src/orders.py"\nqualified_name = "place_order"\n')
    assert main(["tour", "check", str(tour), "--repo", str(git.path), "--index", index]) == 0
    assert capsys.readouterr().out.startswith("t: 1 step against ")


def test_labels_clear_removes_a_symbols_labels(indexed, capsys):
    from branchwise.models import Label
    from branchwise.workspace import Workspace

    git, index = indexed
    ws = Workspace(git.path, index)
    ws.review.set_label(ws.live_symbol("main", "src/orders.py", "cancel_order"), Label.EXCLUDE, note="old idea")
    ws.review.set_label(ws.live_symbol("main", "src/orders.py", "place_order"), Label.USE)
    ws.close()
    args = ["--repo", str(git.path), "--index", index]
    capsys.readouterr()
    assert main(["labels", "clear", "src/orders.py::cancel_order", *args]) == 0
    assert capsys.readouterr().out.strip() == "cleared 1 label of src/orders.py::cancel_order"
    assert main(["labels", "list", *args, "--json"]) == 0
    left = json.loads(capsys.readouterr().out)["labels"]
    assert [(l["qualified_name"], l["label"]) for l in left] == [("place_order", "use")]
    assert main(["labels", "clear", "src/orders.py::cancel_order", *args]) == 2
    assert capsys.readouterr().err.strip() == "branchwise: src/orders.py::cancel_order has no label"
    assert main(["labels", "clear", "cancel_order", *args]) == 2
    assert "PATH::QUALIFIED_NAME" in capsys.readouterr().err
