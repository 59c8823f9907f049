; References to names in Java code (see branchwise/review/references.py for the captures).

(method_invocation object: (_) @owner name: (identifier) @call)
(method_invocation !object name: (identifier) @call)
(object_creation_expression type: (type_identifier) @call)
(field_access object: (_) @owner field: (identifier) @attribute)
(method_reference (_) @owner . (identifier) @attribute .)

(import_declaration (scoped_identifier name: (identifier) @import))

(identifier) @name
(type_identifier) @name

(method_declaration name: (identifier) @bound)
(constructor_declaration name: (identifier) @bound)
(class_declaration name: (identifier) @bound)
(interface_declaration name: (identifier) @bound)
(enum_declaration name: (identifier) @bound)
(record_declaration name: (identifier) @bound)
(annotation_type_declaration name: (identifier) @bound)
(formal_parameter name: (identifier) @bound)
(spread_parameter (variable_declarator name: (identifier) @bound))
(variable_declarator name: (identifier) @bound)
(catch_formal_parameter name: (identifier) @bound)
(lambda_expression parameters: (identifier) @bound)
(inferred_parameters (identifier) @bound)
(type_parameter (type_identifier) @bound)
(enum_constant name: (identifier) @bound)

; variables of a known class
(local_variable_declaration type: (type_identifier) @typed.type declarator: (variable_declarator name: (identifier) @typed.var))
(formal_parameter type: (type_identifier) @typed.type name: (identifier) @typed.var)
(field_declaration type: (type_identifier) @typed.type declarator: (variable_declarator name: (identifier) @typed.var))
