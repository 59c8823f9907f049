"""Qualified names, symbol types and parents per language."""

from __future__ import annotations

from branchwise.chunking import chunk_file


def names(path: str, source: str) -> dict[str, tuple[str, str | None]]:
    """qualified_name -> (symbol_type, parent qualified name)."""
    result = chunk_file("repo", path, source.encode())
    return {
        c.identity.qualified_name: (
            c.identity.symbol_type, c.parent.qualified_name if c.parent else None
        )
        for c in result.chunks
    }


def test_python_nested_classes_methods_and_functions():
    found = names("a.py", (
        "class Outer:\n"
        "    class Inner:\n"
        "        def method(self):\n"
        "            pass\n"
        "def outer():\n"
        "    def inner():\n"
        "        pass\n"
        "    return inner\n"
    ))
    assert found["Outer.Inner.method"] == ("method", "Outer.Inner")
    assert found["Outer.Inner"] == ("class", "Outer")
    assert found["outer.inner"] == ("function", "outer")
    assert found["outer"] == ("function", None)


def test_python_constants_and_type_aliases_at_module_level_only():
    found = names("a.py", "LIMIT = 3\nlimit = 4\ntype Id = int\ndef f():\n    X = 1\n")
    assert found["LIMIT"] == ("constant", None)
    assert found["Id"] == ("type", None)
    assert "limit" not in found and "f.X" not in found


def test_rust_impl_methods_are_named_after_the_type():
    found = names("c.rs", (
        "pub struct Config { a: u32 }\n"
        "impl Config {\n    pub fn optimizer_thresholds(&self) -> u32 { self.a }\n}\n"
        "impl Default for Config {\n    fn default() -> Self { Config { a: 1 } }\n}\n"
        "impl<T> From<T> for Holder<T> {\n    fn from(t: T) -> Self { Holder(t) }\n}\n"
    ))
    assert found["Config.optimizer_thresholds"] == ("method", "Config")
    assert found["Config.default"] == ("method", "Config")
    assert found["Holder.from"] == ("method", "Holder")


def test_rust_impl_parent_is_the_struct_identity_or_a_synthesized_one():
    result = chunk_file("repo", "c.rs", (
        b"pub struct Config;\nimpl Config { fn a(&self) {} }\nimpl Other { fn b(&self) {} }\n"
    ))
    by_name = {c.identity.qualified_name: c for c in result.chunks}
    assert by_name["Config.a"].parent == by_name["Config"].identity
    assert by_name["Other.b"].parent.symbol_type == "struct"
    assert by_name["Other.b"].parent.qualified_name == "Other"


def test_go_receiver_methods():
    found = names("r.go", (
        "package r\n\ntype Repo struct{}\n\n"
        "func (r *Repo) Save() error { return nil }\n"
        "func (r Repo) Name() string { return \"\" }\n"
        "func (l List[T]) Len() int { return 0 }\n"
    ))
    assert found["Repo.Save"] == ("method", "Repo")
    assert found["Repo.Name"] == ("method", "Repo")
    assert found["List.Len"] == ("method", "List")


def test_java_nested_types_and_anonymous_classes():
    found = names("A.java", (
        "class Outer {\n  static class Inner {\n    void method() {}\n  }\n"
        "  void run() {\n    Runnable r = new Runnable() { public void run() {} };\n  }\n}\n"
    ))
    assert found["Outer.Inner.method"] == ("method", "Outer.Inner")
    assert found["Outer.run"] == ("method", "Outer")
    assert "Outer.run.run" not in found


def test_typescript_namespaces_qualify_names_and_tsx_reports_typescript():
    result = chunk_file("repo", "a.tsx", b"namespace Ns {\n  export function f() { return <b/>; }\n}\n")
    (chunk,) = result.chunks
    assert chunk.identity.qualified_name == "Ns.f"
    assert chunk.identity.language == "typescript"


def test_javascript_object_literal_methods_stay_inside_their_function():
    found = names("a.js", "function make() {\n  return { get() { return 1; } };\n}\n")
    assert list(found) == ["make"]


def test_repeated_names_get_numbered():
    found = names("a.py", (
        "class C:\n    @property\n    def x(self):\n        return 1\n"
        "    @x.setter\n    def x(self, v):\n        pass\n"
    ))
    assert found["C.x"] == ("method", "C")
    assert found["C.x#2"] == ("method", "C")


def test_python_module_level_objects_are_constants_plain_values_and_dunders_are_not():
    found = names("globals.py", (
        '__all__ = ["request"]\nretries = 3\nname = "shop"\nalias = request\n'
        "request: Request = LocalProxy(_cv_request, 'request')\n"
        "REGISTRY = {}\nhandlers = [a, b]\nzones = {'eu'}\npair = (1, 2)\nsquares = [n * n for n in range(3)]\n"
        "def f():\n    local = dict()\n"
    ))
    assert {n for n, (kind, _) in found.items() if kind == "constant"} == {
        "request", "REGISTRY", "handlers", "zones", "pair", "squares"}
    assert "f.local" not in found and found["globals"] == ("module", None)


def test_javascript_functions_assigned_to_an_object_are_its_methods():
    found = names("lib/response.js", (
        "var res = Object.create(http.ServerResponse.prototype);\n"
        "res.send = function send(body) {\n  return this;\n};\n"
        "res.set =\nres.header = function header(field, val) {\n  return this;\n};\n"
        "exports.json = (obj) => obj;\n"
        "module.exports.jsonp = function () {};\n"
        "Router.prototype.route = function route(path) {};\n"
        "handlers[name] = function () {};\n"
        "this.skip = function () {};\n"
        "function later() {\n  res.inner = function () {};\n}\n"
    ))
    assert {n: v for n, v in found.items() if v[0] == "method"} == {
        "res.send": ("method", None), "res.header": ("method", None), "exports.json": ("method", None),
        "exports.jsonp": ("method", None), "Router.route": ("method", None)}
    assert found["later"] == ("function", None)  # an assignment inside a function is its code


def test_a_function_a_call_installs_on_an_object_under_a_name_is_its_method():
    """express defines `req.ip`, `req.fresh` and their kin as `defineGetter(req, 'ip', function ...)`."""
    found = names("lib/request.js", (
        "defineGetter(req, 'ip', function ip() {\n  return this.socket.remoteAddress;\n});\n"
        "defineGetter(req, 'fresh', function () {\n  return true;\n});\n"
        "install(res, 'json', (body) => body);\n"
        "app.get('/users', function (req, res) {});\n"
        "defineGetter(req, 'trust proxy', function () {});\n"
        "function later() {\n  defineGetter(req, 'inner', function () {});\n}\n"
    ))
    assert {n: v for n, v in found.items() if v[0] == "method"} == {
        "req.ip": ("method", None), "req.fresh": ("method", None), "res.json": ("method", None)}


def test_a_prototype_method_of_a_class_in_the_file_is_its_member():
    found = names("a.ts", "class Cart {\n  add() {}\n}\nCart.prototype.clear = function (): void {};\n")
    assert found["Cart.clear"] == ("method", "Cart")


def test_elixir_clauses_of_one_function_are_one_chunk_with_the_first_doc():
    source = (b"defmodule Plug.Conn do\n"
              b"  @doc \"Fetches a header.\"\n"
              b"  def get(conn, key, default \\\\ nil)\n"
              b"  def get(%{headers: h}, key, default), do: Map.get(h, key, default)\n"
              b"\n"
              b"  @impl true\n"
              b"  def get(conn), do: conn\n"
              b"  def other(x), do: x\n"
              b"  def get(x, y), do: y\n"
              b"end\n")
    chunks = {c.identity.qualified_name: c for c in chunk_file("r", "lib/conn.ex", source).chunks}
    first = chunks["Plug.Conn.get"]
    assert (first.start_line, first.end_line, first.docstring) == (2, 7, "Fetches a header.")
    assert first.signature == "def get(conn, key, default \\\\ nil)"
    assert chunks["Plug.Conn.get#2"].start_line == 9  # not next to the others: another chunk
    assert "@doc" not in chunks["Plug.Conn"].embedding_text  # an attribute of a member is no field


def test_haskell_signature_and_equations_are_one_chunk():
    source = (b"module M where\n\n-- | Counts.\ncount\n  :: [a]\n  -> Int\ncount [] = 0\n"
              b"count (_:xs) = 1 + count xs\n{-# INLINE count #-}\n")
    result = chunk_file("r", "src/M.hs", source)
    [chunk] = [c for c in result.chunks if c.identity.symbol_type == "function"]
    assert (chunk.identity.qualified_name, chunk.start_line, chunk.end_line) == ("count", 3, 8)
    assert chunk.signature == "count\n  :: [a]\n  -> Int"
    assert chunk.docstring == "Counts."
    assert [c.end_line for c in result.chunks if c.identity.symbol_type == "module"] == [1]  # the pragma is no code


def test_exunit_blocks_are_named_by_their_description():
    found = names("test/cart_test.exs", (
        'defmodule CartTest do\n  use ExUnit.Case\n  describe "add/3" do\n    test "adds a line", %{cart: cart} do\n'
        "      assert cart\n    end\n  end\n  test \"price\" do\n    :ok\n  end\nend\n"
    ))
    assert found['CartTest.describe "add/3"'] == ("method", "CartTest")
    assert found['CartTest.describe "add/3".test "adds a line"'] == ("function", 'CartTest.describe "add/3"')
    assert found['CartTest.test "price"'] == ("method", "CartTest")
