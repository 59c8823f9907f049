; Symbols of a C++ file (also the base of a header's query, cpp_header.scm).
; Namespaces only qualify the names inside them; `template <...>` belongs to the chunk of
; what it declares. A definition out of line (`void detail::foo() {}`,
; `buffer<T>::append`) is named by its qualified declarator (naming.py).
; Patterns earlier in this file win when two capture the same node.

(function_definition
  declarator: (function_declarator declarator: (_) @name)) @definition.function
(function_definition
  declarator: (_ (function_declarator declarator: (_) @name))) @definition.function
(function_definition
  declarator: (_ (_ (function_declarator declarator: (_) @name)))) @definition.function

(class_specifier name: (_) @name body: (field_declaration_list)) @definition.class
(struct_specifier name: (_) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (_) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (_) @name body: (enumerator_list)) @definition.enum

(type_definition
  type: (struct_specifier !name body: (field_declaration_list)) @definition.struct
  declarator: (type_identifier) @name)
(type_definition
  type: (enum_specifier !name body: (enumerator_list)) @definition.enum
  declarator: (type_identifier) @name)

(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier) (template_type)
         (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: [(type_identifier) @name
               (pointer_declarator declarator: (type_identifier) @name)]) @definition.type

(alias_declaration name: (type_identifier) @name) @definition.type

(concept_definition name: (identifier) @name) @definition.type

(preproc_function_def name: (identifier) @name) @definition.function

(namespace_definition name: (_) @name) @scope.module

(preproc_include) @import
