"""Names of definitions whose name node's text is not yet the name the index keys them by.

A query captures one `@name` node per definition; for most languages its text is the name.
These languages need a word more: C++ writes its scopes into the name (`void detail::foo()`
-> `detail.foo`, `buffer<T>::append` -> `buffer.append`), Kotlin extension functions carry
their receiver (`fun String.foo()` -> `String.foo`), Swift extensions are named after the
type they extend (`extension Session` -> `extension Session`, its members `Session.x`), Ruby
has `self.` methods and DSL blocks (`get '/' do` -> `get '/'`), Lua writes `M:foo` for
`M.foo`; a Scala `def` of an anonymous class (`new Setup { def x }`) is no member of the type
around it. Each namer edits the definition in place and returns False to drop it.
"""

from __future__ import annotations

import re
from typing import Protocol

from tree_sitter import Node


class Definition(Protocol):
    """What a namer reads and sets of symbols.Definition (not imported: symbols imports the
    grammars, which import the namers)."""

    kind: str
    node: Node
    name: str
    qualifier: str

_SPACES = re.compile(r"\s+")
_SPACE_IN_TEMPLATE = re.compile(r"\s*([<>,*&])\s*")


def _text(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text else ""


def _split_scopes(text: str) -> list[str]:
    """`a::b<c::d>::e` -> [`a`, `b<c::d>`, `e`]: `::` inside template arguments is kept."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        char = text[i]
        if char == "<":
            depth += 1
        elif char == ">":
            depth = max(depth - 1, 0)
        elif depth == 0 and text.startswith("::", i):
            parts.append(text[start:i])
            start = i + 2
            i += 1
        i += 1
    parts.append(text[start:])
    return [part for part in parts if part]


def cpp_name(text: str) -> str:
    """A C/C++ declarator or type name as a dotted name: template arguments are dropped
    from the qualifying scopes and kept (spaces normalised) on the last part, so
    `formatter<int>` and `formatter<char>` stay two names."""
    text = _SPACES.sub(" ", text.strip())
    if text.startswith("operator"):
        text = _SPACES.sub("", text) if not text.startswith("operator ") else text
    parts = _split_scopes(text)
    if not parts:
        return text
    scopes = [re.split(r"<", part, maxsplit=1)[0].strip() for part in parts[:-1]]
    last = _SPACE_IN_TEMPLATE.sub(r"\1", parts[-1]) if "<" in parts[-1] else parts[-1]
    return ".".join([*scopes, last.strip()])


def c_family(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    """C and C++: a function defined inside a block is a misparse of a macro (`FMT_CATCH(...) {`)."""
    if definition.kind == "function" and _inside(definition.node, "compound_statement"):
        return False
    definition.name = cpp_name(_text(captures["name"][0]))
    return bool(definition.name)


def _inside(node: Node, ancestor_type: str) -> bool:
    current = node.parent
    while current is not None:
        if current.type == ancestor_type:
            return True
        current = current.parent
    return False


def ruby(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    node = definition.node
    name = _text(captures["name"][0])
    if node.type == "singleton_method":
        target = node.child_by_field_name("object")
        name = f"{_text(target) if target is not None else 'self'}.{name}"
    elif node.type == "method" and _in_singleton_class(node):  # `class << self; def x`
        name = f"self.{name}"
    elif node.type == "call":  # a DSL block: `get '/hello' do` -> `get '/hello'`
        argument = captures.get("name.argument")
        if argument:
            name = f"{name} {_SPACES.sub(' ', _text(argument[0]))}"
    definition.name = name.replace("::", ".")
    return True


def _in_singleton_class(node: Node) -> bool:
    current = node.parent
    while current is not None and current.type not in ("class", "module", "method", "singleton_method"):
        if current.type == "singleton_class":
            return True
        current = current.parent
    return False


def kotlin(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    node = definition.node
    if node.type == "companion_object":
        named = [c for c in node.named_children if c.type == "identifier"]
        definition.name = _text(named[0]) if named else "Companion"
        return True
    if node.type == "secondary_constructor":
        definition.name = "constructor"
        return True
    if node.type == "function_declaration":
        name_node = node.child_by_field_name("name")
        for child in node.named_children:
            if name_node is not None and child.start_byte >= name_node.start_byte:
                break
            if child.type in ("user_type", "nullable_type", "parenthesized_type"):
                receiver = re.split(r"[<?(]", _text(child).strip("()"), maxsplit=1)[0].strip()
                definition.name = f"{receiver}.{definition.name}"
                break
    return True


def swift(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    if definition.kind == "extension":
        extended = re.split(r"[<\s]", _text(captures["name"][0]).strip(), maxsplit=1)[0]
        definition.name = f"extension {extended}"
        definition.qualifier = extended
    return True


def lua(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    definition.name = _text(captures["name"][0]).replace(":", ".")
    return True


_SCALA_DEFINITIONS = frozenset(
    {"object_definition", "class_definition", "trait_definition", "enum_definition", "function_definition"})


def scala(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    """A `def` in the body of `new T { ... }` belongs to the chunk of the code that makes the
    instance, not to the enclosing type as its method."""
    current = definition.node.parent
    while current is not None and current.type not in _SCALA_DEFINITIONS:
        if current.type == "instance_expression":
            return False
        current = current.parent
    return True
