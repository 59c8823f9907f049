"""The oracle of issue 29's rule "the verdict describes the text delivered with it", shared by
the built-repository test (test_delivered_verdicts.py) and the click one
(test_click_delivered_verdicts.py): it reads the target's own file, never the verdict's code.
"""

from __future__ import annotations

from branchwise.chunking import chunk_file
from branchwise.git.repo import GitRepo

GOOD = ("current", "unchanged-older")


def chunks_at(repo: GitRepo, rev: str, path: str) -> dict[str, object]:
    """The chunks of `path` at `rev`, by qualified name, as a fresh chunking reads them."""
    data = repo.read_blob(repo.blob_at(repo.resolve(rev), path))
    return {c.identity.qualified_name: c for c in chunk_file(repo.name, path, data).chunks}


def _same_line(outline_line: str, line: str) -> bool:
    """The outline keeps a line as it is, or drops its trailing comment (`def name(self) -> str:`
    for `def name(self) -> str:  # type: ignore`)."""
    if line == outline_line:
        return True
    rest = line[len(outline_line):].strip() if outline_line.strip() and line.startswith(outline_line) else ""
    return rest.startswith(("#", "//"))


def is_outline_of(outline: str, text: str) -> bool:
    """Every line of the outline but its elisions is a line of the text, in order."""
    lines = text.split("\n")
    position = 0
    for line in outline.split("\n"):
        if line.strip() in ("...", "# ..."):
            continue
        wanted = line.removesuffix(" { ... }")
        position = next((i for i in range(position, len(lines)) if _same_line(wanted, lines[i])), -1) + 1
        if position == 0:
            return False
    return True


def agrees(text: str, kind: str, verdict: str, target: str) -> bool:
    """Does the verdict describe this delivered text, as the oracle reads the target?"""
    if kind == "outline":
        return verdict not in GOOD or is_outline_of(text, target)
    return (verdict in GOOD) == (text.rstrip("\n") == target.rstrip("\n"))


def changed_direct_members(before: dict, after: dict, container: str) -> set[str]:
    """The container's own members (one level down) whose text differs between two versions of
    its file, or that one of them lacks."""
    depth = container.count(".") + 1

    def members(chunks: dict) -> dict[str, str]:
        return {name: c.text for name, c in chunks.items()
                if name.startswith(container + ".") and name.count(".") == depth}

    old, new = members(before), members(after)
    return {name for name in old.keys() | new.keys() if old.get(name) != new.get(name)}
