"""A chat agent that embeds agentmem through its Python API, offline (no API key, no network).

    python examples/chat_agent.py

It creates a throw-away memory repository for Claire, then:

1. answers a first conversation with her approved memory injected in the system prompt (empty
   at first), filing what she asks it to remember as a pending proposal (``remember``);
2. at the end of the conversation, harvests it (``harvest``, offline provider): the explicit
   requests become proposals too;
3. shows the inbox (``pending``); Claire accepts with ``agentmem review --accept all`` (review is
   the person's, never the application's);
4. answers a second conversation: this time the system prompt holds her memory.

The "model" here is a stand-in that repeats what it was told; a real agent would send
``system`` and ``messages`` to its model.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import agentmem

FIRST_CONVERSATION = [
    "Please review the warranty clause of the Acme supply contract.",
    "Remember that I always want the clause number quoted first.",
    "From now on, keep each finding to two sentences.",
]
SECOND_CONVERSATION = ["Review the liability cap of the same contract."]


def fake_model(system: str, messages: list[dict[str, str]]) -> str:
    """Stands in for a model call: says how much memory it was given."""
    entries = len(re.findall(r"^\d+\. ", system, flags=re.M))
    return f"(model answer, with {entries} remembered preference(s) in its prompt)"


def converse(mem: agentmem.api.Agentmem, prompts: list[str]) -> list[dict[str, str]]:
    """One conversation: memory injected, explicit "remember that …" filed at once."""
    system = "You review contracts.\n\n" + mem.chat_context(scope="contracts/supply")
    messages: list[dict[str, str]] = []
    for prompt in prompts:
        messages.append({"role": "user", "content": prompt})
        match = re.match(r"(?i)remember that (.+)", prompt)
        if match:
            wanted = match.group(1).rstrip(".")
            pid = mem.remember(wanted[0].upper() + wanted[1:] + ".", section="Writing style")
            print(f"  filed {pid}: {wanted}")
        answer = fake_model(system, messages)
        messages.append({"role": "assistant", "content": answer})
        print(f"  user: {prompt}\n  agent: {answer}")
    return messages


def main(workdir: Path | None = None) -> Path:
    """Run the whole example in ``workdir`` (default: a new temporary folder); returns the
    memory repository's folder."""
    root = (workdir or Path(tempfile.mkdtemp())) / "claire-memory"
    root.mkdir(parents=True)
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "config", "user.name", "Claire Martin"], check=True)
    subprocess.run([*git, "config", "user.email", "claire@example.com"], check=True)
    agentmem_cli = [sys.executable, "-m", "agentmem"]
    subprocess.run([*agentmem_cli, "init", str(root)], check=True, capture_output=True)

    mem = agentmem.open(root)
    print("== First conversation")
    messages = converse(mem, FIRST_CONVERSATION)

    print("== Harvest of the finished conversation (offline)")
    result = mem.harvest(messages, provider="offline", scope="contracts/supply")
    for proposal in result.kept:
        print(f"  kept {proposal.id}: {proposal.summary()}")
    for rejection in result.rejected:
        print(f"  not kept: {rejection.reason}")

    print("== Claire's inbox")
    for proposal in mem.pending():
        print(f"  {proposal.id}  {proposal.summary()}")

    print("== Claire reviews (agentmem review --accept all)")
    subprocess.run(
        [*agentmem_cli, "--repo", str(root), "review", "--accept", "all"],
        check=True,
        capture_output=True,
    )

    print("== Second conversation")
    converse(mem, SECOND_CONVERSATION)
    return root


if __name__ == "__main__":
    main()
