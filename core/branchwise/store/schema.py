"""Every table of the index database, in one place: the schema the store modules own.

Repositories, branches with their indexed commit, symbol identities, versions (one row per
distinct content of an identity, shared by every branch that has it), each branch's live
set, tombstones, files skipped per branch, the embedding cache, the record of index runs,
the outbox and term counts of a shared backend, the FTS5 table, reviewer pins and labels.

A labels row is a reviewer's label, note, or both on one version: a note stands on its own
(label NULL) and leaves the version's default handling as it is. Indexes made before that
held a label on every row; `store.labels.allow_notes_alone` widens their table in place.
"""

SCHEMA_VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS repositories (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, path TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS branches (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL REFERENCES repositories(id),
    name TEXT NOT NULL, commit_sha TEXT NOT NULL, commit_time TEXT NOT NULL,
    indexed_at TEXT NOT NULL, ref TEXT NOT NULL DEFAULT '', UNIQUE (repo_id, name));
CREATE TABLE IF NOT EXISTS identities (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, path TEXT NOT NULL,
    language TEXT NOT NULL, symbol_type TEXT NOT NULL, qualified_name TEXT NOT NULL,
    UNIQUE (repo_id, path, language, symbol_type, qualified_name));
CREATE INDEX IF NOT EXISTS identities_path ON identities (repo_id, path);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY, version_id TEXT NOT NULL UNIQUE,
    identity_id INTEGER NOT NULL REFERENCES identities(id),
    content_hash TEXT NOT NULL, text TEXT NOT NULL, signature TEXT NOT NULL,
    docstring TEXT NOT NULL, parent TEXT, embedding_text TEXT NOT NULL,
    embed_key TEXT NOT NULL, path_key TEXT NOT NULL,
    path_class TEXT NOT NULL, class_reason TEXT NOT NULL,
    first_branch TEXT NOT NULL, first_commit TEXT NOT NULL, blob TEXT,
    start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, created_at TEXT NOT NULL,
    imports TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS versions_identity ON versions (identity_id);
CREATE INDEX IF NOT EXISTS versions_content ON versions (content_hash);
CREATE TABLE IF NOT EXISTS live (
    branch_id INTEGER NOT NULL, identity_id INTEGER NOT NULL, version_row INTEGER NOT NULL,
    blob TEXT, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
    PRIMARY KEY (branch_id, identity_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS live_version ON live (version_row);
CREATE TABLE IF NOT EXISTS tombstones (
    id INTEGER PRIMARY KEY, branch_id INTEGER NOT NULL, identity_id INTEGER NOT NULL,
    version_row INTEGER NOT NULL, commit_sha TEXT NOT NULL, last_commit TEXT NOT NULL,
    blob TEXT, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS tombstones_version ON tombstones (version_row);
CREATE TABLE IF NOT EXISTS skipped_files (
    branch_id INTEGER NOT NULL, path TEXT NOT NULL, reason TEXT NOT NULL,
    PRIMARY KEY (branch_id, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL, key TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (model, key)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY, repo_id INTEGER NOT NULL, branch TEXT NOT NULL,
    commit_sha TEXT NOT NULL, started TEXT NOT NULL, finished TEXT NOT NULL,
    summary TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS unpublished (
    version_row INTEGER PRIMARY KEY, version_id TEXT NOT NULL, point INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS published_terms (term TEXT PRIMARY KEY, documents INTEGER NOT NULL) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS lexical USING fts5 (
    symbol, name, signature, docstring, code, path, tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS pins (
    repository     TEXT NOT NULL,
    branch         TEXT NOT NULL,
    path           TEXT NOT NULL,
    language       TEXT NOT NULL,
    symbol_type    TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    note           TEXT NOT NULL DEFAULT '',
    reviewer       TEXT NOT NULL DEFAULT '',
    pinned_at      TEXT NOT NULL,
    PRIMARY KEY (repository, branch, path, language, symbol_type, qualified_name)
);
CREATE TABLE IF NOT EXISTS labels (
    repository     TEXT NOT NULL,
    version_id     TEXT NOT NULL,
    path           TEXT NOT NULL,
    language       TEXT NOT NULL,
    symbol_type    TEXT NOT NULL,
    qualified_name TEXT NOT NULL,
    content_hash   TEXT NOT NULL,
    label          TEXT CHECK (label IN ('use', 'reference-only', 'exclude')),
    note           TEXT NOT NULL DEFAULT '',
    reviewer       TEXT NOT NULL DEFAULT '',
    labelled_at    TEXT NOT NULL,
    PRIMARY KEY (repository, version_id),
    CHECK (label IS NOT NULL OR note <> '')
);
"""
