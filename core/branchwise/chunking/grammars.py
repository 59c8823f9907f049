"""Tree-sitter grammars, parsers and compiled symbol queries, built once per language.

Each grammar also carries the few syntax facts the chunker needs that a query cannot
express: which nodes are comments, which wrap a definition (decorators, `export`), and
which sit above it as attributes.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Callable

import tree_sitter
import tree_sitter_bash
import tree_sitter_c
import tree_sitter_c_sharp
import tree_sitter_cpp
import tree_sitter_elixir
import tree_sitter_go
import tree_sitter_haskell
import tree_sitter_java
import tree_sitter_javascript
import tree_sitter_kotlin
import tree_sitter_lua
import tree_sitter_php
import tree_sitter_python
import tree_sitter_ruby
import tree_sitter_rust
import tree_sitter_scala
import tree_sitter_swift
import tree_sitter_typescript
import tree_sitter_zig

from branchwise.chunking import attribute_docs, macro_docs, naming
from branchwise.chunking.conditionals import resolve_every_conditional, resolve_split_conditionals
from branchwise.chunking.constructors import join_split_constructors
from branchwise.chunking.item_macros import read_opening_item_macros
from branchwise.chunking.macros import mask_cpp_macros, mask_macros


@dataclass(frozen=True)
class Grammar:
    name: str
    load: Callable[[], object]
    query_file: str
    comment_types: frozenset[str]
    #: Nodes that wrap a single definition and belong to its chunk (decorators, export).
    wrapper_types: frozenset[str] = frozenset()
    #: Sibling nodes directly above a definition that belong to its chunk...
    attribute_types: frozenset[str] = frozenset()
    #: ...when this says so too (Elixir: `@doc`, `@spec`, `@impl`, not every `@attribute`).
    attribute_test: Callable[[tree_sitter.Node], bool] | None = None
    #: Named children a wrapper may hold besides the definition (C++ `template <...>`,
    #: the name of a C `typedef struct {...} name;`).
    wrapper_parts: frozenset[str] = frozenset()
    #: Bodies whose first member's doc comment sits before the body node (Ruby).
    comment_hosts: frozenset[str] = frozenset()
    #: Nodes whose children count as top-level for the module chunk (preprocessor
    #: conditionals, `extern "C"` and namespace bodies).
    transparent_top_level: frozenset[str] = frozenset()
    #: Query files added to `query_file` (header prototypes, JavaScript's and TypeScript's
    #: assigned functions).
    extra_query_files: tuple[str, ...] = ()
    #: Names a definition from its match when the name node's text is not the name
    #: (naming.py): C++ `detail::foo`, Kotlin `String.foo`, Swift `extension Type`...
    namer: Callable | None = None
    #: The grammar ends a definition's node after the comments that follow it (Scala's
    #: indented blocks): the chunk ends at its last code token, and those comments are
    #: the next definition's doc.
    trailing_comments_inside: bool = False
    #: Rewrites the bytes the parser reads, keeping every offset (C/C++ macros: macros.py;
    #: C/C++/C# conditionals that split a declaration: conditionals.py; Kotlin primary
    #: constructors below their class header: constructors.py).
    source_filter: Callable[[bytes], bytes] | None = None
    #: Parses the bytes itself, where deciding how to rewrite them takes a parse that may
    #: already be the tree (Rust macro calls that wrap items: item_macros.py).
    reader: Callable[[tree_sitter.Parser, bytes], tree_sitter.Tree] | None = None
    #: A second reading of the bytes, parsed where the first leaves syntax errors and kept
    #: where it leaves fewer (C, C++, C#: every conditional read with its first branch).
    second_reading: Callable[[bytes], bytes] | None = None
    #: Keep a definition whose own subtree parsed cleanly even inside an ERROR node: C and
    #: C++ preprocessor tricks make tree-sitter wrap whole headers (fmt's format.h) in one.
    clean_definitions_in_errors: bool = False
    #: A definition's doc read from code, not from comments (Elixir's `@moduledoc` and `@doc`);
    #: None falls back to the comments above.
    doc_reader: Callable | None = None
    #: A method's receiver names a type (Go): one defined elsewhere is its parent all the same.
    #: Else (JavaScript `res.send = function`) a receiver is a parent only where it is a
    #: container of the same file.
    receivers_are_types: bool = True

    def is_attribute(self, node: tree_sitter.Node) -> bool:
        return node.type in self.attribute_types and (self.attribute_test is None or self.attribute_test(node))


def _c_source(data: bytes) -> bytes:
    return mask_macros(resolve_split_conditionals(data))


def _cpp_source(data: bytes) -> bytes:
    return mask_cpp_macros(resolve_split_conditionals(data))


def _c_second_reading(data: bytes) -> bytes:
    return mask_macros(resolve_every_conditional(data))


def _cpp_second_reading(data: bytes) -> bytes:
    return mask_cpp_macros(resolve_every_conditional(data))


#: `ref partial struct`, which tree-sitter-c-sharp 0.23 reads only as `partial ref struct`
#: (MessagePack's `MessagePackReader` was one module chunk); the swap keeps every offset
_REF_PARTIAL = re.compile(rb"\bref(\s+)partial(\s+)(?=struct\b)")


def _csharp_source(data: bytes) -> bytes:
    return _REF_PARTIAL.sub(rb"partial\1ref\2", resolve_split_conditionals(data))


def _csharp_second_reading(data: bytes) -> bytes:
    return _REF_PARTIAL.sub(rb"partial\1ref\2", resolve_every_conditional(data))


#: `expression_statement`: `res.send = function send() {...};`
_JS_WRAPPERS = frozenset(
    {"export_statement", "lexical_declaration", "variable_declaration", "ambient_declaration",
     "expression_statement"}
)

_JS_EXTRA_QUERIES = ("js_assignments.scm",)

_C_TRANSPARENT = frozenset(
    {"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef",
     "linkage_specification", "declaration_list"}
)
_CPP_TRANSPARENT = _C_TRANSPARENT | {"namespace_definition"}
#: `friend auto f() {...}`, and a member type declared alone (`struct writer {...};` in a class)
_CPP_WRAPPERS = frozenset({"type_definition", "template_declaration", "friend_declaration", "field_declaration"})
_CPP_WRAPPER_PARTS = frozenset({"type_identifier", "template_parameter_list", "requires_clause"})

GRAMMARS: dict[str, Grammar] = {
    "python": Grammar(
        "python", tree_sitter_python.language, "python.scm", frozenset({"comment"}),
        wrapper_types=frozenset({"decorated_definition"}),
    ),
    "javascript": Grammar(
        "javascript", tree_sitter_javascript.language, "javascript.scm",
        frozenset({"comment"}), wrapper_types=_JS_WRAPPERS, extra_query_files=_JS_EXTRA_QUERIES,
        namer=naming.javascript, receivers_are_types=False,
    ),
    "typescript": Grammar(
        "typescript", tree_sitter_typescript.language_typescript, "typescript.scm",
        frozenset({"comment"}), wrapper_types=_JS_WRAPPERS, extra_query_files=_JS_EXTRA_QUERIES,
        namer=naming.javascript, receivers_are_types=False,
    ),
    "tsx": Grammar(
        "tsx", tree_sitter_typescript.language_tsx, "typescript.scm",
        frozenset({"comment"}), wrapper_types=_JS_WRAPPERS, extra_query_files=_JS_EXTRA_QUERIES,
        namer=naming.javascript, receivers_are_types=False,
    ),
    "go": Grammar(
        "go", tree_sitter_go.language, "go.scm", frozenset({"comment"}),
        wrapper_types=frozenset({"type_declaration"}),
    ),
    "rust": Grammar(
        "rust", tree_sitter_rust.language, "rust.scm",
        frozenset({"line_comment", "block_comment"}),
        attribute_types=frozenset({"attribute_item"}), reader=read_opening_item_macros,
        doc_reader=macro_docs.rust_macro_doc,
    ),
    "java": Grammar(
        "java", tree_sitter_java.language, "java.scm",
        frozenset({"line_comment", "block_comment"}),
    ),
    # issue 33
    "c": Grammar(
        "c", tree_sitter_c.language, "c.scm", frozenset({"comment"}),
        wrapper_types=frozenset({"type_definition", "field_declaration"}), wrapper_parts=frozenset({"type_identifier"}),
        transparent_top_level=_C_TRANSPARENT, namer=naming.c_family, source_filter=_c_source,
        second_reading=_c_second_reading, clean_definitions_in_errors=True,
    ),
    "c_header": Grammar(
        "c_header", tree_sitter_c.language, "c.scm", frozenset({"comment"}),
        wrapper_types=frozenset({"type_definition", "field_declaration"}), wrapper_parts=frozenset({"type_identifier"}),
        transparent_top_level=_C_TRANSPARENT, extra_query_files=("c_header.scm",), namer=naming.c_family, source_filter=_c_source,
        second_reading=_c_second_reading, clean_definitions_in_errors=True,
    ),
    "cpp": Grammar(
        "cpp", tree_sitter_cpp.language, "cpp.scm", frozenset({"comment"}),
        wrapper_types=_CPP_WRAPPERS, wrapper_parts=_CPP_WRAPPER_PARTS,
        transparent_top_level=_CPP_TRANSPARENT, namer=naming.c_family, source_filter=_cpp_source,
        second_reading=_cpp_second_reading, clean_definitions_in_errors=True,
    ),
    "cpp_header": Grammar(
        "cpp_header", tree_sitter_cpp.language, "cpp.scm", frozenset({"comment"}),
        wrapper_types=_CPP_WRAPPERS, wrapper_parts=_CPP_WRAPPER_PARTS,
        transparent_top_level=_CPP_TRANSPARENT, extra_query_files=("cpp_header.scm",), namer=naming.c_family,
        source_filter=_cpp_source, second_reading=_cpp_second_reading, clean_definitions_in_errors=True,
    ),
    "c_sharp": Grammar(
        "c_sharp", tree_sitter_c_sharp.language, "csharp.scm", frozenset({"comment"}),
        transparent_top_level=frozenset({"namespace_declaration", "declaration_list"}),
        source_filter=_csharp_source, second_reading=_csharp_second_reading,
    ),
    "ruby": Grammar(
        "ruby", tree_sitter_ruby.language, "ruby.scm", frozenset({"comment"}),
        comment_hosts=frozenset({"body_statement", "then"}), namer=naming.ruby,
    ),
    "php": Grammar(
        "php", tree_sitter_php.language_php, "php.scm", frozenset({"comment"}),
        transparent_top_level=frozenset({"namespace_definition", "compound_statement"}),
    ),
    "kotlin": Grammar(
        "kotlin", tree_sitter_kotlin.language, "kotlin.scm", frozenset({"line_comment", "block_comment"}),
        # `@JvmName("x")` on its own line above a top-level `fun` parses as an annotated
        # expression beside the function, not as its modifier: it (and the KDoc above it) is
        # the function's
        attribute_types=frozenset({"annotated_expression"}), namer=naming.kotlin,
        # a primary constructor below its class header (constructors.py)
        source_filter=join_split_constructors,
    ),
    "swift": Grammar(
        "swift", tree_sitter_swift.language, "swift.scm", frozenset({"comment", "multiline_comment"}),
        namer=naming.swift,
    ),
    "scala": Grammar(
        "scala", tree_sitter_scala.language, "scala.scm", frozenset({"comment", "block_comment"}),
        trailing_comments_inside=True, namer=naming.scala,
    ),
    "bash": Grammar("bash", tree_sitter_bash.language, "bash.scm", frozenset({"comment"}), namer=naming.bash),
    "lua": Grammar(
        "lua", tree_sitter_lua.language, "lua.scm", frozenset({"comment"}),
        wrapper_types=frozenset({"variable_declaration"}), namer=naming.lua,
    ),
    # issue 45
    "elixir": Grammar(
        "elixir", tree_sitter_elixir.language, "elixir.scm", frozenset({"comment"}),
        attribute_types=frozenset({"unary_operator"}), attribute_test=attribute_docs.is_elixir_attribute,
        namer=naming.elixir, doc_reader=attribute_docs.elixir_doc,
    ),
    "haskell": Grammar(
        "haskell", tree_sitter_haskell.language, "haskell.scm", frozenset({"comment", "haddock"}),
        # `{-# INLINE f #-}` above a function; the doc comment of a class's or instance's first
        # member sits before its `where` block, that of a module's first declaration inside
        # the imports (their last node: a trailing comment)
        attribute_types=frozenset({"pragma"}),
        comment_hosts=frozenset({"declarations", "class_declarations", "instance_declarations"}),
        trailing_comments_inside=True, transparent_top_level=frozenset({"declarations", "imports"}),
        namer=naming.haskell,
    ),
    "zig": Grammar("zig", tree_sitter_zig.language, "zig.scm", frozenset({"comment"}), namer=naming.zig),
}


@cache
def language(grammar: str) -> tree_sitter.Language:
    return tree_sitter.Language(GRAMMARS[grammar].load())


@cache
def query(grammar: str) -> tree_sitter.Query:
    folder = resources.files(__package__) / "queries"
    files = (GRAMMARS[grammar].query_file, *GRAMMARS[grammar].extra_query_files)
    source = "\n".join((folder / name).read_text(encoding="utf-8") for name in files)
    return tree_sitter.Query(language(grammar), source)


_local = threading.local()


def parse(grammar: str, data: bytes) -> tree_sitter.Tree:
    """The tree of `data` (read through the grammar's source filter, offsets unchanged)."""
    reading = GRAMMARS[grammar]
    if reading.reader is not None:
        tree = reading.reader(parser(grammar), data)
    else:
        tree = parser(grammar).parse(reading.source_filter(data) if reading.source_filter else data)
    if tree.root_node.has_error and reading.second_reading is not None:
        second = parser(grammar).parse(reading.second_reading(data))
        if _error_bytes(second.root_node) < _error_bytes(tree.root_node):
            return second
    return tree


def _error_bytes(node: tree_sitter.Node) -> int:
    """How many bytes of the tree under `node` the parser could not read."""
    if node.type == "ERROR":
        return node.end_byte - node.start_byte
    if node.is_missing:
        return 1
    return sum(_error_bytes(child) for child in node.children if child.has_error)


def parser(grammar: str) -> tree_sitter.Parser:
    """A parser for `grammar`, one per thread (parsers keep state between parses)."""
    parsers = _local.__dict__.setdefault("parsers", {})
    if grammar not in parsers:
        parsers[grammar] = tree_sitter.Parser(language(grammar))
    return parsers[grammar]
