; pybind11 bindings: a call whose first string-literal argument names a Python
; attribute (`.def("AddToDiagram", ...)`, `py::class_<X>(m, "X")`).
(call_expression
  function: (_) @callee
  arguments: (argument_list) @args) @call
