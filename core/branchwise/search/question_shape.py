"""What the words of a question say about where its answer lives, before any ranking.

A question that is only a name (`Router`, `Sinatra::Base`, `field_validator`) asks for the
definition of that name, not for the code that uses it: its answer is the symbol whose own
name it is. A sentence that carries a name in code form ("how does safeParse report errors")
points at that definition less firmly, and so do a qualified name ("app.set and settings
storage") and a capitalised word inside it ("how Monad composes effects"); a capitalised first
word ("Mutex and Semaphore ...", but "Print the error") names at most a type. The other words of
a sentence ("how are cookies signed") often name the file or folder the answer lives in
(`cookies.py`, `signing/`). A question that asks how something works asks about a mechanism,
which lives in a file or two (file_channel.py).
This module reads those shapes; `ranking_stage.py` turns them into score changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from branchwise.lexical import STOP_WORDS, split_identifier

#: a bare name: namespace-qualified (`Sinatra::Base`, `a.b`, `self->field`, `App\\Http`),
#: starting with an underscore, with an upper-case letter or an underscore after its first
#: letter (`HTTPAdapter`, `getUser`, `field_validator`), or capitalised (`Router`). A plain
#: lower-case word (`session`) is a word of a sentence, not a name.
_NAME_QUESTION = re.compile(
    r"^(?:[A-Za-z_][A-Za-z0-9_]*(?:(?:::|\\|->|\.)[A-Za-z_][A-Za-z0-9_]*[?!]?)+"
    r"|_[A-Za-z0-9_]*[?!]?"
    r"|[A-Za-z][A-Za-z0-9]*[A-Z_][A-Za-z0-9_]*[?!]?"
    r"|[A-Z][A-Za-z0-9]*[?!]?)$"
)
_SEPARATORS = re.compile(r"::|\\|->|\.|:")
#: a name in code form inside a sentence: PascalCase with two humps, camelCase or snake_case
#: (`safeParse`, `serialize_field`); not an acronym
_EMBEDDED_NAME = re.compile(r"\b(?:[A-Z][a-z][a-zA-Z0-9]*[A-Z][a-zA-Z0-9]*|[a-z][a-zA-Z0-9]*[A-Z][a-zA-Z0-9]+"
                            r"|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")
#: a qualified name inside a sentence (`app.set`, `Plug.Router`, `Picker:find`), asked for whole:
#: its last part alone (`set`, `find`) is the name of many things
_QUALIFIED_IN_SENTENCE = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*(?:(?:::|->|[.:])[A-Za-z_][A-Za-z0-9_]*)+")
#: a capitalised word after a sentence's first (`Monad` in "how Monad composes effects": code
#: questions write a type's name as it is spelled); not a two-letter one ("in Go")
_CAPITALISED = re.compile(r"(?<=\s)[A-Z][a-z][a-z0-9]+\b")
#: a sentence's capitalised first word (`Mutex` in "Mutex and Semaphore for synchronization"): a
#: type's name, or English ("Print the error and exit"), so it asks only for a type of that name
_FIRST_CAPITALISED = re.compile(r"^[A-Z][a-z][a-z0-9]+\b")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: shorter words match a path part only when equal (a prefix of three letters or more counts:
#: "dependency" meets `dependencies`)
_MIN_PREFIX = 3


#: "how many", "how much": a question about a quantity, not about how something works
_HOW_MUCH = frozenset({"many", "much", "long", "often", "far", "big", "large", "old"})


def asks_how(question: str) -> bool:
    """Whether a question asks how something works ("how does a group pick the subcommand",
    "How the timer wheel tracks deadlines"), not how much of it there is ("how many bytes")."""
    words = question.lower().split(maxsplit=2)
    return len(words) > 1 and words[0] == "how" and words[1] not in _HOW_MUCH


@dataclass(frozen=True)
class Shape:
    """A question's shape: the names it asks to see defined (`names`; `bare` when the question
    is nothing but a name), the names it asks for only as types (`types`) and its other words
    (for path matching)."""

    names: frozenset[str]
    bare: bool
    words: frozenset[str]
    types: frozenset[str] = frozenset()


@lru_cache(maxsize=1024)
def shape_of(question: str) -> Shape:
    text = question.strip()
    if _NAME_QUESTION.match(text):
        parts = [p for p in _SEPARATORS.split(text) if p]
        names = {parts[-1], ".".join(parts)} if len(parts) > 1 else {parts[-1]}
        return Shape(frozenset(names), True, frozenset())
    every = _WORD.findall(text)
    words = frozenset(part for w in every for part in split_identifier(w) if len(part) > 2 and part not in STOP_WORDS)
    names = set(_EMBEDDED_NAME.findall(text))
    for found in _QUALIFIED_IN_SENTENCE.findall(text):
        parts = _SEPARATORS.split(found)
        if len(parts[0]) > 1 and len(parts[-1]) > 1:  # not a one-letter module alias (`M.load`, `z.string`)
            names.add(".".join(parts))
    types: set[str] = set()
    if 2 * sum(word[0].isupper() for word in every) <= len(every):  # not a title ("How To Configure The Logger")
        names.update(_CAPITALISED.findall(text))
        first = _FIRST_CAPITALISED.match(text)
        if first and first.group().lower() not in STOP_WORDS and first.group() not in names:
            types.add(first.group())
    return Shape(frozenset(names), False, words, frozenset(types))


def defines(qualified_name: str, names: frozenset[str]) -> bool:
    """Whether a symbol of this qualified name is the definition of one of `names` (its own
    name, or its qualified name ending with a qualified one), ignoring an overload's `#2` and
    a Ruby-style `?`/`!` on either side."""
    own = re.sub(r"#\d+$", "", qualified_name)
    last = own.rsplit(".", 1)[-1].rstrip("?!")
    for name in names:
        bare = name.rstrip("?!")
        if "." in bare:
            if own == bare or own.endswith("." + bare):
                return True
        elif last == bare:
            return True
    return False


def stem_names(path: str, name: str) -> bool:
    """Whether the file is named after `name` (`router.ex` for `Router`, `http_adapter.py`,
    a plural `routers.go`)."""
    stem = PurePosixPath(path).stem.lower()
    name = name.rsplit(".", 1)[-1].lower()
    squashed = stem.replace("_", "").replace("-", "")
    return name in (stem, squashed, stem.rstrip("s"), squashed.rstrip("s"))


@lru_cache(maxsize=4096)
def _path_parts(path: str) -> frozenset[str]:
    pure = PurePosixPath(path)
    parts = set(split_identifier(pure.stem.replace("-", "_")))
    if pure.parent.name:
        parts.update(split_identifier(pure.parent.name.replace("-", "_")))
    return frozenset(parts)


@lru_cache(maxsize=1 << 14)  # a pure function, asked for every candidate's file of every question
def path_word_share(words: frozenset[str], path: str) -> float:
    """The share of a question's words that the file's name or its folder's name carries
    (equal, or one a prefix of the other of at least three letters)."""
    if not words:
        return 0.0
    parts = _path_parts(path)
    stems = {_singular(part) for part in parts}
    matched = 0
    for word in words:
        word = _singular(word)
        if word in stems or any(_prefix_match(word, part) for part in stems):
            matched += 1
    return matched / len(words)


def names_file(words: frozenset[str], path: str) -> bool:
    """Whether the question's words spell the file's whole name: every part of its stem (of
    three letters or more, not a stop word) is one of the words (`command.rb` for "command
    dispatch"), so a file whose name also says something the question does not
    (`RouteGroupInterface.php` for "group routes", `SegmentedByteString.kt` for "bytes of a
    string") is not taken for the file the question names."""
    parts = [_singular(part) for part in _stem_parts(path)]
    asked = {_singular(word) for word in words}
    return bool(parts) and all(part in asked or any(len(word) >= _MIN_PREFIX and part.startswith(word) for word in asked)
                               for part in parts)


def spells_name(words: frozenset[str], qualified_name: str) -> bool:
    """Whether the question's words spell a symbol's own name of two words or more
    ("optimizer thresholds" and `optimizer_thresholds`, "order total price" and `order_total`)."""
    parts = {_singular(part) for part in _name_parts(re.sub(r"#\d+$", "", qualified_name).rsplit(".", 1)[-1])}
    return len(parts) >= 2 and parts <= {_singular(word) for word in words}


@lru_cache(maxsize=4096)
def _stem_parts(path: str) -> tuple[str, ...]:
    return _name_parts(PurePosixPath(path).stem.replace("-", "_"))


@lru_cache(maxsize=1 << 14)
def _name_parts(name: str) -> tuple[str, ...]:
    """A name's words of three letters or more that are not stop words."""
    return tuple(part for part in split_identifier(name) if len(part) > 2 and part not in STOP_WORDS)


def _singular(word: str) -> str:
    """A plural's singular, roughly: `dependencies` -> `dependency`, `cookies` -> `cookie`."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _prefix_match(a: str, b: str) -> bool:
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    return len(shorter) >= _MIN_PREFIX and longer.startswith(shorter)
