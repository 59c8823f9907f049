"""Impact context of a branch diff: who on the base branch uses each change, and what resembles it.

A signature change breaks the code that still calls the old signature, and a fixed bug is
often duplicated elsewhere. For the whole diff at once this finds, on the base branch's
live set:

- callers (callers.py): code that references the changed symbol in its syntax tree (a call,
  an import, an attribute, a plain name; a config key: other config naming it), each saying
  how it was found, source before tests, at most MAX_CALLERS listed (all are counted);
- similar code: the dense neighbours of the changes' vectors (their stored index vectors; the
  few texts never indexed are embedded in one batch), the best MAX_SIMILAR, kept apart.

Every listed result is verified against the base in one batch and carries reviewers' labels
like any search result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from branchwise.backends.version_vectors import version_vectors
from branchwise.chunking.languages import language_for_path
from branchwise.models import Identity, PathClass, Result, version_id
from branchwise.ranking import role_of
from branchwise.review.callers import Found, Target, find_callers, wants_callers
from branchwise.review.references import HOWS, has_references
from branchwise.search.hybrid import place_live
from branchwise.store.records import VersionRecord

MAX_CALLERS = 8
MAX_SIMILAR = 3
#: neighbours looked at per change: room for the change itself, its callers, and prose or
#: configuration, which is never "similar code"
SIMILAR_DEPTH = 20
#: which kinds get which context: a moved or renamed symbol's callers may import the old place
CALLERS_FOR = frozenset({"changed", "deleted", "moved", "renamed"})
SIMILAR_FOR = frozenset({"added", "changed", "deleted"})
#: results verified between two progress reports
VERIFY_BATCH = 200
#: callers of a role come in this order: the code first, its tests next
ROLE_ORDER = ("source", "example", "test", "docs")

#: progress(stage, done, total): "callers" counts candidate files parsed, "similar" the changes
#: given their neighbours, "verifying" the results verified
Progress = Callable[[str, int, int], None]


@dataclass
class ImpactHit:
    """Code on the base branch that a change touches: a `caller` (uses the symbol; `how`:
    call, import, attribute, name, or key for configuration) or a `similar` symbol (dense
    neighbour), verified against the base."""

    kind: str
    result: Result
    how: str | None = None
    line: int | None = None  # the referencing line, in the base file
    #: False for a method called on an object whose type is not known: a possible caller
    certain: bool = True

    def to_json(self) -> dict:
        data = {"impact": self.kind, **self.result.to_json()}
        if self.how is not None:
            data.update(how=self.how, reference_line=self.line, certain=self.certain)
        return data


def diff_impact(workspace, changes: list, base: str, progress: Progress | None = None) -> None:
    """Fill `impact` and `callers_total` of each change (`branchdiff.SymbolChange`) in one pass."""
    report = progress or (lambda stage, done, total: None)
    store, repo = workspace.store, workspace.repo
    base_row = store.branch(store.repo_id(repo.name), base)
    callers = _callers(workspace, changes, base_row, report)
    similar = _similar(workspace, changes, base, report)
    for index, change in enumerate(changes):
        hits = callers.get(index, [])
        change.callers_total = len(hits)
        change.callers_certain = sum(h.certain for h in hits)
        change.impact = hits[:MAX_CALLERS]
        seen = {h.result.identity for h in change.impact} | _own(change)
        for result in similar.get(index, []):
            if sum(h.kind == "similar" for h in change.impact) >= MAX_SIMILAR:
                break
            if result.identity not in seen:
                seen.add(result.identity)
                change.impact.append(ImpactHit("similar", result))
    # only what is listed is verified, each version once
    unique = list({id(h.result): h.result for change in changes for h in change.impact}.values())
    verifier = workspace.verifier(base)
    for start in range(0, len(unique), VERIFY_BATCH):
        report("verifying", start, len(unique))
        verifier.verify(unique[start:start + VERIFY_BATCH])
    report("verifying", len(unique), len(unique))
    workspace.apply_labels(unique)


def _callers(workspace, changes, base_row, report: Progress) -> dict[int, list[ImpactHit]]:
    targets = []
    for index, change in enumerate(changes):
        before = change.old or change.new
        identity = before.identity
        if change.kind in CALLERS_FOR and wants_callers(identity.symbol_type, identity.language, before.name):
            targets.append(Target(index, before.name, before.qualified_name, identity.symbol_type,
                                  identity.language, frozenset(_key(i) for i in _own(change)), before.path))
    report("callers", 0, 0)
    if not targets:
        return {}
    found, records = find_callers(workspace.store, workspace.repo, base_row.id, targets,
                                  lambda done, total: report("callers", done, total))
    results: dict[int, Result] = {}
    out: dict[int, list[ImpactHit]] = {}
    for key, hits in found.items():
        ordered = sorted(hits, key=lambda f: _caller_order(f, records[f.row]))
        out[key] = [ImpactHit("caller", _result(results, records[f.row], f, base_row), f.how, f.line, f.certain)
                    for f in ordered]
    return out


def _similar(workspace, changes, base: str, report: Progress) -> dict[int, list[Result]]:
    """The dense neighbours of each change that gets similar code, from one batch of vectors."""
    wanted = [i for i, c in enumerate(changes) if c.kind in SIMILAR_FOR and _is_code(c.symbol)]
    report("similar", 0, len(wanted))
    if not wanted:
        return {}
    store, embedder, config = workspace.store, workspace.embedder, workspace.config
    ids = {i: version_id(changes[i].symbol.identity, changes[i].symbol.content_hash) for i in wanted}
    rows = store.version_rows_by_id(list(ids.values()))
    stored_ids, stored = version_vectors(store, embedder.name, embedder.dim, config.path_weight,
                                         sorted({rows[v] for v in ids.values() if v in rows}))
    by_row = {int(row): vector for row, vector in zip(stored_ids, stored)}
    vectors: dict[int, np.ndarray] = {}
    missing = []
    for i in wanted:
        row = rows.get(ids[i])
        if row is not None and row in by_row:
            vectors[i] = by_row[row]
        else:
            missing.append(i)
    if missing:  # never indexed (a deleted symbol's last text, say): one embedding batch
        for i, vector in zip(missing, embedder.embed([changes[i].symbol.text for i in missing])):
            vectors[i] = vector
    order = [i for i in wanted if i in vectors]
    found = workspace.neighbours(base, np.vstack([vectors[i] for i in order]), SIMILAR_DEPTH)
    report("similar", len(wanted), len(wanted))
    return {i: [r for r in results if _is_code(r)] for i, results in zip(order, found)}


def _result(made: dict[int, Result], record: VersionRecord, found: Found, base_row) -> Result:
    """The base's live version as a search result (one object per version)."""
    if record.row not in made:
        result = Result(
            rank=0, score=0.0,
            identity=Identity(record.repository, record.path, record.language, record.symbol_type,
                              record.qualified_name),
            branch=record.first_branch, commit=record.first_commit, start_line=record.start_line,
            end_line=record.end_line, indexed_at=record.created_at, content_hash=record.content_hash,
            text=record.text, blob=record.blob, version_id=record.version_id, signature=record.signature,
            docstring=record.docstring, parent=record.parent, imports=tuple(record.imports.splitlines()),
            path_class=PathClass(record.path_class), class_reason=record.class_reason,
        )
        place_live(result, base_row.name, base_row.name, base_row.commit_sha, base_row.indexed_at, found.place)
        made[record.row] = result
    return made[record.row]


def _caller_order(found: Found, record: VersionRecord) -> tuple:
    role = role_of(record.path, record.path_class, record.language, record.qualified_name)
    how = HOWS.index(found.how) if found.how in HOWS else len(HOWS)  # a config key's `key` last
    return (not found.certain, ROLE_ORDER.index(role) if role in ROLE_ORDER else len(ROLE_ORDER), how,
            record.path, found.line)


def _is_code(symbol) -> bool:
    return symbol.identity.symbol_type not in ("module", "file", "config") and _has_grammar(symbol.path)


@lru_cache(maxsize=4096)
def _has_grammar(path: str) -> bool:
    return has_references(language_for_path(path))


def _own(change) -> set[Identity]:
    return {s.identity for s in (change.old, change.new) if s is not None}


def _key(identity: Identity) -> tuple:
    return (identity.path, identity.language, identity.symbol_type, identity.qualified_name)
