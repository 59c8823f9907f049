; Symbols of a C# file. Namespaces are not part of names (as Java packages are not), so a
; move from a block namespace to a file-scoped one renames nothing. Methods without a
; body (interface, abstract, partial declarations) appear in their type's outline.

(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum

(method_declaration name: (identifier) @name body: (_)) @definition.method
(constructor_declaration name: (identifier) @name body: (_)) @definition.method
(destructor_declaration name: (identifier) @name body: (_)) @definition.method
(property_declaration name: (identifier) @name) @definition.method
(indexer_declaration "this" @name) @definition.method
(operator_declaration operator: _ @name body: (_)) @definition.method
(conversion_operator_declaration type: (_) @name body: (_)) @definition.method

(compilation_unit (using_directive) @import)
(namespace_declaration body: (declaration_list (using_directive) @import))
