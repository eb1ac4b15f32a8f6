"""erase: a person or a text removed from the tree and from history (docs/design/sync.md §Sync)."""
