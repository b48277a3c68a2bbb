"""Claims: structured, checkable statements tied to lesson sentences."""
