"""The JSON outputs' schemas (docs/schema/), checked on every `--json` output the tests produce.

Other tools parse `--json`; a field that is renamed, dropped or changes type breaks them
silently. Each JSON output is named after its command (and action: `tour-check`,
`labels-list`), and `docs/schema/<name>.json` says what it holds: the fields every output has
are required, new fields are allowed (the contract: add freely, never rename). Two switches,
both for the test suite and never needed by a user:

- `BRANCHWISE_CHECK_JSON_SCHEMA=1`: every output is validated before it is printed; one that
  does not fit (or has no schema) fails the command with one line, so the test that ran it fails;
- `BRANCHWISE_JSON_LOG=FILE`: every output is appended to FILE as `{"schema", "data"}` (JSON
  Lines), the material `tests/json_schema_infer.py` drafts a schema from.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from branchwise.errors import BranchwiseError

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "docs" / "schema"


def checked(name: str, text: str) -> None:
    """Log and validate `text`, the JSON output named `name`, as the environment asks."""
    log = os.environ.get("BRANCHWISE_JSON_LOG")
    check = os.environ.get("BRANCHWISE_CHECK_JSON_SCHEMA") == "1"
    if not (log or check):
        return
    data = json.loads(text)
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"schema": name, "data": data}) + "\n")
    if check:
        problem = violation(name, data)
        if problem:
            raise BranchwiseError(f"--json output {name!r} does not fit docs/schema/{name}.json: {problem}")


def violation(name: str, data: Any) -> str | None:
    """Why `data` does not fit schema `name`, or None when it does."""
    import jsonschema

    schema = _schema(name)
    if schema is None:
        return f"no schema docs/schema/{name}.json"
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is None:
        return None
    where = "/".join(str(part) for part in error.absolute_path) or "(top)"
    return f"at {where}: {error.message[:300]}"


@lru_cache(maxsize=None)
def _schema(name: str) -> dict | None:
    path = SCHEMA_DIR / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
