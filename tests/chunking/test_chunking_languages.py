"""The natural units of C, C++, C#, Ruby, PHP, Kotlin, Swift, Scala, Bash and Lua (issue 33),
and of Elixir, Haskell and Zig (issue 45).

Each case is a small file written in the language's own idiom; the chunker must find every
unit the issue lists with the right kind, qualified name and parent. The goldens of
tests/chunking/data/realrepos/ check whole files from the real projects.
"""

from __future__ import annotations

import pytest

from branchwise.chunking import chunk_file

from chunking_support import units

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
        "A.java": (b"class A {\n  /**\n   * Reads a {@link JsonElement}, see {@link Gson#fromJson(Reader, Class) fromJson}.\n"
                   b"   *\n   * <p>Returns {@code null} at &lt;EOF&gt;.\n   * @param in the {@code Reader}\n   */\n"
                   b"  Object read(Reader in) { return null; }\n}\n",
                   "Reads a JsonElement, see fromJson.\nReturns null at <EOF>.\n@param in the Reader"),
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


def test_javadoc_inline_tags_leave_their_words():
    from branchwise.chunking.comments import javadoc_to_prose

    assert javadoc_to_prose("Use {@link #getAsString()} or {@link java.util.List}.") == \
        "Use getAsString() or java.util.List."
    assert javadoc_to_prose("{@linkplain Gson#fromJson(java.io.Reader, Class) Gson.fromJson(..., Foo.class)}") == \
        "Gson.fromJson(..., Foo.class)"
    assert javadoc_to_prose("{@code Map<String, List<Integer>>} {@code a {b} c}{@inheritDoc}") == \
        "Map<String, List<Integer>> a {b} c"
    assert javadoc_to_prose("<ul>\n  <li>one\n</ul>\n<h2>Two &amp; three</h2>") == "one\nTwo & three"


def test_a_definition_is_documented_by_the_comment_nearest_to_it():
    """Stacked block comments are separate notes: the one above heads a group (cJSON's "Memory
    Management" above `cJSON_Parse`); a doc block is the doc, as Javadoc reads it, even with a
    line comment between it and the class; line comments after a block comment are the doc."""
    def docs(path: str, source: bytes) -> dict[str, str]:
        return {c.identity.qualified_name: c.docstring for c in chunk_file("r", path, source).chunks}

    header = docs("json.h", b"/* Memory Management: free what any parse returns. */\n"
                            b"/* Supply a block of JSON, get a tree back. */\nItem *parse(const char *v);\n\n"
                            b"/* Sorting. */\n// Sorts the items by key.\n// In place.\nvoid sort(Item *i);\n")
    assert header["parse"] == "Supply a block of JSON, get a tree back."
    assert header["sort"] == "Sorts the items by key.\nIn place."
    java = docs("Strings.java", b"/* Licensed to the ASF. */\n/**\n * Operations on strings.\n */\n"
                                b"//@Immutable\npublic class Strings {\n}\n")
    assert java["Strings"] == "Operations on strings."


def test_a_shebang_is_not_the_doc_of_the_first_function():
    [chunk] = [c for c in chunk_file("r", "install.sh", b"#!/bin/sh\ninstall() {\n  :\n}\n").chunks
               if c.identity.symbol_type == "function"]
    assert (chunk.start_line, chunk.docstring) == (2, "")


def test_a_script_without_extension_is_bash_when_its_shebang_says_so():
    assert chunk_file("r", "test/fast/nvm_ls", b"#!/bin/sh\nf() {\n  :\n}\n").language == "bash"
    assert chunk_file("r", "bin/tool", b"#!/usr/bin/env python3\nprint(1)\n").language == "text"


def _dispatcher(arms: str, before: str = "") -> bytes:
    """A shell function that dispatches on its first word, padded past what the model reads."""
    padding = "".join(f"  # step {n}: {'x' * 60}\n" for n in range(30))
    return (f"nvm() {{\n{before}{padding}  case \"${{1-}}\" in\n{arms}  esac\n}}\n"
            "nvm_get_arch() {\n  case \"$(uname -m)\" in\n    x86_64 | amd64) A=x64 ;;\n  esac\n}\n").encode()


def test_a_long_shell_function_that_dispatches_on_a_word_has_a_symbol_per_subcommand():
    """nvm's `nvm()` is 1,500 lines, and the model reads its first lines only: each arm of the
    `case` it dispatches with is the subcommand it names, so `nvm uninstall` can be found."""
    body = "".join(f"      echo {'y' * 70}\n" for _ in range(20))
    arms = (f'    "install" | "i")\n{body}    ;;\n    \'ls-remote\')\n{body}    ;;\n'
            f"    use)\n      nvm_use \"$@\"\n    ;;\n    -*)\n      echo flag\n    ;;\n    *)\n      help\n    ;;\n")
    chunks = chunk_file("r", "nvm.sh", _dispatcher(arms)).chunks
    names = {(c.identity.symbol_type, c.identity.qualified_name): c for c in chunks}
    assert set(names) == {("function", "nvm"), ("function", "nvm.install"), ("function", "nvm.ls-remote"),
                          ("function", "nvm.use"), ("function", "nvm_get_arch")}
    install = names["function", "nvm.install"]
    assert install.text.startswith('    "install" | "i")') and install.text.rstrip().endswith(";;")


def test_a_shell_case_that_is_not_most_of_a_long_function_or_in_a_short_one_is_its_code():
    """A `case` that sets a value on the way (`x86_64 | amd64) A=x64 ;;`) is no dispatch: in a
    long function where it is a small part, or in a function the model reads whole."""
    arms = "    install) nvm_install ;;\n    use) nvm_use ;;\n"
    long_before = "".join(f"  echo {'z' * 70}\n" for _ in range(60))
    for data in (_dispatcher(arms, before=long_before),
                 b'nvm() {\n  case "$1" in\n    install) nvm_install ;;\n  esac\n}\n'):
        chunks = chunk_file("r", "nvm.sh", data).chunks
        assert {c.identity.qualified_name for c in chunks} <= {"nvm", "nvm_get_arch"}
