"""Memory seeded through the real accept path: each entry filed as a proposal (as ``remember``,
the API or a harvest file it) and accepted with ``agentmem review --accept``, so it carries
its record (``<!-- am: … -->``) exactly as an accept writes it. Tests that need entries use
this rather than a hand-written memory file, which has no records and hides what readers do
with them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tests.helpers import invoke
from typer.testing import CliRunner

import agentmem

Entries = Iterable[str | tuple[str, str]]
"""Entry texts, or ``(section, text)`` pairs (a text alone goes to the first section)."""


def seed_memory(
    runner: CliRunner,
    entries: Entries,
    *,
    basis: str = "declared",
    scope: str | None = None,
    root: Path | None = None,
) -> str:
    """File each entry as a memory ``add`` of the actor (``basis``; the API's path, the one
    ``remember`` takes for ``declared``), then accept them all with ``agentmem review
    --accept`` (``--scope ID=SCOPE`` for each when ``scope`` is given). Returns the memory
    file's text as the accept left it. ``root``: the repository (default: the current folder,
    as the ``memrepo`` fixture sets it)."""
    mem = agentmem.open(root or Path.cwd())
    ids = []
    for item in entries:
        section, text = item if isinstance(item, tuple) else (None, item)
        proposal = mem.propose_change(
            "add",
            text=text,
            section=section or mem.repository.config.memory.sections[0],
            justification="seeded through the accept path",
            session="seed",
            source="remember" if basis == "declared" else "api",
            basis=basis,
        )
        ids.append(proposal.id)
    args = ["review"]
    for pid in ids:
        args += ["--scope", f"{pid}={scope}"] if scope else ["--accept", pid]
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.stderr
    actor = mem.actor().id
    path = mem.repository.root / mem.repository.memory_relpath(actor)
    return path.read_text(encoding="utf-8")
