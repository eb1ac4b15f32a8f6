"""check: the server-side check a memory repository's CI runs (docs/design/check.md §Check).
The entry point: :func:`agentmem.check.run.run_check`."""
