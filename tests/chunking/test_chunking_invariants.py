"""Invariants every chunk of every file must keep: text is exactly its lines, hashes match."""

from __future__ import annotations

import hashlib

import pytest

from branchwise.chunking import chunk_file, line_range_bytes, lines_hash
from branchwise.chunking.embedding_text import DESCRIPTION_WORDS, MAX_CHARS, split_words
from branchwise.embedding.described import split_described
from branchwise.chunking.outline_key import assemble, marker_names, outline_hash, skeleton
from branchwise.secrets import redact
from chunking_support import DATA, branch_files, data_files


def assert_invariants(repository: str, path: str, data: bytes) -> None:
    result = chunk_file(repository, path, data)
    identities = [c.identity for c in result.chunks]
    assert len(identities) == len(set(identities)), f"duplicate identity in {path}"
    for chunk in result.chunks:
        raw = line_range_bytes(data, chunk.start_line, chunk.end_line)
        assert 1 <= chunk.start_line <= chunk.end_line
        assert data[chunk.start_byte : chunk.end_byte] == raw
        assert chunk.text == redact(raw.decode("utf-8", errors="replace"))  # secrets redacted, lines kept
        if chunk.skeleton is None:
            assert chunk.content_hash == hashlib.sha256(raw).hexdigest()
            assert chunk.content_hash == lines_hash(data, chunk.start_line, chunk.end_line)
        else:  # keyed by its outline; its members' texts put back give its exact lines
            members = {c.identity.qualified_name: c for c in result.chunks if c.parent == chunk.identity
                       and chunk.start_line < c.start_line <= c.end_line <= chunk.end_line}
            assert marker_names(chunk.skeleton) == sorted(members, key=lambda n: members[n].start_line)
            assert assemble(chunk.skeleton, {n: m.text for n, m in members.items()}) == chunk.text
            ordered = sorted(members.values(), key=lambda m: m.start_line)
            cut = skeleton(data, (chunk.start_line, chunk.end_line, chunk.start_byte, chunk.end_byte),
                           [(m.start_line, m.end_line, m.start_byte, m.end_byte, m.identity.qualified_name)
                            for m in ordered])
            assert chunk.skeleton == redact(cut.decode("utf-8", errors="replace"))
            if all(m.signature == redact(m.signature) for m in ordered):  # no secret in a signature
                assert chunk.content_hash == outline_hash(cut, [m.signature for m in ordered])
        assert chunk.identity.path == path and chunk.identity.repository == repository
        passage, description = split_described(chunk.embedding_text)
        assert len(passage) <= MAX_CHARS  # the passage within the model's reading
        assert len(description.split()) <= DESCRIPTION_WORDS or description == split_words(chunk.identity.qualified_name)
        assert chunk.path_class == result.path_class and chunk.class_reason == result.class_reason
        if chunk.parent is not None:
            assert chunk.parent.path == path


@pytest.mark.parametrize("path", data_files(), ids=lambda p: p.name)
def test_data_file_chunks_are_exact_lines(path):
    assert_invariants("shop", path.relative_to(DATA).as_posix(), path.read_bytes())


@pytest.mark.parametrize("path", data_files(), ids=lambda p: p.name)
def test_invariants_hold_with_crlf_and_bom(path):
    data = b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n")
    assert_invariants("shop", path.relative_to(DATA).as_posix(), data)


@pytest.mark.parametrize("repo_name", ["shop", "engine", "webapp"])
def test_sample_repo_chunks_are_exact_lines_on_every_branch(sample_repos, repo_name):
    files = branch_files(sample_repos[repo_name])
    assert files
    for _branch, path, data in files:
        assert_invariants(repo_name, path, data)
