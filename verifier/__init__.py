"""verifier: keeps source-level course text honest against pinned upstream code."""

__version__ = "0.1.0"
