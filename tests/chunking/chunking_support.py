"""Helpers shared by the chunking tests: golden files and reading sample-repo files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from branchwise.chunking import chunk_file
from branchwise.models import FileChunks

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
GOLDEN = HERE / "golden"
UPDATE = os.environ.get("BRANCHWISE_UPDATE_GOLDEN") == "1"


def summary(result: FileChunks) -> dict:
    """The stable, reviewable part of a file's chunks, as stored in golden files."""
    return {
        "path": result.path,
        "language": result.language,
        "path_class": result.path_class.value,
        "class_reason": result.class_reason,
        "skipped": result.skipped,
        "chunks": [
            {
                "symbol_type": c.identity.symbol_type,
                "qualified_name": c.identity.qualified_name,
                "language": c.identity.language,
                "lines": [c.start_line, c.end_line],
                "signature": c.signature,
                "docstring": c.docstring,
                "parent": (
                    f"{c.parent.symbol_type} {c.parent.qualified_name}" if c.parent else None
                ),
            }
            for c in result.chunks
        ],
    }


def check_golden(name: str, result: FileChunks) -> None:
    """Compare with golden/<name>.json; rewrite it instead when BRANCHWISE_UPDATE_GOLDEN=1."""
    path = GOLDEN / f"{name}.json"
    actual = summary(result)
    if UPDATE:
        # CI must compare, never rewrite: a rewritten golden would pass unconditionally
        assert not os.environ.get("CI"), "BRANCHWISE_UPDATE_GOLDEN is refused when CI is set"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path}; run with BRANCHWISE_UPDATE_GOLDEN=1"
    assert actual == json.loads(path.read_text(encoding="utf-8"))


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True
    ).stdout


def branch_files(repo: Path) -> list[tuple[str, str, bytes]]:
    """(branch, path, bytes) of every file on every branch, read without touching the work tree."""
    files = []
    for branch in git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads").split():
        ref = branch.decode()
        for path in git(repo, "ls-tree", "-r", "--name-only", "-z", ref).split(b"\0"):
            if path:
                name = path.decode()
                files.append((ref, name, git(repo, "show", f"{ref}:{name}")))
    return files


def data_files() -> list[Path]:
    return sorted(p for p in DATA.rglob("*") if p.is_file())


def units(path: str, source: str) -> set[tuple[str, str, str | None]]:
    """(kind, qualified name, parent's qualified name) of every chunk of `source` but its module."""
    result = chunk_file("repo", path, source.encode())
    return {(c.identity.symbol_type, c.identity.qualified_name, c.parent.qualified_name if c.parent else None)
            for c in result.chunks if c.identity.symbol_type != "module"}
