"""Warnings the domain gives whoever runs it: a command line prints them as ``warning: …``
lines on stderr, an application embedding agentmem gets them from the standard ``logging``
logger ``agentmem`` (docs/design/code.md §Packages).

:func:`warn` hands a warning to the sink a front end installed (:func:`send_to`: the CLI's
``output.warn``), and only without one loads ``logging``: importing it costs a command about
2.5 % of the typer floor, and a command gives a warning rarely. Standard library only.
"""

from __future__ import annotations

from collections.abc import Callable

_SINK: list[Callable[[str], None]] = []
_PROGRESS: list[Callable[[str], None]] = []


def send_to(sink: Callable[[str], None]) -> None:
    """Give every later warning of this process to ``sink`` (the text as written, unescaped)."""
    _SINK[:] = [sink]


def warn(message: str, source: str = "agentmem") -> None:
    """A warning for whoever runs agentmem: to the installed sink, else to the ``logging``
    logger ``source`` (``agentmem`` or one of its children) at level WARNING."""
    if _SINK:
        _SINK[0](message)
        return
    # lazy: logging loads only when a warning is given without a front end's sink
    import logging

    logging.getLogger(source).warning("%s", message)


def progress_to(sink: Callable[[str], None]) -> None:
    """Give every later progress line of this process to ``sink`` (the CLI: stderr)."""
    _PROGRESS[:] = [sink]


def progress(message: str, source: str = "agentmem") -> None:
    """A progress line of a long step (``reading 100,000 rule files: 10,000…``): to the
    installed sink, else to the ``logging`` logger ``source`` at level INFO."""
    if _PROGRESS:
        _PROGRESS[0](message)
        return
    # lazy: logging loads only when progress is given without a front end's sink
    import logging

    logging.getLogger(source).info("%s", message)
