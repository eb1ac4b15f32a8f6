"""Memory seeded through the real accept path: each entry filed as a proposal by a harvest and
accepted with ``agentmem review --accept``, so it carries its record (``<!-- am: … -->``)
exactly as an accept writes it. Tests that need entries use
this rather than a hand-written memory file, which has no records and hides what readers do
with them."""

from __future__ import annotations

import json
import secrets
import tempfile
from collections.abc import Iterable
from pathlib import Path

from tests.helpers import invoke
from typer.testing import CliRunner

import agentmem
from agentmem.config import MemoryConfig
from agentmem.memory.file import new_memory_text

Entries = Iterable[str | tuple[str | None, str] | tuple[str | None, str, str | None]]
"""Entry texts, ``(section, text)`` pairs or ``(section, text, scope)`` (a text alone goes to
the first section; a section None too; the scope, when given, is the entry's own)."""


def seed_memory(
    runner: CliRunner,
    entries: Entries,
    *,
    basis: str = "declared",
    scope: str | None = None,
    root: Path | None = None,
) -> str:
    """Accept ``entries`` into the actor's memory the way a session's are: ``agentmem harvest``
    of a session saying them, with the model's answer replayed (``--proposals``: one inbox
    commit per ``harvest.max_proposals`` entries, each an ``add`` with ``basis``), then
    ``agentmem review --accept`` of each in order (``--scope ID=SCOPE`` for an entry's scope,
    or ``scope`` for all). A text the harvest refuses as a repeat of another (what tidy looks
    for) gets in as a reviewer can let one in: another proposal, edited at review into it (an
    accept checks no repeats). The dates are today's (``AGENTMEM_TODAY``). Returns the memory
    file's text as the accepts left it. ``root``: the repository (default: the current
    folder, as the ``memrepo`` fixture sets it)."""
    mem = agentmem.open(root or Path.cwd())
    first = mem.repository.config.memory.sections[0]
    items = [_parts(item, scope) for item in entries]
    ids = _harvest(runner, [(s or first, text) for s, text, _ in items], basis, mem)
    reviews: list[list[str]] = [[]]  # in order: an edit is accepted after the accepts before it
    for (section, text, own), pid in zip(items, ids, strict=True):
        flags = ["--accept", pid] if pid else []
        if pid is None:
            _review(runner, reviews)
            pid = mem.propose_change(
                "add",
                text=f"Placeholder {secrets.token_hex(12)}.",
                section=section or first,
                justification="seeded through the accept path",
                session="seed",
                basis=basis,
            ).id
            flags = ["--edit", f"{pid}={text}"]
        reviews[-1] += flags + (["--scope", f"{pid}={own}"] if own else [])
        if flags[0] == "--edit":
            _review(runner, reviews)
    _review(runner, reviews)
    path = mem.repository.root / mem.repository.memory_relpath(mem.actor().id)
    return path.read_text(encoding="utf-8")


def _harvest(
    runner: CliRunner, items: list[tuple[str, str]], basis: str, mem: agentmem.Agentmem
) -> list[str | None]:
    """The proposal id of each ``(section, text)`` filed by a harvest, None for a repeat."""
    cap = mem.repository.config.harvest.max_proposals
    ids: list[str | None] = []
    for start in range(0, len(items), cap):
        chunk = items[start : start + cap]
        folder = Path(tempfile.mkdtemp(prefix="seed-"))
        answer = folder / "answer.json"
        answer.write_text(
            json.dumps(
                {
                    "proposals": [
                        {
                            "action": "add",
                            "basis": basis,
                            "section": section,
                            "text": text,
                            "justification": "seeded through the accept path",
                        }
                        for section, text in chunk
                    ]
                }
            ),
            encoding="utf-8",
        )
        session = folder / "session.md"
        said = " ".join(text for _, text in chunk)
        session.write_text(f"User: {said}\n\n(seed {secrets.token_hex(8)})\n", encoding="utf-8")
        result = invoke(
            runner, "harvest", str(session), "--proposals", str(answer), "--format", "json"
        )
        try:
            (done,) = json.loads(result.stdout)
        except ValueError:
            raise AssertionError(result.stderr) from None
        refused = {r["index"]: r["reason"] for r in done["rejected"]}
        others = [why for why in refused.values() if not why.startswith("repeats ")]
        assert not others and not done["cut"], (others, result.stderr)
        kept = iter(p["id"] for p in done["proposals"])
        ids += [None if n in refused else next(kept) for n in range(1, len(chunk) + 1)]
    return ids


def _parts(
    item: str | tuple[str | None, str] | tuple[str | None, str, str | None], scope: str | None
) -> tuple[str | None, str, str | None]:
    if isinstance(item, str):
        return None, item, scope
    if len(item) == 2:
        return item[0], item[1], scope
    return item[0], item[1], item[2]  # type: ignore[misc]


def _review(runner: CliRunner, reviews: list[list[str]]) -> None:
    """Run the review gathered last, if any, and start the next one."""
    if reviews[-1]:
        result = invoke(runner, "review", *reviews[-1])
        assert result.exit_code == 0, result.stderr
        reviews.append([])


def commit_by_owner(root: Path, *relpaths: str) -> None:
    """Commit hand-written memory files as their owners' own agentmem edits (the commit
    ``agentmem memory edit`` makes: the owner's identity and the audit trailers), so that the
    served view gives them (docs/design/served.md §Served view). For a test whose point is the file
    itself (a broken file, one from before records); anything else seeds through the accept
    path (:func:`seed_memory`)."""
    # lazy: only the tests that hand-write a memory file
    import os
    import subprocess

    import yaml

    from agentmem import trailers as tr

    roles = yaml.safe_load((root / "roles.yaml").read_text(encoding="utf-8")) or {}
    for relpath in relpaths:
        person = Path(relpath).stem
        found = roles.get(person) or {}
        email, role = found.get("email", f"{person}@example.com"), found.get("role", "member")
        message = tr.message(
            f"memory: edit {relpath}",
            [(tr.ACTION, "edit"), (tr.ACTOR, f"{person} <{email}>"), (tr.ROLE, role)],
        )
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": person,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": person,
            "GIT_COMMITTER_EMAIL": email,
        }
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", relpath],
            check=True, capture_output=True, text=True,
        ).stdout  # fmt: skip
        if not status.strip():
            continue
        for args in (["add", "-A", "--", relpath], ["commit", "-q", "-m", message, "--", relpath]):
            subprocess.run(
                ["git", "-C", str(root), *args], check=True, capture_output=True, env=env
            )


def memory_of_size(person: str, size: int) -> str:
    """A valid memory file of exactly ``size`` characters (entries of 80 characters)."""
    text = new_memory_text(person, MemoryConfig())
    entry = "- " + "Keep a collaborative tone with long-standing suppliers, always; " * 2
    entry = entry[:79] + "\n"
    while len(text) + len(entry) <= size:
        text += entry
    rest = size - len(text)
    if rest:
        assert rest >= 4, rest
        text += "- " + "x" * (rest - 3) + "\n"
    assert len(text) == size
    return text
