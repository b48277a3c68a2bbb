; Definitions in a C++ file (Drake headers/sources, MuJoCo C++). Scope
; (namespaces, classes, templates) is worked out in verifier/facts/cfamily.py.
(function_definition) @function
(declaration) @declaration
(field_declaration) @field
(struct_specifier body: (_)) @struct
(class_specifier body: (_)) @class
(union_specifier body: (_)) @union
(enum_specifier body: (_)) @enum
(enumerator) @enumerator
(type_definition) @typedef
(alias_declaration) @typedef
(namespace_definition) @namespace
(preproc_def) @macro
(preproc_function_def) @macro
