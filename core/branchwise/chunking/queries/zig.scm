; Symbols of a Zig file: functions (pub or not, `extern` prototypes included), a `const`
; bound to a container type (`struct`, `union`, `opaque` -> struct; `enum`, `error{...}` ->
; enum) with its functions as methods (a `var` of an anonymous type is a variable), and test
; blocks (naming.py). A function that returns a type (`fn Parser(comptime T: type) type {
; return struct {...}; }`) is a function; the functions of the struct it returns are nested in it.

(function_declaration name: (identifier) @name) @definition.function

(variable_declaration
  "const"
  (identifier) @name
  [(struct_declaration) (union_declaration) (opaque_declaration)]) @definition.struct

(variable_declaration
  "const"
  (identifier) @name
  [(enum_declaration) (error_set_declaration)]) @definition.enum

(test_declaration "test" @name) @definition.function

(source_file
  (variable_declaration
    (builtin_function (builtin_identifier) @_import)) @import
  (#eq? @_import "@import"))
