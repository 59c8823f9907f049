"""Where a definition's body starts and which nodes are its members.

The signature of a chunk runs up to its body, and a container's outline lists its members.
Most grammars give the body a `body` field; the others need a word: Kotlin's class and
function bodies, Go's `type X struct {...}`, Elixir's `do ... end` block, Haskell's `where`
declarations of a class or instance, Zig's `const X = struct {...}` (whose members sit right
after the `{` of the container expression) and Elixir's `defstruct [...]` (whose fields are its
arguments).
"""

from __future__ import annotations

from tree_sitter import Node

#: Body nodes of definitions whose grammar gives them no `body` field.
_BODY_TYPES = frozenset(
    {"class_body", "enum_class_body", "function_body", "do_block", "class_declarations",
     "instance_declarations"}
)
#: Zig container expressions: `const X = struct {...}`, `enum {...}`, `union {...}`, `error{...}`.
ZIG_CONTAINERS = frozenset(
    {"struct_declaration", "enum_declaration", "union_declaration", "opaque_declaration", "error_set_declaration"}
)
#: Elixir calls whose arguments are the fields of a struct.
_ELIXIR_STRUCTS = frozenset({b"defstruct", b"defexception"})


def body(node: Node) -> Node | None:
    """The node a definition's body starts at, or None (the signature is then its first line)."""
    found = node.child_by_field_name("body")
    if found is not None:
        return found
    value = node.child_by_field_name("value")  # `const f = () => ...`
    if value is None and node.type == "assignment_expression":  # `res.send = function () {...}`
        value = node.child_by_field_name("right")
        while value is not None and value.type == "assignment_expression":  # `res.set = res.header = ...`
            value = value.child_by_field_name("right")
    if value is not None:
        return value.child_by_field_name("body")
    type_node = node.child_by_field_name("type")  # Go `type X struct {...}`
    if node.type == "type_spec" and type_node is not None and type_node.type == "struct_type":
        return type_node.named_children[0] if type_node.named_children else None
    if node.type == "variable_declaration":  # Zig: the body starts at the container's `{`
        container = _zig_container(node)
        if container is not None:
            return next((child for child in container.children if child.type == "{"), None)
    if node.type == "test_declaration":  # Zig `test "name" {...}`
        return next((child for child in node.named_children if child.type == "block"), None)
    if node.child_by_field_name("block") is not None:
        return None  # a Ruby DSL block keeps its first line as signature (`get '/' do`)
    return next((child for child in node.named_children if child.type in _BODY_TYPES), None)


def members(node: Node) -> list[Node]:
    """The direct members of a container definition (fields, methods, variants...)."""
    found = body(node)
    if found is None and node.type == "type_spec":
        found = node.child_by_field_name("type")  # Go interface_type lists its methods directly
    if found is not None and not found.is_named:
        found = found.parent  # Zig: the `{` of a container expression, whose children are the members
    if found is None:
        return _elixir_struct_fields(node)
    out = []
    for child in found.named_children:
        if child.type == "enum_body_declarations":  # Java: the part of an enum after the constants
            out.extend(child.named_children)
        else:
            out.append(child)
    return out


def _zig_container(node: Node) -> Node | None:
    return next((child for child in node.named_children if child.type in ZIG_CONTAINERS), None)


def _elixir_struct_fields(node: Node) -> list[Node]:
    """`defstruct [:a, b: 1]` -> `:a`, `b: 1`; `defstruct a: 1, b: 2` -> `a: 1`, `b: 2`."""
    target = node.child_by_field_name("target")
    if node.type != "call" or target is None or target.text not in _ELIXIR_STRUCTS:
        return []
    arguments = next((child for child in node.named_children if child.type == "arguments"), None)
    fields: list[Node] = []
    for argument in arguments.named_children if arguments is not None else ():
        fields.extend(argument.named_children if argument.type in ("list", "keywords") else [argument])
    return [field for field in fields if field.type != "comment"]
