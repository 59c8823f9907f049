"""Credentials never enter the index: credential files are skipped unread, secrets in code are
redacted in everything stored and shown, and the content hash stays the original's.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest
from gittools import GitBuilder

from branchwise.git.repo import GitRepo
from branchwise.store import DB_FILE
from branchwise.verify.snippets import verify_input
from branchwise.workspace import Workspace

CREDENTIAL_FILES = {
    ".npmrc": "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789\n",
    ".pypirc": "[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmcCJDEyMzQ1Njc4\n",
    ".git-credentials": "https://alice:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com\n",
    ".envrc": "export DATABASE_PASSWORD=correct-horse-battery\n",
    ".dockercfg": '{"https://index.docker.io/v1/": {"auth": "YWxpY2U6czNjcjN0"}}\n',
    ".docker/config.json": '{"auths": {"ghcr.io": {"auth": "YWxpY2U6czNjcjN0"}}}\n',
    "deploy/.docker/config.json": '{"auths": {"ghcr.io": {"auth": "YWxpY2U6czNjcjN0"}}}\n',
    "kubeconfig": "apiVersion: v1\nusers:\n- name: admin\n  user:\n    token: kube-token-0123456789\n",
    "ops/.kube/config": "apiVersion: v1\nusers:\n- user:\n    token: kube-token-0123456789\n",
    "infra/terraform.tfvars": 'db_password = "tf-Secret-2024"\n',
    "infra/prod.auto.tfvars": 'api_token = "tf-token-2024"\n',
}

CODE = '''def connect():
    password = "hunter2"
    return db.login("admin", password)


def rotate():
    secret = 'Summer2024!'
    return vault.store(secret)


def keep_config_names():
    name = os.environ["DB_PASSWORD"]
    return name
'''
SECRETS = ("hunter2", "Summer2024!")
REDACTED = "<redacted>"


@pytest.fixture(autouse=True)
def hashing_model(monkeypatch):
    monkeypatch.setenv("BRANCHWISE_MODEL", "hashing-384")


@pytest.fixture
def indexed(tmp_path):
    repo = GitBuilder(tmp_path / "repo")
    for name, text in CREDENTIAL_FILES.items():
        repo.write(name, text)
    repo.write("src/db.py", CODE)
    repo.commit("init")
    workspace = Workspace(repo.path, tmp_path / "index")
    workspace.index(["main"])
    return repo, workspace


def test_credential_files_are_skipped_unread(indexed):
    _repo, workspace = indexed
    reasons = dict(workspace.store.conn.execute("SELECT path, reason FROM skipped_files"))
    for name in CREDENTIAL_FILES:
        assert reasons.get(name, "").startswith("secret: "), name
    stored = {row[0] for row in workspace.store.conn.execute("SELECT path FROM identities")}
    assert stored.isdisjoint(CREDENTIAL_FILES)


def test_secrets_in_code_are_nowhere_in_the_database(indexed, tmp_path):
    _repo, workspace = indexed
    workspace.close()
    raw = (tmp_path / "index" / DB_FILE).read_bytes()
    wal = tmp_path / "index" / (DB_FILE + "-wal")
    raw += wal.read_bytes() if wal.exists() else b""
    for secret in SECRETS:
        assert secret.encode() not in raw
    dump = "\n".join(Workspace(workspace.repo.path, tmp_path / "index").store.conn.iterdump())
    for secret in (*SECRETS, "npm_abcdef", "kube-token", "tf-Secret"):
        assert secret not in dump
    assert REDACTED in dump


def test_search_shows_redacted_text_with_the_original_hash(indexed, tmp_path):
    repo, _workspace = indexed
    out = subprocess.run(
        [sys.executable, "-m", "branchwise_cli", "search", "connect login password", "--repo", str(repo.path),
         "--branch", "main", "--index", str(tmp_path / "index"), "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for secret in SECRETS:
        assert secret not in out.stdout
    results = {r["qualified_name"]: r for r in json.loads(out.stdout)["results"]}
    connect = results["connect"]
    assert 'password = "<redacted>"' in connect["text"]
    original = connect["text"].replace("<redacted>", "hunter2")
    assert original in CODE
    assert connect["content_hash"] == hashlib.sha256(original.encode()).hexdigest()
    assert connect["verdict"] == "current"
    assert 'os.environ["DB_PASSWORD"]' in results["keep_config_names"]["text"]


def test_a_saved_redacted_result_verifies_current(indexed, tmp_path):
    repo, workspace = indexed
    from branchwise.search.hybrid import SearchRequest

    results = workspace.search(SearchRequest("rotate vault secret", "main", top_k=3))
    saved = {"query": "q", "branch": "main", "results": [r.to_json() for r in results]}
    rows = verify_input(json.dumps(saved), GitRepo(repo.path))
    assert {row["verdict"] for row in rows} == {"current"}
    assert all("Summer2024!" not in row["text"] for row in rows)


def test_export_bundle_carries_no_secret(indexed, tmp_path):
    repo, _workspace = indexed
    bundle = tmp_path / "bundle.md"
    out = subprocess.run(
        [sys.executable, "-m", "branchwise_cli", "export", "connect login password", "--repo", str(repo.path),
         "--branch", "main", "--index", str(tmp_path / "index"), "--out", str(bundle)],
        capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    text = bundle.read_text()
    assert "<redacted>" in text
    for secret in SECRETS:
        assert secret not in text


@pytest.mark.parametrize("line, kept", [
    ('PASSWORD_VAR = "DB_PASSWORD"', True),
    ('if token == "":', True),
    ('token_type = "bearer"', True),
    ('password = "changeme"', True),
    ('password = "${DB_PASSWORD}"', True),
    ('password = "hunter2"', False),
    ("secret: 'Summer2024!'", False),
    ('DB_PASSWORD := "s3cr3t-value"', False),
    ('login(user, password="hunter2")', False),
    ('{"api_key": "sk-live-0123456789"}', False),
    ('aws = "AKIAIOSFODNN7EXAMPLE"', False),
])
def test_what_is_redacted_and_what_is_kept(line, kept):
    from branchwise.secrets import redact

    assert (redact(line) == line) is kept


def test_a_private_key_block_is_redacted_line_for_line():
    from branchwise.secrets import redact

    text = "KEY = '''\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nq2w3e4r5\n-----END RSA PRIVATE KEY-----\n'''\n"
    redacted = redact(text)
    assert redacted.count("\n") == text.count("\n")
    assert "MIIEpAIBAAKCAQEA" not in redacted and redacted.startswith("KEY = '''\n<redacted>")


@pytest.mark.parametrize("line, kept", [
    ('elif token == "keyword":', True),  # a lexer's token type, compared: jinja's Lexer.wrap
    ('if token != "string_literal":', True),
    ('token = "name"', True),  # a token type assigned: one plain word is no credential
    ('if token == "**=":', True),
    ('api_token = "q8Zr3LmT0vXw9Pk2Jd7Hs1Nf"', False),  # a generated value assigned
    ('if api_token == "q8Zr3LmT0vXw9Pk2":', False),  # a generated value compared
    ('password = "letmein"', False),  # a password may be any word
])
def test_compared_words_are_kept_and_assigned_credentials_redacted(line, kept):
    from branchwise.secrets import redact

    assert (redact(line) == line) is kept


def test_a_megabyte_line_is_redacted_and_scanned(tmp_path):
    """The name patterns read each run of letters and digits once (they used to backtrack over
    it: an 80 KB line took minutes); a secret at the end of a long line is still found."""
    from branchwise.secrets import redact, scan

    line = "token" + "a1" * 500_000 + ' = 1; api_token = "q8Zr3LmT0vXw9Pk2Jd7Hs1Nf"'
    assert redact(line).endswith('api_token = "<redacted>"')
    assert [f.kind for f in scan(line)] == ["high-entropy value assigned to a secret-like name"]
    assert scan("tokentoken" * 100_000) == []


LEXER = '''def wrap(stream):
    """Turn the lexer's stream into tokens, dropping whitespace."""
    for token, value in stream:
        if token == "whitespace":
            continue
        elif token == "keyword":
            yield value
'''
GENERATED = "q8Zr3LmT0vXw9Pk2Jd7Hs1Nf"
PAYMENTS = f'''def payments_client():
    """Build the payments client."""
    api_token = "{GENERATED}"
    return Client(api_token)
'''


def test_every_front_end_says_when_the_text_shown_was_redacted(tmp_path):
    """The lexer comes back as the file has it, with no word of redaction; the client's token is
    redacted and its verdict's reason says so in search (JSON and text), export and MCP."""
    from branchwise.mcp_server.service import AgentService

    repo = GitBuilder(tmp_path / "repo")
    repo.write("src/lexer.py", LEXER)
    repo.write("src/payments.py", PAYMENTS)
    repo.commit("init")
    index = tmp_path / "index"
    Workspace(repo.path, index).index(["main"])

    def cli(*argv):
        out = subprocess.run([sys.executable, "-m", "branchwise_cli", *argv, "--repo", str(repo.path),
                              "--branch", "main", "--index", str(index)], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return out.stdout

    note = "1 secret redacted in the text shown"
    found = {r["qualified_name"]: r for r in json.loads(cli("search", "lexer token payments client", "--json"))["results"]}
    assert found["wrap"]["text"] == LEXER.rstrip("\n") or found["wrap"]["text"] == LEXER
    assert "redacted" not in found["wrap"]["reason"]
    client = found["payments_client"]
    assert GENERATED not in client["text"] and 'api_token = "<redacted>"' in client["text"]
    assert client["verdict"] == "current" and note in client["reason"]
    assert note in cli("search", "payments client api token")
    bundle = tmp_path / "bundle.md"
    cli("export", "payments client api token", "--out", str(bundle))
    checks = [line for line in bundle.read_text().splitlines() if line.startswith("Check: ")]
    assert any(note in line for line in checks), checks
    service = AgentService([Workspace(repo.path, index, create=False)])
    entries = {e["qualified_name"]: e for e in service.search_code("payments client api token", branch="main",
                                                                   max_tokens=None)["results"]}
    assert note in entries["payments_client"]["reason"]
    assert "redacted" not in entries["wrap"]["reason"]
