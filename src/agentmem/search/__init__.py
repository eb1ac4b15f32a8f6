"""search: ranked keyword search over what the actor may read (docs/design/search.md §Recall).
The query: :mod:`agentmem.search.query`; the derived FTS5 index: :mod:`agentmem.search.index`."""
