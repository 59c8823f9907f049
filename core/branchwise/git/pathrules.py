"""What a commit's own files say about its paths: `.gitattributes` and `.branchwiseignore`.

Both are read from the indexed commit's tree (so branches can differ), never from the work
tree. Patterns have gitignore syntax (the `pathspec` package's git flavour): `test/gtest/`,
`*.min.js`, `/build`, `docs/**/*.png`, and in an ignore file `!keep.me` re-includes.

- `.gitattributes` (the root one): `linguist-generated` and `-diff` (or `diff=false`) mark a
  file generated, `linguist-vendored` marks it vendored and `linguist-vendored=false` (or
  `-linguist-vendored`) says it is the project's own even inside `vendor/`. For each file
  and attribute the last matching line wins, as in git. A pattern naming a folder applies to
  the files inside it (`test/gtest linguist-vendored`), as people write it for GitHub.
- `.branchwiseignore` (the root one) and the user's own ignore file
  (`~/.config/branchwise/ignore`): files they match are not indexed at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from branchwise.models import PathClass, PathMarks

if TYPE_CHECKING:  # pathspec loads when a file has a pattern to match (most repositories have none)
    from pathspec import GitIgnoreSpec

IGNORE_FILE = ".branchwiseignore"
ATTRIBUTES_FILE = ".gitattributes"
#: attribute value meaning set / unset (`-attr`)
_TRUE, _FALSE = "true", "false"
#: the attributes read here (`binary` is git's macro for `-diff -merge -text`)
_READ = frozenset({"linguist-generated", "linguist-vendored", "diff", "binary"})


def _attribute_lines(text: str) -> list[tuple[GitIgnoreSpec, str, dict[str, str]]]:
    """Each line of a .gitattributes file that sets an attribute read here, as (pattern, its
    text, {attribute: value})."""
    from pathspec import GitIgnoreSpec

    lines = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 2 or parts[0].startswith("#") or parts[0].startswith("!"):
            continue  # git itself refuses negative patterns in attributes
        values = {}
        for token in parts[1:]:
            if token.startswith("-"):
                values[token[1:]] = _FALSE
            elif token.startswith("!"):
                values[token[1:]] = ""  # unspecified: an earlier line's value no longer holds
            elif "=" in token:
                name, value = token.split("=", 1)
                values[name] = value.lower()
            else:
                values[token] = _TRUE
        if values.pop("binary", None) == _TRUE:
            values.setdefault("diff", _FALSE)
        values = {name: value for name, value in values.items() if name in _READ}
        if values:
            lines.append((GitIgnoreSpec.from_lines([parts[0]]), parts[0], values))
    return lines


def path_marks(attributes_text: str, paths: list[str]) -> PathMarks:
    """The classes `.gitattributes` (its text) gives each of `paths`."""
    lines = _attribute_lines(attributes_text)
    if not lines:
        return PathMarks()
    classes: dict[str, tuple[PathClass, str]] = {}
    not_vendored: set[str] = set()
    for path in paths:
        found: dict[str, tuple[str, str]] = {}  # attribute -> (value, pattern), last line wins
        for pattern, written, values in lines:
            if pattern.match_file(path):
                for name, value in values.items():
                    found[name] = (value, written)
        mark = _class_of(found)
        if mark is not None:
            classes[path] = mark
        elif found.get("linguist-vendored", ("",))[0] == _FALSE:
            not_vendored.add(path)
    return PathMarks(classes, frozenset(not_vendored))


def _class_of(found: dict[str, tuple[str, str]]) -> tuple[PathClass, str] | None:
    value, pattern = found.get("linguist-generated", ("", ""))
    if value == _TRUE:
        return PathClass.GENERATED, "generated: marked linguist-generated in .gitattributes"
    value, pattern = found.get("linguist-vendored", ("", ""))
    if value == _TRUE:
        return PathClass.VENDORED, f"vendored: {pattern} marked linguist-vendored in .gitattributes"
    value, pattern = found.get("diff", ("", ""))
    if value == _FALSE:
        return PathClass.GENERATED, f"generated: {pattern} marked -diff in .gitattributes"
    return None


@dataclass(frozen=True)
class IgnoreRules:
    """The ignore files that apply at one commit: (where each came from, its patterns)."""

    sources: tuple[tuple[str, GitIgnoreSpec], ...] = ()

    @classmethod
    def from_texts(cls, texts: list[tuple[str, str]]) -> IgnoreRules:
        """Rules from (where, text) pairs, the user's file first and the repository's after
        (a later file's `!pattern` re-includes what an earlier one ignored)."""
        from pathspec import GitIgnoreSpec

        return cls(tuple((where, GitIgnoreSpec.from_lines(text.splitlines())) for where, text in texts if text.strip()))

    def reason(self, path: str) -> str | None:
        """"ignored: .branchwiseignore: test/gtest/" when an ignore file leaves `path` out."""
        verdict: str | None = None
        for where, spec in self.sources:
            result = spec.check_file(path)
            if result.include is True and result.index is not None:
                written = spec.patterns[result.index].pattern
                verdict = f"ignored: {where}: {written.decode() if isinstance(written, bytes) else written}"
            elif result.include is False:
                verdict = None
        return verdict
