"""``agentmem check``: not built yet (see the open issues)."""

from __future__ import annotations

import typer

app = typer.Typer()
