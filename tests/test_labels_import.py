"""`labels import` checks every entry before writing any, and writes all of them at once.

A path that leaves the repository, a content hash that is not a sha256, a date that is not
ISO 8601 or a label for a path the user may not read refuses the whole file with one line;
a valid file lands in one transaction (the SIGKILL case is in test_crash_safety.py).
"""

from __future__ import annotations

import sqlite3

import pytest
import tomli_w

from branchwise.errors import UsageError
from branchwise.review.labels import ensure_schema, import_labels, list_labels

HASH = "ab" * 32


def entry(number: int, **changes) -> dict:
    base = {"path": f"src/m{number}.py", "qualified_name": f"f{number}", "symbol_type": "function",
            "language": "python", "content_hash": HASH, "label": "use", "note": "", "reviewer": "ann",
            "labelled_at": "2026-01-01T00:00:00+00:00"}
    base.update(changes)
    return base


def write(tmp_path, entries: list[dict]):
    path = tmp_path / "labels.toml"
    path.write_bytes(tomli_w.dumps({"repository": "shop", "label": entries}).encode())
    return path


@pytest.fixture
def conn():
    connection = sqlite3.connect(":memory:", isolation_level=None)
    ensure_schema(connection)
    yield connection
    connection.close()


@pytest.mark.parametrize("bad, message", [
    ({"path": "../../etc/passwd"}, "not a path inside the repository"),
    ({"path": "/etc/passwd"}, "not a path inside the repository"),
    ({"path": "src/../../x.py"}, "not a path inside the repository"),
    ({"content_hash": "abc"}, "not a sha256"),
    ({"content_hash": "Z" * 64}, "not a sha256"),
    ({"labelled_at": "yesterday"}, "not an ISO 8601 date"),
    ({"label": "keep"}, "unknown label"),
    ({"note": "x" * 20_000}, "at most"),
])
def test_a_bad_entry_refuses_the_whole_file_and_stores_nothing(conn, tmp_path, bad, message):
    entries = [entry(n) for n in range(1, 1001)]
    entries[700] = entry(701, **bad)
    with pytest.raises(UsageError, match=f"label #701: .*{message}"):
        import_labels(conn, "shop", write(tmp_path, entries))
    assert list_labels(conn, "shop") == []


def test_a_valid_file_lands_whole_with_normalised_dates(conn, tmp_path):
    entries = [entry(n) for n in range(1, 2001)]
    entries[5] = entry(6, labelled_at="2026-03-04T05:06:07")
    assert import_labels(conn, "shop", write(tmp_path, entries)) == 2000
    stored = {r.qualified_name: r for r in list_labels(conn, "shop")}
    assert len(stored) == 2000
    assert stored["f6"].labelled_at == "2026-03-04T05:06:07+00:00"


def test_labels_for_paths_the_user_may_not_read_are_refused(conn, tmp_path):
    entries = [entry(1, path="src/public/a.py"), entry(2, path="src/secret/b.py")]
    with pytest.raises(UsageError, match="label #2: path 'src/secret/b.py' is outside what you may read"):
        import_labels(conn, "shop", write(tmp_path, entries), allows=lambda p: p.startswith("src/public/"))
    assert list_labels(conn, "shop") == []


def test_an_import_is_one_transaction(conn, tmp_path):
    statements = []
    conn.set_trace_callback(statements.append)
    import_labels(conn, "shop", write(tmp_path, [entry(n) for n in range(1, 301)]))
    conn.set_trace_callback(None)
    assert [s for s in statements if s.startswith(("BEGIN", "COMMIT"))] == ["BEGIN IMMEDIATE", "COMMIT"]


@pytest.mark.parametrize("note", ['plain', 'quote " and back\\slash', "new\nline\ttab", "ünï 路径 \x1b[31m", "\u2028"])
def test_the_fast_reader_reads_exports_exactly_as_toml(note):
    import tomllib

    from branchwise.review.labelfile import label_tables

    text = tomli_w.dumps({"repository": "shop", "label": [entry(1, note=note), entry(2, path=f"src/{note}.py")]})
    assert list(label_tables(text)) == tomllib.loads(text)["label"]
    pin = {"branch": "main", "path": f"src/{note}.py", "qualified_name": "f", "symbol_type": "function",
           "language": "python", "note": note, "reviewer": "ann", "pinned_at": "2026-10-01T09:00:00+00:00"}
    both = tomli_w.dumps({"repository": "shop", "label": [entry(1, note=note)], "pin": [pin, {**pin, "branch": "x"}]})
    pins: list = []
    assert list(label_tables(both, pins)) == tomllib.loads(both)["label"] and pins == tomllib.loads(both)["pin"]


@pytest.mark.parametrize("text", [
    '# a comment\n[[label]]\npath = "a.py"\n',
    '[[label]]\npath = "a.py"\npath = "b.py"\n',
    "[[label]]\npath = 'literal.py'\n",
    '[[label]]\npath = "\\U0001F600.py"\n',
])
def test_anything_else_is_read_by_tomllib(conn, tmp_path, text):
    from branchwise.review.labelfile import NotExportFormat, label_tables

    with pytest.raises(NotExportFormat):
        list(label_tables(text))
    path = tmp_path / "labels.toml"
    path.write_text(text)
    with pytest.raises(UsageError, match="bad labels file"):  # tomllib's verdict, or a missing field
        import_labels(conn, "shop", path)
