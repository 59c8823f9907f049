"""Every secret detector, and the scan of the text a bundle actually writes.

Each detector gets a positive case (its token shape, in code as it appears in the wild) and
the negative cases it must stay quiet on (placeholders, ordinary words), so switching any one
detector off, or scanning other text than the one written, fails here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from gittools import GitBuilder

from branchwise.secrets import ENTROPY_THRESHOLD, scan, shannon_entropy

# Built from parts so that this file itself does not look like it holds credentials.
GITHUB_CLASSIC = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
GITHUB_FINE = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
SLACK_TOKEN = "xoxb-" + "123456789012-abcdefghijkl"
SLACK_HOOK = "https://hooks.slack.com/services/" + "T000AAAA/B000BBBB/abcdefghijklmnopqrstuvwx"
AWS_KEY_ID = "AKIA" + "ABCDEFGHIJKLMNOP"
PRIVATE_KEY = "-----BEGIN " + "RSA PRIVATE KEY-----"
OPENSSH_KEY = "-----BEGIN " + "OPENSSH PRIVATE KEY-----"
RANDOM_VALUE = "q8Zr3LmT0vXw9Pk2Jd7Hs1Nf"


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (f'KEY = """{PRIVATE_KEY}', "private key block"),
        (f"key = '''{OPENSSH_KEY}", "private key block"),
        (f'aws_id = "{AWS_KEY_ID}"', "AWS access key id"),
        (f'token = "{GITHUB_CLASSIC}"', "GitHub token"),
        (f"GH = '{GITHUB_FINE}'", "GitHub token"),
        (f'client = Slack("{SLACK_TOKEN}")', "Slack token"),
        (f'HOOK = "{SLACK_HOOK}"', "Slack webhook"),
        (f'api_key = "{RANDOM_VALUE}"', "high-entropy value assigned to a secret-like name"),
        (f'"client_secret": "{RANDOM_VALUE}",', "high-entropy value assigned to a secret-like name"),
    ],
)
def test_each_detector_finds_its_shape(line, kind):
    code = f"import os\n\n{line}\n"
    assert [(f.kind, f.line) for f in scan(code)] == [(kind, 3)]


@pytest.mark.parametrize(
    "line",
    [
        'api_key = "your-api-key-goes-here-123"',  # placeholder
        'password = "xxxxxxxxxxxxxxxxxxxx1"',
        'token = os.environ["GITHUB_TOKEN"]',  # read from the environment: no value
        'secret_name = "orders-service-db-1"',  # words, low entropy
        'description = "q8Zr3LmT0vXw9Pk2Jd7Hs1Nf"',  # random, but not a secret-like name
        "def get_token(self): return self.token",
    ],
)
def test_ordinary_code_is_not_flagged(line):
    assert scan(line) == []


def test_entropy_threshold_separates_random_from_words():
    assert shannon_entropy(RANDOM_VALUE) >= ENTROPY_THRESHOLD
    assert shannon_entropy("aaaabbbbccccdddd1111") < ENTROPY_THRESHOLD


def test_a_bundle_redacts_a_token_added_in_the_work_tree(tmp_path):
    """A token added in the work tree to an indexed function is in the current text only; the
    current text comes through the chunker, which redacts it (so --allow-secrets has nothing
    to let through)."""
    repo = GitBuilder(tmp_path / "app")
    repo.write("src/client.py", 'def make_client(session):\n    """Build the API client."""\n    return session\n')
    repo.commit("client")
    env = {**os.environ, "BRANCHWISE_MODEL": "hashing-384"}

    def cli(*argv):
        return subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)],
                              capture_output=True, text=True, env=env)

    index = tmp_path / "index"
    assert cli("index", repo.path, "--index", index).returncode == 0
    (repo.path / "src/client.py").write_text(
        'def make_client(session):\n    """Build the API client."""\n'
        f'    session.headers["Authorization"] = "token {GITHUB_CLASSIC}"\n    return session\n'
    )
    for number, extra in enumerate(((), ("--allow-secrets",))):
        out_file = tmp_path / f"bundle-{number}.md"
        out = cli("export", "build the api client", "--repo", repo.path, "--branch", "main", "--index", index,
                  "--out", out_file, *extra)
        assert out.returncode == 0, out.stderr
        text = Path(out_file).read_text()
        assert GITHUB_CLASSIC not in text
        assert 'session.headers["Authorization"] = "token <redacted>"' in text  # the current text, redacted


def test_the_export_scans_the_text_it_writes_not_the_indexed_text(tmp_path):
    """The last look reads what goes into the bundle. The indexed text here is clean and the
    work tree's text (a `changed` symbol, shown as it is now) holds a token the redactor
    missed (set by hand: the chunker redacts the shapes it knows), so the export is refused,
    naming the work-tree line; scanning the indexed text instead would let the token through."""
    from test_bundle import context_for, verified
    from test_verify import indexed_results

    from branchwise.errors import BranchwiseError
    from branchwise.git.repo import GitRepo
    from branchwise.models import Verdict
    from branchwise.review.bundle import write_bundle

    builder = GitBuilder(tmp_path / "app")
    builder.write("src/client.py", 'def make_client(session):\n    """Build the API client."""\n    return session\n')
    commit = builder.commit("client")
    repo = GitRepo(builder.path)
    results = list(indexed_results(repo, "main", commit, ["src/client.py"]).values())
    (builder.path / "src/client.py").write_text(
        '\n\ndef make_client(session):\n    """Build the API client."""\n    session.auth = None\n    return session\n'
    )
    verifier = verified(repo, results)
    (result,) = results
    assert result.verdict is Verdict.CHANGED and result.current_text
    assert scan(result.text) == []
    result.current_text = result.current_text.replace("session.auth = None", f'session.auth = "{GITHUB_CLASSIC}"')
    out = tmp_path / "bundle.md"
    with pytest.raises(BranchwiseError, match=r"possible secrets: GitHub token at src/client.py:L5"):
        write_bundle(results, out, context_for(repo, verifier))
    assert not out.exists()
