"""What the embedding model sees for a chunk and for a path."""

from __future__ import annotations

from branchwise.chunking import chunk_file, path_embedding_text
from branchwise.chunking.embedding_text import MAX_CHARS, split_words
from branchwise.embedding.described import split_described


def test_split_words_and_path_text():
    assert split_words("OrderService.cancel_order") == "order service cancel order"
    assert split_words("HTTPServer.parseURL2") == "http server parse url 2"
    assert path_embedding_text("src/orders/services/order_service.py") == \
        "src orders services order service py"


def test_method_text_has_header_parent_signature_doc_body_and_no_path():
    source = (
        b"class OrderService:\n"
        b"    def cancel_order(self, order_id):\n"
        b'        """Cancel an open order."""\n'
        b"        return self.repo.cancel(order_id)\n"
    )
    chunks = {c.identity.qualified_name: c for c in chunk_file("r", "src/svc/orders.py", source).chunks}
    text = chunks["OrderService.cancel_order"].embedding_text
    assert text.splitlines()[:5] == [
        "method OrderService.cancel_order",
        "order service cancel order",
        "in OrderService",
        "def cancel_order(self, order_id):",
        "Cancel an open order.",
    ]
    assert "return self.repo.cancel(order_id)" in text
    assert "src/svc" not in text and "orders.py" not in text


def test_class_text_is_an_outline_without_bodies():
    source = (
        b"class Cart:\n"
        b'    """A cart."""\n'
        b"    items: list\n"
        b"    def add(self, item):\n"
        b"        self.items.append(item)\n"
    )
    chunks = {c.identity.qualified_name: c for c in chunk_file("r", "cart.py", source).chunks}
    cart = chunks["Cart"]
    assert cart.text == source.decode().rstrip("\n")
    passage, description = split_described(cart.embedding_text)
    assert passage.splitlines() == [
        "class Cart", "cart", "class Cart:", "A cart.", "items: list", "def add(self, item):",
    ]
    assert description == "A cart."


def test_rust_struct_outline_lists_impl_methods():
    source = b"struct Config { rounds: u32 }\nimpl Config {\n    fn optimizer_thresholds(&self) {}\n}\n"
    chunks = {c.identity.qualified_name: c for c in chunk_file("r", "c.rs", source).chunks}
    assert "fn optimizer_thresholds(&self)" in chunks["Config"].embedding_text
    assert "rounds: u32" in chunks["Config"].embedding_text


def test_long_bodies_are_truncated():
    body = "".join(f"    x{i} = compute_something_long({i})\n" for i in range(400))
    source = f"def big():\n{body}".encode()
    (chunk,) = chunk_file("r", "big.py", source).chunks
    assert len(chunk.embedding_text) <= MAX_CHARS
    assert chunk.embedding_text.startswith("function big\nbig\ndef big():")
    assert chunk.text.count("\n") == 400


def test_module_text_outlines_the_definitions_of_its_file():
    """A module chunk stands for its file: the model reads what the file defines (the first
    line of each top-level signature) before its includes and module-level code."""
    source = (
        b'#include "urldata.h"\n'
        b"#define POOL_SIZE 16\n"
        b"static int pool[POOL_SIZE];\n"
        b"CURLcode Curl_conn_setup(struct Curl_easy *data,\n"
        b"                         int sockindex)\n"
        b"{\n  return pool[sockindex];\n}\n"
        b"struct cf_setup_ctx { int state; };\n"
    )
    chunks = {c.identity.symbol_type: c for c in chunk_file("r", "lib/connect.c", source).chunks}
    passage, _description = split_described(chunks["module"].embedding_text)
    lines = passage.splitlines()
    assert lines[:2] == ["module connect", "connect"]
    outline = lines[2:4]
    assert outline[0].startswith("CURLcode Curl_conn_setup(")
    assert "int sockindex" not in outline[0]
    assert outline[1].startswith("struct cf_setup_ctx")
    assert lines.index('#include "urldata.h"') > 3
    assert "static int pool[POOL_SIZE];" in lines
