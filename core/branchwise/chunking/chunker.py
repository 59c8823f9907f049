"""Cut one file into symbol chunks: the entry point of the chunking package.

A file is screened (secret, binary, too large), classified (source, test, generated...),
then parsed: every symbol becomes a chunk whose text is exactly whole lines of the file.
Module-level code outside symbols becomes one "module" chunk; a file without a grammar
becomes one "file" chunk. See docs/chunking.md for the rules and the naming scheme.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

from tree_sitter import Node

from branchwise.chunking import bodies, embedding_text
from branchwise.chunking.attribute_docs import is_module_doc
from branchwise.chunking.config_blocks import CONFIG_KINDS, config_blocks
from branchwise.chunking.clauses import fold_clauses
from branchwise.chunking.comments import (clean_comments, clean_docstring, javadoc_to_prose, nearest_doc,
                                          xml_doc_to_prose)
from branchwise.chunking.grammars import GRAMMARS, parse
from branchwise.chunking.languages import grammar_for_file, identity_language, text_kind_for_path
from branchwise.chunking.lines import LineTable, decode
from branchwise.chunking.naming import csharp_partial_parts
from branchwise.chunking.outline_key import outline_hash, skeleton
from branchwise.chunking.overloads import fold_overloads
from branchwise.chunking.pathclass import classify_path
from branchwise.chunking.rules import DEFAULT_RULES, ChunkingRules
from branchwise.chunking.screening import skip_reason
from branchwise.chunking.sections import section_chunks
from branchwise.chunking.symbols import Definition, find_symbols
from branchwise.chunking.vocabulary import CONTAINER_KINDS
from branchwise.models import Chunk, FileChunks, Identity, PathMarks, sha256_hex
from branchwise.secrets import redact

_ANNOTATIONS = frozenset(
    {"decorator", "annotation", "marker_annotation", "attribute_item", "attribute_list", "attribute"}
)
#: Top-level nodes that are neither symbols nor code worth a module chunk.
_TRIVIAL_TOP_LEVEL = frozenset(
    {"package_clause", "package_declaration", "ERROR", "empty_statement",
     # issue 33: Kotlin, C#, PHP headers; C's `;` after a definition
     "package_header", "file_scoped_namespace_declaration", "php_tag", "declare_statement", "text",
     "namespace_definition", "preproc_call", ";",
     # issue 45: Haskell's `{-# INLINE f #-}` and `infixl 6 |+|` after a function, its CPP lines
     "pragma", "fixity", "cpp"}
)
#: Children of a transparent top-level node that are its own parts, not statements in it.
_TRANSPARENT_PARTS = frozenset({"name", "condition", "value"})
_FIELD_LINE_CHARS = 160
#: Definitions that are a signature and nothing else (a Haskell type signature, over several
#: lines as often as not): all of it is the signature.
_WHOLE_SIGNATURES = frozenset({"signature"})


def chunk_file(
    repository: str,
    path: str,
    data: bytes,
    rules: ChunkingRules | None = None,
    generated_paths: frozenset[str] = frozenset(),
    marks: PathMarks | None = None,
) -> FileChunks:
    """All chunks of the file at `path` (repository-relative, `/`-separated) holding `data`."""
    rules = rules or DEFAULT_RULES
    grammar = grammar_for_file(path, data)
    language = identity_language(grammar) if grammar else text_kind_for_path(path)
    result = FileChunks(path=path, language=language)
    result.path_class, result.class_reason = classify_path(path, data, rules, generated_paths, marks)
    result.skipped = skip_reason(path, data, rules)
    if result.skipped:
        return result
    if grammar:
        result.chunks = _FileChunker(repository, path, language, grammar, data).chunks()
    elif rules.index_unknown_languages:
        result.chunks = (_config_chunks(repository, path, language, data)
                         or section_chunks(repository, path, language, data, rules)
                         or _file_chunk(repository, path, language, data))
    else:
        result.skipped = "no grammar: file type not indexed (index_unknown_languages is off)"
    for chunk in result.chunks:
        chunk.path_class, chunk.class_reason = result.path_class, result.class_reason
        _redact_secrets(chunk)
    return result


def _redact_secrets(chunk: Chunk) -> None:
    """Secrets in code never reach the index or a result; the hash stays the original's."""
    chunk.text = redact(chunk.text)
    chunk.embedding_text = redact(chunk.embedding_text)
    chunk.signature = redact(chunk.signature)
    chunk.docstring = redact(chunk.docstring)
    if chunk.skeleton is not None:
        chunk.skeleton = redact(chunk.skeleton)


@dataclass
class _Draft:
    """A chunk before identities are deduplicated and parents resolved."""

    definition: Definition
    start_line: int
    end_line: int
    signature: str
    docstring: str
    body_start: int


class _FileChunker:
    def __init__(self, repository: str, path: str, language: str, grammar: str, data: bytes):
        self.repository, self.path, self.language = repository, path, language
        self.grammar = GRAMMARS[grammar]
        self.data = data
        self.table = LineTable(data)
        self.root = parse(grammar, data).root_node
        self.symbols = find_symbols(grammar, self.root, self.table)
        self.symbols.definitions = fold_clauses(grammar, fold_overloads(grammar, self.symbols.definitions, self.table))
        if grammar == "c_sharp":
            csharp_partial_parts(self.symbols.definitions, path)
        self.imports = tuple(decode(node.text).strip() for node in self.symbols.imports)

    def identity(self, symbol_type: str, qualified_name: str) -> Identity:
        return Identity(self.repository, self.path, self.language, symbol_type, qualified_name)

    def chunks(self) -> list[Chunk]:
        drafts = [self._draft(d) for d in self.symbols.definitions if d.symbol_type]
        identities = _unique_identities(self, drafts)
        by_definition = {id(draft.definition): identity for draft, identity in zip(drafts, identities)}
        containers: dict[str, Identity] = {}
        for identity in identities:
            if identity.symbol_type in CONTAINER_KINDS or identity.symbol_type == "type":
                containers.setdefault(identity.qualified_name, identity)
        parents = [self._parent(draft.definition, by_definition, containers) for draft in drafts]
        chunks = [
            self._chunk(draft, identity, parent)
            for draft, identity, parent in zip(drafts, identities, parents)
        ]
        member_signatures: dict[Identity, list[str]] = {}
        for chunk in chunks:
            if chunk.parent is not None:
                member_signatures.setdefault(chunk.parent, []).append(chunk.signature)
        symbol_nodes = {node.id for d in self.symbols.definitions
                        for node in (d.node, d.outer, *d.clauses, *d.attributes) if node is not None}
        for draft, chunk in zip(drafts, chunks):
            if chunk.identity.symbol_type in CONTAINER_KINDS:
                members = member_signatures.get(chunk.identity, [])
                chunk.embedding_text = self._outline_text(draft, chunk, members, symbol_nodes)
                self._key_by_outline(chunk, chunks)
        defined = tuple(chunk.signature.splitlines()[0] for chunk in chunks if chunk.parent is None and chunk.signature)
        module = self._module_chunk(defined) if chunks or not self.data.strip() else self._whole_file_chunk()
        if module is not None:
            chunks.insert(0, module)
        return chunks

    def _draft(self, definition: Definition) -> _Draft:
        start_line = self.table.line_of(definition.first_byte)
        end_line = self.table.last_line_of(definition.first_byte, definition.end_byte)
        signature, body_start = self._signature(definition)
        docstring_node = _python_docstring(definition.node) if self.grammar.name == "python" else None
        if docstring_node is not None:
            docstring = clean_docstring(_string_content(docstring_node))
            body_start = docstring_node.end_byte
        else:
            written = self.grammar.doc_reader(definition) if self.grammar.doc_reader else None
            docstring = written if written is not None else clean_comments(
                nearest_doc([decode(node.text) for node in definition.doc_comments]))
            if self.language == "csharp":
                docstring = xml_doc_to_prose(docstring)
            elif self.language == "java":
                docstring = javadoc_to_prose(docstring)
        return _Draft(definition, start_line, end_line, signature, docstring, body_start)

    def _signature(self, definition: Definition) -> tuple[str, int]:
        """The declaration up to its body (or its first line), and where the body starts."""
        start = _first_non_annotation(definition.outer)
        body = bodies.body(definition.node)
        if body is not None and body.start_byte > start:
            end = body.start_byte
            comments = [
                child.start_byte for child in definition.node.children
                if child.type in self.grammar.comment_types and start < child.start_byte < end
            ]
            signature_end = min(comments, default=end)  # Python: `def f():  # note`
        elif definition.node.type in _WHOLE_SIGNATURES:
            end = signature_end = definition.node.end_byte
        else:
            end = signature_end = self.table.span(*(2 * [self.table.line_of(start)]))[1]
        lines = [line.rstrip() for line in decode(self.data[start:signature_end]).splitlines()]
        return "\n".join(lines).strip().lstrip("\ufeff"), end

    def _parent(
        self,
        definition: Definition,
        by_definition: dict[int, Identity],
        containers: dict[str, Identity],
    ) -> Identity | None:
        scope = definition.scope
        if definition.receiver:
            target = definition.receiver
        elif scope is None:
            return None
        elif scope.kind == "impl":
            target = scope.qualified_name
        elif scope.kind == "module":
            return None
        else:
            return by_definition[id(scope)]
        found = containers.get(target)
        if found is None and definition.receiver and not self.grammar.receivers_are_types:
            return None
        return found or self.identity("struct", target)

    def _chunk(self, draft: _Draft, identity: Identity, parent: Identity | None) -> Chunk:
        start, end = self.table.span(draft.start_line, draft.end_line)
        raw = self.data[start:end]
        body = decode(self.data[draft.body_start : draft.definition.end_byte])
        return Chunk(
            identity=identity,
            start_line=draft.start_line,
            end_line=draft.end_line,
            start_byte=start,
            end_byte=end,
            signature=draft.signature,
            docstring=draft.docstring,
            parent=parent,
            imports=self.imports,
            text=decode(raw),
            content_hash=sha256_hex(raw),
            lines_hash=sha256_hex(raw),
            embedding_text=embedding_text.compose(
                identity.symbol_type, identity.qualified_name,
                parent.qualified_name if parent else None,
                draft.signature, draft.docstring, body, path=identity.path,
            ),
        )

    def _outline_text(
        self, draft: _Draft, chunk: Chunk, members: list[str], symbol_nodes: set[int]
    ) -> str:
        """A container's embedding text: signature, doc, fields and member signatures."""
        fields = []
        for member in bodies.members(draft.definition.node):
            if member.id in symbol_nodes or member.type in self.grammar.comment_types:
                continue
            if member.type in ("pass_statement", "{", "}") or _is_docstring(member) or is_module_doc(member):
                continue
            first_line = decode(member.text).splitlines()[0].strip() if member.text else ""
            if first_line:
                fields.append(first_line[:_FIELD_LINE_CHARS])
        return embedding_text.compose(
            chunk.identity.symbol_type, chunk.identity.qualified_name,
            chunk.parent.qualified_name if chunk.parent else None,
            chunk.signature, chunk.docstring, embedding_text.outline_body(fields, members),
            path=chunk.identity.path,
        )

    def _key_by_outline(self, container: Chunk, chunks: list[Chunk]) -> None:
        """Key a container by its skeleton and member signatures (outline_key.py), when its
        direct members sit on lines of their own inside it."""
        members = [
            chunk for chunk in chunks
            if chunk.parent == container.identity and chunk is not container
            and container.start_line <= chunk.start_line and chunk.end_line <= container.end_line
        ]
        found = skeleton(
            self.data, (container.start_line, container.end_line, container.start_byte, container.end_byte),
            [(m.start_line, m.end_line, m.start_byte, m.end_byte, m.identity.qualified_name) for m in members],
        )
        if found is None:
            return
        members.sort(key=lambda m: m.start_line)
        container.skeleton = decode(found)
        container.content_hash = outline_hash(found, [m.signature for m in members])

    def _whole_file_chunk(self) -> Chunk:
        """A file with no symbol (only imports or re-exports, a package doc comment, code the
        grammar could not read) is one `module` chunk of all its lines, so that search finds it."""
        return self._module_chunk() or self._module_of(self.table.line_count, "", decode(self.data))

    def _module_chunk(self, defined: tuple[str, ...] = ()) -> Chunk | None:
        """Module-level code outside symbols, as one chunk from line 1 to its last line. The
        model reads it as an outline of the file, as it reads a container's: the first line
        of each top-level definition's signature (`defined`), then the imports and the code."""
        top_level = sorted((d.first_byte, d.tree_end) for d in self.symbols.definitions if d.scope is None)
        covered_starts = [start for start, _ in top_level]

        def covered(node: Node) -> bool:
            index = bisect_right(covered_starts, node.start_byte) - 1
            return index >= 0 and node.end_byte <= top_level[index][1]

        import_ids = {node.id for node in self.symbols.imports}
        docstring_node = _module_docstring(self.root) if self.grammar.name == "python" else None
        statements = [
            node for node in _top_level_nodes(self.root, self.grammar.transparent_top_level)
            if node.id not in import_ids
            and node.type not in self.grammar.comment_types
            and node.type not in _TRIVIAL_TOP_LEVEL
            and not (self.grammar.name == "rust" and node.type == "mod_item"
                     and node.child_by_field_name("body") is None)
            and (docstring_node is None or node.id != docstring_node.id)
            and not covered(node)
        ]
        if not statements and docstring_node is None:
            return None
        last = max(node.end_byte for node in statements + ([docstring_node] if docstring_node else []))
        end_line = self.table.last_line_of(0, last)
        docstring = clean_docstring(_string_content(docstring_node)) if docstring_node else ""
        return self._module_of(end_line, docstring,
                               "\n".join([*defined, *self.imports, *(decode(node.text) for node in statements)]))

    def _module_of(self, end_line: int, docstring: str, body: str) -> Chunk:
        start, end = self.table.span(1, end_line)
        raw = self.data[start:end]
        name = PurePosixPath(self.path).stem
        return Chunk(
            identity=self.identity("module", name),
            start_line=1,
            end_line=end_line,
            start_byte=start,
            end_byte=end,
            signature="",
            docstring=docstring,
            parent=None,
            imports=self.imports,
            text=decode(raw),
            content_hash=sha256_hex(raw),
            lines_hash=sha256_hex(raw),
            embedding_text=embedding_text.compose("module", name, None, "", docstring, body, path=self.path),
        )


def _unique_identities(chunker: _FileChunker, drafts: list[_Draft]) -> list[Identity]:
    """Identities in document order; a repeated (type, name) gets `#2`, `#3`... (property
    setters, conditional definitions; overloads are folded into one chunk, overloads.py)."""
    seen: Counter[tuple[str, str]] = Counter()
    identities = []
    for draft in drafts:
        symbol_type, name = draft.definition.symbol_type, draft.definition.qualified_name
        assert symbol_type is not None, "a scope is never drafted as a chunk"
        seen[symbol_type, name] += 1
        count = seen[symbol_type, name]
        identities.append(chunker.identity(symbol_type, name if count == 1 else f"{name}#{count}"))
    return identities


def _file_chunk(repository: str, path: str, language: str, data: bytes) -> list[Chunk]:
    """One chunk spanning every line of a file that has no grammar."""
    table = LineTable(data)
    if not data.strip():
        return []
    start, end = table.span(1, table.line_count)
    raw = data[start:end]
    text = decode(raw)
    name = PurePosixPath(path).name
    return [
        Chunk(
            identity=Identity(repository, path, language, "file", name),
            start_line=1,
            end_line=table.line_count,
            start_byte=start,
            end_byte=end,
            signature="",
            docstring="",
            parent=None,
            imports=(),
            text=text,
            content_hash=sha256_hex(raw),
            lines_hash=sha256_hex(raw),
            embedding_text=embedding_text.compose("file", name, None, "", "", text, path=path),
        )
    ]


def _config_chunks(repository: str, path: str, language: str, data: bytes) -> list[Chunk]:
    """One `config` chunk per top-level block of a TOML/YAML/JSON file ([] keeps one file chunk)."""
    if language not in CONFIG_KINDS:
        return []
    table = LineTable(data)
    chunks = []
    for block in config_blocks(language, decode(data)):
        start, end = table.span(block.start_line, block.end_line)
        raw = data[start:end]
        text = decode(raw)
        signature = next((line.strip() for line in text.splitlines()
                          if line.strip() and not line.lstrip().startswith("#")), "")
        chunks.append(Chunk(
            identity=Identity(repository, path, language, "config", block.name),
            start_line=block.start_line,
            end_line=block.end_line,
            start_byte=start,
            end_byte=end,
            signature=signature,
            docstring="",
            parent=None,
            imports=(),
            text=text,
            content_hash=sha256_hex(raw),
            lines_hash=sha256_hex(raw),
            embedding_text=embedding_text.compose("config", block.name, None, signature, "", text),
        ))
    return chunks


def _first_non_annotation(node: Node) -> int:
    """Start of a declaration proper: after decorators and annotations (kept in the text)."""
    for child in node.children:
        if child.type in _ANNOTATIONS:
            continue
        if child.type in ("modifiers", "decorated_definition"):
            return _first_non_annotation(child)
        if child.type in ("comment", "line_comment", "block_comment"):
            continue
        return child.start_byte
    return node.start_byte


def _top_level_nodes(root: Node, transparent: frozenset[str]) -> list[Node]:
    """The root's children, with those of transparent nodes (`#ifdef`, `extern "C"`, a
    namespace body) in their place."""
    out = []
    for index, child in enumerate(root.children):
        if not child.is_named or root.field_name_for_child(index) in _TRANSPARENT_PARTS:
            continue
        if child.type in transparent:
            out.extend(_top_level_nodes(child, transparent))
        else:
            out.append(child)
    return out


def _is_docstring(node: Node) -> bool:
    return (
        node.type == "expression_statement"
        and node.named_child_count == 1
        and node.named_children[0].type == "string"
    )


def _python_docstring(definition: Node) -> Node | None:
    body = definition.child_by_field_name("body")
    if body is None or definition.type not in ("function_definition", "class_definition"):
        return None
    first = next((c for c in body.named_children if c.type != "comment"), None)
    return first if first is not None and _is_docstring(first) else None


def _module_docstring(root: Node) -> Node | None:
    first = next((c for c in root.named_children if c.type != "comment"), None)
    return first if first is not None and _is_docstring(first) else None


def _string_content(statement: Node) -> str:
    string = statement.named_children[0]
    return "".join(
        decode(part.text) for part in string.named_children
        if part.type in ("string_content", "escape_sequence")
    )
