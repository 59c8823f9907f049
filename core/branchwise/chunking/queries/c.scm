; Symbols of a C file (also the base of a header's query, c_header.scm).
; Patterns earlier in this file win when two capture the same node.
; A `typedef struct {...} name;` is the struct's chunk (the typedef is its wrapper).

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition
  declarator: (_ declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition
  declarator: (_ declarator: (_ declarator: (function_declarator declarator: (identifier) @name)))) @definition.function

(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum

; anonymous bodies named by their typedef
(type_definition
  type: (struct_specifier !name body: (field_declaration_list)) @definition.struct
  declarator: (type_identifier) @name)
(type_definition
  type: (union_specifier !name body: (field_declaration_list)) @definition.struct
  declarator: (type_identifier) @name)
(type_definition
  type: (enum_specifier !name body: (enumerator_list)) @definition.enum
  declarator: (type_identifier) @name)

; other typedefs: `typedef int cJSON_bool;`, `typedef void *(*alloc)(size_t);`
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (macro_type_specifier)
         (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: [(type_identifier) @name
               (pointer_declarator declarator: (type_identifier) @name)
               (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
               (pointer_declarator declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name))))
               (array_declarator declarator: (type_identifier) @name)]) @definition.type

; `#define MAX(a, b) ...`: a macro with parameters is a function
(preproc_function_def name: (identifier) @name) @definition.function

(preproc_include) @import
