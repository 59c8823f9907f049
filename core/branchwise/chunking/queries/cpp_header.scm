; Prototypes outside classes in a C++ header are symbols of their own (added to cpp.scm for
; headers); member prototypes stay in their class's outline.

(translation_unit
  (declaration declarator: (function_declarator declarator: (_) @name)) @definition.function)
(translation_unit
  (declaration declarator: (_ (function_declarator declarator: (_) @name))) @definition.function)
(declaration_list
  (declaration declarator: (function_declarator declarator: (_) @name)) @definition.function)
(declaration_list
  (declaration declarator: (_ (function_declarator declarator: (_) @name))) @definition.function)
(template_declaration
  (declaration declarator: (function_declarator declarator: (_) @name)) @definition.function)
(template_declaration
  (declaration declarator: (_ (function_declarator declarator: (_) @name))) @definition.function)
(preproc_ifdef
  (declaration declarator: (function_declarator declarator: (_) @name)) @definition.function)
(preproc_if
  (declaration declarator: (function_declarator declarator: (_) @name)) @definition.function)
(preproc_else
  (declaration declarator: (function_declarator declarator: (_) @name)) @definition.function)
