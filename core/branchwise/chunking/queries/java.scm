; Symbols of a Java file. Abstract and interface methods without a body are not
; chunks; they appear in their type's outline.

(class_declaration name: (identifier) @name) @definition.class

(record_declaration name: (identifier) @name) @definition.class

(interface_declaration name: (identifier) @name) @definition.interface

(annotation_type_declaration name: (identifier) @name) @definition.interface

(enum_declaration name: (identifier) @name) @definition.enum

(method_declaration name: (identifier) @name body: (block)) @definition.method

(constructor_declaration name: (identifier) @name) @definition.method

(compact_constructor_declaration name: (identifier) @name) @definition.method

(program (import_declaration) @import)
