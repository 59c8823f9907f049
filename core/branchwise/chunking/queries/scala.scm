; Symbols of a Scala file. Objects are classes; abstract `def`s without a body appear in
; their type's outline.

(object_definition name: (identifier) @name) @definition.class
(class_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum

(function_definition name: (identifier) @name) @definition.function

(compilation_unit (import_declaration) @import)
