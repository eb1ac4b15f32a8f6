"""Helpers shared by the command modules: opening the repository, resolving the person."""

from __future__ import annotations

from typing import Annotated

import typer

from agentmem import governance
from agentmem.cli.output import Format
from agentmem.store.repo import Person, Repository, open_repository

PersonOption = Annotated[
    str | None,
    typer.Option(
        "--person",
        "-p",
        help="Whose memory (default: you, from your git identity).",
        show_default=False,
    ),
]
FormatOption = Annotated[
    Format, typer.Option("--format", "-f", help="text for people, json for programs.")
]


def repository() -> Repository:
    """The memory repository of this command (``--repo``, ``$AGENTMEM_REPO`` or found upward)."""
    return open_repository()


def actor_and_person(repo: Repository, person: str | None) -> tuple[Person, str]:
    """The actor (git identity → roles.yaml) and the person whose memory or inbox the command
    reads. Raises :class:`~agentmem.errors.GovernanceError` when the actor is neither that
    person nor an admin (docs/design/governance.md §Roles: an admin may read anyone's memory), UsageError for
    an unknown person."""

    actor = repo.actor()
    target = person or actor.id
    if person:
        repo.person(person)
        governance.require_read(
            actor,
            person,
            f"{person}'s memory and inbox are",
            "ask them, or an admin, to share what you need",
        )
    return actor, target
