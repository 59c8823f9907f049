"""Files an older chunker kept whole that now have a grammar: parsed again, once per branch.

An index run parses only files whose blob changed. A file indexed as one `file` chunk before
its language got a grammar (C, Ruby, Kotlin... before issue 33) would therefore stay one chunk
until someone edits it. The set of grammars is recorded per branch in the index; when it
differs from the chunker's, the branch's live `file` chunks whose path now has a grammar are
parsed again at the next index run (the same way stale files are, see stale.py), and the new
set is recorded. A branch indexed by this chunker records it on its first run.
"""

from __future__ import annotations

from branchwise.chunking.languages import _GRAMMAR_BY_SUFFIX, language_for_path
from branchwise.store import Store

META_PREFIX = "chunking grammars of branch "


def grammar_set() -> str:
    return ",".join(sorted(set(_GRAMMAR_BY_SUFFIX.values())))


def paths_to_reparse(store: Store, repository: str, branch: str) -> set[str]:
    """Paths of `branch` held as whole-file chunks that the chunker would now cut into symbols."""
    if store.meta(META_PREFIX + branch) == grammar_set():
        return set()
    repo_id = store.repo_id(repository)
    record = store.branch(repo_id, branch) if repo_id is not None else None
    if record is None:
        return set()
    return {row[0] for row in store.live_set(record.id) if row[2] == "file" and language_for_path(row[0])}


def record(store: Store, branch: str) -> None:
    """The branch now holds what this chunker cuts."""
    with store.transaction():
        store.set_meta(META_PREFIX + branch, grammar_set())
