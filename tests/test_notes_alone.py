"""A note stands on its own (issue 46, truth 4): a reviewer's note without a label leaves the
version's default handling as it is, and every reader reads it: the labels list (CLI text and
JSON), the labels file (export and import, older files too), the bundle, the statistics. An
index made before notes stood alone is widened in place with every label kept.
Real git, real SQLite indexes, the CLI as a user runs it (hashing embedder)."""

from __future__ import annotations

import json
import sqlite3
import tomllib

import pytest
from cli_run import branchwise
from gittools import GitBuilder

from branchwise.models import Label, Verdict
from branchwise.review.labels import default_label, effective_label, ensure_schema, list_labels, set_label
from branchwise.search.hybrid import SearchRequest
from branchwise.store.database import DB_FILE
from branchwise.workspace import Workspace

CANCEL = '''def cancel_order(order_id):
    """Cancel an order and release its stock."""
    return {"order": order_id, "state": "cancelled"}
'''
REFUND = '''def refund_payment(payment_id):
    """Refund a payment and notify the customer by email."""
    return {"payment": payment_id, "state": "refunded"}
'''
QUESTION = "refund a payment cancel an order"

#: the labels table as indexes made it before a note could stand alone (label NOT NULL)
OLD_LABELS = ("CREATE TABLE labels_old (repository TEXT NOT NULL, version_id TEXT NOT NULL, path TEXT NOT NULL, "
              "language TEXT NOT NULL, symbol_type TEXT NOT NULL, qualified_name TEXT NOT NULL, "
              "content_hash TEXT NOT NULL, label TEXT NOT NULL CHECK (label IN ('use', 'reference-only', "
              "'exclude')), note TEXT NOT NULL DEFAULT '', reviewer TEXT NOT NULL DEFAULT '', "
              "labelled_at TEXT NOT NULL, PRIMARY KEY (repository, version_id))")


@pytest.fixture
def shop(tmp_path, monkeypatch):
    """A repository whose refund function was deleted after a first index: with all history,
    `refund_payment` is `deleted` (reference-only by default), `cancel_order` current (use)."""
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")
    repo = GitBuilder(tmp_path / "shop")
    repo.write("shop/orders.py", CANCEL + "\n\n" + REFUND)
    repo.commit("orders and refunds")
    index = tmp_path / "index"
    for message in ("first index", "refunds go"):
        if message == "refunds go":
            repo.write("shop/orders.py", CANCEL)
            repo.commit(message)
        ws = Workspace(repo.path, index)
        ws.index(["main"])
        ws.close()
    return repo, index


def _two(ws):
    found = ws.search(SearchRequest(QUESTION, "main", scope="all"))
    deleted = next(r for r in found if r.identity.qualified_name == "refund_payment" and r.verdict is Verdict.DELETED)
    current = next(r for r in found if r.identity.qualified_name == "cancel_order" and r.verdict is Verdict.CURRENT)
    return deleted, current


def _label_required(index) -> int:
    conn = sqlite3.connect(index / DB_FILE)
    try:
        return next(row[3] for row in conn.execute("PRAGMA table_info(labels)") if row[1] == "label")
    finally:
        conn.close()


def test_a_note_alone_keeps_the_default_handling_in_every_reader(shop, tmp_path):
    repo, index = shop
    ws = Workspace(repo.path, index)
    deleted, current = _two(ws)
    ws.review.set_label(deleted, None, "the refund design")
    ws.review.set_label(current, None, "where cancelling starts")
    deleted, current = _two(ws)  # a later search reads them back
    assert (deleted.label, current.label) == (None, None)
    assert (effective_label(deleted), effective_label(current)) == (Label.REFERENCE_ONLY, Label.USE)
    assert {(r["qualified_name"], r["label"], r["note"]) for r in ws.review.labels()} == {
        ("refund_payment", None, "the refund design"), ("cancel_order", None, "where cancelling starts")}

    out = tmp_path / "bundle.md"  # the bundle: the note names the reference's topic, as a label's would
    ws.review.export(SearchRequest(QUESTION, "main", scope="all"), out)
    assert "Purpose: reference for the refund design only" in out.read_text()
    ws.close()

    common = ["--repo", repo.path, "--index", index]
    listed = json.loads(branchwise("labels", "list", *common, "--json", cwd=tmp_path).stdout)
    assert {(r["qualified_name"], r["label"]) for r in listed["labels"]} == {
        ("refund_payment", None), ("cancel_order", None)}
    text = branchwise("labels", "list", *common, cwd=tmp_path).stdout
    assert "  (note only)    shop/orders.py::refund_payment #" in text and "(the refund design)" in text

    logged = json.loads(branchwise("stats", *common, "--json", cwd=tmp_path).stdout)
    assert logged["overrides"] == 0  # a note is no departure from the default handling

    exported = tmp_path / "labels.toml"
    done = branchwise("labels", "export", exported, *common, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    tables = tomllib.loads(exported.read_text())["label"]
    assert [("label" in t, t["note"]) for t in sorted(tables, key=lambda t: t["qualified_name"])] == [
        (False, "where cancelling starts"), (False, "the refund design")]

    other = tmp_path / "other-index"  # another index of the same code takes the notes as they are
    ws = Workspace(repo.path, other)
    ws.index(["main"])
    ws.close()
    done = branchwise("labels", "import", exported, "--repo", repo.path, "--index", other, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    ws = Workspace(repo.path, other)
    assert {(r["qualified_name"], r["label"], r["note"]) for r in ws.review.labels()} == {
        ("refund_payment", None, "the refund design"), ("cancel_order", None, "where cancelling starts")}
    ws.close()


def test_a_labels_file_entry_with_neither_label_nor_note_is_one_clear_error(shop, tmp_path):
    repo, index = shop
    entry = ('[[label]]\npath = "shop/orders.py"\nqualified_name = "cancel_order"\nsymbol_type = "function"\n'
             f'language = "python"\ncontent_hash = "{"a" * 64}"\n')
    bad = tmp_path / "labels.toml"
    bad.write_text(entry + 'note = ""\n')
    done = branchwise("labels", "import", bad, "--repo", repo.path, "--index", index, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"branchwise: bad labels file {bad}: label #1 lacks 'label' (or a 'note' alone)"]
    older = tmp_path / "older.toml"  # a file written before notes stood alone: a label on each
    older.write_text(entry + 'label = "exclude"\nnote = "generated"\n')
    done = branchwise("labels", "import", older, "--repo", repo.path, "--index", index, cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_the_label_keys_clear_a_label_and_keep_its_note(shop):
    repo, index = shop
    ws = Workspace(repo.path, index)
    _deleted, current = _two(ws)
    ws.review.set_label(current, Label.EXCLUDE, "generated by hand")
    ws.review.set_label(current, None, "generated by hand")  # the label cleared, the note kept
    assert [(r["label"], r["note"]) for r in ws.review.labels()] == [(None, "generated by hand")]
    ws.review.set_label(current, None, "")  # neither: nothing is kept for the version
    assert ws.review.labels() == []
    ws.close()


def _make_old(index) -> None:
    """Give the index the labels table an index made before this change had, rows and all."""
    conn = sqlite3.connect(index / DB_FILE)
    with conn:
        conn.execute(OLD_LABELS)
        conn.execute("INSERT INTO labels_old SELECT * FROM labels")
        conn.execute("DROP TABLE labels")
        conn.execute("ALTER TABLE labels_old RENAME TO labels")
    conn.close()


def test_an_index_made_before_notes_stood_alone_keeps_every_label(shop, tmp_path):
    repo, index = shop
    ws = Workspace(repo.path, index)
    deleted, current = _two(ws)
    ws.review.set_label(deleted, Label.USE, "the refund design")
    ws.review.set_label(current, Label.EXCLUDE)
    before = ws.review.labels()
    ws.close()
    _make_old(index)
    assert _label_required(index) == 1

    listed = json.loads(branchwise("labels", "list", "--repo", repo.path, "--index", index, "--json",
                                   cwd=tmp_path).stdout)
    assert listed["labels"] == before  # the first command that opens it widens the table
    assert _label_required(index) == 0
    ws = Workspace(repo.path, index)
    assert ws.review.labels() == before
    deleted, current = _two(ws)
    assert (deleted.label, current.label) == (Label.USE, Label.EXCLUDE)
    ws.review.set_label(current, None, "now a note alone")  # what the old table refused
    assert [r["label"] for r in ws.review.labels() if r["qualified_name"] == "cancel_order"] == [None]
    assert default_label(current) is Label.USE
    ws.close()


def test_a_labels_database_that_is_not_an_index_is_widened_too(tmp_path):
    conn = sqlite3.connect(tmp_path / "labels.sqlite3")
    conn.execute(OLD_LABELS.replace("labels_old", "labels"))
    with conn:
        conn.execute("INSERT INTO labels VALUES ('shop', 'v1', 'a.py', 'python', 'function', 'f', ?, 'exclude', "
                     "'old', 'ann', '2026-01-02T03:04:05+00:00')", ("c" * 64,))
    ensure_schema(conn)
    ensure_schema(conn)  # once is enough; again changes nothing
    assert [(r.version_id, r.label, r.note, r.reviewer) for r in list_labels(conn, "shop")] == [
        ("v1", Label.EXCLUDE, "old", "ann")]
    set_label(conn, "shop", {"path": "b.py", "language": "python", "symbol_type": "function",
                             "qualified_name": "g", "content_hash": "d" * 64}, None, "alone")
    assert sorted((r.qualified_name, r.label) for r in list_labels(conn, "shop")) == [("f", Label.EXCLUDE),
                                                                                       ("g", None)]
    with pytest.raises(sqlite3.IntegrityError):  # the store itself refuses a row with neither
        conn.execute("INSERT INTO labels VALUES ('shop', 'v3', 'c.py', 'python', 'function', 'h', ?, NULL, '', "
                     "'', '2026-01-02T03:04:05+00:00')", ("e" * 64,))
    conn.close()
