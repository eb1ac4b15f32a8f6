"""``agentmem scope map FOLDER S`` and the mapping ``harvest --scope S`` offers (docs/design/settings.md
§Settings, §Context; docs/decisions/0087): sessions started in FOLDER, or below it, get scope S, so the
SessionStart hook gives them the entries scoped S.

The map is ``scopes:`` in ``agentmem.yaml``; each mapping is ONE audited commit of that file
(``Agentmem-Action: map-scope``). Adding a folder not mapped yet is
:data:`agentmem.governance.MAP_SCOPE` (a member or an admin: it only decides which of each
person's own entries a session there is given); changing the scope of a folder already mapped
is a settings change (an admin, ``--replace``). ``check --history`` judges the commit the same
way (:func:`agentmem.doctrine.settings.adds_folders_only`). An agent cannot run it
(:data:`agentmem.governance.PERSON_ONLY`): the person says yes, on a terminal or by typing the
command.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PureWindowsPath
from typing import Any

from agentmem import governance as gov
from agentmem import guard
from agentmem import trailers as tr
from agentmem.apply.change import FileChange
from agentmem.apply.writer import apply_changes
from agentmem.config import CONFIG_FILE, parse_config
from agentmem.delivery.folders import folder_key, resolved_folder, scope_for_folder
from agentmem.doctrine.lifecycle import signing_wanted
from agentmem.errors import UsageError
from agentmem.proposals.ids import check_scope, check_session
from agentmem.store.repo import Person, Repository
from agentmem.store.yamlio import load_yaml_text
from agentmem.tidy.retire import committed_settings, settings_with

SCOPES_KEY = "scopes"
#: The longest folder written into the map (a path, not a document).
FOLDER_MAX_CHARS = 400


@dataclass(frozen=True)
class Mapped:
    """What a mapping did: ``folder`` as written in ``scopes:``, its ``scope``, the scope it had
    before (``previous``: None when it was not mapped), and the ``commit`` (None: the folder
    already had that scope, nothing was written)."""

    folder: str
    scope: str
    previous: str | None
    commit: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "folder": self.folder,
            "scope": self.scope,
            "previous": self.previous,
            "commit": self.commit,
        }


def map_key(repo: Repository, folder: str) -> str:
    """``folder`` (absolute, ``~/…``, or relative to the current folder) as the map writes it
    (:func:`agentmem.delivery.folders.folder_key`). Raises :class:`UsageError` for an empty
    folder, one with control characters, one longer than :data:`FOLDER_MAX_CHARS`, one the
    guard refuses (never echoed), or a path of another system."""
    text = folder.strip()
    if not text or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise UsageError("the folder is empty or holds control characters (value not shown)")
    if len(text) > FOLDER_MAX_CHARS:
        raise UsageError(f"the folder is longer than {FOLDER_MAX_CHARS} characters")
    codes = sorted({f.code for f in guard.scan(text, kind="entry") if f.severity == guard.ERROR})
    if codes:
        raise UsageError(
            f"the folder is refused by the guard ({', '.join(codes)}; value not shown)"
        )
    path = Path(text).expanduser()
    other = not path.is_absolute() and PureWindowsPath(text).drive  # C:\… read on Linux
    key = (
        None
        if other
        else folder_key(str(path if path.is_absolute() else Path.cwd() / path), repo.root)
    )
    if key is None:
        raise UsageError(
            "the folder is not a path of this system (a session recorded on another one?)",
            hint="map the folder as this machine names it: agentmem scope map FOLDER SCOPE",
        )
    return key


def mapped_scope(repo: Repository, key: str) -> str | None:
    """The scope ``scopes:`` gives the folder ``key`` itself (a mapping of that very folder,
    however it is written there), or None."""
    target = _resolved(repo.root, key)
    for mapped, scope in repo.config.scopes:
        if _resolved(repo.root, mapped) == target:
            return scope
    return None


def _resolved(root: Path, folder: str) -> Path:
    return Path(resolved_folder(folder, root))


def session_scope_here(repo: Repository, key: str) -> str | None:
    """The scope a session started in ``key`` gets from the map now (the longest mapped folder
    holding it)."""
    return scope_for_folder(repo.config.scopes, str(_resolved(repo.root, key)), repo.root)


def map_folder(
    repo: Repository,
    actor: Person,
    key: str,
    scope: str,
    *,
    replace: bool = False,
    session: str | None = None,
) -> Mapped:
    """Map the folder ``key`` (:func:`map_key`) to ``scope`` in ``agentmem.yaml``: ONE audited
    commit (``session``: the harvested session that ran there, as ``Agentmem-Session``).
    Caller holds the lock.

    Raises :class:`GovernanceError` (a user; a member changing a mapping), :class:`UsageError`
    (an invalid scope, a folder mapped to another scope without ``replace``, uncommitted
    settings), :class:`ConfigError` when the settings would not read back."""
    gov.require(actor, gov.MAP_SCOPE, "mapping a folder to a scope")
    clean = check_scope(scope, "scope")
    if clean is None:
        raise UsageError("scope map needs a scope such as contracts/supply")
    previous = mapped_scope(repo, key)
    if previous == clean:
        return Mapped(key, clean, previous, None)
    written = key
    if previous is not None:
        if not replace:
            raise UsageError(
                f"{key} is already mapped to {previous} in {CONFIG_FILE}",
                hint=f"agentmem scope map {key} {clean} --replace (an admin) changes it",
            )
        gov.require(actor, gov.SETTINGS, f"changing the scope of {key}")
        written = next(
            m for m, _ in repo.config.scopes if _resolved(repo.root, m) == _resolved(repo.root, key)
        )
    old = committed_settings(repo)
    new = settings_with(old, SCOPES_KEY, written, clean, "project folders to scopes")
    parse_config(load_yaml_text(new, CONFIG_FILE), CONFIG_FILE)  # reads back, or refuses
    why = f"sessions started in {written} get scope {clean}" + (
        f" (was {previous})" if previous else ""
    )
    trailers = [(tr.ACTION, gov.MAP_SCOPE), *tr.audit(actor), (tr.SCOPE, clean)]
    if session is not None:
        trailers.append((tr.SESSION, check_session(session, "session")))
    trailers.append((tr.JUSTIFICATION, why))
    message = tr.message(f"scopes: {written} -> {clean}", trailers)
    change = FileChange(CONFIG_FILE, old or None, new)
    commit = apply_changes(repo.root, [change], message, sign=signing_wanted(repo))
    return Mapped(written, clean, previous, commit)
