; Symbols of a PHP file. Namespaces are not part of names (`namespace Slim\Routing;` is a
; statement, not a scope). Abstract and interface methods appear in their type's outline.

(class_declaration name: (name) @name) @definition.class
(trait_declaration name: (name) @name) @definition.trait
(interface_declaration name: (name) @name) @definition.interface
(enum_declaration name: (name) @name) @definition.enum

(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name body: (compound_statement)) @definition.method

(namespace_use_declaration) @import
