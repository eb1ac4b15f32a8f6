"""Whether a decision commit is signed (docs/design/settings.md §Settings, §Trust boundary).

A commit is signed when git has a key (``user.signingkey``; with ``gpg.format ssh`` an SSH
key, a FIDO ``sk-`` key asking for a touch). Without one, a commit that must be signed is
refused before anything is written: an activation under ``doctrine.require_signed``, any
decision under ``signing.decisions: required``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentmem.errors import GovernanceError
from agentmem.store import gitio

if TYPE_CHECKING:
    from agentmem.store.repo import Repository

_HINT = "git config user.signingkey <key> (with gpg.format ssh for an SSH key), then retry"


def signing_wanted(repo: Repository, *, activation: bool = False) -> bool:
    """True when the decision commit about to be made is signed (a key is configured); False
    when it is not and may be unsigned. ``activation``: an approval, a resume, a reconfirmation
    or a settings change (``doctrine.require_signed`` asks for a signature on those). Raises
    :class:`GovernanceError` when a signature is required and git has no key."""
    key = gitio.run_git(repo.root, ["config", "user.signingkey"], check=False).stdout.strip()
    if key:
        return True
    if activation and repo.config.doctrine.require_signed:
        raise GovernanceError(
            "doctrine.require_signed is true but git has no signing key (user.signingkey)",
            hint=_HINT,
        )
    if repo.config.signing.decisions == "required":
        raise GovernanceError(
            "signing.decisions is required: a decision is a signed commit, and git has no "
            "signing key (user.signingkey)",
            hint=_HINT,
        )
    return False
