; Calls in C and C++: `f(a)`, `obj.f(a)`, `this->f(a)`, `ns::f(a)`, `f<T>(a)`.
(call_expression
  function: (_) @callee
  arguments: (argument_list) @args) @call
