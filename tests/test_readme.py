"""The README starts a user in one screen and sends them to every page of docs/ (issue 48).

It stays short (at most 15 KB), names the index and search commands in its first 40 lines,
links every page of docs/, and no relative link in it or in docs/ points at nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def test_the_readme_is_short_and_starts_with_the_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.encode()) <= 15 * 1024
    head = "\n".join(text.splitlines()[:40])
    assert "branchwise index" in head and "branchwise search" in head


def test_the_readme_links_every_page_of_docs():
    linked = {(ROOT / target).resolve() for target in LINK.findall(README.read_text(encoding="utf-8"))}
    pages = [p for p in sorted(DOCS.glob("*.md"))] + [DOCS / "schema"]
    assert [str(p.relative_to(ROOT)) for p in pages if p.resolve() not in linked] == []


def test_no_relative_link_points_at_nothing():
    broken = []
    for page in [README, *sorted(DOCS.glob("*.md"))]:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if not re.match(r"^[a-z]+:", target) and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []
