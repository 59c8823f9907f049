; Functions assigned to an object's property, or bound to a name by a call that wraps them, at
; the top level of a JavaScript or TypeScript module (both grammars read it, grammars.py).

; Top-level `res.send = function send() {...}`, `exports.f = () => ...`,
; `Foo.prototype.bar = function`: methods of the object they are assigned to (naming.py).
(program
  (expression_statement
    (assignment_expression
      left: (member_expression object: (_) @name.object property: (property_identifier) @name)
      right: [(arrow_function) (function_expression) (generator_function)]) @definition.method))

; `res.set = res.header = function header() {...}`: named by the last object it is assigned to
(program
  (expression_statement
    (assignment_expression
      right: (assignment_expression
        left: (member_expression object: (_) @name.object property: (property_identifier) @name)
        right: [(arrow_function) (function_expression) (generator_function)])) @definition.method))

; Top-level `export const $ZodString = core.$constructor("$ZodString", (inst, def) => {...})`,
; `const Button = forwardRef((props, ref) => ...)`: a function made by wrapping one
(program
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (call_expression
        arguments: (arguments [(arrow_function) (function_expression)]))) @definition.function))
(program
  (export_statement
    (lexical_declaration
      (variable_declarator
        name: (identifier) @name
        value: (call_expression
          arguments: (arguments [(arrow_function) (function_expression)]))) @definition.function)))

; Top-level `defineGetter(req, 'fresh', function () {...})`: a function a call installs on an
; object under a name is that object's method (express's request getters)
(program
  (expression_statement
    (call_expression
      arguments: (arguments . (identifier) @name.object . (string (string_fragment) @name)
        . [(function_expression) (arrow_function)])) @definition.method)
  (#match? @name "^[A-Za-z_$][A-Za-z0-9_$]*$"))
