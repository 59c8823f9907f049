"""Which language a path is written in, decided by its name alone.

Grammar languages get symbol chunks; everything else that is text gets one file chunk
labelled with a coarse text kind, so `--language` filters still have a value to match.
"""

from __future__ import annotations

from pathlib import PurePosixPath

_GRAMMAR_BY_SUFFIX = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
}

_TEXT_KIND_BY_SUFFIX = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "restructuredtext",
    ".txt": "text",
    ".toml": "toml",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".ini": "ini",
    ".cfg": "ini",
    ".sql": "sql",
    ".sh": "shell",
    ".bash": "shell",
    ".html": "html",
    ".css": "css",
    ".xml": "xml",
    ".proto": "protobuf",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".rb": "ruby",
    ".kt": "kotlin",
}

_TEXT_KIND_BY_NAME = {
    "dockerfile": "dockerfile",
    "makefile": "make",
}


def language_for_path(path: str) -> str | None:
    """The grammar for `path`: python, javascript, typescript, tsx, go, rust, java, or None."""
    return _GRAMMAR_BY_SUFFIX.get(PurePosixPath(path).suffix.lower())


def identity_language(grammar: str) -> str:
    """The language recorded in identities: TSX is TypeScript with another grammar."""
    return "typescript" if grammar == "tsx" else grammar


def text_kind_for_path(path: str) -> str:
    """The language label of a file chunk for a file without a grammar."""
    name = PurePosixPath(path).name.lower()
    if name in _TEXT_KIND_BY_NAME:
        return _TEXT_KIND_BY_NAME[name]
    return _TEXT_KIND_BY_SUFFIX.get(PurePosixPath(name).suffix, "text")
