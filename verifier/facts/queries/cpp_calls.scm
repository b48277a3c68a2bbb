; Calls in a C++ file, for names declared by string literals (verifier/facts/cpp.py,
; cfamily.py): pybind11 chains (`.def("AddToDiagram", ...)`, `py::class_<X>(m, "X")`)
; and Drake port declarations (`DeclareVectorInputPort("u", ...)`).
(call_expression
  function: (_) @callee
  arguments: (argument_list) @args) @call
; `py::class_<X> cls(m, "Name", ...)`: a variable constructed with arguments
(init_declarator
  value: (argument_list)) @ctor
