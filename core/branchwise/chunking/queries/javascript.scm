; Symbols of a JavaScript module (also .jsx, .mjs, .cjs).
; Patterns earlier in this file win when two capture the same node.

(function_declaration name: (identifier) @name) @definition.function

(generator_function_declaration name: (identifier) @name) @definition.function

(class_declaration name: (identifier) @name) @definition.class

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

; Top-level `const f = () => ...` and `export const f = function () ...`.
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)))

; Top-level UPPER_CASE bindings are constants / config blocks.
(program
  (lexical_declaration
    (variable_declarator name: (identifier) @name) @definition.constant)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

(program
  (export_statement
    (lexical_declaration
      (variable_declarator name: (identifier) @name) @definition.constant))
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

(program (import_statement) @import)
