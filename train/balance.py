"""One training set from several mined corpora, balanced by language (issue 49).

Python's standard library alone gives thousands of pairs, Lua's Debian packages a hundred: a
set that takes everything learns mostly Python and Go. `balance` takes, from each corpus's
pairs.jsonl, at most N pairs per language (a seeded sample), so every language the product
chunks weighs the same where it has the data, and records what it took in one manifest.
The language of a pair is its file's, as the product's chunker names it from the path; where
the path does not say (a script without a suffix, or a `.h` header, C or C++ by its content),
its corpus's manifest does: a standard library's `sources`, a Debian package's `packages` entry.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

from branchwise.chunking.languages import language_for_path


def languages_of(manifest: dict) -> dict[str, str]:
    """A pair's `source` field -> its language, from a data manifest of either corpus."""
    found = {s["name"]: s["language"] for s in manifest.get("sources", [])}
    for package in manifest.get("packages", []):  # a package listed for two languages: the first
        found.setdefault(f"debian:{package['package']}", package["language"])
    return found


def language_of(pair: dict, by_source: dict[str, str]) -> str:
    grammar = language_for_path(pair.get("path", ""))
    if grammar in (None, "c_header", "cpp_header"):
        return by_source[pair["source"]]
    return "typescript" if grammar == "tsx" else grammar


def balance(corpora: list[Path], per_language: int, seed: int) -> tuple[list[dict], dict]:
    """The balanced pairs of the corpora (work directories holding pairs.jsonl and
    data-manifest.json) and the manifest of the set: inputs, counts per language, files."""
    by_language: dict[str, list[dict]] = {}
    inputs, files = [], []
    for corpus in corpora:
        manifest = json.loads((corpus / "data-manifest.json").read_text())
        language = languages_of(manifest)
        pairs_file = corpus / "pairs.jsonl"
        pairs = [json.loads(line) for line in pairs_file.read_text().splitlines() if line.strip()]
        unknown = sorted({p["source"] for p in pairs} - set(language))
        if unknown:
            raise ValueError(f"{corpus}: the manifest names no language for source {unknown[0]!r}")
        for pair in pairs:
            by_language.setdefault(language_of(pair, language), []).append(pair)
        inputs.append({"corpus": str(corpus), "pairs": len(pairs),
                       "pairs_sha256": hashlib.sha256(pairs_file.read_bytes()).hexdigest()})
        files += manifest.get("files", [])
    rng = random.Random(seed)
    chosen, counts = [], {}
    for name in sorted(by_language):
        group = by_language[name]
        taken = group if len(group) <= per_language else rng.sample(group, per_language)
        counts[name] = {"available": len(group), "taken": len(taken)}
        chosen += taken
    rng.shuffle(chosen)
    text = "".join(json.dumps(p) + "\n" for p in chosen)
    manifest = {"balanced_from": inputs, "per_language": per_language, "seed": seed, "languages": counts,
                "pairs": len(chosen), "pairs_sha256": hashlib.sha256(text.encode()).hexdigest(), "files": files}
    return chosen, manifest
