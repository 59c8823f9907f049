"""The natural units of C, C++, C#, Ruby, PHP, Kotlin, Swift, Scala, Bash and Lua (issue 33),
and of Elixir, Haskell and Zig (issue 45).

Each case is a small file written in the language's own idiom; the chunker must find every
unit the issue lists with the right kind, qualified name and parent. The goldens of
tests/chunking/data/realrepos/ check whole files from the real projects.
"""

from __future__ import annotations

import re

import pytest

from branchwise.chunking import ChunkingRules, chunk_file, classify_path
from branchwise.chunking.conditionals import resolve_split_conditionals
from branchwise.chunking.imports import bound_names
from branchwise.chunking.macros import mask_cpp_macros, mask_macros
from branchwise.chunking.languages import language_for_path
from branchwise.chunking.vocabulary import languages, symbol_types
from branchwise.models import PathClass


def units(path: str, source: str) -> set[tuple[str, str, str | None]]:
    result = chunk_file("repo", path, source.encode())
    return {(c.identity.symbol_type, c.identity.qualified_name, c.parent.qualified_name if c.parent else None)
            for c in result.chunks if c.identity.symbol_type != "module"}


CASES = {
    "c": ("src/list.c", """\
/** A node. */
struct node { struct node *next; int value; };
typedef struct { int x, y; } point;
typedef enum { RED, GREEN } color;
union number { int i; double d; };
typedef int (*compare_fn)(const void *, const void *);
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define LIMIT 10
static int helper(int a);
static int helper(int a) { return a; }
char *name_of(struct node *n) { return 0; }
""", {("struct", "node", None), ("struct", "point", None), ("enum", "color", None),
      ("struct", "number", None), ("type", "compare_fn", None), ("function", "MAX", None),
      ("function", "helper", None), ("function", "name_of", None)}),
    "cpp": ("src/format.cc", """\
namespace fmt {
namespace detail {
template <typename T> class buffer {
 public:
  void append(const T* begin, const T* end);
  auto size() const -> size_t { return size_; }
};
void assert_fail(const char* file, int line);
}
void detail::assert_fail(const char* file, int line) {}
template <typename T> void detail::buffer<T>::append(const T* b, const T* e) {}
auto format(int value) -> std::string { return {}; }
auto format(double value) -> std::string { return {}; }
template <> struct formatter<int> { auto parse() {} };
using string_view = basic_string_view<char>;
}
""", {("class", "fmt.detail.buffer", None), ("method", "fmt.detail.buffer.size", "fmt.detail.buffer"),
      ("function", "fmt.detail.assert_fail", None), ("function", "fmt.detail.buffer.append", None),
      ("function", "fmt.format", None), ("function", "fmt.format#2", None),
      ("struct", "fmt.formatter<int>", None), ("method", "fmt.formatter<int>.parse", "fmt.formatter<int>"),
      ("type", "fmt.string_view", None)}),
    "csharp": ("src/Serilog/Logger.cs", """\
using System;
namespace Serilog.Core;

/// <summary>Writes events.</summary>
public sealed class Logger : ILogger
{
    public int Count { get; private set; }
    public Logger(int count) { Count = count; }
    public void Write(string text) => Console.WriteLine(text);
    public void Write(string text, int level) { }
}
public record LogEntry(string Text);
public readonly struct Span { }
public interface ILogger { void Write(string text); }
public enum Level { Debug, Information }
namespace Serilog.Events { class LogEvent { void Render() { } } }
""", {("class", "Logger", None), ("method", "Logger.Count", "Logger"), ("method", "Logger.Logger", "Logger"),
      ("method", "Logger.Write", "Logger"), ("method", "Logger.Write#2", "Logger"), ("class", "LogEntry", None),
      ("struct", "Span", None), ("interface", "ILogger", None), ("enum", "Level", None),
      ("class", "LogEvent", None), ("method", "LogEvent.Render", "LogEvent")}),
    "ruby": ("app.rb", """\
require 'sinatra'
module Sinatra
  # Serves requests.
  class Base
    def call(env)
      env
    end

    def self.route(verb, path)
    end

    class << self
      def settings
      end
    end
  end
end

get '/' do
  'hello'
end

post '/orders' do
  'created'
end

before do
end
""", {("class", "Sinatra.Base", None), ("method", "Sinatra.Base.call", "Sinatra.Base"),
      ("method", "Sinatra.Base.self.route", "Sinatra.Base"), ("method", "Sinatra.Base.self.settings", "Sinatra.Base"),
      ("function", "get '/'", None), ("function", "post '/orders'", None), ("function", "before", None)}),
    "php": ("Slim/Routing/Route.php", """\
<?php
declare(strict_types=1);
namespace Slim\\Routing;
use Psr\\Http\\Message\\ResponseInterface;
/** A route. */
class Route implements RouteInterface
{
    use MiddlewareAwareTrait;
    public function run(): ResponseInterface { return $this->response; }
    abstract protected function handle();
}
trait MiddlewareAwareTrait { public function add($middleware) { return $this; } }
interface RouteInterface { public function run(): ResponseInterface; }
function route_name($route) { return $route; }
""", {("class", "Route", None), ("method", "Route.run", "Route"), ("trait", "MiddlewareAwareTrait", None),
      ("method", "MiddlewareAwareTrait.add", "MiddlewareAwareTrait"), ("interface", "RouteInterface", None),
      ("function", "route_name", None)}),
    "kotlin": ("okio/Buffer.kt", """\
package okio
import kotlin.jvm.JvmName
/** A buffer. */
class Buffer : Source {
  val size: Long = 0
  override fun read(sink: Buffer): Long = 0
  companion object {
    fun of(): Buffer = Buffer()
  }
}
object Okio {
  fun sink(): Sink = TODO()
}
interface Source {
  fun read(sink: Buffer): Long
}
fun String.encodeUtf8(): ByteString = TODO()
fun Source.buffer(): BufferedSource = TODO()
enum class Mode { READ, WRITE }
typealias Bytes = ByteArray
""", {("class", "Buffer", None), ("method", "Buffer.read", "Buffer"), ("class", "Buffer.Companion", "Buffer"),
      ("method", "Buffer.Companion.of", "Buffer.Companion"), ("class", "Okio", None),
      ("method", "Okio.sink", "Okio"), ("interface", "Source", None), ("function", "String.encodeUtf8", None),
      ("function", "Source.buffer", None), ("enum", "Mode", None), ("type", "Bytes", None)}),
    "swift": ("Source/Session.swift", """\
import Foundation
/// A session.
open class Session {
    public init() {}
    open func request(_ url: URL) -> DataRequest { DataRequest() }
}
struct Empty { func encode() {} }
enum HTTPMethod { case get; func name() -> String { "" } }
protocol RequestAdapter { func adapt() }
extension Session: RequestAdapter { func adapt() {} }
extension Array where Element == Int { func total() -> Int { 0 } }
func download() {}
""", {("class", "Session", None), ("method", "Session.init", "Session"), ("method", "Session.request", "Session"),
      ("struct", "Empty", None), ("method", "Empty.encode", "Empty"), ("enum", "HTTPMethod", None),
      ("method", "HTTPMethod.name", "HTTPMethod"), ("interface", "RequestAdapter", None),
      ("extension", "extension Session", None), ("method", "Session.adapt", "extension Session"),
      ("extension", "extension Array", None), ("method", "Array.total", "extension Array"),
      ("function", "download", None)}),
    "scala": ("scopt/OParser.scala", """\
package scopt
import scala.collection.mutable
/** Builds parsers. */
object OParser {
  def builder[C]: OParserBuilder[C] = new OParserBuilder[C]

  /** Parses the arguments. */
  def parse[C](args: Seq[String]): Option[C] =
    None
}
abstract class OParserBuilder[C] {
  def opt[A](name: String): OParser[A, C] = ???
  def help(name: String): OParser[Unit, C]
}
trait Read[A] { def reads: String => A }
""", {("class", "OParser", None), ("method", "OParser.builder", "OParser"), ("method", "OParser.parse", "OParser"),
      ("class", "OParserBuilder", None), ("method", "OParserBuilder.opt", "OParserBuilder"),
      ("trait", "Read", None)}),
    "bash": ("nvm.sh", """\
#!/usr/bin/env bash
# Lists installed versions.
nvm_ls() {
  echo "$@"
}
function nvm_use {
  nvm_ls "$1"
}
NVM_DIR=~/.nvm
""", {("function", "nvm_ls", None), ("function", "nvm_use", None)}),
    "lua": ("json.lua", """\
local json = { _version = "0.1.2" }
--- Encodes a value.
function json.encode(val) return val end
function json:decode(str) return str end
json.null = function() end
local function escape_char(c) return c end
local parse = function(str) return str end
return json
""", {("function", "json.encode", None), ("function", "json.decode", None), ("function", "json.null", None),
      ("function", "escape_char", None), ("function", "parse", None)}),
    "elixir": ("lib/plug/conn.ex", """\
defmodule Plug.Conn do
  @moduledoc "The connection."
  alias Plug.Conn.Status
  defstruct halted: false, status: nil

  @doc "Halts the pipeline."
  def halt(%Plug.Conn{} = conn), do: %{conn | halted: true}

  def put_status(conn, nil), do: conn
  def put_status(conn, status) when is_atom(status), do: %{conn | status: Status.code(status)}

  defp run(conn), do: conn
  defmacro __using__(_opts), do: nil

  defmodule NotSentError do
    defexception message: "no response"
  end
end

defprotocol Plug.Exception do
  def status(exception)
end

defimpl Plug.Exception, for: Any do
  def status(_), do: 500
end
""", {("class", "Plug.Conn", None), ("struct", "Plug.Conn.defstruct", "Plug.Conn"),
      ("method", "Plug.Conn.halt", "Plug.Conn"), ("method", "Plug.Conn.put_status", "Plug.Conn"),
      ("method", "Plug.Conn.run", "Plug.Conn"), ("method", "Plug.Conn.__using__", "Plug.Conn"),
      ("class", "Plug.Conn.NotSentError", "Plug.Conn"),
      ("struct", "Plug.Conn.NotSentError.defexception", "Plug.Conn.NotSentError"),
      ("interface", "Plug.Exception", None), ("method", "Plug.Exception.status", "Plug.Exception"),
      ("class", "Plug.Exception.Any", None), ("method", "Plug.Exception.Any.status", "Plug.Exception.Any")}),
    "haskell": ("src/Data/Aeson/Types.hs", """\
module Data.Aeson.Types (Value (..), encode) where

import qualified Data.Map as M

-- | A JSON value.
data Value = Object (M.Map String Value) | Null

newtype Key = Key String

type Object = M.Map Key Value

-- | Encodes a value.
encode :: Value -> String
encode Null = "null"
encode (Object _) = "{}"

(.=) :: String -> Value -> (String, Value)
k .= v = (k, v)

class ToJSON a where
  toJSON :: a -> Value

instance ToJSON Bool where
  toJSON _ = Null

instance ToJSON a => ToJSON (Maybe a) where
  toJSON Nothing = Null
  toJSON (Just a) = toJSON a
""", {("type", "Value", None), ("type", "Key", None), ("type", "Object", None), ("function", "encode", None),
      ("function", ".=", None), ("class", "ToJSON", None), ("method", "ToJSON.toJSON", "ToJSON"),
      ("instance", "instance ToJSON Bool", None), ("method", "Bool.toJSON", "instance ToJSON Bool"),
      ("instance", "instance ToJSON (Maybe a)", None), ("method", "Maybe.toJSON", "instance ToJSON (Maybe a)")}),
    "zig": ("clap.zig", """\
const std = @import("std");

/// The names a parameter can have.
pub const Names = struct {
    short: ?u8 = null,
    long: ?[]const u8 = null,

    pub fn longest(names: *const Names) []const u8 {
        return names.long orelse "";
    }

    pub const Kind = enum {
        short,
        long,
        fn prefix(kind: Kind) []const u8 {
            return if (kind == .short) "-" else "--";
        }
    };
};

const Value = union(enum) { flag: void, one: []const u8 };

pub fn Parser(comptime Id: type) type {
    return struct {
        id: Id,
        pub fn next(parser: *@This()) ?Id {
            return parser.id;
        }
    };
}

fn countParams(str: []const u8) usize {
    return str.len;
}

test "parse params" {
    try std.testing.expectEqual(@as(usize, 0), countParams(""));
}
""", {("struct", "Names", None), ("method", "Names.longest", "Names"), ("enum", "Names.Kind", "Names"),
      ("method", "Names.Kind.prefix", "Names.Kind"), ("struct", "Value", None), ("function", "Parser", None),
      ("function", "Parser.next", "Parser"), ("function", "countParams", None),
      ("function", 'test "parse params"', None)}),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_every_natural_unit_is_a_chunk_with_its_qualified_name(language):
    path, source, expected = CASES[language]
    result = chunk_file("repo", path, source.encode())
    assert result.language == language
    assert units(path, source) == expected


def test_a_header_prototype_and_its_definition_are_two_symbols_with_one_name():
    header = chunk_file("repo", "cJSON.h", b"/* Parse text. */\ncJSON *cJSON_Parse(const char *value);\n")
    source = chunk_file("repo", "cJSON.c", b"static int helper(void);\n"
                        b"cJSON *cJSON_Parse(const char *value) { return 0; }\n")
    [prototype] = [c for c in header.chunks if c.identity.symbol_type == "function"]
    [definition] = [c for c in source.chunks if c.identity.symbol_type == "function"]  # no `helper` prototype
    assert (prototype.identity.symbol_type, prototype.identity.qualified_name) == \
        (definition.identity.symbol_type, definition.identity.qualified_name) == ("function", "cJSON_Parse")
    assert prototype.identity != definition.identity
    assert prototype.docstring == "Parse text."
    assert prototype.signature == "cJSON *cJSON_Parse(const char *value);"


def test_a_header_written_in_cpp_is_cpp_and_a_c_header_is_c():
    assert chunk_file("r", "fmt/core.h", b"namespace fmt {\nint f();\n}\n").language == "cpp"
    assert chunk_file("r", "cJSON.h", b'#ifdef __cplusplus\nextern "C" {\n#endif\nint f(void);\n').language == "c"


def test_doc_comments_of_each_language_become_prose():
    docs = {
        "a.c": (b"/**\n * Frees the item.\n */\nvoid f(void) {}\n", "Frees the item."),
        "a.cc": (b"/// Formats a value.\nvoid f() {}\n", "Formats a value."),
        "A.cs": (b'class A {\n  /// <summary>Writes <see cref="Event"/>.</summary>\n'
                 b'  /// <param name="e">The event.</param>\n  void W(int e) {}\n}\n', "Writes Event.\ne: The event."),
        "a.rb": (b"# Renders a template.\n# @return [String]\ndef render\nend\n", "Renders a template.\n@return [String]"),
        "a.php": (b"<?php\n/**\n * Runs the route.\n */\nfunction run() {}\n", "Runs the route."),
        "a.kt": (b"/** Reads bytes. */\nfun read() {}\n", "Reads bytes."),
        "a.swift": (b"/// Sends a request.\nfunc send() {}\n", "Sends a request."),
        "a.scala": (b"/** Parses args. */\ndef parse(): Unit = ()\n", "Parses args."),
        "a.sh": (b"#!/bin/sh\n# Installs node.\ninstall() {\n  :\n}\n", "Installs node."),
        "a.lua": (b"--- Decodes JSON.\n-- @param str string\nfunction decode(str) end\n", "Decodes JSON.\n@param str string"),
        "a.ex": (b'defmodule A do\n  @doc """\n  Sends the response.\n\n  Raises if sent.\n  """\n'
                 b"  @spec send(t) :: t\n  def send(conn), do: conn\nend\n", "Sends the response.\n\nRaises if sent."),
        "b.ex": (b"defmodule B do\n  # Runs the pipeline.\n  def run(conn), do: conn\nend\n", "Runs the pipeline."),
        "a.hs": (b"-- | Encodes a value\n-- as JSON.\nencode :: Value -> String\nencode _ = \"\"\n", "Encodes a value\nas JSON."),
        "b.hs": (b"{- | Decodes a value. -}\ndecode :: String -> Value\ndecode = undefined\n", "Decodes a value."),
        "a.zig": (b"/// Parses the arguments.\npub fn parse() void {}\n", "Parses the arguments."),
    }
    for path, (source, doc) in docs.items():
        [chunk] = [c for c in chunk_file("r", path, source).chunks if c.identity.symbol_type in ("function", "method")]
        assert chunk.docstring == doc, path


def test_a_shebang_is_not_the_doc_of_the_first_function():
    [chunk] = [c for c in chunk_file("r", "install.sh", b"#!/bin/sh\ninstall() {\n  :\n}\n").chunks
               if c.identity.symbol_type == "function"]
    assert (chunk.start_line, chunk.docstring) == (2, "")


def test_a_script_without_extension_is_bash_when_its_shebang_says_so():
    assert chunk_file("r", "test/fast/nvm_ls", b"#!/bin/sh\nf() {\n  :\n}\n").language == "bash"
    assert chunk_file("r", "bin/tool", b"#!/usr/bin/env python3\nprint(1)\n").language == "text"


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
