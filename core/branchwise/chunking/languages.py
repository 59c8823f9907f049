"""Which language a path is written in, decided by its name alone.

Grammar languages get symbol chunks; everything else that is text gets one file chunk
labelled with a coarse text kind, so `--language` filters still have a value to match.
"""

from __future__ import annotations

import re
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
    # issue 33: headers get their own grammar entry (prototypes are symbols there only)
    ".c": "c",
    ".h": "c_header",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hpp": "cpp_header",
    ".hh": "cpp_header",
    ".hxx": "cpp_header",
    ".h++": "cpp_header",
    ".cs": "c_sharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".php": "php",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".sh": "bash",
    ".bash": "bash",
    ".lua": "lua",
    # issue 45 (`.lhs`, literate Haskell, is prose around code: the grammar does not read it)
    ".ex": "elixir",
    ".exs": "elixir",
    ".hs": "haskell",
    ".zig": "zig",
}

#: identity languages of grammars that share one with another grammar
_IDENTITY_LANGUAGE = {"tsx": "typescript", "c_header": "c", "cpp_header": "cpp", "c_sharp": "csharp"}
#: a `.h` file is C++ when it shows C++-only syntax near the top
_CPP_SYNTAX = re.compile(
    rb"^\s*(?:template\s*<|namespace\s+[\w:]*\s*\{|class\s+\w+[^;(]*$|(?:public|private|protected)\s*:)"
    rb"|\bstd::\w|#\s*include\s*<(?:string|vector|memory|utility|type_traits|iterator|cstddef|cstdint|cstdio|limits)>",
    re.MULTILINE,
)
_SNIFF_BYTES = 64 * 1024
_SHELL_SHEBANG = re.compile(rb"#!\s*(?:/usr)?/bin/(?:env\s+)?(?:ba|da|k)?sh\b")

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
    ".zsh": "shell",
    ".html": "html",
    ".css": "css",
    ".xml": "xml",
    ".proto": "protobuf",
}

_TEXT_KIND_BY_NAME = {
    "dockerfile": "dockerfile",
    "makefile": "make",
}


def language_for_path(path: str) -> str | None:
    """The grammar for `path` (python, javascript, typescript, tsx, go, rust, java, c,
    c_header, cpp, cpp_header, c_sharp, ruby, php, kotlin, swift, scala, bash, lua, elixir,
    haskell, zig), or None."""
    return _GRAMMAR_BY_SUFFIX.get(PurePosixPath(path).suffix.lower())


def grammar_for_file(path: str, data: bytes) -> str | None:
    """The grammar for `path` holding `data`: a `.h` header written in C++ gets C++'s, a
    shell script without extension (`#!/bin/sh`) Bash's."""
    grammar = language_for_path(path)
    if grammar == "c_header" and _CPP_SYNTAX.search(data[:_SNIFF_BYTES]):
        return "cpp_header"
    if grammar is None and not PurePosixPath(path).suffix and _SHELL_SHEBANG.match(data):
        return "bash"  # an executable script without extension (nvm's tests)
    return grammar


def identity_language(grammar: str) -> str:
    """The language recorded in identities: TSX is TypeScript with another grammar, a
    header is its language's, and C# is spelled `csharp`."""
    return _IDENTITY_LANGUAGE.get(grammar, grammar)


def text_kind_for_path(path: str) -> str:
    """The language label of a file chunk for a file without a grammar."""
    name = PurePosixPath(path).name.lower()
    if name in _TEXT_KIND_BY_NAME:
        return _TEXT_KIND_BY_NAME[name]
    return _TEXT_KIND_BY_SUFFIX.get(PurePosixPath(name).suffix, "text")
