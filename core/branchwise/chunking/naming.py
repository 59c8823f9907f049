"""Names of definitions whose name node's text is not yet the name the index keys them by.

A query captures one `@name` node per definition; for most languages its text is the name.
These languages need a word more: C++ writes its scopes into the name (`void detail::foo()`
-> `detail.foo`, `buffer<T>::append` -> `buffer.append`), Kotlin extension functions carry
their receiver (`fun String.foo()` -> `String.foo`), Swift extensions are named after the
type they extend (`extension Session` -> `extension Session`, its members `Session.x`), Ruby
has `self.` methods and DSL blocks (`get '/' do` -> `get '/'`), Lua writes `M:foo` for
`M.foo`; a Scala `def` of an anonymous class (`new Setup { def x }`) is no member of the type
around it. Issue 45: JavaScript's `res.send = function` is `res.send`, Elixir's `defimpl P,
for: T` is `P.T`, a Haskell instance names its methods after its type, a Zig test block is
`test "name"`, a long shell function's subcommand arm is `nvm.install`. Each namer edits the
definition in place and returns False to drop it. A C# partial type's part outside the file
named after it is `partial X` (csharp_partial_parts).
"""

from __future__ import annotations

import re
from typing import Protocol

from tree_sitter import Node

from branchwise.chunking.embedding_text import MAX_CHARS


class Definition(Protocol):
    """What a namer reads and sets of symbols.Definition (not imported: symbols imports the
    grammars, which import the namers)."""

    kind: str
    node: Node
    name: str
    qualifier: str
    receiver: str

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
    """Extensions are named `extension T`; an operator function (`static func ==`) is no symbol
    of its own (it stays in its type's chunk)."""
    named = definition.node.child_by_field_name("name") if "named" in captures else None
    if named is not None and named.type != "simple_identifier":
        return False
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


_JS_OBJECT = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")


def javascript(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    """`res.send = function send() {...}` is the method `res.send` (its receiver `res`), as a
    class's method is `Class.method`: `Foo.prototype.bar = ...` is `Foo.bar`, and
    `module.exports.foo` is `exports.foo` (one object, two spellings). An object that is no
    plain dotted name (`obj[key].f = ...`, `this.f = ...`) makes no symbol."""
    objects = captures.get("name.object")
    if not objects:
        return True
    receiver = _SPACES.sub("", _text(objects[0]))
    if not _JS_OBJECT.match(receiver) or receiver.split(".", 1)[0] in ("this", "super"):
        return False
    receiver = receiver.removesuffix(".prototype")
    if receiver == "module.exports" or receiver.startswith("module.exports."):
        receiver = receiver.removeprefix("module.")
    definition.receiver = receiver
    return True


#: a subcommand a shell `case` dispatches on: a literal word, quoted or not (`install`, `"ls-remote"`)
_SUBCOMMAND = re.compile(r"""^(["']?)([A-Za-z][\w-]*)\1$""")


def bash(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    """An arm of the `case` a function dispatches with (nvm's `nvm install`, `nvm uninstall`)
    is the subcommand it names, `nvm.install`, when the function is longer than the model
    reads (embedding_text.MAX_CHARS): the model sees such a function's first lines only, so
    its later subcommands would be found by no vector. A function dispatches when the `case`
    is most of it; a `case` that sets a value on the way (`x86_64 | amd64) ARCH=x64 ;;`) is
    its code, a shorter function is read whole, and an arm that matches a pattern (`*`, `-*`,
    `$x`) names no subcommand."""
    node = definition.node
    if node.type != "case_item":
        return True
    case = node.parent
    function = case.parent.parent if case is not None and case.parent is not None else None
    if function is None:
        return False
    length = function.end_byte - function.start_byte
    if length <= MAX_CHARS or 2 * (case.end_byte - case.start_byte) <= length:
        return False
    word = _SUBCOMMAND.match(_text(captures["name"][0]))
    if word is None:
        return False
    definition.name = word.group(2)
    return True


_ELIXIR_DSL_BLOCKS = frozenset({"describe", "test"})


def elixir(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    """`defimpl Proto, for: Type` is the module Elixir makes of it, `Proto.Type`; an ExUnit
    block is named by its call and its description (`test "adds an item"`), as Ruby's are."""
    node = definition.node
    keyword = _text(node.child_by_field_name("target")) if node.child_by_field_name("target") else ""
    if keyword == "defimpl":
        target = _elixir_for(node)
        if target:
            definition.name = f"{definition.name}.{target}"
    elif keyword in _ELIXIR_DSL_BLOCKS:
        argument = captures.get("name.argument")
        definition.name = f"{keyword} {_SPACES.sub(' ', _text(argument[0]))}" if argument else keyword
    return True


def _elixir_for(node: Node) -> str:
    """The type of `defimpl Proto, for: Type` (a list of types names none)."""
    arguments = next((child for child in node.named_children if child.type == "arguments"), None)
    for keywords in (child for child in (arguments.named_children if arguments else []) if child.type == "keywords"):
        for pair in keywords.named_children:
            key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            if key is not None and _text(key).strip() == "for:" and value is not None and value.type == "alias":
                return _text(value)
    return ""


_HASKELL_SCOPES = frozenset({"declarations", "class_declarations", "instance_declarations"})
#: Haskell's names of the types written with brackets
_HASKELL_BRACKET_TYPES = {"list": "[]", "unit": "()", "function": "(->)"}


def haskell(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    """An operator is named without its parentheses or backticks (`(.=)`, `` `elem` `` ->
    `.=`, `elem`). `instance ToJSON (Maybe a)` is named as written after its context; its
    methods are named after the instance's type as Rust's `impl` methods are (`Maybe.toJSON`),
    a tuple, list or function type by Haskell's own name for it (`(,)`, `[]`, `(->)`), an
    infix type by its operator (`(f :*: g)` -> `(:*:)`)."""
    if definition.kind != "instance":
        if definition.node.parent is None or definition.node.parent.type not in _HASKELL_SCOPES:
            return False  # a function local to another (`where`, `let`) is its code
        definition.name = definition.name.strip("`()") or definition.name
        return True
    node = definition.node
    patterns = node.child_by_field_name("patterns")
    if patterns is None or not patterns.named_children:
        return False
    definition.name = _SPACES.sub(" ", f"instance {_text(captures['name'][0])} {_text(patterns)}")
    definition.qualifier = _haskell_type_head(patterns.named_children[-1])
    return True


def _haskell_type_head(node: Node) -> str:
    while node.type == "parens" and node.named_children:
        node = node.named_children[0]
    if node.type == "tuple":
        return "(" + "," * max(len(node.named_children) - 1, 1) + ")"
    if node.type in _HASKELL_BRACKET_TYPES:
        return _HASKELL_BRACKET_TYPES[node.type]
    operator = node.child_by_field_name("operator") if node.type == "infix" else None
    if operator is not None:  # `(f :.: g)`
        return f"({_text(operator).strip('`')})"
    head = _text(node).split()[0] if _text(node).split() else _text(node)
    return head.rsplit(".", 1)[-1] if not head.startswith("(") else head


def zig(definition: Definition, captures: dict[str, list[Node]]) -> bool:
    """A test block is named by its description or the declaration it tests: `test "parses
    flags"`, `test Parser`, `test` alone."""
    node = definition.node
    if node.type == "test_declaration":
        named = next((child for child in node.named_children if child.type in ("string", "identifier")), None)
        definition.name = f"test {_SPACES.sub(' ', _text(named))}" if named is not None else "test"
    return True


def csharp_partial_parts(definitions: list, path: str) -> None:
    """A C# `partial` type split over several files is one type in many parts, and a part looks
    like the whole (same name, same `partial class X` head). The part in the file named after
    the type (`JsonWriter.cs`) keeps the type's name; a part elsewhere (`JsonWriter.Async.cs`,
    `MessagePackSerializer+Typeless.cs`) is named `partial X`, as a Swift extension is
    `extension X`, so that a question naming the type is answered by its declaration and not
    by each of its parts; its members keep their names (`X.WriteAsync`). Top-level types only
    (each `definitions` item a symbols.Definition, resolved)."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    for definition in definitions:
        if definition.scope is None and definition.symbol_type in ("class", "struct", "interface") \
                and definition.qualified_name != stem and _has_modifier(definition.node, b"partial"):
            definition.qualified_name = f"partial {definition.qualified_name}"


def _has_modifier(node: Node, word: bytes) -> bool:
    return any(child.type == "modifier" and child.text == word for child in node.children)
