"""agentmem: a memory for AI agents that people can read, approve, correct and undo.

The package is layered (see AGENTS.md): ``agentmem.cli`` parses and renders; the domain modules
(``memory``, ``proposals``, ``harvest``, ``guard``, ``config``, ``errors`` …) hold the rules;
``agentmem.apply`` plans edits purely and writes them atomically; ``agentmem.store.gitio`` and
``agentmem.harvest.providers.anthropic_provider`` are the only modules that talk to git and to the model.
"""

__version__ = "0.1.0"
