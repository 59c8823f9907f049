"""How the chunker treats what the languages of issues 33 and 45 do around their units:
macros and conditionals masked without moving a byte, path classes of each ecosystem,
imports that bind names, language filters, and the comments that stay with a symbol.
The units themselves: test_chunking_languages.py.
"""

from __future__ import annotations

import re

import pytest

from branchwise.chunking import ChunkingRules, chunk_file, classify_path
from branchwise.chunking.conditionals import resolve_split_conditionals
from branchwise.chunking.grammars import parse
from branchwise.chunking.imports import bound_names
from branchwise.chunking.languages import language_for_path
from branchwise.chunking.macros import mask_cpp_macros, mask_macros
from branchwise.chunking.vocabulary import languages, symbol_types
from branchwise.models import PathClass

from chunking_support import units


@pytest.mark.parametrize("mask", [mask_macros, mask_cpp_macros])
def test_masked_macros_keep_every_offset_and_every_other_byte(mask):
    data = (b"FMT_BEGIN_NAMESPACE\nFMT_EXPORT template <typename T> class FMT_API buffer {\n"
            b"  FMT_CONSTEXPR buffer(int n) {}\n};\n#define FMT_API __attribute__((visibility(\"default\")))\n"
            b"CJSON_PUBLIC(int) f(void);\ntypedef UNITY_FLOAT_TYPE UNITY_FLOAT;\nFMT_END_NAMESPACE\r\n")
    masked = mask(data)
    assert len(masked) == len(data) and masked.count(b"\n") == data.count(b"\n")
    assert all(m == d or m == ord(" ") for m, d in zip(masked, data))
    assert b"FMT_BEGIN_NAMESPACE" not in masked and b"FMT_EXPORT" not in masked
    assert b"#define FMT_API" in masked and b"CJSON_PUBLIC(int)" in masked and b"UNITY_FLOAT_TYPE" in masked
    assert (b"FMT_CONSTEXPR" in masked) == (mask is mask_macros)  # a C return type, a C++ attribute


def test_chunk_text_is_the_file_own_bytes_when_macros_were_masked():
    data = b"FMT_BEGIN_NAMESPACE\nFMT_API void report(int code) {\n  (void)code;\n}\nFMT_END_NAMESPACE\n"
    [chunk] = [c for c in chunk_file("r", "src/os.cc", data).chunks if c.identity.symbol_type == "function"]
    assert chunk.text == "FMT_API void report(int code) {\n  (void)code;\n}"
    assert chunk.signature == "void report(int code)"  # an attribute macro, like a decorator, is not in it


#: a conditional inside a class head (fmt 10's `dynamic_format_arg_store`), one between a
#: template header and its function (fmt's `reserve`), two headers of one method (Serilog)
_SPLIT_CPP = b"""\
namespace detail {
template <typename T> class holder
#if FMT_GCC_VERSION && FMT_GCC_VERSION < 409
    : public base<T>
#endif
{
 public:
  void push_back(const T& arg) { data_ = arg; }
  T data_;
};

template <typename OutputIt,
          FMT_ENABLE_IF(is_back_insert_iterator<OutputIt>::value)>
#if FMT_CLANG_VERSION >= 307
__attribute__((no_sanitize("undefined")))
#endif
inline auto reserve(OutputIt it, size_t n) -> OutputIt {
  return it;
}

#ifdef _WIN32
void path_of(int fd) { (void)fd; }
#else
void path_of(int fd) { (void)fd; }
#endif
}  // namespace detail
"""
_SPLIT_CSHARP = b"""\
namespace Serilog;

interface ILogger
{
    /// <summary>Write an event.</summary>
    void Write(string messageTemplate)
#if FEATURE_DEFAULT_INTERFACE
    {
        Write(messageTemplate, null);
    }
#else
        ;
#endif

#if FEATURE_SPAN
    string[] Bind(ReadOnlySpan<object?> values)
#else
    string[] Bind(object?[] values)
#endif
    {
        return new string[0];
    }
}
"""


@pytest.mark.parametrize(("path", "data", "expected"), [
    ("include/fmt/args.h", _SPLIT_CPP, {
        ("class", "detail.holder", None), ("method", "detail.holder.push_back", "detail.holder"),
        ("function", "detail.reserve", None), ("function", "detail.path_of", None),
        ("function", "detail.path_of#2", None)}),
    ("src/Serilog/ILogger.cs", _SPLIT_CSHARP, {
        ("interface", "ILogger", None), ("method", "ILogger.Write", "ILogger"), ("method", "ILogger.Bind", "ILogger")}),
], ids=["cpp", "csharp"])
def test_a_conditional_that_splits_a_declaration_keeps_the_definitions_around_it(path, data, expected):
    # before conditionals.py, tree-sitter wrapped these in ERROR nodes: the class, `reserve`
    # and the C# interface were no chunks, and the names lost their scope
    assert units(path, data.decode()) == expected
    # a conditional between whole definitions is the grammar's: both `path_of` are kept


def test_a_resolved_conditional_keeps_every_offset_and_the_first_branch():
    resolved = resolve_split_conditionals(_SPLIT_CSHARP)
    assert len(resolved) == len(_SPLIT_CSHARP) and resolved.count(b"\n") == _SPLIT_CSHARP.count(b"\n")
    assert all(r == d or r in b" /" for r, d in zip(resolved, _SPLIT_CSHARP))
    assert b"#if" not in resolved and b"#else" not in resolved and b"object?[] values" not in resolved
    assert b"ReadOnlySpan<object?> values" in resolved and b"Write(messageTemplate, null);" in resolved
    between = b"int a;\n#ifdef _WIN32\nvoid f(void) {}\n#else\nvoid f(void) {}\n#endif\n"
    assert resolve_split_conditionals(between) == between
    chunks = {c.identity.qualified_name: c for c in chunk_file("r", "src/ILogger.cs", _SPLIT_CSHARP).chunks}
    assert "#if FEATURE_DEFAULT_INTERFACE" in chunks["ILogger.Write"].text  # cut from the file's own bytes
    assert "#else\n        ;\n#endif" in chunks["ILogger"].text  # the branch not read is still in its type


@pytest.mark.parametrize(("path", "expected", "reason"), [
    ("spec/routes_spec.rb", PathClass.TEST, "test: path matches spec/"),
    ("lib/routes_spec.rb", PathClass.TEST, "test: path matches *_spec.rb"),
    ("okio/src/jvmTest/kotlin/okio/BufferTest.kt", PathClass.TEST, "test: path matches *Test/*"),
    ("app/BufferTest.kt", PathClass.TEST, "test: path matches *Test.kt"),
    ("Tests/SessionTests.swift", PathClass.TEST, "test: path matches Tests/"),
    ("Sources/SessionTests.swift", PathClass.TEST, "test: path matches *Tests.swift"),
    ("test/parse_hex4.c", PathClass.TEST, "test: path matches test/"),
    ("src/Model.g.cs", PathClass.GENERATED, "generated: path matches *.g.cs"),
    ("src/Form.designer.cs", PathClass.GENERATED, "generated: path matches *.designer.cs"),
    ("app/build/generated/source/R.kt", PathClass.GENERATED, "generated: path matches generated/"),
    ("Sources/Api.pb.swift", PathClass.GENERATED, "generated: path matches *.pb.swift"),
    ("Pods/Alamofire/Source/Session.swift", PathClass.VENDORED, "vendored: path matches Pods/"),
    ("vendor/bundle/rack.rb", PathClass.VENDORED, "vendored: path matches vendor/"),
    ("third_party/zlib/inflate.c", PathClass.VENDORED, "vendored: path matches third_party/"),
    ("tokio/src/fs/file/tests.rs", PathClass.TEST, "test: path matches tests.rs"),
    ("Source/Core/Session.swift", PathClass.SOURCE, ""),
    ("okio/src/commonMain/kotlin/okio/Buffer.kt", PathClass.SOURCE, ""),
])
def test_path_classes_of_each_ecosystem(path, expected, reason):
    assert classify_path(path, b"x = 1\n", ChunkingRules()) == (expected, reason)


@pytest.mark.parametrize(("statement", "language", "names"), [
    ('#include "cJSON.h"', "c", {"cJSON"}),
    ("#include <fmt/format.h>", "cpp", {"format"}),
    ("using System.Threading.Tasks;", "csharp", {"Tasks"}),
    ("using Json = Newtonsoft.Json;", "csharp", {"Json"}),
    ("require 'sinatra/base'", "ruby", {"base"}),
    ("use Slim\\Interfaces\\{RouteInterface, RouteGroupInterface as Group};", "php", {"RouteInterface", "Group"}),
    ("import okio.internal.commonWrite as write", "kotlin", {"write"}),
    ("import kotlin.jvm.JvmName", "kotlin", {"JvmName"}),
    ("import Foundation", "swift", {"Foundation"}),
    ("import scala.collection.{mutable, immutable => im}", "scala", {"mutable", "im"}),
    ('local json = require("json")', "lua", {"json"}),
    ("source ./nvm.sh", "bash", {"nvm"}),
    ("alias Plug.Conn.Status", "elixir", {"Status"}),
    ("alias Plug.Conn.Status, as: S", "elixir", {"S"}),
    ("alias Phoenix.{Router, Socket}", "elixir", {"Router", "Socket"}),
    ("use Phoenix.Controller", "elixir", {"Controller"}),
    ("import qualified Data.Map.Strict as M", "haskell", {"M"}),
    ("import Data.Aeson.Types (Value(..), (.=), ToJSON(toJSON))", "haskell", {"Value", ".=", "ToJSON", "toJSON"}),
    ("import Data.Text", "haskell", {"Text"}),
    ('const std = @import("std");', "zig", {"std"}),
])
def test_import_statements_bind_their_names(statement, language, names):
    assert bound_names(statement, language) == names


def test_imports_of_each_language_reach_the_chunks():
    cases = {"a.c": b'#include "cJSON.h"\nint f(void) { return 0; }\n',
             "A.cs": b"using System;\nclass A { void F() {} }\n",
             "a.rb": b"require 'json'\ndef f\nend\n",
             "a.php": b"<?php\nuse A\\B;\nfunction f() {}\n",
             "a.kt": b"import a.B\nfun f() {}\n",
             "a.swift": b"import Foundation\nfunc f() {}\n",
             "a.scala": b"import a.B\ndef f(): Unit = ()\n",
             "a.lua": b'local json = require("json")\nfunction f() end\n',
             "a.ex": b"defmodule A do\n  alias Plug.Conn\n  def f(conn), do: conn\nend\n",
             "a.hs": b"module A where\nimport Data.Text (Text)\nf :: Text\nf = mempty\n",
             "a.zig": b'const std = @import("std");\nfn f() void {}\n'}
    for path, source in cases.items():
        chunks = chunk_file("r", path, source).chunks
        assert chunks and all(len(c.imports) == 1 for c in chunks), path


def test_the_ten_languages_are_valid_language_filters():
    assert {"c", "cpp", "csharp", "ruby", "php", "kotlin", "swift", "scala", "bash", "lua"} <= set(languages())
    assert not {"c_header", "cpp_header", "c_sharp"} & set(languages())


def test_elixir_haskell_and_zig_are_grammar_languages_and_filters():
    assert {"elixir", "haskell", "zig"} <= set(languages())
    assert "instance" in symbol_types()
    for path, language in [("lib/plug.ex", "elixir"), ("test/plug_test.exs", "elixir"),
                           ("src/Data/Aeson.hs", "haskell"), ("clap.zig", "zig")]:
        assert language_for_path(path) == language
    assert language_for_path("docs/Tutorial.lhs") is None  # literate Haskell is prose around code


def test_symbol_names_carry_no_header_grammar_or_template_noise():
    result = chunk_file("r", "include/fmt/base.h", b"namespace fmt {\ntemplate <typename T>\nstruct formatter<std::basic_string<T>> {};\n}\n")
    names = [c.identity.qualified_name for c in result.chunks]
    assert names == ["fmt.formatter<std::basic_string<T>>"]
    assert all(not re.search(r"\s", name) for name in names)


def _docs(path: str, source: str) -> dict[str, tuple[int, str]]:
    return {c.identity.qualified_name: (c.start_line, c.docstring) for c in chunk_file("r", path, source.encode()).chunks}


def test_a_top_level_kotlin_function_keeps_its_annotation_and_kdoc():
    # tree-sitter reads `@JvmName("x")` alone above a top-level `fun` as an expression beside it
    # (okio's Okio.kt: after an expression-bodied function)
    source = ('package okio\n\nfun Sink.buffer(): BufferedSink = RealBufferedSink(this)\n\n'
              '/** Returns a sink that writes nowhere. */\n@JvmName("blackhole")\n'
              'fun blackholeSink(): Sink = BlackholeSink()\n')
    assert _docs("okio/Okio.kt", source)["blackholeSink"] == (5, "Returns a sink that writes nowhere.")


def test_a_ruby_method_defined_under_a_condition_keeps_its_comment():
    source = ("module Helpers\n  unless method_defined? :options\n    # Processes an OPTIONS request.\n"
              "    def options(uri)\n      uri\n    end\n  end\nend\n")
    assert _docs("lib/test_helpers.rb", source)["Helpers.options"] == (3, "Processes an OPTIONS request.")


def test_cpp_friend_functions_and_member_types_keep_their_comments():
    source = ("class bigint {\n  // Returns compare(lhs1 + lhs2, rhs).\n"
              "  friend auto add_compare(const bigint& a, const bigint& b) -> int { return 0; }\n"
              " private:\n  // A functor.\n  struct writer {\n    int n;\n  };\n};\n")
    docs = _docs("include/fmt/format.h", source)
    assert docs["bigint.add_compare"] == (2, "Returns compare(lhs1 + lhs2, rhs).")
    assert docs["bigint.writer"] == (5, "A functor.")


def test_a_macro_body_on_a_continuation_line_is_not_masked():
    # the body line looks like a macro alone on its line; masking it ended the #define early
    # and the next declaration lost its comment
    source = ("#define EXPECT_NOASSERT(statement, message) \\\n    EXPECT_SYSTEM_ERROR(SUPPRESS(statement), message)\n\n"
              "// Attempts to read count characters from a file.\nstd::string read(int f, size_t count);\n")
    docs = _docs("test/gtest-extra.h", source)
    assert docs["EXPECT_NOASSERT"][0] == 1
    assert docs["read"] == (4, "Attempts to read count characters from a file.")
    assert mask_cpp_macros(source.encode()) == source.encode()


#: issue 45: files with no symbol at all, one per language family (a re-export module, a Go
#: package doc, a Rust crate root of `mod` lines, a header of includes, a Ruby file of requires...)
_NO_SYMBOL_FILES = {
    "shop/websockets.py": b"from starlette.websockets import WebSocket as WebSocket  # noqa\n",
    "pkg/doc.go": b"// Package pkg sells things.\npackage pkg\n",
    "src/lib.rs": b"pub mod orders;\npub use orders::Order;\n",
    "include/all.h": b'#include "a.h"\n#include "b.h"\n',
    "lib/shop.rb": b'require "shop/order"\nrequire "shop/cart"\n',
    "Shop/Usings.cs": b"global using System;\nglobal using System.Linq;\n",
    "src/shop/Imports.kt": b"package shop\nimport shop.orders.Order\n",
    "src/index.js": b'export { Order } from "./order";\nexport * from "./cart";\n',
}


@pytest.mark.parametrize("path", sorted(_NO_SYMBOL_FILES))
def test_a_file_without_symbols_is_one_module_chunk_of_all_its_lines(path):
    data = _NO_SYMBOL_FILES[path]
    [chunk] = chunk_file("r", path, data).chunks
    assert chunk.identity.symbol_type == "module" and chunk.start_line == 1
    assert chunk.end_line == data.count(b"\n") and chunk.text == data.decode().rstrip("\n")
    assert data.decode().splitlines()[-1] in chunk.embedding_text  # its imports are its text
    assert chunk_file("r", path, b"\n\n").chunks == []  # a blank file is still nothing


def test_a_kotlin_constructor_below_its_class_header_keeps_every_offset_and_the_rest_of_the_file():
    from branchwise.chunking.constructors import join_split_constructors

    data = (b"class Result<out T>\r\n@PublishedApi internal constructor(val holder: Any?) {\n"
            b"    constructor(x: Int) : this(x as Any?)\n    @Inject constructor() : this(0)\n}\n"
            b"fun after() = 1\n")
    joined = join_split_constructors(data)
    assert len(joined) == len(data) and joined.count(b"\n") == data.count(b"\n") - 1
    assert b"Result<out T>  @PublishedApi internal constructor(" in joined
    assert b"\n    @Inject constructor()" in joined  # a secondary constructor stays where it is
    names = {c.identity.qualified_name for c in chunk_file("r", "Result.kt", data).chunks}
    assert {"Result", "Result.constructor", "after"} <= names


def test_a_csharp_partial_type_is_named_by_its_file_and_its_other_parts_are_partial():
    part = b"public partial class Writer\n{\n    public void Flush() { }\n}\n"
    main = {c.identity.qualified_name for c in chunk_file("r", "src/Writer.cs", part).chunks}
    other = {c.identity.qualified_name: c for c in chunk_file("r", "src/Writer.Async.cs", part).chunks}
    assert main == {"Writer", "Writer.Flush"}
    assert set(other) == {"partial Writer", "Writer.Flush"}
    assert other["Writer.Flush"].parent == other["partial Writer"].identity
    plain = {c.identity.qualified_name for c in chunk_file("r", "src/Other.cs", part.replace(b"partial ", b"")).chunks}
    assert plain == {"Writer", "Writer.Flush"}  # only a partial type is a part


def test_swift_functions_are_named_by_their_name_field_and_operators_stay_in_their_type():
    """swift.scm takes a function's name from its `name` field (`@named`: a field pattern cost
    tree-sitter a quarter of a second to compile); an operator function is no symbol of its own."""
    source = (b"struct Token: Equatable {\n    let id: Int\n\n    func renamed(to id: Int) -> Token {\n"
              b"        Token(id: id)\n    }\n\n    static func ==(lhs: Token, rhs: Token) -> Bool {\n"
              b"        lhs.id == rhs.id\n    }\n}\n\nfunc makeToken() -> Token {\n    Token(id: 1)\n}\n")
    chunks = chunk_file("r", "Sources/Token.swift", source).chunks
    names = {(c.identity.symbol_type, c.identity.qualified_name) for c in chunks}
    assert names == {("struct", "Token"), ("method", "Token.renamed"), ("function", "makeToken")}
    assert "static func ==" in next(c.text for c in chunks if c.identity.qualified_name == "Token")


def test_rust_items_inside_a_macro_call_that_wraps_them_are_symbols_and_keep_every_offset():
    from branchwise.chunking.item_macros import open_item_macros

    data = (b"cfg_rt! {\n    /// Spawns a task.\n    pub fn spawn() {}\n\n    impl Handle {\n"
            b"        cfg_metrics! {\n            pub fn metrics(&self) -> u64 { 0 }\n        }\n    }\n}\n"
            b"lazy_static! {\n    static ref TABLE: Vec<u8> = Vec::new();\n}\n"
            b"forward_to_deserialize_any! {\n    bool u8 u16 string\n}\n")
    opened = open_item_macros(data)
    assert len(opened) == len(data) and opened.count(b"\n") == data.count(b"\n")
    assert all(o == d or o == ord(" ") for o, d in zip(opened, data))
    assert b"cfg_rt!" not in opened and b"cfg_metrics!" not in opened  # nested: a second pass
    assert b"lazy_static!" not in opened  # a global: the grammar reads `static ref`
    assert b"forward_to_deserialize_any! {" in opened  # no items inside
    chunks = {c.identity.qualified_name: c for c in chunk_file("r", "src/rt.rs", data).chunks}
    assert {"spawn", "Handle.metrics"} <= set(chunks)
    assert chunks["spawn"].text == "    /// Spawns a task.\n    pub fn spawn() {}"
    assert chunks["TABLE"].identity.symbol_type == "constant"
    assert "forward_to_deserialize_any!" in chunks["rt"].text


def test_a_rust_file_with_nothing_to_open_is_parsed_once():
    from branchwise.chunking.grammars import parser
    from branchwise.chunking.item_macros import read_opening_item_macros

    class Counting:
        def __init__(self):
            self.parses = 0

        def parse(self, data):
            self.parses += 1
            return parser("rust").parse(data)

    statement_macro = b"fn expand() -> TokenStream {\n    quote! { #name }\n}\n"  # a call inside a body
    counting = Counting()
    tree = read_opening_item_macros(counting, statement_macro)
    assert counting.parses == 1 and str(tree.root_node) == str(parser("rust").parse(statement_macro).root_node)
    gated = b"cfg_rt! {\n    pub fn spawn() {}\n}\n"  # the file, the call's body, the opened file
    counting = Counting()
    tree = read_opening_item_macros(counting, gated)
    assert counting.parses == 3 and tree.root_node.named_children[0].type == "function_item"


def test_a_rust_macro_rules_definition_is_a_macro_symbol_with_its_doc():
    data = b"/// Joins futures.\n#[macro_export]\nmacro_rules! join {\n    ($($f:expr),*) => { ($($f.await,)*) };\n}\n"
    [chunk] = chunk_file("r", "src/join.rs", data).chunks
    assert (chunk.identity.symbol_type, chunk.identity.qualified_name) == ("macro", "join")
    assert chunk.start_line == 1 and chunk.docstring == "Joins futures."
    assert "macro" in symbol_types()


def test_a_rust_macro_documented_inside_its_rules_takes_that_doc_and_one_documented_above_keeps_its_own():
    """tokio documents `select!` inside a helper `macro_rules! doc { ($select:item) => { /// ... $select } }`
    (macro_docs.py): the helper's description was its name, "doc"."""
    data = (b"macro_rules! doc {\n    ($select:item) => {\n        /// Waits on several branches.\n"
            b"        ///\n        /// Returns when the first completes.\n        #[macro_export]\n"
            b"        $select\n    };\n}\n\n"
            b"/// Counts the tokens.\nmacro_rules! count {\n    () => {\n        /// Not this one.\n        0\n    };\n}\n\n"
            b"macro_rules! plain {\n    () => { 1 };\n}\n\n"
            b"macro_rules! later {\n    () => { 1 };\n    ($x:item) => {\n        // A plain comment.\n"
            b"        /// Made later.\n        $x\n    };\n}\n")
    docs = {c.identity.qualified_name: c.docstring for c in chunk_file("r", "src/select.rs", data).chunks}
    assert docs["doc"] == "Waits on several branches.\nReturns when the first completes."  # as above a function
    assert docs["count"] == "Counts the tokens."
    assert docs["plain"] == ""
    assert docs["later"] == "Made later."
    doc = next(c for c in chunk_file("r", "src/select.rs", data).chunks if c.identity.qualified_name == "doc")
    assert doc.embedding_text.endswith("Waits on several branches. Returns when the first completes.")


def test_a_csharp_ref_partial_struct_and_a_conditional_inside_a_statement_keep_their_members():
    """tree-sitter-c-sharp reads neither `ref partial struct` nor an `#if` around an `else if`
    (conditionals.py): each lost the rest of the file to the module chunk."""
    data = (b"namespace Shop\n{\n    public ref partial struct Reader\n    {\n"
            b"        public int Read(bool late)\n        {\n            if (late)\n            {\n"
            b"                return 1;\n            }\n#if HAVE_OFFSET\n            else if (!late)\n"
            b"            {\n                return 2;\n            }\n#endif\n            else\n"
            b"            {\n                return 3;\n            }\n        }\n\n"
            b"        public int Rest() { return 0; }\n    }\n}\n")
    assert units("src/Reader.cs", data.decode()) == {
        ("struct", "Reader", None), ("method", "Reader.Read", "Reader"), ("method", "Reader.Rest", "Reader")}
    read = next(c for c in chunk_file("r", "src/Reader.cs", data).chunks if c.identity.qualified_name == "Reader.Read")
    assert "#if HAVE_OFFSET" in read.text and "else if (!late)" in read.text  # the file's own bytes
    # here the grammar's error stays inside `Read`; in Newtonsoft.Json's readers it took the rest
    # of the class, so the second reading is kept wherever it reads more of the file
    assert not parse("c_sharp", data).root_node.has_error


@pytest.mark.parametrize("path", ["src/schemas.ts", "src/button.js"])
def test_a_top_level_const_made_by_wrapping_a_function_is_a_function(path):
    source = ('export const $ZodString = /*@__PURE__*/ core.$constructor("$ZodString", (inst, def) => {\n'
              '  inst.parse = (payload) => payload;\n});\n'
              'const Button = forwardRef(function Button(props, ref) {\n  return render(props, ref);\n});\n'
              'export const router = express.Router();\nconst total = sum([1, 2]);\n')
    assert units(path, source) == {("function", "$ZodString", None), ("function", "Button", None)}


def test_a_c_conditional_that_splits_an_else_if_is_read_again_with_every_first_branch():
    data = (b"static int pick(int fd)\n{\n  if(fd < 0) {\n    return -1;\n  }\n#ifdef USE_POLL\n"
            b"  else if(fd > 64) {\n    return poll_one(fd);\n#else\n  else if(fd > 64) {\n"
            b"    return select_one(fd);\n#endif\n  }\n  return 0;\n}\n\nint after(void)\n{\n  return 1;\n}\n")
    assert not parse("c", data).root_node.has_error
    chunks = {c.identity.qualified_name: c for c in chunk_file("r", "lib/select.c", data).chunks}
    assert set(chunks) == {"pick", "after"}
    assert (chunks["pick"].start_line, chunks["pick"].end_line) == (1, 15) and "select_one" in chunks["pick"].text


def test_a_rust_impl_associated_type_is_a_line_of_its_impl_not_a_symbol():
    source = ("pub type Result<T> = std::result::Result<T, Error>;\n\nmod wire {\n    pub type Frame = Vec<u8>;\n}\n\n"
              "impl Serializer for Writer {\n    type Ok = ();\n    type Error = Error;\n\n"
              "    fn serialize_bool(self, v: bool) -> Result<()> {\n        self.put(v)\n    }\n}\n")
    assert units("src/ser.rs", source) == {
        ("type", "Result", None), ("type", "wire.Frame", None), ("method", "Writer.serialize_bool", "Writer")}


def test_a_python_type_alias_written_as_a_capitalised_name_bound_to_a_subscript_is_a_type():
    source = ("from typing import Annotated, Callable\n\nPositiveInt = Annotated[int, Gt(0)]\n"
              "Handler = Callable[[Request], Response]\nfirst = items[0]\nMAX_SIZE = sizes[-1]\n")
    assert units("app/types.py", source) == {
        ("type", "PositiveInt", None), ("type", "Handler", None), ("constant", "MAX_SIZE", None)}


def test_a_go_package_level_var_declaration_is_one_constant_block_like_a_const():
    source = ('package cobra\n\n// templateFuncs are the functions the usage templates may call.\n'
              'var templateFuncs = template.FuncMap{\n\t"trim": strings.TrimSpace,\n}\n\n'
              'var (\n\tinitializers []func()\n\tfinalizers   []func()\n)\n\n'
              'func AddTemplateFunc(name string, tmplFunc interface{}) {\n\tvar local = 1\n\t_ = local\n}\n')
    chunks = {c.identity.qualified_name: c for c in chunk_file("r", "cobra.go", source.encode()).chunks}
    assert {name: c.identity.symbol_type for name, c in chunks.items() if name != "cobra"} == {
        "templateFuncs": "constant", "initializers": "constant", "AddTemplateFunc": "function"}
    assert (chunks["templateFuncs"].start_line, chunks["templateFuncs"].end_line) == (3, 6)
    assert (chunks["initializers"].start_line, chunks["initializers"].end_line) == (8, 11)
