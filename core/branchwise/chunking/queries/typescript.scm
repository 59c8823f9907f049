; Symbols of a TypeScript module; used for both the typescript and tsx grammars.
; Patterns earlier in this file win when two capture the same node.

(function_declaration name: (identifier) @name) @definition.function

(generator_function_declaration name: (identifier) @name) @definition.function

(class_declaration name: (type_identifier) @name) @definition.class

(abstract_class_declaration name: (type_identifier) @name) @definition.class

(interface_declaration name: (type_identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(type_alias_declaration name: (type_identifier) @name) @definition.type

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.method

; `namespace X { ... }` only qualifies the names inside it.
(internal_module name: [(identifier) (nested_identifier)] @name) @scope.module

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
