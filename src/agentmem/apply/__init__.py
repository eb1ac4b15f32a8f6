"""apply: accepted edits applied deterministically (docs/design/write-path.md §Write path)."""
