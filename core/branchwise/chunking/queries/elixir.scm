; Symbols of an Elixir file. Everything is a call: `defmodule`, `defprotocol` and `defimpl` are
; the containers (a module is a class, a protocol an interface, `defimpl P, for: T` the module
; `P.T`, naming.py); the `def` family of macros inside them are their methods, the clauses of
; one function folded into one chunk (clauses.py); `defstruct` is the module's struct.

(call
  target: (identifier) @_keyword
  (arguments . (alias) @name)
  (do_block)
  (#eq? @_keyword "defmodule")) @definition.class

(call
  target: (identifier) @_keyword
  (arguments . (alias) @name)
  (do_block)
  (#eq? @_keyword "defprotocol")) @definition.interface

(call
  target: (identifier) @_keyword
  (arguments . (alias) @name)
  (#eq? @_keyword "defimpl")) @definition.class

; `def f(a)`, `def f`, `def f(a) when a > 0`, `def f when ...`: with a body or without (a head)
(call
  target: (identifier) @_keyword
  (arguments .
    [(call target: (identifier) @name)
     (identifier) @name
     (binary_operator left: (call target: (identifier) @name) operator: "when")
     (binary_operator left: (identifier) @name operator: "when")])
  (#match? @_keyword "^(def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate|defn|defnp)$")) @definition.function

(call
  target: (identifier) @name
  (#match? @name "^(defstruct|defexception)$")) @definition.struct

; ExUnit: `describe "..." do`, `test "..." do` (naming.py)
(call
  target: (identifier) @name
  (arguments . (string) @name.argument)
  (do_block)
  (#match? @name "^(describe|test)$")) @definition.function

; `alias`, `import`, `require` and `use` at the top of the file or of a module
(source
  (call target: (identifier) @_keyword) @import
  (#match? @_keyword "^(alias|import|require|use)$"))

(call
  target: (identifier) @_module
  (do_block (call target: (identifier) @_keyword) @import)
  (#match? @_module "^(defmodule|defprotocol|defimpl)$")
  (#match? @_keyword "^(alias|import|require|use)$"))
