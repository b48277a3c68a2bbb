; Definitions in a C file (MuJoCo headers and sources). Scope and names are
; worked out in verifier/facts/cfamily.py from each captured node.
(function_definition) @function
(declaration) @declaration
(field_declaration) @field
(struct_specifier name: (_) body: (_)) @struct
(struct_specifier body: (_)) @struct
(union_specifier body: (_)) @union
(enum_specifier body: (_)) @enum
(enumerator) @enumerator
(type_definition) @typedef
(preproc_def) @macro
(preproc_function_def) @macro
