"""Find the symbols of one parsed file: kinds, qualified names and extents.

The language's query (queries/<language>.scm) captures candidate definitions; this
module nests them (nearest enclosing definition), names them with dotted qualified
names, decides method vs function, and widens each definition to its chunk extent:
wrappers such as decorators or `export`, then the comments and attributes directly
above. Definitions inside ERROR nodes are skipped, so a file with syntax errors still
yields its valid symbols.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node, QueryCursor

from branchwise.chunking.grammars import GRAMMARS, Grammar, query
from branchwise.chunking.lines import LineTable
from branchwise.chunking.vocabulary import CONTAINER_KINDS, SCOPE_KINDS


_TYPE_NAME_NOISE = re.compile(r"^(?:&|'\w+\s|mut\s|dyn\s|\*|\s)+")
_INNER_DOC = re.compile(rb"^\s*(?://!|/\*!|#!)")  # `#!`: a shebang line


@dataclass(eq=False)
class Definition:
    """One captured definition or naming scope, with everything derived from the tree."""

    kind: str  # capture kind: a symbol type, or "impl"/"module" for scopes
    node: Node
    name: str
    pattern: int
    receiver: str = ""  # Go: the receiver's base type name
    qualifier: str = ""  # what members are qualified with, when not the qualified name (Swift extensions)
    scope: Definition | None = None
    symbol_type: str | None = None  # None for scopes
    qualified_name: str = ""
    dropped: bool = False
    outer: Node | None = None  # `node` widened over wrappers (decorators, export)
    first_byte: int = 0  # where the chunk starts: comments/attributes above included
    doc_comments: list[Node] = field(default_factory=list)
    attributes: list[Node] = field(default_factory=list)  # attribute siblings taken in from above
    content_end: int | None = None  # where the code ends, when the node runs on over comments
    #: the later clauses of the same function folded into this one (clauses.py), and where the last ends
    clauses: list[Node] = field(default_factory=list)
    clauses_end: int | None = None

    @property
    def end_byte(self) -> int:
        end = (self.outer or self.node).end_byte
        end = end if self.content_end is None else min(end, self.content_end)
        return end if self.clauses_end is None else max(end, self.clauses_end)

    @property
    def tree_end(self) -> int:
        """Where its nodes end in the tree, comments they run on over included (Scala, Haskell):
        the module-level code it covers."""
        return max([self.end_byte, (self.outer or self.node).end_byte, *(node.end_byte for node in self.clauses)])


@dataclass
class FileSymbols:
    definitions: list[Definition]  # chunk-worthy definitions and scopes, in document order
    imports: list[Node]


def find_symbols(grammar_name: str, root: Node, table: LineTable) -> FileSymbols:
    grammar = GRAMMARS[grammar_name]
    by_id: dict[int, Definition] = {}
    imports: list[Node] = []
    for pattern, captures in QueryCursor(query(grammar_name)).matches(root):
        if "import" in captures:
            imports.extend(captures["import"])
            continue
        definition = _definition_from_match(pattern, captures)
        if definition is None:
            continue
        if _inside_error(definition.node) and not (
            grammar.clean_definitions_in_errors and not definition.node.has_error
            and not definition.node.is_missing
        ):
            continue
        if grammar.namer is not None and not grammar.namer(definition, captures):
            continue
        known = by_id.get(definition.node.id)
        if known is None or pattern < known.pattern:
            by_id[definition.node.id] = definition

    ordered = sorted(by_id.values(), key=lambda d: (d.node.start_byte, -d.node.end_byte))
    for definition in ordered:
        _resolve(definition, by_id)
        _widen(definition, grammar, table)
    imports.sort(key=lambda n: n.start_byte)
    return FileSymbols([d for d in ordered if not d.dropped], imports)


def _definition_from_match(pattern: int, captures: dict[str, list[Node]]) -> Definition | None:
    name_nodes = captures.get("name")
    if not name_nodes and "named" in captures:  # `@named`: the definition's `name` field names it
        field = captures["named"][0].child_by_field_name("name")
        name_nodes = [field] if field is not None else None
    for capture, nodes in captures.items():
        prefix, _, kind = capture.partition(".")
        if prefix in ("definition", "scope") and name_nodes:
            name_node = name_nodes[0]
            if name_node.is_missing or not name_node.text:
                return None
            name = name_node.text.decode("utf-8", errors="replace")
            if prefix == "scope":
                name = base_type_name(name)
            receiver = ""
            if "receiver" in captures:
                receiver = _receiver_type(captures["receiver"][0])
            return Definition(kind, nodes[0], name, pattern, receiver=receiver)
    return None


def base_type_name(text: str) -> str:
    """`Wrapper` from `Wrapper<T>`, `Config` from `&'a mut crate::Config`, `Repo` from `*Repo[T]`."""
    bare = _TYPE_NAME_NOISE.sub("", text)
    bare = re.split(r"[<\[(]", bare, maxsplit=1)[0]
    bare = re.split(r"::|\.", bare)[-1].strip()
    return bare or text.strip()


def _receiver_type(receiver: Node) -> str:
    for parameter in receiver.named_children:
        type_node = parameter.child_by_field_name("type")
        if type_node is not None:
            return base_type_name(type_node.text.decode("utf-8", errors="replace"))
    return ""


def _inside_error(node: Node) -> bool:
    current: Node | None = node
    while current is not None:
        if current.type == "ERROR" or current.is_missing:
            return True
        current = current.parent
    return False


def _resolve(definition: Definition, by_id: dict[int, Definition]) -> None:
    """Set scope, symbol type and qualified name; drop methods outside any container."""
    scope = _enclosing(definition.node, by_id)
    definition.scope = scope
    if scope is not None and scope.dropped:
        definition.dropped = True
        return
    scope_kind = scope.kind if scope else None
    kind = definition.kind
    if kind in SCOPE_KINDS:
        definition.symbol_type = None
    elif kind == "function":
        definition.symbol_type = "method" if scope_kind in CONTAINER_KINDS else "function"
    elif kind == "method":
        if not definition.receiver and scope_kind not in CONTAINER_KINDS:
            # e.g. a method of an anonymous class or object literal inside a function body:
            # it is part of that function's chunk.
            definition.dropped = True
            return
        definition.symbol_type = "method"
    else:
        definition.symbol_type = kind
    name = f"{definition.receiver}.{definition.name}" if definition.receiver else definition.name
    definition.qualified_name = f"{scope.qualifier or scope.qualified_name}.{name}" if scope else name


def _enclosing(node: Node, by_id: dict[int, Definition]) -> Definition | None:
    current = node.parent
    while current is not None:
        found = by_id.get(current.id)
        if found is not None:
            return found
        current = current.parent
    return None


def _widen(definition: Definition, grammar: Grammar, table: LineTable) -> None:
    """Extend the definition over its wrappers and the comments/attributes directly above."""
    outer = definition.node
    while (parent := outer.parent) is not None and parent.type in grammar.wrapper_types:
        others = [
            child for child in parent.named_children
            if child.id != outer.id and child.type not in grammar.comment_types
            and child.type != "decorator" and child.type not in grammar.wrapper_parts
        ]
        if others:
            break
        outer = parent
    definition.outer = outer
    if grammar.trailing_comments_inside:
        definition.content_end = _last_token(outer, grammar.comment_types).end_byte

    first_byte = outer.start_byte
    start_line = table.line_of(first_byte)
    sibling = outer.prev_named_sibling
    if sibling is None and outer.parent is not None and outer.parent.type in grammar.comment_hosts:
        sibling = outer.parent.prev_named_sibling  # Ruby: `class A\n  # doc\n  def first`
    if sibling is not None and grammar.trailing_comments_inside and sibling.type not in grammar.comment_types:
        sibling = _trailing_comment(sibling, grammar.comment_types) or sibling
    while sibling is not None and (sibling.type in grammar.comment_types or grammar.is_attribute(sibling)):
        if table.last_line_of(sibling.start_byte, sibling.end_byte) < start_line - 1:
            break
        if table.data[table.line_start(sibling.start_byte) : sibling.start_byte].strip():
            break  # a trailing comment of the code before it
        is_comment = sibling.type in grammar.comment_types
        if is_comment and _INNER_DOC.match(sibling.text):
            break  # `//!` documents the enclosing module, not the next item
        if is_comment:
            definition.doc_comments.insert(0, sibling)
        else:
            definition.attributes.insert(0, sibling)
        first_byte = sibling.start_byte
        start_line = table.line_of(first_byte)
        sibling = sibling.prev_named_sibling
    definition.first_byte = first_byte


def _last_token(node: Node, comment_types: frozenset[str]) -> Node:
    """The last descendant of `node` that is code, not a comment."""
    current = node
    while current.child_count:
        code = [child for child in current.children if child.type not in comment_types]
        if not code:
            break
        current = code[-1]
    return current


def _trailing_comment(node: Node, comment_types: frozenset[str]) -> Node | None:
    """The last comment nested at the very end of `node` (after its last code token)."""
    current = node
    while current.child_count:
        last = current.children[-1]
        if last.type in comment_types:
            return last
        current = last
    return None
