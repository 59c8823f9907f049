; References to names in JavaScript code (see branchwise/review/references.py for the captures).

(call_expression function: (identifier) @call)
(call_expression function: (member_expression object: (_) @owner property: (property_identifier) @call))
(new_expression constructor: (identifier) @call)
(member_expression object: (_) @owner property: (property_identifier) @attribute)

(import_specifier name: (identifier) @import)
(import_clause (identifier) @import)

(identifier) @name
(shorthand_property_identifier) @name

(function_declaration name: (identifier) @bound)
(generator_function_declaration name: (identifier) @bound)
(class_declaration name: (identifier) @bound)
(formal_parameters (identifier) @bound)
(formal_parameters (assignment_pattern left: (identifier) @bound))
(formal_parameters (rest_pattern (identifier) @bound))
(arrow_function parameter: (identifier) @bound)
(variable_declarator name: (identifier) @bound)
(import_specifier alias: (identifier) @bound)
(namespace_import (identifier) @bound)
(catch_clause parameter: (identifier) @bound)

; variables of a known class
(variable_declarator name: (identifier) @typed.var value: (new_expression constructor: (identifier) @typed.type))
