"""Docs written as code rather than comments: Elixir's module attributes.

An Elixir function is documented by `@doc "..."` above it (with `@spec` and `@impl` beside),
a module by `@moduledoc "..."` as the first statement of its body. These attributes belong to
the chunk below them and their text is its docstring, as a Python docstring is; other module
attributes (`@behaviour`, `@default_opts [...]`) are the module's own code.
"""

from __future__ import annotations

import inspect

from tree_sitter import Node

from branchwise.chunking.lines import decode

#: attributes that describe the definition below them
_DEFINITION_ATTRIBUTES = frozenset({b"doc", b"typedoc", b"spec", b"impl", b"deprecated"})
_MODULE_DOC = b"moduledoc"


def _attribute(node: Node) -> tuple[bytes, Node | None] | None:
    """`@name value` as (name, value node), or None when `node` is no attribute."""
    operand = node.child_by_field_name("operand")
    if node.type != "unary_operator" or operand is None or not node.text.startswith(b"@"):
        return None
    if operand.type == "identifier":
        return operand.text, None
    target = operand.child_by_field_name("target")
    if operand.type != "call" or target is None:
        return None
    arguments = next((child for child in operand.named_children if child.type == "arguments"), None)
    value = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    return target.text, value


def is_elixir_attribute(node: Node) -> bool:
    """Does this `@attribute` belong to the definition below it?"""
    found = _attribute(node)
    return found is not None and found[0] in _DEFINITION_ATTRIBUTES


def is_module_doc(node: Node) -> bool:
    """Is this Elixir's `@moduledoc` (the module's docstring, no field of its outline)?"""
    found = _attribute(node)
    return found is not None and found[0] == _MODULE_DOC


def elixir_doc(definition) -> str | None:
    """The `@moduledoc` of a module or the `@doc` above a function, as prose; "" for
    `@doc false`; None when there is none (the comments above are its doc then)."""
    if definition.kind in ("class", "interface"):
        body = next((child for child in definition.node.named_children if child.type == "do_block"), None)
        candidates = body.named_children if body is not None else []
        wanted = _MODULE_DOC
    else:
        candidates, wanted = definition.attributes, b"doc"
    for node in candidates:
        found = _attribute(node)
        if found is not None and found[0] == wanted:
            return _string_text(found[1])
    return None


def _string_text(value: Node | None) -> str:
    """A string's or sigil's content (`"..."`, `\"\"\"...\"\"\"`, `~S\"\"\"...\"\"\"`); "" for anything else."""
    if value is None or value.type not in ("string", "sigil"):
        return ""
    parts = [decode(child.text) for child in value.named_children
             if child.type in ("quoted_content", "escape_sequence")]
    return inspect.cleandoc("".join(parts).replace("\r\n", "\n"))
