; Drake port declarations (`DeclareVectorInputPort("u", ...)`, `this->DeclareAbstractOutputPort`),
; for the port names a system declares by string literal (verifier/facts/cfamily.py). The
; predicate keeps only calls whose callee text names a `Declare...Port` function, so the
; walk over the calls of a file happens in tree-sitter; cfamily.py still checks the callee's
; short name exactly (`^Declare\w*Port$`).
(call_expression
  function: (_) @callee
  (#match? @callee "Declare[A-Za-z0-9_]*Port")
  arguments: (argument_list) @args) @call
