"""Mining (question, code) pairs from library code with the product's own chunker.

A documented function or method gives one pair: the question is its docstring's first
sentence (what a user would ask for), the code is the text the index embeds for it,
composed by the product's chunker (chunking/embedding_text.py), so training sees exactly
what search sees. Most pairs have the docstring taken out of the code text (composed again
as if the function were undocumented), or the task would be matching a sentence to itself;
a share keeps it, as documented code does in a real index. Duplicate questions and duplicate
code texts are collapsed, so boilerplate docstrings (`Return self.`) do not dominate.
"""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from train.sources import Source, sha256_file

#: symbols that make pairs; containers are embedded by their outline and methods cover them
PAIR_TYPES = frozenset({"function", "method"})
MIN_WORDS, MAX_WORDS = 4, 40
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(`'\"])|(?<=[.!?])$|\n\s*\n")
_NOT_A_QUESTION = re.compile(r"^(deprecated|todo|xxx|internal|private|helper|see |override|same as|alias)", re.I)


@dataclass
class Pair:
    query: str
    code: str  # the code text the index embeds, docstring removed unless `with_docstring`
    with_docstring: bool
    source: str
    path: str
    qualified_name: str


def first_sentence(docstring: str) -> str:
    """The docstring's first sentence on one line, '' when it is no usable question."""
    paragraph = docstring.strip().split("\n\n", 1)[0]
    sentence = _SENTENCE_END.split(paragraph, 1)[0]
    sentence = " ".join(sentence.split())
    words = sentence.split()
    if not (MIN_WORDS <= len(words) <= MAX_WORDS) or _NOT_A_QUESTION.match(sentence):
        return ""
    if sentence.startswith((">>>", ":", "@", "..")) or sentence.count("`") > 6:
        return ""
    return sentence


#: languages whose doc comments open with the symbol's name ("ExecuteC runs the command"):
#: the name is dropped from the question, which a user would not start with
NAME_LEADS_DOC = frozenset({"go"})


def _without_leading_name(docstring: str, qualified_name: str, language: str) -> str:
    name = qualified_name.rsplit(".", 1)[-1]
    words = docstring.split(None, 1)
    if language in NAME_LEADS_DOC and len(words) == 2 and words[0] == name:
        rest = words[1]
        return rest[:1].upper() + rest[1:]
    return docstring


@contextlib.contextmanager
def recorded_compositions() -> Iterator[list[tuple]]:
    """Every call the chunker makes to `embedding_text.compose`, with its arguments, so a
    documented symbol's text can be composed again without its docstring."""
    from branchwise.chunking import embedding_text

    original = embedding_text.compose
    calls: list[tuple] = []

    def recording(*args, **kwargs):
        text = original(*args, **kwargs)
        calls.append((args, kwargs, text))
        return text

    embedding_text.compose = recording
    try:
        yield calls
    finally:
        embedding_text.compose = original


def file_pairs(source: Source, path: Path, data: bytes) -> list[tuple[str, str, str, str]]:
    """(query, text with docstring, text without, qualified name) per documented symbol of a file."""
    from branchwise.chunking import embedding_text
    from branchwise.chunking.chunker import chunk_file
    from branchwise.embedding.described import split_described
    from branchwise.models import PathClass

    relative = path.relative_to(source.root).as_posix()
    with recorded_compositions() as calls:
        chunks = chunk_file(source.name, relative, data)
    if chunks.path_class is not PathClass.SOURCE or chunks.skipped:
        return []
    composed = {}
    for args, kwargs, text in calls:
        composed.setdefault(text, (args, kwargs))
    out = []
    for chunk in chunks.chunks:
        if chunk.identity.symbol_type not in PAIR_TYPES or not chunk.docstring:
            continue
        query = first_sentence(_without_leading_name(chunk.docstring, chunk.identity.qualified_name, source.language))
        if not query or chunk.embedding_text not in composed:
            continue
        args, kwargs = composed[chunk.embedding_text]
        symbol_type, qualified_name, parent, signature, _doc, body = args[:6]
        bare = embedding_text.compose(symbol_type, qualified_name, parent, signature, "", body, **kwargs)
        # the passage only: the description (the docstring's first words, after the mark) would
        # hand the question to the code text; the shipped model was trained on passages
        out.append((query, split_described(chunk.embedding_text)[0], split_described(bare)[0],
                    chunk.identity.qualified_name))
    return out


def mine(sources: list[Source], docstring_share: float, seed: int,
         max_pairs: dict[str, int] | None = None,
         seen: tuple[set[str], set[str]] | None = None) -> tuple[list[Pair], list[dict]]:
    """The deduplicated pairs of every source (at most max_pairs[language] of a language, a
    seeded sample), and one record (path, sha256, pairs) per file used. `seen` (questions, code
    texts), when given, carries the deduplication over from earlier calls and is updated."""
    rng = random.Random(seed)
    pairs: list[Pair] = []
    files: list[dict] = []
    seen_queries, seen_code = seen if seen is not None else (set(), set())
    for source in sources:
        for path in source.files():
            data = path.read_bytes()
            try:
                found = file_pairs(source, path, data)
            except Exception:  # a file the grammar cannot take is not a pair source
                found = []
            kept = 0
            for query, documented, bare, qualified_name in found:
                key = query.lower().rstrip(".")
                with_docstring = rng.random() < docstring_share
                code = documented if with_docstring else bare
                if key in seen_queries or bare in seen_code:
                    continue
                seen_queries.add(key)
                seen_code.add(bare)
                pairs.append(Pair(query, code, with_docstring, source.name,
                                  path.relative_to(source.root).as_posix(), qualified_name))
                kept += 1
            if kept:
                files.append({"source": source.name, "path": path.relative_to(source.root).as_posix(),
                              "sha256": sha256_file(path), "pairs": kept})
    if max_pairs:
        limits = {s.name: max_pairs[s.language] for s in sources if s.language in max_pairs}
        pairs, files = _sampled(pairs, files, limits, random.Random(seed))
    return pairs, files


def _sampled(pairs: list[Pair], files: list[dict], limits: dict[str, int],
             rng: random.Random) -> tuple[list[Pair], list[dict]]:
    kept: list[Pair] = []
    for name in dict.fromkeys(p.source for p in pairs):
        of_source = [p for p in pairs if p.source == name]
        if len(of_source) > limits.get(name, len(of_source)):
            chosen = set(rng.sample(range(len(of_source)), limits[name]))
            of_source = [p for i, p in enumerate(of_source) if i in chosen]
        kept += of_source
    used: dict[tuple[str, str], int] = {}
    for p in kept:
        used[(p.source, p.path)] = used.get((p.source, p.path), 0) + 1
    return kept, [{**f, "pairs": used[(f["source"], f["path"])]} for f in files if (f["source"], f["path"]) in used]


def as_records(pairs: list[Pair]) -> list[dict]:
    return [asdict(p) for p in pairs]
