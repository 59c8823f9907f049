r"""Rust macro calls that wrap whole items, opened before parsing so the grammar sees the items.

Crates gate parts of their API behind their own macros:

    cfg_io_util! {
        pub trait AsyncReadExt: AsyncRead {
            fn read<'a>(&'a mut self, buf: &'a mut [u8]) -> Read<'a, Self> ...
        }
    }

Tree-sitter keeps a macro call's body as an unparsed token tree, so every item inside it was
lost to the file's module chunk: tokio's `AsyncReadExt` and `AsyncWriteExt` (all of their
files), its runtime `Builder`'s methods, `LocalSet`. The parse therefore runs over a copy in
which such a call's `name! {` and its closing `}` are spaces: byte offsets and lines are
unchanged, and every chunk's text is still cut from the file's own bytes. A call is opened
only where it stands as an item (at the top of a file, in a `mod` or in another opened call),
its body is in braces, and that body parses cleanly on its own as items, one of them a
definition (`thread_local!` and `lazy_static!` hold one: their `static X` becomes a constant).
Serde's `forward_to_deserialize_any! { bool u8 ... }` holds no such thing and is left alone.
"""

from __future__ import annotations

import re
import threading

import tree_sitter
import tree_sitter_rust

#: Items that show a body is Rust code, not a macro's own little language.
_ITEMS = frozenset(
    {"function_item", "function_signature_item", "struct_item", "enum_item", "union_item", "trait_item",
     "impl_item", "mod_item", "type_item", "const_item", "static_item", "macro_definition",
     "use_declaration", "macro_invocation", "attribute_item", "line_comment", "block_comment"}
)
_DEFINITIONS = _ITEMS - {"use_declaration", "macro_invocation", "attribute_item", "line_comment", "block_comment"}
#: Items whose body holds more items (a call inside an `impl` wraps methods).
_ITEM_HOLDERS = frozenset({"mod_item", "impl_item", "trait_item"})
#: a macro call with a braced body somewhere in the file: without one there is nothing to open
_BRACED_CALL = re.compile(rb"\w!\s*\{")
#: Nested calls are opened one level per pass; deeper than this is left as it is.
_PASSES = 3

_local = threading.local()


def _parser() -> tree_sitter.Parser:
    if not hasattr(_local, "parser"):
        _local.parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_rust.language()))
    return _local.parser


def _items_inside(body: bytes, parser: tree_sitter.Parser) -> list[tuple[str, tree_sitter.Node]] | None:
    """The items of `body` (a call's braces' inside) as (kind, node), when it parses cleanly as
    items, one of them a definition; else None."""
    root = parser.parse(body).root_node
    if root.has_error:
        return None
    items = [(child.type, child) for child in root.named_children]
    if all(kind in _ITEMS for kind, _ in items) and any(kind in _DEFINITIONS for kind, _ in items):
        return items
    return None


def _calls_inside(items: list[tuple[str, tree_sitter.Node]]) -> bool:
    """Whether an opened body holds a call that may wrap items in turn (another pass opens it)."""
    return any(kind == "macro_invocation" or (kind in _ITEM_HOLDERS and b"!" in (node.text or b""))
               for kind, node in items)


def _item_calls(root: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Macro calls standing as items: children of the file, of an inline module or of an impl."""
    calls, parents = [], [root]
    while parents:
        parent = parents.pop()
        for child in parent.named_children:
            if child.type == "macro_invocation":
                calls.append(child)
            elif child.type in _ITEM_HOLDERS and (body := child.child_by_field_name("body")) is not None:
                parents.append(body)
    return calls


def open_item_macros(data: bytes) -> bytes:
    """`data` with each item-wrapping macro call's `name! {` and `}` replaced by spaces."""
    return _opened(data, _parser())[0]


def read_opening_item_macros(parser: tree_sitter.Parser, data: bytes) -> tree_sitter.Tree:
    """The tree of `data` with its item-wrapping macro calls opened. Finding them takes a parse
    of the file; where it finds none to open (serde's `quote! {...}` inside functions), that
    parse is the tree, so the file is not parsed a second time."""
    opened, tree = _opened(data, parser)
    return tree if tree is not None else parser.parse(opened)


def _opened(data: bytes, parser: tree_sitter.Parser) -> tuple[bytes, tree_sitter.Tree | None]:
    """`open_item_macros`'s bytes, and the tree of `data` when they are `data` unchanged and a
    tree of it was made (None otherwise)."""
    if not _BRACED_CALL.search(data):
        return data, None
    out = bytearray(data)
    first = None
    for _ in range(_PASSES):
        nested = False
        tree = parser.parse(bytes(out))
        if first is None:
            first = tree
        for call in _item_calls(tree.root_node):
            body = call.named_children[-1] if call.named_children else None
            if body is None or body.type != "token_tree" or out[body.start_byte:body.start_byte + 1] != b"{":
                continue
            items = _items_inside(bytes(out[body.start_byte + 1:body.end_byte - 1]), parser)
            if out[body.end_byte - 1:body.end_byte] != b"}" or items is None:
                continue
            out[call.start_byte:body.start_byte + 1] = _spaces(out[call.start_byte:body.start_byte + 1])
            out[body.end_byte - 1:body.end_byte] = b" "
            if call.end_byte < len(out) and out[call.end_byte:call.end_byte + 1] == b";":
                out[call.end_byte:call.end_byte + 1] = b" "
            nested = nested or _calls_inside(items)
        if not nested:
            break
    assert len(out) == len(data)
    return (data, first) if out == data else (bytes(out), None)


def _spaces(text: bytes | bytearray) -> bytes:
    return bytes(b if b in b"\r\n" else 0x20 for b in text)
