; Function definitions in Python (flow extraction).
(function_definition
  name: (identifier) @name
  body: (block) @body) @function
