; References to names in Go code (see branchwise/review/references.py for the captures). Go imports
; packages, not names, so there is no @import.

(call_expression function: (identifier) @call)
(call_expression function: (selector_expression operand: (_) @owner field: (field_identifier) @call))
(selector_expression operand: (_) @owner field: (field_identifier) @attribute)
(qualified_type package: (package_identifier) @owner name: (type_identifier) @attribute)

(identifier) @name
(type_identifier) @name

(function_declaration name: (identifier) @bound)
(parameter_declaration name: (identifier) @bound)
(variadic_parameter_declaration name: (identifier) @bound)
(type_spec name: (type_identifier) @bound)
(type_parameter_declaration name: (identifier) @bound)
(short_var_declaration left: (expression_list (identifier) @bound))
(var_spec name: (identifier) @bound)
(const_spec name: (identifier) @bound)
(range_clause left: (expression_list (identifier) @bound))
(keyed_element . (literal_element (identifier) @bound))

; variables of a known type
(parameter_declaration name: (identifier) @typed.var type: (pointer_type (type_identifier) @typed.type))
(parameter_declaration name: (identifier) @typed.var type: (type_identifier) @typed.type)
(short_var_declaration left: (expression_list (identifier) @typed.var) right: (expression_list (composite_literal type: (type_identifier) @typed.type)))
(short_var_declaration left: (expression_list (identifier) @typed.var) right: (expression_list (unary_expression operand: (composite_literal type: (type_identifier) @typed.type))))
