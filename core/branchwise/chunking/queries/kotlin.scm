; Symbols of a Kotlin file. `object` and companion objects are classes (a companion without
; a name is `Companion`); an extension function is named after its receiver
; (`fun String.foo()` -> `String.foo`, naming.py). Member functions without a body
; (interface, abstract, `expect` members) appear in their type's outline; a top-level
; `expect fun` without a body is a function.
; Patterns earlier in this file win when two capture the same node.

(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration name: (identifier) @name (enum_class_body)) @definition.enum
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(companion_object "companion" @name) @definition.class

(function_declaration name: (identifier) @name (function_body)) @definition.function
(source_file (function_declaration name: (identifier) @name) @definition.function)
(secondary_constructor "constructor" @name) @definition.method

(type_alias type: (identifier) @name) @definition.type

(source_file (import) @import)
