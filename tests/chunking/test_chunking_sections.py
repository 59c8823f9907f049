"""Prose cut into sections (sections.py, headings.py): names, sizes, stability, real docs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from branchwise.chunking import ChunkingRules, chunk_file
from branchwise.chunking.sections import PREAMBLE
from shared_data import realrepo_bundle

RULES = ChunkingRules()


def _chunks(path: str, text: str, rules: ChunkingRules = RULES):
    return chunk_file("docs", path, text.encode(), rules).chunks


def _long_section(paragraphs: int) -> str:
    body = "\n\n".join(f"Paragraph {n} explains option number {n} in a sentence or two of prose." for n in range(paragraphs))
    return f"# Title\n\nIntro.\n\n## Long\n\n{body}\n\n```python\ndef f():\n\n    return 1\n```\n\n## After\n\nThe end.\n"


def test_a_long_section_is_cut_at_paragraph_boundaries_into_numbered_parts_within_the_limits():
    rules = ChunkingRules(section_max_lines=20, section_max_chars=800)
    text = _long_section(30)
    chunks = _chunks("docs/guide.md", text, rules)
    names = [c.identity.qualified_name for c in chunks]
    parts = [n for n in names if n.startswith("Long")]
    assert parts[0] == "Long" and parts[1:] == [f"Long [{n}]" for n in range(2, len(parts) + 1)] and len(parts) >= 4
    lines = text.splitlines()
    for chunk in chunks:
        assert chunk.end_line - chunk.start_line + 1 <= 20 and len(chunk.text) <= 800
        assert lines[chunk.start_line - 1].strip() and lines[chunk.end_line - 1].strip()  # no blank edges
        if chunk.identity.qualified_name.startswith("Long ["):
            assert lines[chunk.start_line - 2] == "" and lines[chunk.start_line - 1].startswith(("Paragraph", "```"))
    assert all(c.signature == "## Long" for c in chunks if c.identity.qualified_name.startswith("Long"))
    # the parts and sections cover every non-blank line once
    covered = [n for c in chunks for n in range(c.start_line, c.end_line + 1)]
    assert len(covered) == len(set(covered))
    assert {n for n, line in enumerate(lines, 1) if line.strip()} <= set(covered)


def test_an_edit_to_one_section_leaves_the_others_byte_identical():
    text = _long_section(3)
    edited = text.replace("Intro.", "Intro, now with a second sentence.\n\nAnd a paragraph.")
    before = {c.identity.qualified_name: c.content_hash for c in _chunks("docs/guide.md", text)}
    after = {c.identity.qualified_name: c.content_hash for c in _chunks("docs/guide.md", edited)}
    assert set(before) == set(after) == {"Title", "Long", "After"}
    assert [name for name in before if before[name] != after[name]] == ["Title"]


def test_blank_lines_between_sections_change_no_section():
    text = _long_section(3)
    spaced = text.replace("\n## After", "\n\n\n\n## After")
    assert {c.identity.qualified_name: c.content_hash for c in _chunks("docs/guide.md", text)} == \
        {c.identity.qualified_name: c.content_hash for c in _chunks("docs/guide.md", spaced)}


def test_heading_paths_repeats_and_the_title():
    text = "# Guide\n\nIntro.\n\n## Setup\n\nA.\n\n### Linux\n\nB.\n\n## Usage\n\nC.\n\n### Linux\n\nD.\n\n## Usage\n\nE.\n"
    chunks = _chunks("guide.md", text)
    assert [(c.identity.qualified_name, c.parent.qualified_name if c.parent else None) for c in chunks] == [
        ("Guide", None), ("Setup", "Guide"), ("Setup > Linux", "Setup"), ("Usage", "Guide"),
        ("Usage > Linux", "Usage"), ("Usage#2", "Guide")]
    two_tops = "# One\n\nA.\n\n## Sub\n\nB.\n\n# Two\n\nC.\n"
    assert [c.identity.qualified_name for c in _chunks("guide.md", two_tops)] == ["One", "One > Sub", "Two"]


def test_a_small_page_without_headings_stays_one_file_chunk_and_a_long_one_is_cut():
    [chunk] = _chunks("NOTES.md", "Just a note.\n\nAnother line.\n")
    assert (chunk.identity.symbol_type, chunk.identity.qualified_name) == ("file", "NOTES.md")
    long = "\n\n".join(f"Line {n} of a page without any heading at all." for n in range(200))
    chunks = _chunks("NOTES.md", long)
    assert [c.identity.qualified_name for c in chunks][:2] == [PREAMBLE, f"{PREAMBLE} [2]"]
    assert all(c.identity.symbol_type == "section" and c.end_line - c.start_line < 50 for c in chunks)


def test_not_headings_code_fences_thematic_breaks_tables_and_literal_blocks():
    md = "# Real\n\n```sh\n# not a heading\n```\n\n- item\n---\n\n    # indented code\n"
    assert [c.identity.qualified_name for c in _chunks("a.md", md)] == ["Real"]
    rst = "Real\n====\n\nText::\n\n    Not a heading\n    -------------\n\n===== =====\nA     B\n===== =====\n"
    assert [c.identity.qualified_name for c in _chunks("a.rst", rst)] == ["Real"]


def _bundle_docs(name: str, tmp_path: Path) -> list[tuple[str, str, bytes]]:
    bundle = realrepo_bundle(name)
    dest = tmp_path / name
    subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True)
    refs = subprocess.run(["git", "-C", str(dest), "branch", "-r", "--format=%(refname:short)"], check=True,
                          capture_output=True, text=True).stdout.split()
    files = []
    for ref in refs:
        if ref.endswith("/HEAD") or ref == "origin":
            continue
        listing = subprocess.run(["git", "-C", str(dest), "ls-tree", "-r", "--name-only", ref], check=True,
                                 capture_output=True, text=True).stdout.split("\n")
        for path in listing:
            if path.endswith((".md", ".rst")):
                data = subprocess.run(["git", "-C", str(dest), "show", f"{ref}:{path}"], check=True,
                                      capture_output=True).stdout
                files.append((ref, path, data))
    return files


@pytest.mark.parametrize("name", ["click", "cobra"])
def test_real_docs_have_no_long_chunk_and_unique_section_names(name, tmp_path):
    files = _bundle_docs(name, tmp_path)
    assert len(files) > 20
    longest = 0
    for ref, path, data in files:
        chunks = chunk_file(name, path, data).chunks
        identities = [c.identity for c in chunks]
        assert len(identities) == len(set(identities)), (ref, path)
        for chunk in chunks:
            longest = max(longest, chunk.end_line - chunk.start_line + 1)
            assert chunk.end_line - chunk.start_line + 1 <= RULES.section_max_lines, (ref, path, chunk.identity)
            assert chunk.identity.symbol_type in ("section", "file"), (ref, path)
    assert longest > 30  # the limit was met by real sections, not by tiny files only


def test_a_bom_does_not_hide_the_first_heading():
    chunks = chunk_file("docs", "a.md", "\ufeff# Title\n\nText.\n\n## Sub\n\nMore.\n".encode()).chunks
    assert [c.identity.qualified_name for c in chunks] == ["Title", "Sub"]
    assert chunks[0].text.startswith("\ufeff# Title")  # the bytes are the file's
