; Calls in Python: `f(a)`, `self.f(a)`, `mod.sub.f(a)`.
(call
  function: (_) @callee
  arguments: (_) @args) @call
