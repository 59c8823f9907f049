"""What an index run leaves out of a branch, and why: ignore files and vendored code.

- Files an ignore file matches (`.branchwiseignore` at the root of the indexed commit, the
  person's own `~/.config/branchwise/ignore`) are not indexed at all: the user said so.
- Vendored files (a well-known vendored folder: `vendor/`, `third_party/`, `external/`,
  `deps/`, a test framework bundled beside the tests such as fmt's `test/gtest/`; or a
  `linguist-vendored` attribute in .gitattributes) are not indexed either: they are someone
  else's code, which search answers would keep out of usable results anyway, and they cost
  parsing, embedding and index size. `[chunking] index_vendored = true` indexes them as the
  `vendored` class; `linguist-vendored=false` keeps one folder the project's own.

Each file left out is recorded as a skipped file of the branch with its reason ("ignored:
.branchwiseignore: test/gtest/", "vendored: path matches deps/"), so `status` lists them by
reason. When the rules change (an edited ignore file, a new attribute, another setting), the
next run takes out the files now left out and parses the ones let back in (`revisit`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from branchwise.chunking import ChunkingRules, vendored_pattern
from branchwise.git import pathrules
from branchwise.git.pathrules import IgnoreRules
from branchwise.git.repo import FileChange, GitRepo
from branchwise.models import PathClass, PathMarks
from branchwise.store import Store

#: the skip reasons this module records (the kinds `status` counts)
LEFT_OUT_KINDS = ("ignored:", "vendored:")


@dataclass(frozen=True)
class LeftOut:
    """The rules of one commit: its ignore files, its .gitattributes, the chunking settings."""

    ignore: IgnoreRules
    attributes: str
    rules: ChunkingRules

    @classmethod
    def at(cls, repo: GitRepo, commit: str, rules: ChunkingRules, user_ignore: str | None) -> LeftOut:
        texts = []
        if user_ignore:
            texts.append((_shown(user_ignore), _read(Path(user_ignore))))
        texts.append((pathrules.IGNORE_FILE, repo.root_text(commit, pathrules.IGNORE_FILE)))
        return cls(IgnoreRules.from_texts(texts), repo.root_text(commit, pathrules.ATTRIBUTES_FILE), rules)

    def marks(self, paths: list[str]) -> PathMarks:
        """The classes .gitattributes gives `paths` (for the chunker's path class)."""
        return pathrules.path_marks(self.attributes, paths) if paths else PathMarks()

    def reasons(self, paths: list[str]) -> dict[str, str]:
        """path -> why it is left out, for those of `paths` that are."""
        marks = self.marks(paths)
        found = {}
        for path in paths:
            reason = self.ignore.reason(path)
            if reason is None and not self.rules.index_vendored:
                reason = self._vendored(path, marks)
            if reason is not None:
                found[path] = reason
        return found

    def _vendored(self, path: str, marks: PathMarks) -> str | None:
        mark = marks.classes.get(path)
        if mark is not None:
            return mark[1] if mark[0] == PathClass.VENDORED else None
        if path in marks.not_vendored:
            return None
        pattern = vendored_pattern(path, self.rules)
        return f"vendored: path matches {pattern}" if pattern else None

    def apply(self, changes: list[FileChange]) -> tuple[list[FileChange], dict[str, str]]:
        """The changes with each file now left out turned into its removal, and the reasons."""
        reasons = self.reasons([c.path for c in changes if c.new_blob])
        return [FileChange(c.path, c.old_blob, None) if c.path in reasons else c for c in changes], reasons

    def revisit(self, store: Store, branch_id: int) -> set[str]:
        """Paths of the branch whose verdict these rules change: stored files now left out,
        and files left out before that are now let in (or left out for another reason)."""
        live = store.live_file_blobs(branch_id)
        before = {path: reason for path, reason in store.skipped_files(branch_id) if reason.startswith(LEFT_OUT_KINDS)}
        if not live and not before:
            return set()
        now = self.reasons(sorted(set(live) | set(before)))
        return {path for path in live if path in now} | {path for path in before if now.get(path) != before[path]}


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except OSError:  # unreadable: as if absent (status shows what was left out, and why)
        return ""


def _shown(path: str) -> str:
    """The user's file as a person writes it (`~/.config/branchwise/ignore`)."""
    home = str(Path.home())
    return "~" + path[len(home):] if home and path.startswith(home + "/") else path
