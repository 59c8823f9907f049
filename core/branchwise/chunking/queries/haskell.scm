; Symbols of a Haskell module: top-level functions (a type signature and its equations are one
; chunk, clauses.py), `data`, `newtype`, `type` and type families; a class and an instance are
; containers of their methods. Functions local to another (`where`, `let`) are its own code:
; naming.py keeps the functions of a module, a class or an instance only.

(signature name: (variable) @name) @definition.function
(signature name: (prefix_id (operator) @name)) @definition.function
(signature names: (binding_list . (variable) @name)) @definition.function
(function name: (variable) @name) @definition.function
(function name: (prefix_id (operator) @name)) @definition.function
(function (infix operator: (_) @name)) @definition.function
(bind name: (variable) @name) @definition.function
(bind name: (prefix_id (operator) @name)) @definition.function

(declarations (data_type name: (name) @name) @definition.type)
(declarations (newtype name: (name) @name) @definition.type)
(declarations (type_synonym name: (name) @name) @definition.type)
(declarations (type_family name: (name) @name) @definition.type)
(declarations (data_family name: (name) @name) @definition.type)

(declarations (class name: (name) @name) @definition.class)
(declarations (instance name: [(name) (qualified)] @name) @definition.instance)
(declarations (deriving_instance name: [(name) (qualified)] @name) @definition.instance)

(imports (import) @import)
