"""Bundles of code that are not a search's results: a branch diff under review, a tour.

Like a search bundle, each chunk starts with a citation header and a manifest beside the
Markdown file records what went in, so the two extra bundle kinds read and audit like the
first; they differ only in order and framing (changes before their impact context; steps in
tour order with their notes). Likely secrets are refused unless explicitly allowed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from branchwise.errors import BranchwiseError
from branchwise.review.bundle import manifest_path_for
from branchwise.review.bundle.formats import fenced
from branchwise.review.labels import write_atomically
from branchwise.secrets import scan


@dataclass
class Section:
    """One chunk: a heading, its citation header lines, its code, and its manifest entry."""

    heading: str
    header: list[str]
    language: str
    text: str
    entry: dict
    prose: str = ""  # a note shown between heading and header (a tour step's note)


@dataclass
class ReviewBundle:
    title: str
    facts: list[str]  # "- Repository: shop" lines under the title
    sections: list[Section] = field(default_factory=list)
    manifest: dict = field(default_factory=dict)

    def render(self) -> str:
        parts = [f"# {self.title}\n\n" + "\n".join(self.facts) + "\n"]
        for section in self.sections:
            prose = f"{section.prose.strip()}\n\n" if section.prose.strip() else ""
            parts.append(f"## {section.heading}\n\n{prose}{fenced('text', chr(10).join(section.header))}\n\n"
                         f"{fenced(section.language, section.text.rstrip(chr(10)))}\n")
        return "\n".join(parts)

    def write(self, out: Path, allow_secrets: bool = False) -> Path:
        """Write the Markdown to `out` and the manifest beside it; returns the manifest path."""
        out = Path(out)
        if not allow_secrets:
            found = [f"{finding.kind} in {section.heading}" for section in self.sections
                     for finding in scan(section.text)]
            if found:
                raise BranchwiseError(f"refusing to write {out}: possible secrets: {'; '.join(found[:5])} "
                                      "(allow secrets to override)")
        manifest = {**self.manifest, "bundle": str(out), "chunks": [s.entry for s in self.sections]}
        manifest_path = manifest_path_for(out)
        write_atomically(out, self.render().encode("utf-8"), private=allow_secrets)
        write_atomically(manifest_path, (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),
                         private=allow_secrets)
        return manifest_path
