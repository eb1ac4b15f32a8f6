"""Harvest providers (docs/design/providers.md §Providers): ``offline``, ``replay``, ``anthropic``
and ``openai``. What each takes and returns: :mod:`agentmem.harvest.providers.request`."""
