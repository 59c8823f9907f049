"""Every `--json` output fits its schema in docs/schema/, and a changed field is caught.

tests/conftest.py sets `BRANCHWISE_CHECK_JSON_SCHEMA=1`, so every `--json` output that any test
prints is validated (see branchwise_cli/jsonschemas.py). This module makes sure each output
exists at least once on data that fills its optional fields (history, deleted code, labels,
pins, a tour, hooks, a diff), and that the check can fail: a renamed field, a wrong type and
an output without a schema are refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from branchwise_cli.jsonschemas import SCHEMA_DIR, violation

QUERY = "make order cancellation idempotent"


def cli(*argv, cwd: Path | None = None) -> subprocess.CompletedProcess:
    # while drafting schemas (BRANCHWISE_JSON_LOG, see tests/json_schema_infer.py) only record
    drafting = bool(os.environ.get("BRANCHWISE_JSON_LOG"))
    env = {**os.environ, "BRANCHWISE_MODEL": "hashing-384", "BRANCHWISE_CHECK_JSON_SCHEMA": "0" if drafting else "1"}
    result = subprocess.run([sys.executable, "-m", "branchwise_cli", *map(str, argv)], capture_output=True,
                            text=True, env=env, cwd=cwd)
    assert "does not fit docs/schema" not in result.stderr and "no schema" not in result.stderr, result.stderr
    assert result.returncode in (0, 1), result.stderr
    return result


def test_every_json_output_fits_its_schema(shop_repo, tmp_path):
    repo, index = shop_repo, tmp_path / "index"
    where = ["--repo", repo, "--index", index]
    cli("index", repo, "--all-branches", "--index", index, "--json")
    saved = tmp_path / "search.json"
    searched = cli("search", QUERY, *where, "--branch", "main", "--scope", "all", "--json")
    saved.write_text(searched.stdout)
    queries = tmp_path / "queries.txt"
    queries.write_text("cancel an order\nstock alerts\n")
    cli("search", "--queries", queries, *where, "--branch", "release/1.x", "--json")
    cli("inspect", *where, "--branch", "main", "--json")
    cli("verify", saved, *where, "--branch", "main", "--json")
    symbol = json.loads(searched.stdout)["results"][0]
    target = f"{symbol['path']}::{symbol['qualified_name']}"
    cli("labels", "pin", target, *where, "--branch", "main")
    cli("labels", "list", *where, "--json")
    cli("stats", "--index", index, "--json")
    cli("stats", *where, "--used", "--json")
    cli("status", *where, "--json")
    cli("config", *where, "--json")
    cli("diff", "main", "--base", "release/1.x", *where, "--json")
    tour = tmp_path / "tour.toml"
    tour.write_text(f'title = "t"\n[[steps]]\npath = "{symbol["path"]}"\nqualified_name = "{symbol["qualified_name"]}"\n'
                    'note = "start here"\n')
    cli("tour", "check", tour, *where, "--branch", "main", "--json")
    cli("tour", "fix", tour, *where, "--branch", "main", "--json")
    cli("hooks", "install", *where, "--json")
    cli("hooks", "status", *where, "--json")
    cli("hooks", "uninstall", *where, "--json")


def test_the_check_refuses_a_renamed_field_a_wrong_type_and_an_unknown_output():
    good = {"query": "q", "branch": "main", "target_commit": "abc", "results": []}
    assert violation("search", good) is None
    renamed = {"question": "q", "branch": "main", "target_commit": "abc", "results": []}
    assert "query" in violation("search", renamed)
    retyped = {**good, "results": "none"}
    assert violation("search", retyped) is not None
    assert "no schema" in violation("no-such-output", {})


def test_a_result_without_its_contract_fields_is_refused():
    result = {"rank": 1, "score": 0.5, "path": "a.py"}
    assert violation("search", {"query": "q", "branch": "main", "target_commit": "abc", "results": [result]})


@pytest.mark.parametrize("path", sorted(SCHEMA_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_each_schema_is_a_valid_json_schema(path):
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))
