; Symbols of a Swift file. `extension Session` is a chunk named `extension Session` whose
; members are named after the extended type (`Session.request`, naming.py); protocols are
; interfaces. Protocol requirements without a body appear in the protocol's outline.

(class_declaration declaration_kind: "struct" name: (_) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (_) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (_) @name) @definition.extension
(class_declaration name: (_) @name) @definition.class
(protocol_declaration name: (_) @name) @definition.interface

; `@named`: the name is the node's `name` field. Spelt as a field pattern, this one pattern took
; tree-sitter a quarter of a second to compile, in every process that reads Swift.
(function_declaration) @definition.function @named
(init_declaration "init" @name) @definition.method
(deinit_declaration "deinit" @name) @definition.method
(subscript_declaration "subscript" @name) @definition.method

(typealias_declaration name: (_) @name) @definition.type

(source_file (import_declaration) @import)
