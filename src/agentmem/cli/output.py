"""All terminal output goes through here (STYLE §8): stdout is data, stderr is everything else."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from rich.console import Console
from rich.markup import escape


class Format(StrEnum):
    """``--format`` of listings: a table for people, JSON for programs (SPEC §6)."""

    text = "text"
    json = "json"


def _no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


def stdout() -> Console:
    return Console(highlight=False, no_color=_no_color(), soft_wrap=True)


def stderr() -> Console:
    return Console(stderr=True, highlight=False, no_color=_no_color(), soft_wrap=True)


def data(text: str = "") -> None:
    """Plain data on stdout (no markup interpretation)."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def as_json(items: Iterable[dict[str, Any]] | dict[str, Any]) -> None:
    """A JSON document on stdout: listings are arrays of objects with SPEC field names."""
    value = items if isinstance(items, dict) else list(items)
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
    sys.stdout.flush()


def info(message: str) -> None:
    """A human message on stderr; ``message`` is rich markup, escape data with :func:`esc`."""
    stderr().print(message)


def warn(message: str) -> None:
    stderr().print(f"[yellow]warning:[/] {message}")


def error(message: str) -> None:
    stderr().print(f"[bold red]error:[/] {escape(message)}")


def esc(value: object) -> str:
    """Escape a value for rich markup (entries may contain ``[brackets]``)."""
    return escape(str(value))
