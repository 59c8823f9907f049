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
