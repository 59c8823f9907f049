"""The names an import statement binds, for the languages of issue 33 (see imports.py).

C and C++ includes bind no name: a header's stem stands for what it declares
(`#include "cJSON.h"` -> `cJSON`). C# `using A.B;` makes B's members visible: the last
segment stands for it, and `using X = A.B;` binds X. Ruby `require 'sinatra/base'` and Lua
`local json = require("json")` bind the required file's stem or the local's name. PHP,
Kotlin, Swift and Scala bind their imported names and aliases. Issue 45: Elixir's `alias
Plug.Conn` binds `Conn` (`as: C` binds `C`, `alias Plug.{Conn, Router}` both); `import`,
`require` and `use` bind the module's last segment. Haskell's `import Data.Map (Map, empty)`
binds the names listed, `as M` binds `M`, a plain import its module's last segment. Zig's
`const std = @import("std")` binds `std`.
"""

from __future__ import annotations

import re

LANGUAGES = frozenset(
    {"c", "cpp", "csharp", "ruby", "php", "kotlin", "swift", "scala", "bash", "lua", "elixir", "haskell", "zig"}
)
_WORD = r"[A-Za-z_]\w*"
_HASKELL_OPERATOR = re.compile(r"\(([!#$%&*+./<=>?@\\^|~:-]+)\)")


def _stem(path: str) -> str:
    return re.split(r"[./]", path.rstrip("/").rsplit("/", 1)[-1], maxsplit=1)[0]


def bound_names(statement: str, language: str) -> set[str]:
    text = statement.strip()
    if language in ("c", "cpp"):
        found = re.search(r"[<\"]([^>\"]+)[>\"]", text)
        return {_stem(found[1])} if found else set()
    if language == "csharp":
        alias = re.match(rf"(?:global\s+)?using\s+(?:static\s+)?({_WORD})\s*=", text)
        if alias:
            return {alias[1]}
        return set(re.findall(rf"({_WORD})\s*;", text))
    if language in ("ruby", "bash"):
        found = re.search(r"['\"]([^'\"]+)['\"]", text) or re.search(r"\s(\S+)\s*$", text)
        return {_stem(found[1])} if found else set()
    if language in ("lua", "zig"):
        return set(re.findall(rf"(?:local|const|var)\s+({_WORD})", text))
    if language == "elixir":
        return _elixir_names(text)
    if language == "haskell":
        return _haskell_names(text)
    if language == "php":
        text = re.sub(r"^use\s+(?:function|const)?\s*", "", text).rstrip(";")
        names = set(re.findall(rf"\bas\s+({_WORD})", text))
        for part in re.split(r"[,{}]", text):
            part = part.strip()
            if part and " as " not in part:
                names.add(part.rsplit("\\", 1)[-1])
        return {name for name in names if name}
    if language == "scala":
        text = re.sub(r"^import\s+", "", text)
        names = set(re.findall(rf"=>\s*({_WORD})", text))
        group = re.search(r"\{([^}]*)\}", text)
        parts = group[1].split(",") if group else [text.rsplit(".", 1)[-1]]
        for part in parts:
            name = part.split("=>")[0].strip()
            if name and name not in ("_", "*") and "=>" not in part:
                names.add(name)
        return names
    # Kotlin `import a.b.C [as D]`, Swift `import [struct] Foundation.X`
    alias = re.search(rf"\bas\s+({_WORD})", text)
    if alias:
        return {alias[1]}
    last = re.findall(rf"({_WORD})\s*(?:\.\*)?\s*$", text)
    return set(last) - {"import"}


def _elixir_names(text: str) -> set[str]:
    alias = re.search(rf"\bas:\s*({_WORD})", text)
    if alias:
        return {alias[1]}
    group = re.search(r"\.\{([^}]*)\}", text)
    if group:
        return {part.strip().rsplit(".", 1)[-1] for part in group[1].split(",") if part.strip()}
    module = re.match(r"\s*\w+\s+([\w.]+)", text)
    return {module[1].rsplit(".", 1)[-1]} if module else set()


def _haskell_names(text: str) -> set[str]:
    alias = re.search(r"\bas\s+([\w.]+)", text)
    listed = re.search(r"\((.*)\)", text, re.DOTALL)
    if listed and not re.search(r"\bhiding\b", text):  # `(Value(..), (.=), ToJSON(toJSON))`
        names = set(_HASKELL_OPERATOR.findall(listed[1])) - {".."}  # `Value(..)` names no more
        names |= set(re.findall(_WORD, _HASKELL_OPERATOR.sub("", listed[1])))
        return names | ({alias[1]} if alias else set())
    if alias:
        return {alias[1]}
    module = re.search(r"import\s+(?:qualified\s+)?(?:\"[^\"]*\"\s+)?([\w.]+)", text)
    return {module[1].rsplit(".", 1)[-1]} if module else set()
