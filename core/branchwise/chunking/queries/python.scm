; Symbols of a Python module. Captures: @definition.<symbol kind> with @name,
; @import for module-level imports. A function nested in a class becomes a method.

(function_definition name: (identifier) @name) @definition.function

(class_definition name: (identifier) @name) @definition.class

(module
  (type_alias_statement left: (type (identifier) @name)) @definition.type)

; `PositiveInt = Annotated[int, Gt(0)]`, `Handler = Callable[[Request], Response]`: a type alias
; written the way it was before `type X = ...`, a capitalised name bound to a subscripted type.
(module
  (expression_statement
    (assignment left: (identifier) @name right: (subscript))) @definition.type
  (#match? @name "^_*[A-Z][a-z][A-Za-z0-9]*$"))
; Module-level UPPER_CASE assignments are constants / config blocks.
(module
  (expression_statement
    (assignment left: (identifier) @name)) @definition.constant
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))

; Module-level objects bound to a name: a table, a registry, a proxy (`REGISTRY = {...}`,
; `request: Request = LocalProxy(...)`), not a plain value (`x = 1`) nor a dunder (`__all__`).
(module
  (expression_statement
    (assignment
      left: (identifier) @name
      right: [(call) (dictionary) (list) (set) (tuple)
              (dictionary_comprehension) (list_comprehension) (set_comprehension)])) @definition.constant
  (#not-match? @name "^__.*__$"))

(module (import_statement) @import)
(module (import_from_statement) @import)
(module (future_import_statement) @import)
