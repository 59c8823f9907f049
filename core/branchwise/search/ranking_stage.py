"""The ranking stage after fusion: the question's shape and the files the candidates live in.

Fusion ranks chunks by how well each channel matches them one at a time. Three things it
cannot see decide many questions on real repositories:

- a question that is only a name asks for its definition: the symbol of that name jumps to
  the top (`definition_boost` times the best fused score; half that for a name written in
  code form inside a sentence, shared among the candidates that define it, more when the
  file is named after it too; a sentence's capitalised first word, "Mutex and Semaphore ...",
  only for a type in a file named after it);
- the words of a sentence often name the file of the answer ("Rails command dispatch" and
  `command.rb`): the best chunk of a file whose whole name the words spell gains `path_boost`
  times the best score times the share of the question's words its path carries (only the
  files with the largest share, once each: a boost to every chunk of a named file, or to a
  file whose name says more than the question, filled the top 10 with it and lost on the
  symbol-level benchmarks); not when the channels' first result is a symbol whose name the
  words spell ("order total price" and `order_total`);
- a reader, like the peer benchmark's scorer, is served by the first page covering the code,
  not by one file's fourth chunk: a repeat of a file on the page gives its slot to a result
  from a file the page does not show that scores at least `file_spread` times it and weighs no
  less (page_spread.py). Off by default: a chunk whose lines lie inside a chunk of its file
  ranked above it (a method under its class's outline) multiplied by `file_decay`, and the
  best chunk of a source file with several strong candidates gaining a little
  (`file_coherence`). Decaying *every* further chunk of a file helps a file-level scorer but
  lets tests and docs displace the sibling function a question asks for (click and cobra lose
  0.03-0.04 MRR@10); the page spread moves nothing up by decay.

Re-export files (`__init__.py`, `package-info.java`), type stubs (`.d.ts`), C or C++
prototypes (a function declared without its body), older copies of the code kept under a
version folder (`v1/` beside the package it preceded, `v3/` beside `v4/`) and code kept for old
callers (`_compat/`, `legacy/`, `deprecated/`, unless the question says that word) repeat names
defined elsewhere: they are multiplied by `reexport_weight`. A prototype's header often carries the documentation a
question matches, so the definition of the same name scores at least what its prototype did. Every piece has its own setting
in `[ranking]`; 0 (or 1 for a multiplier) switches it off. By default the definition boost,
the path boost, the re-export weight and the page spread are on: the decay and coherence lift a
file-level benchmark but cost the symbol-level ones (docs/ranking.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import PurePosixPath

from branchwise.models import EXCLUDED_CLASSES, Result
from branchwise.ranking import role_of
from branchwise.search.page_spread import spread
from branchwise.search.question_shape import Shape, defines, names_file, path_word_share, shape_of, spells_name, stem_names

REEXPORT_FILES = frozenset({"__init__.py", "package-info.java"})
STUB_SUFFIXES = (".d.ts",)
PROTOTYPE_LANGUAGES = frozenset({"c", "cpp"})
_VERSION_FOLDER = re.compile(r"(?:^|/)v(\d+)/")
#: a folder whose name says its code is kept for old callers (fastapi's `_compat/`, pydantic's
#: `deprecated/`): the current code lives elsewhere, unless the question asks for it by that word
_OLD_CALLERS_FOLDER = re.compile(r"(?:^|/)_?(compat|legacy|deprecated)/")
#: the share of a question's words a path must carry before it counts
MIN_PATH_SHARE = 0.1
#: chunks that name no definition (whole files, prose sections, configuration blocks)
NOT_DEFINITIONS = frozenset({"file", "section", "config"})
#: a definition in a file named after it is the definition most readers mean
STEM_TIER = 1.5
#: the kinds of symbol a type name names (question_shape.Shape.types)
TYPE_KINDS = frozenset({"class", "struct", "interface", "trait", "enum", "type", "module"})
#: a name in code form inside a sentence may be incidental to it
EMBEDDED_SCALE = 0.5


def restage(question: str, results: list[Result], settings,
            prior: Callable[[Result], float] = lambda _result: 1.0, page: int = 10) -> list[Result]:
    """`results` (best first, scores already fused and weighted by role) rescored and resorted,
    the first `page` of them spread over files (page_spread.py). `prior` is the role prior
    already in each score; a boost is weighted by it too, so a test whose file name spells the
    question lifts no more than its words did."""
    if not results or results[0].score <= 0:
        return results
    best = results[0].score
    shape = shape_of(question)
    older: set[str] = set()
    if settings.reexport_weight != 1.0:
        _lift_definitions(results)
        older = older_copies({result.identity.path for result in results})
        older |= {r.identity.path for r in results if _kept_for_old_callers(r.identity.path, shape.words)}
    named = {}
    if settings.path_boost > 0 and not spells_name(shape.words, results[0].identity.qualified_name):
        named = named_files(shape.words, [r.identity.path for r in results])
    sharing = _definitions_per_name(results, shape) if (shape.names or shape.types) and not shape.bare else {}
    weights: dict[int, float] = {}
    for result in results:
        path = result.identity.path
        weight = prior(result)  # a boost is weighted as the score it adds to
        if settings.reexport_weight != 1.0 and (_is_reexport(path) or is_prototype(result) or path in older):
            result.score *= settings.reexport_weight
            weight *= settings.reexport_weight
        weights[id(result)] = weight
        asked = _asked_of(result, shape)
        if asked and settings.definition_boost > 0 and defines(result.identity.qualified_name, asked):
            tier = STEM_TIER if any(stem_names(path, n) for n in asked) else 1.0
            scale = 1.0 if shape.bare else EMBEDDED_SCALE / sharing.get(result.identity.qualified_name, 1)
            result.score += best * settings.definition_boost * tier * scale * weight
        if path in named:  # the file's best chunk, once
            result.score += best * settings.path_boost * named.pop(path) * weight
    if settings.file_coherence > 0:
        _cohere(results, best * settings.file_coherence)
    results.sort(key=lambda r: r.score, reverse=True)
    if settings.file_decay < 1.0:
        shown: dict[str, list[tuple[int, int]]] = {}
        for result in results:
            spans = shown.setdefault(result.identity.path, [])
            inside = sum(1 for start, end in spans if start <= result.start_line and result.end_line <= end)
            result.score *= settings.file_decay ** inside
            spans.append((result.start_line, result.end_line))
        results.sort(key=lambda r: r.score, reverse=True)
    if settings.file_spread < 1.0:
        results = spread(results, page, settings.file_spread, lambda r: weights[id(r)], _takes_a_slot)
    return results


def _takes_a_slot(result: Result) -> bool:
    """History and excluded code are shown aside, never in a page slot (hybrid._assemble)."""
    return not result.history and result.path_class not in EXCLUDED_CLASSES


def _asked_of(result: Result, shape: Shape) -> frozenset[str]:
    """The names the question asks this candidate to define: none for a chunk that defines
    nothing; a sentence's capitalised first word (Shape.types) only of a type declared in a
    file named after it."""
    kind = result.identity.symbol_type
    if kind in NOT_DEFINITIONS:
        return frozenset()
    if kind in TYPE_KINDS and shape.types:
        return shape.names | {name for name in shape.types if stem_names(result.identity.path, name)}
    return shape.names


def _definitions_per_name(results: list[Result], shape: Shape) -> dict[str, int]:
    """For each candidate defining one of the asked names, how many candidates define a name it defines."""
    by_name: dict[str, list[str]] = {}
    for result in results:
        for name in _asked_of(result, shape):
            if defines(result.identity.qualified_name, frozenset({name})):
                by_name.setdefault(name, []).append(result.identity.qualified_name)
    counts: dict[str, int] = {}
    for defined in by_name.values():
        for qualified_name in defined:
            counts[qualified_name] = max(counts.get(qualified_name, 1), len(defined))
    return counts


def named_files(words: frozenset[str], paths: list[str]) -> dict[str, float]:
    """The files a sentence names, with the share of its words their paths carry: of the files
    whose whole name the words spell (question_shape.names_file), those that carry the largest
    share (at least MIN_PATH_SHARE). "bash completion script" names `bash_completions.go`
    before `completions.go`, and neither `RouteGroupInterface.php` for "group routes"."""
    shares = {path: path_word_share(words, path) for path in set(paths)} if words else {}
    shares = {path: share for path, share in shares.items() if share >= MIN_PATH_SHARE and names_file(words, path)}
    top = max(shares.values(), default=0.0)
    return {path: share for path, share in shares.items() if share == top}


def older_copies(paths: set[str]) -> set[str]:
    """The paths under a version folder (`v1/`, `v3/`) that `paths` show to hold an older copy
    of the code: a newer version folder beside it (zod's `v3/` beside `v4/`), or one of its
    files also outside it (pydantic's `pydantic/v1/main.py` and `pydantic/main.py`)."""
    placed: list[tuple[str, str, int, str]] = []  # (path, folder holding vN/, N, path inside vN/)
    newest: dict[str, int] = {}
    for path in paths:
        for found in _VERSION_FOLDER.finditer(path):
            folder, version = path[:found.start(1) - 1], int(found.group(1))
            placed.append((path, folder, version, path[found.end():]))
            newest[folder] = max(newest.get(folder, version), version)
    copies = {(folder, version) for _path, folder, version, inside in placed
              if newest[folder] > version or folder + inside in paths}
    return {path for path, folder, version, _inside in placed if (folder, version) in copies}


def _kept_for_old_callers(path: str, words: frozenset[str]) -> bool:
    found = _OLD_CALLERS_FOLDER.search(path)
    return found is not None and not any(word.startswith(found.group(1)) for word in words)


def _lift_definitions(results: list[Result]) -> None:
    """A function's definition scores at least what its prototype does: the header often
    carries the documentation the question matches, the body is what answers it."""
    declared: dict[tuple[str, str], float] = {}
    for result in results:
        if is_prototype(result):
            key = (result.identity.language, result.identity.qualified_name)
            declared[key] = max(declared.get(key, 0.0), result.score)
    if not declared:
        return
    for result in results:
        key = (result.identity.language, result.identity.qualified_name)
        if key in declared and result.identity.symbol_type == "function" and not is_prototype(result):
            result.score = max(result.score, declared[key])


def is_prototype(result: Result) -> bool:
    """A C or C++ function declared without its body (in a header): its definition is elsewhere."""
    return (result.identity.language in PROTOTYPE_LANGUAGES and result.identity.symbol_type == "function"
            and "{" not in result.text and result.text.rstrip().endswith(";"))


@lru_cache(maxsize=1 << 16)
def _is_reexport(path: str) -> bool:
    return PurePosixPath(path).name in REEXPORT_FILES or path.endswith(STUB_SUFFIXES)


def _cohere(results: list[Result], unit: float) -> None:
    """The best chunk of each file gains `unit` x its file's share of the strongest file's summed score."""
    sums: dict[str, float] = {}
    top: dict[str, Result] = {}
    for result in results:
        if role_of(result.path, result.path_class.value, result.identity.language,
                   result.identity.qualified_name) != "source":
            continue
        path = result.identity.path
        sums[path] = sums.get(path, 0.0) + max(result.score, 0.0)
        if path not in top or result.score > top[path].score:
            top[path] = result
    strongest = max(sums.values(), default=0.0)
    if strongest <= 0:
        return
    for path, result in top.items():
        result.score += unit * sums[path] / strongest
