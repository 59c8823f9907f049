; References to names in Rust code (see branchwise/review/references.py for the captures).

(call_expression function: (identifier) @call)
(call_expression function: (field_expression value: (_) @owner field: (field_identifier) @call))
(call_expression function: (scoped_identifier path: (_) @owner name: (identifier) @call))
(macro_invocation macro: (identifier) @call)
(field_expression value: (_) @owner field: (field_identifier) @attribute)
(scoped_identifier path: (_) @owner name: (identifier) @attribute)
(scoped_type_identifier path: (_) @owner name: (type_identifier) @attribute)

(use_declaration argument: (identifier) @import)
(use_declaration argument: (scoped_identifier name: (identifier) @import))
(use_list (identifier) @import)
(use_list (scoped_identifier name: (identifier) @import))
(use_as_clause path: (scoped_identifier name: (identifier) @import))
(use_as_clause path: (identifier) @import)

(identifier) @name
(type_identifier) @name

(function_item name: (identifier) @bound)
(function_signature_item name: (identifier) @bound)
(parameter pattern: (identifier) @bound)
(let_declaration pattern: (identifier) @bound)
(closure_parameters (identifier) @bound)
(struct_item name: (type_identifier) @bound)
(enum_item name: (type_identifier) @bound)
(trait_item name: (type_identifier) @bound)
(type_item name: (type_identifier) @bound)
(const_item name: (identifier) @bound)
(static_item name: (identifier) @bound)
(type_parameter name: (type_identifier) @bound)
(use_as_clause alias: (identifier) @bound)

; variables of a known type
(parameter pattern: (identifier) @typed.var type: (type_identifier) @typed.type)
(parameter pattern: (identifier) @typed.var type: (reference_type type: (type_identifier) @typed.type))
(let_declaration pattern: (identifier) @typed.var value: (call_expression function: (scoped_identifier path: (identifier) @typed.type)))
(let_declaration pattern: (identifier) @typed.var value: (struct_expression name: (type_identifier) @typed.type))
