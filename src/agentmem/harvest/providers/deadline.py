"""The whole model call within ``harvest.timeout_s`` (docs/design/providers.md §Providers, §Write path
*Bounded work*): the SDK's timeout is per try and its retries add up (120 s × 3 tries plus
back-off was about 6 minutes against an API that never answers), so the call runs in a daemon
thread and the caller waits for it at most ``seconds``, retries included. Past the deadline the
client is closed (its connection dropped), the thread is left to end on its own (a daemon: it
never holds the process open) and the caller gets the provider's timeout error.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def within(
    seconds: float,
    call: Callable[[], T],
    expired: Callable[[], BaseException],
    cancel: Callable[[], object] | None = None,
) -> T:
    """``call()``'s value or exception, if it ends within ``seconds``; otherwise ``cancel()``
    (errors ignored) and raise ``expired()``."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread as it is
            box["error"] = exc

    worker = threading.Thread(target=run, name="agentmem-model-call", daemon=True)
    worker.start()
    worker.join(max(0.0, seconds))
    if worker.is_alive():
        if cancel is not None:
            with contextlib.suppress(Exception):  # the deadline's error is the one to report
                cancel()
        raise expired()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]
