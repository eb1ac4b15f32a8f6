"""Hygiene and housekeeping (docs/design/search.md §Recall): ``agentmem tidy`` (``tidy.hygiene``),
``scope retire`` (``tidy.retire``), ``scope map`` (``tidy.scopemap``) and ``stats``
(``tidy.stats``). A plain namespace: import the module you need."""

__all__: list[str] = []
