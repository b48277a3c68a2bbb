; Function definitions in C and C++ (flow extraction: call_order, branch, cases,
; expression, text). The name is read from the declarator in Python because
; declarators nest (pointer/reference/qualified/template).
(function_definition
  declarator: (_) @declarator
  body: (compound_statement) @body) @function
