"""The lexical channel: identifier-aware tokens for SQLite FTS5.

Code names are compounds (`cancelOrder`, `ensure_cancellable`, `OrderApiClient`); splitting
them into words lets a question in words match them, and FTS5's porter stemmer then lets
"cancellation" meet `cancel`. Documents and queries go through the same splitter; a
question's British spellings are searched in the American spelling as well ("colour" meets
`color`), since code and its docs are mostly written that way.
"""

from __future__ import annotations

import re
from functools import lru_cache

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUALIFIED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:(?:::|\\|->|\.)[A-Za-z_][A-Za-z0-9_]*)+$")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
STOP_WORDS = frozenset(
    "a an and are as at be by do does for from how i in is it make of on or should that the "
    "this to use what when where which why with".split()
)
#: British spellings of a question that code and its docs spell the American way. The question's
#: word is searched as itself OR the other spelling: a document holds one spelling, so no
#: document counts a word twice. (Code abbreviations such as `args` for "arguments" are left
#: out on purpose: documents hold both forms, and an OR of the two counts the word twice.)
AMERICAN_SPELLINGS = {
    "colour": "color", "colours": "colors", "coloured": "colored", "colouring": "coloring",
    "behaviour": "behavior", "behaviours": "behaviors", "organise": "organize", "organised": "organized",
    "recognise": "recognize", "recognised": "recognized", "serialise": "serialize", "serialised": "serialized",
    "normalise": "normalize", "normalised": "normalized", "customise": "customize", "initialise": "initialize",
    "initialised": "initialized", "initialisation": "initialization", "licence": "license", "centre": "center",
    "favourite": "favorite", "synchronise": "synchronize",
    "optimise": "optimize", "analyse": "analyze", "summarise": "summarize", "finalise": "finalize",
    "finalised": "finalized", "honour": "honor", "catalogue": "catalog", "dialogue": "dialog",
}


#: BM25 weights of the lexical columns, in `fts_columns` order
COLUMN_WEIGHTS = (8.0, 4.0, 3.0, 2.0, 1.0, 2.0)


def fts_columns(qualified_name: str, signature: str, docstring: str, code: str, path: str) -> tuple[str, ...]:
    """A version's lexical document: symbol, name, signature, docstring, code and path words."""
    return (
        words(qualified_name.rsplit(".", 1)[-1]), words(qualified_name), words(signature),
        docstring, words(code), words(path),
    )


def split_identifier(name: str) -> list[str]:
    """`OrderApiClient` -> order, api, client; `ensure_cancellable` -> ensure, cancellable."""
    return [part.lower() for chunk in name.split("_") for part in _PART.findall(chunk)]


def words(text: str) -> str:
    """All identifiers of a text, whole and split into their parts, as one FTS document."""
    return " ".join(filter(None, map(_identifier_words, _IDENT.findall(text))))


@lru_cache(maxsize=1 << 16)
def _identifier_words(ident: str) -> str:
    """One identifier's words (its parts, then itself when it has several); an index run
    meets the same few thousand identifiers hundreds of thousands of times."""
    parts = split_identifier(ident)
    if len(parts) > 1:
        parts.append(ident.lower())
    return " ".join(parts)


def query_terms(question: str, spellings: bool = False) -> list[str]:
    """The searchable words of a question; `spellings`: British words with their American spelling."""
    terms: list[str] = []
    for word in words(question).split():
        if word in STOP_WORDS or len(word) < 2:
            continue
        american = AMERICAN_SPELLINGS.get(word) if spellings else None
        for term in (word, american) if american else (word,):
            if term not in terms:
                terms.append(term)
    return terms


def fts_query(question: str) -> str | None:
    """An FTS5 OR-query from a question, or None when nothing in it is searchable."""
    return " OR ".join(f'"{term}"' for term in query_terms(question, spellings=True)) or None


def name_query(question: str) -> str | None:
    """An FTS5 filter for symbols whose own name holds every word of the question
    ("optimizer thresholds" -> `optimizer_thresholds`, `ThresholdsOptimizer`; one word, `Router`,
    -> every symbol with that word in its name). A question that is a qualified name
    (`Sinatra::Base`, `http.Client`) asks by its last part, the symbol's own name."""
    text = question.strip()
    if _QUALIFIED.match(text):
        text = re.split(r"::|\\|->|\.", text)[-1]
    terms = [t for t in query_terms(text) if "_" not in t]
    if not 1 <= len(terms) <= 4:
        return None
    return "symbol : (" + " AND ".join(f'"{term}"' for term in terms) + ")"
