; Symbols of a Go file. A method's receiver type qualifies its name.
; Patterns earlier in this file win when two capture the same node.

(function_declaration name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list) @receiver
  name: (field_identifier) @name) @definition.method

(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct

(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface

(type_spec name: (type_identifier) @name) @definition.type

(type_alias name: (type_identifier) @name) @definition.type

; A `const` declaration (single or grouped) is one constant block named by its first name.
(source_file
  (const_declaration (const_spec name: (identifier) @name)) @definition.constant)
; So is a package-level `var` declaration: a table, a registry, a documented setting
; (`var templateFuncs = template.FuncMap{...}`, `var EnablePrefixMatching = ...`).
(source_file
  (var_declaration (var_spec name: (identifier) @name)) @definition.constant)
(source_file
  (var_declaration (var_spec_list (var_spec name: (identifier) @name))) @definition.constant)

(source_file (import_declaration) @import)
