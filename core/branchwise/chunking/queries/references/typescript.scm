; References to names in TypeScript code (see branchwise/review/references.py for the captures).

(call_expression function: (identifier) @call)
(call_expression function: (member_expression object: (_) @owner property: (property_identifier) @call))
(new_expression constructor: (identifier) @call)
(member_expression object: (_) @owner property: (property_identifier) @attribute)
(nested_type_identifier module: (_) @owner name: (type_identifier) @attribute)

(import_specifier name: (identifier) @import)
(import_clause (identifier) @import)

(identifier) @name
(type_identifier) @name
(shorthand_property_identifier) @name

(function_declaration name: (identifier) @bound)
(generator_function_declaration name: (identifier) @bound)
(class_declaration name: (type_identifier) @bound)
(abstract_class_declaration name: (type_identifier) @bound)
(interface_declaration name: (type_identifier) @bound)
(type_alias_declaration name: (type_identifier) @bound)
(enum_declaration name: (identifier) @bound)
(required_parameter pattern: (identifier) @bound)
(optional_parameter pattern: (identifier) @bound)
(arrow_function parameter: (identifier) @bound)
(variable_declarator name: (identifier) @bound)
(import_specifier alias: (identifier) @bound)
(namespace_import (identifier) @bound)
(catch_clause parameter: (identifier) @bound)
(type_parameter name: (type_identifier) @bound)

; variables of a known class
(variable_declarator name: (identifier) @typed.var value: (new_expression constructor: (identifier) @typed.type))
(variable_declarator name: (identifier) @typed.var type: (type_annotation (type_identifier) @typed.type))
(required_parameter pattern: (identifier) @typed.var type: (type_annotation (type_identifier) @typed.type))
