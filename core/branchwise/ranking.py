"""How the channel rankings become one ranking: weighted fusion, then a source-first prior.

Real repositories hold as much test, documentation and example code as code that does the
work, and all of it shares the question's words: a question about behaviour then gets
`test_cancel_twice` or a docs page above `cancel`. The prior lowers the score of those
roles (a multiplier per role, not a filter), except for the roles the question itself asks
for ("tests for ...", "documentation on ..."): then those lead and source code steps back,
so a request for tests finds tests.
Documentation means prose (Markdown, reST, text); code that lives under `doc/` (a
man-page generator, say) is code and ranks as code. Within source, what a question about
behaviour wants is a definition (a function, method or type); module-level code, constants,
configuration entries and whole files without a grammar share its words but rarely answer
it, so they get a multiplier of their own (again not a filter).

Fusion is reciprocal-rank fusion with a weight per channel (dense, lexical, name, and static,
the static stage's embedding when the index has one), so a
channel's share can be tuned without scores on different scales ever being compared. Every
mode goes through the same path: a single-channel mode is a fusion of one channel.
This module knows nothing of any backend: it works on ranked keys and on results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from typing import Any

from branchwise.errors import UsageError

CHANNELS = ("dense", "lexical", "name", "static")
ROLES = ("source", "test", "docs", "example")
PROSE_LANGUAGES = frozenset({"markdown", "restructuredtext", "text", "asciidoc", "adoc"})
EXAMPLE_DIRS = ("examples/", "example/", "_examples/")
#: source chunks that are not a definition of behaviour or of a type
MODULE_LEVEL_KINDS = frozenset({"module", "constant", "config", "file"})

#: outside test files, a name makes a test only as unittest and pytest collect one: a `test*`
#: method (or anything in it) of a `Test*` class; an application's `test_client` or
#: `App.test_request_context`, or a `TestClient` class it ships, is source
_TEST_CLASS = re.compile(r"^Test([A-Z_]\w*)?$")
_TEST_FUNCTION = re.compile(r"^test(_\w*)?$")
_TEST_MODULES = frozenset({"tests", "test"})
_TEST_WORDS = r"(unit |integration )?(tests?|test ?cases?|testing|specs?)"
_DOCS_WORDS = r"(docs?|documentation|guide|tutorial|readme|how-?to)"
#: a question asks for a role when it opens with it ("tests for ...", "docs on ...", "test running
#: a command"), names it as its object ("the tests of ...", "user guide on ..."), or asks where
#: something is tested; "a temporary directory for a test" is about the code a test uses, and a
#: role word before another noun only describes that noun ("test runner", "documentation
#: generation" ask for the code that runs tests or generates documentation)
_HEADS = r"(?= (for|of|on|about|that|which|where|to|in|with|covering|checking|pages?|sections?)\b| \w+ing\b|\s*$|[,:;.?])"
_ASKS = {
    "test": re.compile(rf"^(the |a |any )?{_TEST_WORDS}{_HEADS}|\b{_TEST_WORDS} (for|of|on|about|covering|checking)\b"
                       r"|\btested\b"),
    "docs": re.compile(rf"^(the |a )?{_DOCS_WORDS}{_HEADS}|\b{_DOCS_WORDS} (for|of|on|about|page|section)\b"
                       r"|\buser guide\b|\bdocumented\b"),
    "example": re.compile(r"\b(examples?|sample (code|program|app))\b"),
}


@dataclass(frozen=True)
class RankingSettings:
    """The `[ranking]` table of config.toml (see docs/ranking.md)."""

    # defaults tuned on cobra's questions and checked on click's (python -m bench.tune_ranking),
    # last for the description vectors of text recipe described-1, and on the language bundles:
    # cobra's best (rrf_k 10, lexical 0.5) lost there, so the next setting that did not
    # (bench/results/2026-12-04-model-round5.md)
    #: reciprocal-rank constant: larger flattens the difference between neighbouring ranks
    rrf_k: float = 20.0
    dense_weight: float = 2.0
    lexical_weight: float = 1.0
    name_weight: float = 1.0
    #: the static stage's channel (embedding/static_model.py): weighted as the lexical channel,
    #: a prior, not tuned on any benchmark's questions (issue 47)
    static_weight: float = 1.0
    #: score multipliers of non-source roles when the question does not ask for them (1 = off)
    test_weight: float = 0.4
    docs_weight: float = 0.2
    example_weight: float = 0.4
    #: score multiplier of module-level source chunks (MODULE_LEVEL_KINDS) (1 = off)
    module_level_weight: float = 0.7
    #: the fused ranking's head rescored by the question's similarity to each description
    #: (docrank.py): the bonus's weight (0 = off) and how many results it reorders. Off: since
    #: symbol vectors carry their description (embedding/described.py) it adds on click and
    #: takes away on cobra, where it is tuned (bench/results/2026-12-04-model-round5.md)
    doc_weight: float = 0.0
    doc_depth: float = 10
    #: the ranking stage after fusion (ranking_stage.py); 0 switches a boost off, 1 a multiplier.
    #: Kept on only where it helps on the peer benchmark without losing on click, cobra or the
    #: language bundles (bench/results/2026-12-06-ranking-stage.md, 2026-12-06-ranking-s54.md):
    #: the decay and coherence each lift the peer benchmark but lose on one of those, so they are off
    definition_boost: float = 3.0
    path_boost: float = 1.0
    file_coherence: float = 0.0
    file_decay: float = 1.0
    reexport_weight: float = 0.5
    #: a result on the first page whose file a result above it shows gives its slot to a
    #: result from a file the page does not show yet that scores at least this share of it
    #: and weighs no less (page_spread.py; 1 = off); the peer's saturation factor
    file_spread: float = 0.5
    #: for a question that asks how something works, a candidate gains this over (rrf_k + the
    #: rank of its file among the files by the question's similarity to their chunks' mean
    #: vector) (file_channel.py; 0 = off); weighted as the lexical and name channels are
    file_weight: float = 1.0

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> "RankingSettings":
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise UsageError(f"unknown [ranking] setting(s): {', '.join(sorted(unknown))}")
        values = {}
        for key, value in data.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise UsageError(f"[ranking] {key} must be a number >= 0, not {value!r}")
            values[key] = float(value)
        return cls(**values)

    def channel_weight(self, channel: str) -> float:
        return getattr(self, f"{channel}_weight")

    def role_weight(self, role: str) -> float:
        return 1.0 if role == "source" else getattr(self, f"{role}_weight")


@lru_cache(maxsize=1 << 16)  # a pure function of its strings, asked for every candidate of every search
def role_of(path: str, path_class: str, language: str, qualified_name: str) -> str:
    """What a symbol is for a reader: source, test, docs (prose) or example."""
    if language in PROSE_LANGUAGES:
        return "docs"
    if path_class == "test" or _is_test_method(qualified_name):
        return "test"
    if any(path.startswith(d) or f"/{d}" in path for d in EXAMPLE_DIRS):
        return "example"
    return "source"


def _is_test_method(qualified_name: str) -> bool:
    """A test method of a test class (`TestOrders.test_cancel`), or anything inside a module
    named `tests` (Rust's `#[cfg(test)] mod tests` beside the code it tests)."""
    parts = re.sub(r"#\d+$", "", qualified_name).split(".")
    if any(part in _TEST_MODULES for part in parts[:-1]):
        return True
    classes = [i for i, part in enumerate(parts[:-1]) if _TEST_CLASS.match(part)]
    return bool(classes) and any(_TEST_FUNCTION.match(part) for part in parts[classes[0] + 1:])


def wanted_roles(question: str) -> frozenset[str]:
    """The non-source roles a question asks for in words ("tests for ...", "docs on ...")."""
    lowered = question.lower()
    return frozenset(role for role, pattern in _ASKS.items() if pattern.search(lowered))


@dataclass
class Fused:
    key: Any
    score: float
    ranks: dict[str, int]  # channel -> 1-based position in that channel's ranking


def fuse(rankings: dict[str, list[tuple[Any, float]]], settings: RankingSettings,
         unranked: dict[str, set] | None = None) -> list[Fused]:
    """Weighted reciprocal-rank fusion of the channels' rankings (best first).

    `unranked` names, per channel, keys that channel could not rank at all (a version whose
    vector the background worker has not made yet): such a key is credited in that channel at
    its best position among the channels that did rank it, so a missing vector is not taken as
    evidence against it. Its recorded `ranks` stay the ones observed."""
    fused: dict[Any, Fused] = {}
    for channel, ranking in rankings.items():
        weight = settings.channel_weight(channel)
        for position, (key, _score) in enumerate(ranking, 1):
            item = fused.setdefault(key, Fused(key, 0.0, {}))
            item.score += weight / (settings.rrf_k + position)
            item.ranks[channel] = position
    for channel, keys in (unranked or {}).items():
        weight = settings.channel_weight(channel)
        for key in keys:
            found = fused.get(key)
            if found is not None and channel not in found.ranks and found.ranks:
                found.score += weight / (settings.rrf_k + min(found.ranks.values()))
    return sorted(fused.values(), key=lambda item: item.score, reverse=True)


def with_dense_coverage(settings: RankingSettings, share: float) -> RankingSettings:
    """The settings for a live set of which only `share` is embedded yet (embedstage.py): the
    dense ranking then sees only part of the candidates, so its weight is scaled by that
    share, and a version not embedded yet competes on its words and name. At full coverage
    the settings are unchanged."""
    return with_coverage(settings, "dense", share)


def with_coverage(settings: RankingSettings, channel: str, share: float) -> RankingSettings:
    """`with_dense_coverage` for either dense stage's channel (`dense`, `static`)."""
    if share >= 1.0:
        return settings
    weight = f"{channel}_weight"
    return replace(settings, **{weight: getattr(settings, weight) * max(0.0, share)})


def prior_factor(role: str, wanted: frozenset[str], settings: RankingSettings, symbol_type: str = "") -> float:
    """The score multiplier of a symbol of `role` for a question that asks for `wanted` roles:
    source leads unless the question asks for tests, docs or examples; then those lead and
    source code steps back as far as the least-weighted role normally does. Module-level
    source chunks (`symbol_type`) come after the definitions around them."""
    if role in wanted:
        return 1.0
    if role == "source" and wanted:
        return min(settings.role_weight(r) for r in ROLES if r != "source")
    if role == "source" and symbol_type in MODULE_LEVEL_KINDS:
        return settings.module_level_weight
    return settings.role_weight(role)
