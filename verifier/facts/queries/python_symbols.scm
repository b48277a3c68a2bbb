; Names a Python module binds (verifier/facts/symbols.py).
(function_definition name: (identifier) @function)
(class_definition name: (identifier) @class)
(assignment left: (identifier) @attribute)
(assignment left: (attribute object: (identifier) @self attribute: (identifier) @self_attribute) (#eq? @self "self"))
(import_from_statement) @import_from
(import_statement) @import
