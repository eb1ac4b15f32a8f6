"""``agentmem install-server-hook PATH`` (docs/design/check.md §Check): the server gate as a ready
``hooks/pre-receive`` of a bare repository, calling the agentmem that installs it
(``<python> -m agentmem check --pre-receive``: the same interpreter and packages, whatever the
server's ``PATH``)."""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from agentmem.errors import AgentmemError, UsageError
from agentmem.store.atomic import atomic_write
from agentmem.store.gitio import run_git

MARKER = "# agentmem server gate (agentmem install-server-hook)"
"""The line that tells agentmem's own hook from a foreign one (replaced without ``--force``)."""


class ForeignHookError(AgentmemError):
    """The repository already has a pre-receive hook agentmem did not write (exit 1)."""


@dataclass(frozen=True)
class Installed:
    """Where the hook went, what it runs, and whether it replaced one (``replaced``: ``""``,
    ``"agentmem"`` or ``"foreign"``)."""

    path: Path
    command: str
    replaced: str


def hook_script(python: str | None = None) -> str:
    """The hook's text: ``python -m agentmem check --pre-receive`` with git's lines on stdin."""
    command = f"{shlex.quote(python or sys.executable)} -m agentmem check --pre-receive"
    return (
        "#!/bin/sh\n"
        f"{MARKER}\n"
        "# Every push is judged before any ref moves: memory changed outside its owner's accept,\n"
        "# doctrine activated by a non-admin or by its proposer, erased history or values coming\n"
        "# back, unsigned decisions under signing.decisions: required. Exit 1 refuses the push.\n"
        f"exec {command}\n"
    )


def install_server_hook(path: Path, *, force: bool = False) -> Installed:
    """Write ``hooks/pre-receive`` (mode 0755) into the bare repository ``path``. Raises
    :class:`UsageError` when ``path`` is no bare git repository, :class:`ForeignHookError`
    when a pre-receive hook agentmem did not write is there and ``force`` is False."""
    if not path.is_dir():
        raise UsageError(f"{path}: no such folder", hint="give the path of a bare repository")
    proc = run_git(path, ["rev-parse", "--is-bare-repository"], check=False)
    if proc.returncode != 0:
        raise UsageError(
            f"{path}: not a git repository",
            hint="give the path of the team's bare repository (git init --bare)",
        )
    if proc.stdout.strip() != "true":
        raise UsageError(
            f"{path}: not a bare repository (it has a work tree)",
            hint="install the hook on the server's bare repository, the one people push to; "
            "a clone is checked with agentmem check --history",
        )
    gdir = Path(run_git(path, ["rev-parse", "--absolute-git-dir"]).stdout.strip())
    hooks = run_git(path, ["config", "--get", "core.hooksPath"], check=False).stdout.strip()
    folder = (gdir / hooks) if hooks else gdir / "hooks"
    target = folder / "pre-receive"
    replaced = ""
    if target.exists() or target.is_symlink():
        try:
            ours = MARKER in target.read_text(encoding="utf-8", errors="replace")
        except OSError:
            ours = False
        replaced = "agentmem" if ours else "foreign"
        if not ours and not force:
            raise ForeignHookError(
                f"{target}: a pre-receive hook is already there, not written by agentmem",
                hint="call 'python -m agentmem check --pre-receive' from it (git's lines on "
                "stdin, exit 1 refuses), or replace it with agentmem install-server-hook "
                f"{shlex.quote(str(path))} --force",
            )
        if target.is_symlink():
            target.unlink()
    script = hook_script()
    atomic_write(target, script)
    os.chmod(target, 0o755)
    return Installed(target, script.rstrip("\n").rpartition("exec ")[2], replaced)
