"""Starting git: the one place a git process is started (:mod:`agentmem.store.gitio` builds
every git call of agentmem on :func:`run`).

Standard library and :mod:`agentmem.errors` only: the hot path (docs/design/code.md §Hot path) asks
git for the identity (:func:`user_email`) without loading the git adapter.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence

from agentmem.errors import GitError

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any

    from agentmem.store.root import StrPath


def run(
    root: StrPath,
    args: Sequence[str],
    payload: str | bytes | None,
    env: dict[str, str] | None,
    text: bool,
) -> subprocess.CompletedProcess[Any]:
    """``git -C root args…`` with prompts off. Raises :class:`GitError` when git is missing.

    With no ``env`` and ``GIT_TERMINAL_PROMPT`` already in the environment (the console script
    sets it: ``agentmem.entry.main``), git inherits the environment as it is, which is the
    copy that would be passed: copying it cost each hot-path git call more than starting it."""
    full_env: dict[str, str] | None = None
    if env or "GIT_TERMINAL_PROMPT" not in os.environ:
        full_env = {**os.environ, **(env or {})}
        full_env.setdefault("GIT_TERMINAL_PROMPT", "0")
    try:
        return subprocess.run(
            ["git", "-C", os.fspath(root), *args],
            input=payload,
            capture_output=True,
            text=text,
            encoding="utf-8" if text else None,
            env=full_env,
            check=False,
        )
    except FileNotFoundError:
        raise GitError(
            "git is not installed or not on PATH", hint="install git 2.32 or newer"
        ) from None


def user_email(root: StrPath) -> str:
    """``user.email`` of whoever runs the command (one git process: what finds the actor)."""
    email: str = run(root, ["config", "user.email"], None, None, text=True).stdout.strip()
    if not email:
        raise GitError(
            "no git identity: user.email is not set",
            hint='git config user.email "you@example.com" (agentmem maps it to a person in roles.yaml)',
        )
    return email


def read_objects(root: StrPath, names: list[tuple[str, str]]) -> dict[str, bytes]:
    """``key → bytes`` of the git objects named (``(key, object name)``: a blob id or
    ``commit:path``), read in ONE ``git cat-file --batch``; a name git does not find is left
    out. Raises :class:`GitError` when git fails (not a repository, a broken object store):
    never an empty answer that would read as "absent"."""
    if not names:
        return {}
    payload = "".join(f"{name}\n" for _, name in names).encode("utf-8")
    proc = run(root, ["cat-file", "--batch"], payload, None, text=False)
    if proc.returncode != 0:
        said = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["?"])[-1]
        raise GitError(f"git cat-file failed: {said}", hint="check the repository with git fsck")
    out: bytes = proc.stdout
    found: dict[str, bytes] = {}
    at = 0
    for key, _name in names:
        end = out.find(b"\n", at)
        if end < 0:
            break
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3 or header[1] != b"blob":
            if len(header) == 3:
                at += int(header[2]) + 1
            continue
        size = int(header[2])
        found[key] = out[at : at + size]
        at += size + 1
    return found
