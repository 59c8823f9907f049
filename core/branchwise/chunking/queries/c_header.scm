; Prototypes in a C header are symbols of their own (added to c.scm for `.h` files): a
; prototype in `cJSON.h` and its definition in `cJSON.c` share a name and kind, in two paths.

(translation_unit
  (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(translation_unit
  (declaration declarator: (_ declarator: (function_declarator declarator: (identifier) @name))) @definition.function)
(preproc_ifdef
  (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(preproc_ifdef
  (declaration declarator: (_ declarator: (function_declarator declarator: (identifier) @name))) @definition.function)
(preproc_if
  (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(preproc_if
  (declaration declarator: (_ declarator: (function_declarator declarator: (identifier) @name))) @definition.function)
(preproc_else
  (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(preproc_else
  (declaration declarator: (_ declarator: (function_declarator declarator: (identifier) @name))) @definition.function)
(declaration_list
  (declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function)
(declaration_list
  (declaration declarator: (_ declarator: (function_declarator declarator: (identifier) @name))) @definition.function)
