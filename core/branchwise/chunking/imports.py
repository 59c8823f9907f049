"""Which of a file's imports a symbol uses: the context a lone method needs to be read.

A method shown on its own in a bundle names types and modules that its file imported; the
import lines that bind those names are its context. A statement
binds names (`from a import b as c` binds `c`, `use a::{b, c}` binds `b` and `c`, Go's
`import "net/http"` binds `http`); it is used when one of them appears in the symbol's text
as a whole word. This is lexical, so a shadowed name can add an import that is not needed;
it never drops one that is.
"""

from __future__ import annotations

import re
from functools import lru_cache

from branchwise.chunking import import_names

_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_KEYWORDS = frozenset(
    "import from as use pub crate self super type typeof const let var static mod extern".split()
)


def bound_names(statement: str, language: str) -> set[str]:
    """The names an import statement binds in its file."""
    if language in import_names.LANGUAGES:
        return import_names.bound_names(statement, language)
    text = re.sub(r"(//|#).*", "", statement)
    if language == "python":
        return _python_names(text)
    if language == "go":
        return _go_names(text)
    aliases = set(re.findall(r"\bas\s+([A-Za-z_$][\w$]*)", text))
    if language == "rust":
        text = text.replace("::", " :: ")
        names = {m.group(1) for m in re.finditer(r"([A-Za-z_]\w*)\s*(?=[,};]|\s+as\b|$)", text)}
        return (names | aliases) - _KEYWORDS - {name for name in names if f"{name} as" in text}
    if language == "java":
        last = re.findall(r"([A-Za-z_]\w*)\s*;", text)
        return set(last) - _KEYWORDS
    # JavaScript / TypeScript: `import x, { a, b as c } from "m"`, `import * as ns from "m"`
    head = re.split(r"\bfrom\b", text)[0]
    head = re.sub(r"['\"][^'\"]*['\"]", "", head)
    names = {name for name in _WORD.findall(re.sub(r"\b\w+\s+as\b", "", head))}
    return (names | aliases) - _KEYWORDS


def _python_names(text: str) -> set[str]:
    text = " ".join(text.replace("(", " ").replace(")", " ").replace("\\", " ").split())
    if text.startswith("from "):
        _, _, imported = text.partition(" import ")
        parts = [part.strip() for part in imported.split(",")]
    else:
        parts = [part.strip() for part in text[len("import "):].split(",")]
        parts = [part if " as " in part else part.split(".")[0] for part in parts]
    return {part.split(" as ")[-1].strip() for part in parts if part and part != "*"}


def _go_names(text: str) -> set[str]:
    names = set()
    for alias, path in re.findall(r"(?:([A-Za-z_]\w*|\.)\s+)?\"([^\"]+)\"", text):
        if alias and alias not in ("import", "."):
            names.add(alias)
        elif not alias or alias == "import":
            names.add(path.rsplit("/", 1)[-1])
    return names


def used_imports(imports: tuple[str, ...] | list[str], text: str, language: str) -> tuple[str, ...]:
    """The import statements (in file order) that bind a name appearing in `text`."""
    words = set(_WORD.findall(text))
    return tuple(statement for statement in imports if not _bound_names(statement, language).isdisjoint(words))


@lru_cache(maxsize=4096)
def _bound_names(statement: str, language: str) -> frozenset[str]:
    """`bound_names`, once per statement: every symbol of a file asks about the same imports."""
    return frozenset(bound_names(statement, language))
