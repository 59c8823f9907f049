; Symbols of a shell script: its functions (`f() {}` and `function f {}`), and the subcommands
; of a function that dispatches on a word (`case "$1" in install) ...`): naming.bash keeps those
; only in a function too long for the model to read whole.

(function_definition name: (word) @name) @definition.function

(function_definition
  body: (compound_statement
    (case_statement
      (case_item value: (_) @name) @definition.function)))

(program
  (command name: (command_name) @_source) @import
  (#match? @_source "^(source|\\.)$"))
