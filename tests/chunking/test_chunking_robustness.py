"""Real-world input: syntax errors, binaries, huge files, bad encodings, CRLF, BOM, tabs."""

from __future__ import annotations

import hashlib

from branchwise.chunking import ChunkingRules, chunk_file, language_for_path


def by_name(result):
    return {c.identity.qualified_name: c for c in result.chunks}


def test_syntax_errors_keep_the_valid_symbols():
    source = (
        b"def good():\n    return 1\n\n"
        b"def broken(:\n    return (\n\n"
        b"class Fine:\n    def ok(self):\n        return 2\n"
    )
    found = by_name(chunk_file("repo", "a.py", source))
    assert {"good", "Fine", "Fine.ok"} <= set(found)
    rust = b"fn good() -> u32 { 1 }\nfn bad( -> {\nstruct S { a: u32 }\n"
    assert "good" in by_name(chunk_file("repo", "a.rs", rust))


def test_binary_files_are_skipped():
    result = chunk_file("repo", "logo.py", b"PNG\x00\x01\x02def f(): pass\n")
    assert result.skipped == "binary: NUL byte in the first 8 KB"
    assert result.chunks == []


def test_oversize_files_are_skipped():
    rules = ChunkingRules(max_file_bytes=100)
    result = chunk_file("repo", "big.py", b"x = 1\n" * 50, rules)
    assert result.skipped == "too large: 300 bytes > max_file_bytes 100"


def test_invalid_utf8_is_replaced_in_text_but_hashed_raw():
    source = b"def f():\n    return '\xff\xfe'\n"
    (chunk,) = chunk_file("repo", "a.py", source).chunks
    assert "\ufffd" in chunk.text
    assert chunk.content_hash == hashlib.sha256(source.rstrip(b"\n")).hexdigest()


def test_crlf_lines_and_stored_bytes():
    source = b"def a():\r\n    return 1\r\n\r\ndef b():\r\n    return 2\r\n"
    found = by_name(chunk_file("repo", "a.py", source))
    assert (found["b"].start_line, found["b"].end_line) == (4, 5)
    assert found["b"].text == "def b():\r\n    return 2"
    assert found["a"].content_hash == hashlib.sha256(b"def a():\r\n    return 1").hexdigest()


def test_bom_is_kept_in_text_and_left_out_of_signatures():
    source = b"\xef\xbb\xbfdef a():\n    return 1\n"
    (chunk,) = chunk_file("repo", "a.py", source).chunks
    assert chunk.start_line == 1 and chunk.text.startswith("\ufeffdef a")
    assert chunk.signature == "def a():"


def test_tabs_are_kept():
    source = b"package p\n\nfunc F() {\n\treturn\n}\n"
    (chunk,) = chunk_file("repo", "p.go", source).chunks
    assert chunk.text == "func F() {\n\treturn\n}"


def test_adding_a_function_above_moves_lines_but_keeps_identity_and_hash():
    before = b"import os\n\ndef target(x):\n    return x + 1\n"
    after = b"import os\n\ndef added():\n    pass\n\n\ndef target(x):\n    return x + 1\n"
    old = by_name(chunk_file("repo", "m.py", before))["target"]
    new = by_name(chunk_file("repo", "m.py", after))["target"]
    assert new.identity == old.identity
    assert new.content_hash == old.content_hash
    assert (old.start_line, new.start_line) == (3, 7)


def test_adding_a_line_after_the_last_symbol_keeps_its_hash():
    before = b"def f():\n    return 1"
    after = b"def f():\n    return 1\n\nX = 2\n"
    assert by_name(chunk_file("repo", "m.py", before))["f"].content_hash == \
        by_name(chunk_file("repo", "m.py", after))["f"].content_hash


def test_doc_comments_and_attributes_directly_above_belong_to_the_chunk():
    source = b"x = 1  // trailing\n/// Docs.\n#[inline]\nfn f() {}\n"
    (chunk,) = chunk_file("repo", "a.rs", source).chunks
    assert (chunk.start_line, chunk.docstring, chunk.signature) == (2, "Docs.", "fn f()")


def test_comment_separated_by_a_blank_line_is_not_a_doc():
    source = b"// header\n\nfunction f() {}\n"
    (chunk,) = chunk_file("repo", "a.js", source).chunks
    assert (chunk.start_line, chunk.docstring) == (3, "")


def test_files_without_grammar_become_one_file_chunk_unless_disabled():
    (chunk,) = chunk_file("repo", "db/schema.sql", b"CREATE TABLE t (id int);\n").chunks
    assert (chunk.identity.symbol_type, chunk.identity.qualified_name) == ("file", "schema.sql")
    assert chunk.identity.language == "sql"
    off = chunk_file("repo", "db/schema.sql", b"x\n", ChunkingRules(index_unknown_languages=False))
    assert off.chunks == [] and off.skipped.startswith("no grammar")


def test_empty_and_blank_files_yield_nothing():
    for path in ("a.py", "a.md", "a.go"):
        for data in (b"", b"\n\n  \n"):
            result = chunk_file("repo", path, data)
            assert result.chunks == [] and result.skipped is None


def test_module_chunk_holds_module_level_code():
    source = b'"""Doc."""\nimport os\n\ndef f():\n    pass\n\nos.environ["A"] = "1"\n\ndef g():\n    pass\n'
    module = by_name(chunk_file("repo", "pkg/setup_env.py", source))["setup_env"]
    assert module.identity.symbol_type == "module"
    assert (module.start_line, module.end_line) == (1, 7)
    assert module.docstring == "Doc."
    assert module.imports == ("import os",)


def test_imports_are_attached_to_every_chunk():
    source = b'import { a } from "./a";\nexport function f() { return a; }\n'
    (chunk,) = chunk_file("repo", "x.ts", source).chunks
    assert chunk.imports == ('import { a } from "./a";',)


def test_language_for_path():
    assert [language_for_path(p) for p in (
        "a.py", "a.js", "a.mjs", "a.cjs", "a.jsx", "a.ts", "a.tsx", "a.go", "a.rs", "A.java",
        "a.md", "Makefile",
    )] == [
        "python", "javascript", "javascript", "javascript", "javascript", "typescript", "tsx",
        "go", "rust", "java", None, None,
    ]
