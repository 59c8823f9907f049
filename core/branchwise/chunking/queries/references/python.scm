; References to names in Python code (see branchwise/review/references.py). Captures:
; @call a called name, @attribute an attribute read or written, @owner the object before the
; dot of either, @import a name imported, @name any identifier, @bound a name being bound
; (a definition, a parameter, a keyword argument's name), which is no reference.
; Comments and strings hold no identifiers in the tree, so they never match.

(call function: (identifier) @call)
(call function: (attribute object: (_) @owner attribute: (identifier) @call))
(attribute object: (_) @owner attribute: (identifier) @attribute)

(import_from_statement name: (dotted_name (identifier) @import))
(import_from_statement name: (aliased_import name: (dotted_name (identifier) @import)))

(identifier) @name

(function_definition name: (identifier) @bound)
(class_definition name: (identifier) @bound)
(parameters (identifier) @bound)
(lambda_parameters (identifier) @bound)
(typed_parameter (identifier) @bound)
(default_parameter name: (identifier) @bound)
(typed_default_parameter name: (identifier) @bound)
(list_splat_pattern (identifier) @bound)
(dictionary_splat_pattern (identifier) @bound)
(keyword_argument name: (identifier) @bound)
(import_from_statement module_name: (dotted_name (identifier) @bound))
(import_from_statement module_name: (relative_import (dotted_name (identifier) @bound)))
(import_statement name: (dotted_name (identifier) @bound))
(aliased_import alias: (identifier) @bound)
(global_statement (identifier) @bound)
(nonlocal_statement (identifier) @bound)

; variables of a known class
(assignment left: (identifier) @typed.var right: (call function: (identifier) @typed.type))
(assignment left: (identifier) @typed.var right: (call function: (attribute) @typed.type))
(typed_parameter (identifier) @typed.var type: (type (identifier) @typed.type))
(typed_parameter (identifier) @typed.var type: (type (attribute) @typed.type))
(typed_default_parameter name: (identifier) @typed.var type: (type (identifier) @typed.type))
(with_item value: (as_pattern (call function: (identifier) @typed.type) alias: (as_pattern_target (identifier) @typed.var)))
