"""What a reviewer reads first in a branch diff: the order of the changes and a summary.

Changes come in groups: source code first, then tests, docs, examples, configuration and CI
(generated and vendored code is already set apart). Within source, public symbols come before
private ones, then the symbols with more callers on the base. Files keep their changes
together, ordered by their first change. The summary lists the public signatures that
changed, the symbols deleted or renamed that the base still references (with those
references), and the files with the most changed symbols.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from branchwise.chunking.config_blocks import CONFIG_KINDS
from branchwise.ranking import role_of

GROUPS = ("source", "test", "docs", "example", "config", "ci")
CONFIG_LANGUAGES = CONFIG_KINDS | {"ini", "xml"}
CI_PREFIXES = (".github/", ".gitlab/", ".circleci/", ".buildkite/", ".azure-pipelines/")
CI_NAMES = frozenset({".gitlab-ci.yml", ".travis.yml", "azure-pipelines.yml", "jenkinsfile", "appveyor.yml",
                      ".pre-commit-config.yaml", ".readthedocs.yaml", ".readthedocs.yml"})
TOP_FILES = 5
#: references shown per deleted or renamed symbol in the summary
SUMMARY_REFERENCES = 5
_PYTHON_DEF = re.compile(r"^\s*(async\s+)?(def|class)\s")
_PRIVATE_WORDS = re.compile(r"^\s*(?:[\w@#\[\]().]*\s+)*?(private|protected|internal)\b")


def group_of(change) -> str:
    symbol = change.symbol
    path = symbol.path
    if path.startswith(CI_PREFIXES) or PurePosixPath(path).name.lower() in CI_NAMES:
        return "ci"
    if symbol.identity.symbol_type == "config" or symbol.identity.language in CONFIG_LANGUAGES:
        return "config"
    role = role_of(path, symbol.path_class.value, symbol.identity.language, symbol.qualified_name)
    return role if role in GROUPS else "source"


def is_public(symbol) -> bool:
    """Part of the code's interface: no `_` name or module on the way (Python, JS), an
    upper-case name (Go), no private/protected/internal modifier (Java, TypeScript, Rust
    without `pub` counts as private)."""
    language = symbol.identity.language
    parts = symbol.qualified_name.split(".")
    if language == "go":
        return parts[-1][:1].isupper()
    if any(p.startswith(("_", "#")) and not (p.startswith("__") and p.endswith("__")) for p in parts):
        return False
    if language == "python" and any(
            part.startswith("_") and part not in ("__init__.py", "__main__.py")
            for part in PurePosixPath(symbol.path).parts):
        return False
    head = signature_of(symbol.text, language)
    if language == "rust":
        return head.startswith("pub") or symbol.identity.symbol_type == "method" and "pub " in head
    return _PRIVATE_WORDS.match(head) is None


def signature_of(text: str, language: str) -> str:
    """A definition's head, whitespace normalised: up to its body (`:` in Python, `{` or `;`
    elsewhere), decorators and attributes left out."""
    lines = text.lstrip("\n").splitlines()
    if language == "python":  # decorators may span lines: start at the definition itself
        start = next((i for i, line in enumerate(lines) if _PYTHON_DEF.match(line)), 0)
        lines = lines[start:]
    while lines and lines[0].lstrip().startswith(("@", "#[", "//", "#")) and not lines[0].lstrip().startswith("#!"):
        lines.pop(0)
    source = "\n".join(lines)
    depth = 0
    stops = ":" if language == "python" else "{;"
    for position, char in enumerate(source):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif depth == 0 and char in stops:
            return " ".join(source[:position].split())
    return " ".join(source.split("\n", 1)[0].split())


@dataclass
class Summary:
    signatures: list = field(default_factory=list)  # public changes whose signature changed
    still_referenced: list = field(default_factory=list)  # deleted or renamed with callers on the base
    top_files: list[tuple[str, int]] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "public_signatures_changed": [
                {"path": c.path, "qualified_name": c.qualified_name, "old_signature": signature_of(c.old.text, c.symbol.identity.language),
                 "signature": signature_of(c.new.text, c.symbol.identity.language), "callers": c.callers_total}
                for c in self.signatures],
            "still_referenced": [
                {"kind": c.kind, "path": c.old.path, "qualified_name": c.old.qualified_name,
                 "new_qualified_name": c.new.qualified_name if c.new else None, "references": c.callers_total,
                 "shown": [_reference_json(h) for h in c.impact if h.kind == "caller"][:SUMMARY_REFERENCES]}
                for c in self.still_referenced],
            "files_with_most_changes": [{"path": p, "changes": n} for p, n in self.top_files],
        }


def _reference_json(hit) -> dict:
    r = hit.result
    return {"path": r.path, "line": hit.line, "qualified_name": r.identity.qualified_name, "how": hit.how}


def order_changes(changes: list) -> list:
    """The changes in reading order (module docstring); each change's `group` and `public` set."""
    for change in changes:
        change.group = group_of(change)
        change.public = is_public(change.symbol)

    def key(change) -> tuple:
        return (GROUPS.index(change.group), not change.public, -change.callers_certain, -change.callers_total,
                change.path,
                change.symbol.start_line)

    first: dict[str, tuple] = {}
    for change in changes:
        first[change.path] = min(first.get(change.path, key(change)), key(change))
    return sorted(changes, key=lambda c: (first[c.path], key(c)))


def summarise(changes: list) -> Summary:
    summary = Summary()
    for change in changes:
        if change.group != "source":
            continue
        if (change.kind == "changed" and change.public and change.old is not None and change.new is not None
                and change.symbol.identity.symbol_type not in ("module", "file", "constant")
                and signature_of(change.old.text, change.symbol.identity.language)
                != signature_of(change.new.text, change.symbol.identity.language)):
            summary.signatures.append(change)
    summary.signatures.sort(key=lambda c: (-c.callers_certain, -c.callers_total, c.path, c.qualified_name))
    summary.still_referenced = sorted(
        (c for c in changes if c.kind in ("deleted", "renamed") and c.callers_total > 0),
        key=lambda c: (GROUPS.index(c.group), -c.callers_certain, -c.callers_total, c.path, c.qualified_name))
    counts = Counter(c.path for c in changes)
    summary.top_files = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:TOP_FILES]
    return summary
