; Symbols of a Lua file: functions, including `function M.foo()`, `function M:foo()` and
; `M.foo = function() ... end`, all named `M.foo` (naming.py), and `local f = function`.

(function_declaration
  name: [(identifier) (dot_index_expression) (method_index_expression)] @name) @definition.function

(assignment_statement
  (variable_list . name: [(identifier) (dot_index_expression)] @name .)
  (expression_list . value: (function_definition) .)) @definition.function

(chunk
  (variable_declaration
    (assignment_statement
      (expression_list value: (function_call name: (identifier) @_require)))) @import
  (#eq? @_require "require"))
