"""The store owns the schema and hands out records; reads over many ids go in batches."""

from __future__ import annotations

import re
import sqlite3

from branchwise.store import BATCH, BranchRecord, Store, VersionRecord, in_batches
from branchwise.store.schema import SCHEMA


def test_every_table_of_the_database_is_in_the_one_schema(tmp_path):
    store = Store(tmp_path / "index")
    tables = {name for (name,) in store.conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'lexical_%' AND name NOT LIKE 'sqlite_%'")}
    declared = set(re.findall(r"CREATE (?:VIRTUAL )?TABLE IF NOT EXISTS (\w+)", SCHEMA))
    assert "labels" in tables and "versions" in tables
    assert tables == declared


def _store_with_versions(tmp_path, count: int) -> Store:
    store = Store(tmp_path / "index")
    with store.transaction():
        repo_id = store.add_repository("shop", "/src/shop")
        branch_id = store.add_branch(repo_id, "main", "c" * 40, "2026-01-01T00:00:00+00:00", "2026-01-02T00:00:00+00:00")
        for n in range(count):
            identity = store.identity_row(repo_id, f"src/m{n}.py", "python", "function", f"f{n}")
            row = store.add_version({
                "version_id": f"{n:064x}", "identity_id": identity, "content_hash": "h" * 64, "text": f"def f{n}(): pass",
                "signature": f"def f{n}():", "docstring": "", "parent": None, "embedding_text": "x", "embed_key": "k",
                "path_key": "p", "path_class": "source", "class_reason": "", "first_branch": "main",
                "first_commit": "c" * 40, "blob": "b" * 40, "start_line": 1, "end_line": 1,
                "created_at": "2026-01-01T00:00:00+00:00"}, (f"f{n}", f"f{n}", "", "", "pass", f"src/m{n}.py"))
            store.set_live(branch_id, identity, row, "b" * 40, 1, 1)
    return store


def test_reads_over_more_ids_than_one_statement_takes(tmp_path):
    count = 2 * BATCH + 7
    store = _store_with_versions(tmp_path, count)
    rows = store.all_version_rows()
    assert len(rows) == count
    assert len(store.version_ids(rows)) == count
    records = store.version_records(rows)
    assert len(records) == count
    record = records[rows[-1]]
    assert isinstance(record, VersionRecord)
    assert (record.repository, record.path, record.qualified_name, record.version_id) == (
        "shop", f"src/m{count - 1}.py", f"f{count - 1}", f"{count - 1:064x}")
    assert [len(b) for b in in_batches(rows)] == [BATCH, BATCH, 7]


def test_branch_records_leave_the_shared_connection_as_it_was(tmp_path):
    store = _store_with_versions(tmp_path, 1)
    repo_id = store.repo_id("shop")
    assert repo_id is not None
    before = store.conn.row_factory
    [main] = store.branches(repo_id)
    assert store.branch(repo_id, "main") == main
    assert isinstance(main, BranchRecord) and main.name == "main" and main.commit_sha == "c" * 40
    assert store.conn.row_factory is before
    assert isinstance(store.conn.execute("SELECT 1").fetchone(), tuple)


def test_the_labels_table_can_stand_alone():
    from branchwise.review.labels import ensure_schema

    conn = sqlite3.connect(":memory:")
    ensure_schema(conn)
    ensure_schema(conn)
    assert conn.execute("SELECT COUNT(*) FROM labels").fetchone() == (0,)
