"""Rust macros that document what they generate.

A crate may keep a macro's documentation inside a helper macro that wraps it:

    macro_rules! doc {
        ($select:item) => {
            /// Waits on multiple concurrent branches, returning when the first completes ...
            #[macro_export]
            $select
        };
    }
    doc! { macro_rules! select { ... } }

tokio documents `select!`, `join!` and `try_join!` this way. The helper has no doc comment of
its own, so its description was its name ("doc") and a question in words never reached the
file. A `macro_rules!` without doc comments above it takes the first run of `///` lines in its
rules as its docstring: they describe what the macro emits.
"""

from __future__ import annotations

from tree_sitter import Node

from branchwise.chunking.comments import clean_comments
from branchwise.chunking.lines import decode


def rust_macro_doc(definition) -> str | None:
    """The first run of `///` comments inside a `macro_rules!` with none above it, as prose;
    None for anything else (its comments above are its doc then)."""
    if definition.doc_comments or definition.node.type != "macro_definition":
        return None
    for rule in definition.node.named_children:
        if rule.type != "macro_rule":
            continue
        for tree in rule.named_children:
            run = _first_doc_run(tree) if tree.type == "token_tree" else []
            if run:
                return clean_comments([decode(node.text) for node in run])
    return None


def _first_doc_run(tree: Node) -> list[Node]:
    """The first consecutive `///` comments among a token tree's own children."""
    run: list[Node] = []
    for child in tree.children:
        if _is_outer_doc(child):
            run.append(child)
        elif run:
            break
    return run


def _is_outer_doc(node: Node) -> bool:
    return node.type == "line_comment" and any(child.type == "outer_doc_comment_marker" for child in node.children)
