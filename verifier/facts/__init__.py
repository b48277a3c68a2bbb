"""Fact extraction from pinned upstream source (static: tree-sitter, libclang, ast)."""
