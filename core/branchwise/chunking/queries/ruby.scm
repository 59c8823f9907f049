; Symbols of a Ruby file. Modules only qualify the names inside them (`Sinatra.Base.call`);
; `def self.x` is `Class.self.x`; a block passed to a DSL call that defines behaviour
; (Sinatra routes and filters, test blocks) is a function named by the call and its first
; argument (`get '/'`, naming.py).

(class name: (_) @name) @definition.class
(module name: (_) @name) @scope.module

(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function

(call
  method: (identifier) @name
  arguments: (argument_list . (_) @name.argument)?
  block: [(do_block) (block)]
  (#match? @name "^(get|post|put|patch|delete|head|options|link|unlink|route|before|after|helpers|configure|error|not_found|describe|context|it|specify|test|setup|teardown|let|subject|shared_examples)$")) @definition.function

(program
  (call method: (identifier) @_require) @import
  (#match? @_require "^(require|require_relative|load|autoload)$"))
