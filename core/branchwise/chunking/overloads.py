"""Fold overload declarations into the implementation they declare.

`@typing.overload` stubs (`@overload`, `@t.overload`, `@typing_extensions.overload`) and
TypeScript overload signatures only describe the function defined after them. As chunks of
their own they were results that answer nothing (`def prompt(...) -> str: ...`), and they took
the bare name, so `prompt` named a stub and the implementation was `prompt#3`. Folded, the
implementation's chunk starts at the first overload: its text lists every overload signature,
its signature and docstring are the implementation's, and it is the one chunk with the bare name.

Python: a run of overload-decorated definitions of one name in one scope, directly followed (no
other definition of that scope between) by a definition of the same name that is not decorated
as an overload, is one chunk, the implementation's. A run without implementation (a `.pyi`
stub file, a Protocol) is one chunk too, carried by its last stub. TypeScript: the
`function_signature` / `method_signature` siblings of one name directly above a function or
method (with the comments above the first) belong to its chunk; they were never chunks.
"""

from __future__ import annotations

from tree_sitter import Node

from branchwise.chunking.lines import LineTable
from branchwise.chunking.symbols import Definition

_TS_SIGNATURES = frozenset({"function_signature", "method_signature"})


def fold_overloads(grammar: str, definitions: list[Definition], table: LineTable) -> list[Definition]:
    """`definitions` (document order) with overloads folded into their implementations."""
    if grammar == "python":
        return _fold_python(definitions)
    if grammar in ("typescript", "tsx"):
        for definition in definitions:
            _take_signatures_above(definition, table)
    return definitions


def is_overload_stub(definition: Definition) -> bool:
    """Is this Python definition decorated with `overload` (bare or as a module attribute)?"""
    outer = definition.outer or definition.node
    if outer.type != "decorated_definition":
        return False
    for decorator in outer.children:
        if decorator.type != "decorator" or not decorator.named_children:
            continue
        expression = decorator.named_children[0]
        if expression.type == "attribute":
            expression = expression.child_by_field_name("attribute") or expression
        if expression.type == "identifier" and expression.text == b"overload":
            return True
    return False


def _fold_python(definitions: list[Definition]) -> list[Definition]:
    siblings: dict[int, list[Definition]] = {}
    for definition in definitions:
        siblings.setdefault(id(definition.scope), []).append(definition)
    folded: set[int] = set()
    for group in siblings.values():
        index = 0
        while index < len(group):
            first = group[index]
            if first.symbol_type is None or not is_overload_stub(first):
                index += 1
                continue
            end = index + 1
            while end < len(group) and _same_symbol(group[end], first) and is_overload_stub(group[end]):
                end += 1
            if end < len(group) and _same_symbol(group[end], first):
                end += 1  # the implementation
            carrier = group[end - 1]
            carrier.first_byte = first.first_byte
            folded.update(id(stub) for stub in group[index : end - 1])
            index = end
    if not folded:
        return definitions
    return [d for d in definitions if not _inside_folded(d, folded)]


def _same_symbol(a: Definition, b: Definition) -> bool:
    return a.symbol_type == b.symbol_type and a.qualified_name == b.qualified_name


def _inside_folded(definition: Definition, folded: set[int]) -> bool:
    current: Definition | None = definition
    while current is not None:
        if id(current) in folded:
            return True
        current = current.scope
    return False


def _take_signatures_above(definition: Definition, table: LineTable) -> None:
    """Extend a TypeScript function or method over the overload signatures directly above it."""
    if definition.node.type not in ("function_declaration", "method_definition"):
        return
    name = definition.node.child_by_field_name("name")
    outer = definition.outer or definition.node
    sibling = outer.prev_named_sibling
    comments: list[Node] = []
    found = False
    while sibling is not None:
        if sibling.type == "comment":
            comments.append(sibling)
        elif name is not None and _signature_name(sibling) == name.text:
            found, comments = True, []
            definition.first_byte = min(definition.first_byte, sibling.start_byte)
        else:
            break
        sibling = sibling.prev_named_sibling
    if not found:
        return
    start_line = table.line_of(definition.first_byte)
    for comment in comments:  # nearest first: the comments directly above the first overload
        if table.last_line_of(comment.start_byte, comment.end_byte) < start_line - 1:
            break
        definition.first_byte = comment.start_byte
        definition.doc_comments.insert(0, comment)
        start_line = table.line_of(comment.start_byte)


def _signature_name(node: Node) -> bytes | None:
    """The name an overload signature declares (through an `export`), or None."""
    if node.type == "export_statement":
        node = next((child for child in node.named_children if child.type in _TS_SIGNATURES), node)
    if node.type not in _TS_SIGNATURES:
        return None
    name = node.child_by_field_name("name")
    return name.text if name is not None else None
