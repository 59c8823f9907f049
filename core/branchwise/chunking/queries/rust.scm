; Symbols of a Rust file. `impl` blocks and inline `mod` blocks are not chunks:
; they only qualify the names inside them (@scope.*). Items inside a macro call that wraps
; them (`cfg_rt! { ... }`) are seen through item_macros.py.

(function_item name: (identifier) @name) @definition.function

(struct_item name: (type_identifier) @name) @definition.struct

(union_item name: (type_identifier) @name) @definition.struct

(enum_item name: (type_identifier) @name) @definition.enum

(trait_item name: (type_identifier) @name) @definition.trait

; `type X = ...` at file or module level; an impl's `type Ok = ...;` is a line of its impl
(source_file (type_item name: (type_identifier) @name) @definition.type)
(mod_item body: (declaration_list (type_item name: (type_identifier) @name) @definition.type))

; `macro_rules! select { ... }`: called like a function, documented like one
(macro_definition name: (identifier) @name) @definition.macro

(source_file (const_item name: (identifier) @name) @definition.constant)
(source_file (static_item name: (identifier) @name) @definition.constant)
(declaration_list (const_item name: (identifier) @name) @definition.constant)
(declaration_list (static_item name: (identifier) @name) @definition.constant)

(impl_item type: (_) @name) @scope.impl

(mod_item name: (identifier) @name body: (declaration_list)) @scope.module

(source_file (use_declaration) @import)
(source_file (extern_crate_declaration) @import)
