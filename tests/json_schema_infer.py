"""Draft the JSON schemas of docs/schema/ from what the commands really printed.

    BRANCHWISE_JSON_LOG=/tmp/json.jsonl python3 tasks.py test tests/...   # record the outputs
    python tests/json_schema_infer.py /tmp/json.jsonl docs/schema/        # draft a schema each

A draft requires the fields that every recorded output of that name had and types each field
by the values seen (a field seen only as null is left untyped, an optional one may be null); objects whose keys are data
(paths, reasons, branch names, counts per kind) become maps, and a scalar may be null. Read a draft before committing it: the schema is
the documentation of the contract, and the suite checks every `--json` output against it.
Existing schemas are kept unless `--overwrite`.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}
#: an object with more distinct keys than this across its instances is a map of data
_MAP_KEYS = 40
#: keys of these objects are data, whatever their number
_MAP_HINTS = ("by_reason", "by_directory", "by_language", "counts", "languages", "settings_by")


def infer(values: list[Any], key: str = "", optional: bool = False) -> dict:
    """A schema for `values`; an `optional` field (absent from some outputs) may also be null."""
    kinds = {_kind(v) for v in values} | ({"null"} if optional else set())
    schema: dict[str, Any] = {}
    types = sorted(kinds - {"object", "array"})
    if "object" in kinds:
        objects = [v for v in values if isinstance(v, dict)]
        keys = {k for o in objects for k in o}
        counts = keys and all(isinstance(x, (int, float)) and not isinstance(x, bool) for o in objects for x in o.values())
        if len(keys) > _MAP_KEYS or key.endswith(_MAP_HINTS) or counts or (keys and all("/" in k for k in keys)):
            schema["additionalProperties"] = infer([x for o in objects for x in o.values()])
        else:
            required = sorted(k for k in keys if all(k in o for o in objects))
            schema["properties"] = {k: infer([o[k] for o in objects if k in o], k, optional=k not in required)
                                    for k in sorted(keys)}
            if required:
                schema["required"] = required
        types.append("object")
    if "array" in kinds:
        items = [x for v in values if isinstance(v, list) for x in v]
        if items:
            schema["items"] = infer(items, key)
        types.append("array")
    if "integer" in types and "number" in types:
        types.remove("integer")
    if types == ["null"]:
        return {}  # only ever seen as null: the type is not known from the record
    if types and "null" not in types and not {"object", "array"} & set(types):
        types.append("null")  # a value may be absent as null; a field's name and shape are what is kept
    if types:
        schema["type"] = types[0] if len(types) == 1 else types
    return schema


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return _TYPES[type(value)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--overwrite", action="store_true")
    args = parser.parse_args()
    outputs: dict[str, list[Any]] = defaultdict(list)
    for line in args.log.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        outputs[record["schema"]].append(record["data"])
    args.out.mkdir(parents=True, exist_ok=True)
    for name, values in sorted(outputs.items()):
        path = args.out / f"{name}.json"
        if path.exists() and not args.overwrite:
            continue
        schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                  "title": f"branchwise {name} --json" if not name.startswith("mcp-") else f"MCP tool {name[4:]}",
                  **infer(values)}
        path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
        print(f"{path}: {len(values)} output(s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
