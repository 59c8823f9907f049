"""Who on the base branch really uses a changed symbol: callers found in the syntax tree.

One pass for a whole diff: the changed names go to FTS5 in batches (one match per batch) to
find the base's live code that mentions any of them; each candidate file is read and parsed
once, its references (references.py) are matched against every changed name at once, and a
reference counts for a symbol only when it fits it:

- a function, class or constant: a call, an import, a plain name, or an attribute through
  something that is not `self` or a known class (`click.echo`, `core.Command`);
- a method: a call or attribute through `self`/`this`/`super()` inside a class of its family
  (the class, a subclass or a base class), through the class's name (or a relative's), or
  through a variable of such a class (`runner = CliRunner()`, `ctx: Context`), or through an
  object whose type is not known (`obj.invoke`: a possible caller, listed last); a bare name only inside the family;
- a function nested in another: only code inside that function.

Prose, configuration and lockfiles never call code; a configuration key's impact is other
configuration beside it that names the key (`key`). Generated and vendored code is not looked at.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import PurePosixPath

from branchwise.chunking.config_blocks import CONFIG_KINDS
from branchwise.chunking.grammars import parser
from branchwise.chunking.languages import language_for_path
from branchwise.lexical import split_identifier
from branchwise.models import EXCLUDED_CLASSES, PathClass
from branchwise.review.references import HOWS, Reference, Typing, has_references, scan
from branchwise.store.records import VersionRecord

#: symbols that nothing calls by name: a module's loose code, a file chunk
NOT_CALLED = frozenset({"module", "file", "config"})
#: the symbol types whose names are classes for the method-owner rules
CLASS_TYPES = frozenset({"class", "interface", "struct", "trait", "enum", "type", "record", "impl"})
SELF_OWNERS = frozenset({"self", "cls", "this", "Self", "super()", "super", "base"})
#: changed names per FTS5 match (a match is one statement; SQLite's expression depth limits it)
NAMES_PER_MATCH = 200
HOW_FOR_KEY = "key"
#: candidate files parsed between two progress reports
PROGRESS_EVERY = 10


@dataclass(frozen=True)
class Target:
    """A changed symbol whose users to find: its name on the base and what it is."""

    key: int  # the caller's own handle for the change
    name: str
    qualified_name: str
    symbol_type: str
    language: str
    own: frozenset  # identities of the change itself (never its own caller)
    path: str = ""  # where it was on the base side

    @property
    def local_scope(self) -> str | None:
        """The function a nested function lives in: only code inside it can call it."""
        if self.symbol_type != "function" or "." not in self.qualified_name:
            return None
        return self.qualified_name.rsplit(".", 1)[0]

    @property
    def is_config_key(self) -> bool:
        return self.symbol_type == "config" or self.language in CONFIG_KINDS

    @property
    def owner_class(self) -> str | None:
        if self.symbol_type != "method" or "." not in self.qualified_name:
            return None
        return self.qualified_name.rsplit(".", 1)[0].rsplit(".", 1)[-1]


@dataclass
class Found:
    """A base symbol that uses a target: how (the best way it does) and on which line."""

    row: int  # version row
    how: str
    line: int
    place: tuple[str | None, int, int]  # blob, start, end on the base
    #: the owner is known to fit (not a method called on an object of unknown type)
    certain: bool = True


def wants_callers(symbol_type: str, language: str, name: str) -> bool:
    """Code that is called by name (not `__init__`, which syntax calls), or a config key."""
    if name.startswith("__") and name.endswith("__"):
        return False
    if symbol_type == "config" or language in CONFIG_KINDS:
        return True
    return symbol_type not in NOT_CALLED and has_references(_grammar_of_language(language))


def find_callers(store, repo, branch_id: int, targets: list[Target],
                 progress=None) -> tuple[dict[int, list[Found]], dict[int, VersionRecord]]:
    """For each target key, the base symbols that use it (unsorted), and their records;
    `progress(done, total)` hears of the candidate files parsed."""
    by_name: dict[str, list[Target]] = defaultdict(list)
    for target in targets:
        by_name[target.name].append(target)
    places: dict[int, tuple[str | None, int, int]] = {}
    names = sorted(by_name)
    for start in range(0, len(names), NAMES_PER_MATCH):
        match = _fts_match(names[start:start + NAMES_PER_MATCH])
        if match:
            for row, blob, first, last in store.live_rows_matching(branch_id, match):
                places[row] = (blob, first, last)
    records = {row: r for row, r in store.version_records(list(places)).items()
               if PathClass(r.path_class) not in EXCLUDED_CLASSES}
    found: dict[int, dict[int, Found]] = defaultdict(dict)
    families = ClassFamilies(store.live_classes(branch_id, CLASS_TYPES))
    code_names = frozenset(n for n, ts in by_name.items() if any(not t.is_config_key for t in ts))
    by_blob: dict[tuple[str, str], list[int]] = defaultdict(list)  # one parse per file
    for row, record in records.items():
        blob = places[row][0]
        if blob is not None and has_references(language_for_path(record.path)):
            by_blob[(blob, record.path)].append(row)
    sources = repo.read_blobs([blob for blob, _path in by_blob])
    for done, ((blob, _path), rows) in enumerate(by_blob.items(), 1):
        if blob in sources:
            _code_callers(sources[blob], rows, records, places, by_name, code_names, families, found)
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == len(by_blob)):
            progress(done, len(by_blob))
    _config_callers(records, places, by_name, found)
    return {key: list(hits.values()) for key, hits in found.items()}, records


def _code_callers(source: bytes, rows, records, places, by_name, names, families, found) -> None:
    """Parse one candidate file once and give each fitting reference to its innermost candidate."""
    grammar = language_for_path(records[rows[0]].path)
    if grammar is None:  # find_callers only sends files with a references query
        return
    root = parser(grammar).parse(source).root_node
    spans = sorted(rows, key=lambda r: places[r][2] - places[r][1])  # innermost first
    refs, typings = scan(grammar, root, names)
    for ref in refs:
        row = next((r for r in spans if places[r][1] <= ref.line <= places[r][2]
                    and _names_word(records[r].text, ref.name)), None)
        if row is None:
            continue
        record = records[row]
        owner_type = _owner_type(ref, typings, places[row], families)
        for target in by_name.get(ref.name, ()):
            if target.is_config_key or _identity(record) in target.own or not _in_scope(target, record):
                continue
            verdict = fits(target, ref, _enclosing_class(record, families), families, owner_type)
            if verdict:
                _keep(found[target.key], row, ref.how, ref.line, places[row], verdict == "certain")


def _config_callers(records, places, by_name, found) -> None:
    """A config key's users: other configuration blocks of its folder (its workflow file, the
    files beside it) that name the key as a key or a bare value (`needs: [build]`), never
    inside a longer name, a path or a quoted string."""
    config_targets = [t for ts in by_name.values() for t in ts if t.is_config_key]
    if not config_targets:
        return
    config_rows = [row for row, r in records.items() if r.language in CONFIG_KINDS]
    for target in config_targets:
        name = re.escape(target.name)
        word = re.compile(rf"""(?:^|(?<=[\s{{,\[]))["']?{name}["']?\s*[:=]|[:=\[,]\s*\[?\s*{name}\s*(?:\]|,|$)""",
                          re.MULTILINE)
        folder = PurePosixPath(target.path).parent
        for row in config_rows:
            record = records[row]
            if _identity(record) in target.own or PurePosixPath(record.path).parent != folder:
                continue
            hit = word.search(record.text)
            if hit:
                line = places[row][1] + record.text.count("\n", 0, hit.start())
                _keep(found[target.key], row, HOW_FOR_KEY, line, places[row])


def fits(target: Target, ref: Reference, candidate_class: str | None, families: ClassFamilies,
         owner_type: str | None = None) -> str | None:
    """Does this reference use the target (see the module docstring for the rules)? "certain",
    "possible" (a method called on an object of unknown type) or None."""
    owner = ref.owner
    if ref.owner_is_literal:
        return None
    owner_name = owner_type or (owner.rsplit(".", 1)[-1] if owner else None)
    cls = target.owner_class
    if cls is None:  # a function, class or constant
        if owner is None:
            return "certain"
        return None if owner in SELF_OWNERS or families.known(owner_name) else "certain"
    if ref.how == "import":
        return None
    if owner is None or owner in SELF_OWNERS or owner.endswith("super()"):
        return "certain" if candidate_class is not None and families.related(candidate_class, cls) else None
    if families.known(owner_name) or owner_name == cls:
        return "certain" if families.related(owner_name, cls) else None
    return "possible"  # an object whose type is not known here


def _owner_type(ref: Reference, typings: list[Typing], place, families: ClassFamilies) -> str | None:
    """The known class of a reference's owner variable, from the candidate's own lines."""
    if ref.owner is None or not ref.owner.isidentifier():
        return None
    known = [t for t in typings if t.variable == ref.owner and place[1] <= t.line <= ref.line
             and families.known(t.type_name)]
    return known[-1].type_name if known else None


class ClassFamilies:
    """The base's classes by short name, with the names their signatures derive from."""

    _IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

    def __init__(self, classes: list[tuple[str, str, str]]):
        self.bases: dict[str, set[str]] = defaultdict(set)
        for qualified_name, signature, _language in classes:
            name = qualified_name.rsplit(".", 1)[-1]
            self.bases[name] |= {w for w in self._IDENT.findall(signature or "") if w != name}
        self._ancestors: dict[str, frozenset[str]] = {}

    def known(self, name: str | None) -> bool:
        return name is not None and name in self.bases

    def ancestors(self, name: str) -> frozenset[str]:
        if name not in self._ancestors:
            seen: set[str] = set()
            todo = [name]
            while todo:
                for base in self.bases.get(todo.pop(), ()):
                    if base not in seen:
                        seen.add(base)
                        todo.append(base)
            self._ancestors[name] = frozenset(seen)
        return self._ancestors[name]

    def related(self, a: str | None, b: str) -> bool:
        """`a` is `b`, derives from it, or is one of its bases (a base's `self.m()` reaches
        the subclass's `m`)."""
        return a is not None and (a == b or b in self.ancestors(a) or a in self.ancestors(b))


def _keep(hits: dict[int, Found], row: int, how: str, line: int, place, certain: bool = True) -> None:
    known = hits.get(row)
    if known is None or (not certain, _how_rank(how)) < (not known.certain, _how_rank(known.how)):
        hits[row] = Found(row, how, line, place, certain)


def _how_rank(how: str) -> int:
    return HOWS.index(how) if how in HOWS else len(HOWS)


def _enclosing_class(record: VersionRecord, families: ClassFamilies) -> str | None:
    """The class a candidate's code runs in: itself, else the nearest known class around it."""
    parts = record.qualified_name.split(".")
    if record.symbol_type in CLASS_TYPES:
        return parts[-1]
    for part in reversed(parts[:-1]):
        if families.known(part):
            return part
    return None


def _in_scope(target: Target, record: VersionRecord) -> bool:
    scope = target.local_scope
    return scope is None or (record.path == target.path and (
        record.qualified_name == scope or record.qualified_name.startswith(scope + ".")))


def _names_word(text: str, name: str) -> bool:
    return re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text) is not None


def _identity(record: VersionRecord) -> tuple:
    return (record.path, record.language, record.symbol_type, record.qualified_name)


def _fts_match(names: list[str]) -> str | None:
    phrases = []
    for name in names:
        parts = split_identifier(name)
        if parts:
            phrases.append('"' + " ".join(parts) + '"')
    return "code : (" + " OR ".join(phrases) + ")" if phrases else None


def _grammar_of_language(language: str) -> str | None:
    from branchwise.chunking.grammars import GRAMMARS

    return language if language in GRAMMARS else None
