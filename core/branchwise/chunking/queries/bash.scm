; Symbols of a shell script: its functions (`f() {}` and `function f {}`).

(function_definition name: (word) @name) @definition.function

(program
  (command name: (command_name) @_source) @import
  (#match? @_source "^(source|\\.)$"))
