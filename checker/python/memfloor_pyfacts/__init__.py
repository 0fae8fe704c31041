"""memfloor-check's Python front end: CPython's `ast` in, memfloor.facts/1 out (docs/checker.md)."""
