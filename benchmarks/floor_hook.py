"""The floors of the hot path: a standard-library-only script doing each hot command's job, for
``bench_hook.py`` to run side by side with agentmem (not a test, not agentmem's code).

    python benchmarks/floor_hook.py start < payload.json   # what `hook session-start` does
    python benchmarks/floor_hook.py chat                   # what `context chat` does
    python benchmarks/floor_hook.py end < payload.json     # what `hook session-end` does

``start`` and ``chat``: find the repository (``$AGENTMEM_REPO``, else upward from the payload's
``cwd`` or the current folder, for ``agentmem.yaml``), read the git identity (``git config
user.email``), find the person with that e-mail in ``roles.yaml`` (read line by line), read
``memories/<person>.md`` and print its entries numbered under their sections, record markers
left out, inside the ``agentmem-memory`` tags. ``end``: read the payload, check its
``session_id``, append one JSON line to ``.agentmem/queue.jsonl`` with one ``write`` and an
``fsync``. No validation beyond that: a floor, not a replacement.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime


def _root(near: str | None) -> str:
    given = os.environ.get("AGENTMEM_REPO")
    if given:
        return os.path.realpath(given)
    start = os.path.realpath(near if near and os.path.isdir(near) else os.getcwd())
    folder = start
    while True:
        if os.path.isfile(os.path.join(folder, "agentmem.yaml")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            raise SystemExit(f"not a memory repository: {start}")
        folder = parent


def _person(root: str) -> str:
    email = subprocess.run(
        ["git", "-C", root, "config", "user.email"], capture_output=True, text=True
    ).stdout.strip()
    person = None
    with open(os.path.join(root, "roles.yaml"), encoding="utf-8") as roles:
        for line in roles:
            if line[:1].isalnum() and line.rstrip().endswith(":"):
                person = line.rstrip()[:-1]
            elif (
                line.strip().startswith("email:")
                and person
                and line.split(":", 1)[1].strip().lower() == email.lower()
            ):
                return person
    raise SystemExit(f"<{email}> is not in roles.yaml")


def _block(root: str, person: str) -> str:
    path = os.path.join(root, "memories", f"{person}.md")
    try:
        with open(path, encoding="utf-8") as memory:
            text = memory.read()
    except FileNotFoundError:
        text = ""
    lines = [f'<agentmem-memory person="{person}">', f"Remembered preferences of {person}"]
    number = 0
    for line in text.splitlines():
        if line.startswith("## "):
            lines += ["", f"{line[3:]}:"]
        elif line.startswith("- "):
            number += 1
            entry = line[2:].split(" <!-- am:", 1)[0]
            lines.append(f"{number}. {entry}")
    lines.append("</agentmem-memory>")
    return "\n".join(lines)


def main() -> None:
    mode = sys.argv[1]
    if mode == "chat":
        root = _root(None)
        print(_block(root, _person(root)))
        return
    payload = json.loads(sys.stdin.read())
    if mode == "start":
        root = _root(payload.get("cwd"))
        print(_block(root, _person(root))[:9999])
        return
    session = payload.get("session_id")
    if not isinstance(session, str) or not session:
        raise SystemExit("no session_id")
    root = _root(payload.get("cwd"))
    record = {
        "session_id": session,
        "transcript_path": payload.get("transcript_path"),
        "cwd": payload.get("cwd"),
        "reason": payload.get("reason"),
        "event": payload.get("hook_event_name"),
        "queued_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
    }
    folder = os.path.join(root, ".agentmem")
    os.makedirs(folder, exist_ok=True)
    line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    fd = os.open(os.path.join(folder, "queue.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)


if __name__ == "__main__":
    main()
