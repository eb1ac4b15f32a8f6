"""``agentmem hook pre-tool-use``: deny an agent's own shell calls to the agentmem commands that
decide (docs/design.md §Hot path, :data:`agentmem.governance.PERSON_ONLY`).

An agent with a shell could otherwise promote its own proposals (``review --accept all`` needs
no terminal). Claude Code runs this hook before every ``Bash`` tool call with the call's JSON on
stdin; the answer is a ``PreToolUse`` decision (``permissionDecision: "deny"`` and a reason the
agent reads) or nothing (the call goes on as usual).

This is a guard rail against an agent acting on its own, not a security boundary: whoever holds
the git identity IS the person to agentmem, and a determined process with that identity can do
anything the person can. The command line is read as a shell would split it (``;``, ``&&``,
``|``, ``$(…)``, backticks, ``bash -c "…"``, ``env``/``sudo`` prefixes, ``python -m agentmem``,
a path ending in ``agentmem``); a line that cannot be split (an open quote) but names
agentmem with a deciding word is denied too. Light: ``json``, ``shlex`` and ``re`` only.
"""

from __future__ import annotations

import json
import re
import shlex

from agentmem.governance import PERSON_ONLY, person_only

_SEPARATORS = frozenset({";", "&", "&&", "|", "||", "(", ")", "|&", ";;", "\n"})
_PREFIXES = frozenset({"env", "sudo", "exec", "command", "nohup", "time", "nice", "xargs", "uvx"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
_SUBSHELL = re.compile(r"\$\(|`")
_DECIDING_WORDS = frozenset(
    w for command, opts in PERSON_ONLY.items() for w in (*command[-1:], *(opts or ()))
)


def _words(line: str) -> list[str] | None:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:
        return None


def _is_agentmem(word: str) -> bool:
    return word.rsplit("/", 1)[-1] in ("agentmem", "agentmem.exe")


def _deciding_call(args: list[str]) -> tuple[str, ...] | None:
    """What an agentmem argument list (after the program) decides, or None."""
    words: list[str] = []
    options: set[str] = set()
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--repo":
            skip = True
        elif arg.startswith("-"):
            options.add(arg.split("=", 1)[0])
        elif not options or words:
            words.append(arg)
    return person_only(tuple(words), options)


def _commands(words: list[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for w in words:
        if w in _SEPARATORS or set(w) <= set(";&|()"):
            out.append([])
        else:
            out[-1].append(w)
    return [c for c in out if c]


def denied(command: str, depth: int = 0) -> tuple[str, ...] | None:
    """The deciding agentmem command a shell line runs, or None (docstring of the module)."""
    if depth > 4 or "agentmem" not in command:
        return None
    for inner in _SUBSHELL.split(command)[1:]:
        found = denied(inner.replace("`", " ").replace(")", " ; "), depth + 1)
        if found:
            return found
    words = _words(command)
    if words is None:  # an open quote: judge by the words alone
        plain = set(re.findall(r"[\w-]+", command))
        hit = next((w for w in _DECIDING_WORDS if w in plain), None)
        return ("agentmem", hit) if hit else None
    for cmd in _commands(words):
        i = 0
        while i < len(cmd) and (cmd[i] in _PREFIXES or "=" in cmd[i] or cmd[i].startswith("-")):
            i += 1
        rest = cmd[i:]
        if not rest:
            continue
        head = rest[0].rsplit("/", 1)[-1]
        if head in _SHELLS and "-c" in rest[1:]:
            script = rest[rest.index("-c") + 1 : rest.index("-c") + 2]
            found = denied(script[0], depth + 1) if script else None
            if found:
                return found
            continue
        if head.startswith("python") and rest[1:3] == ["-m", "agentmem"]:
            found = _deciding_call(rest[3:])
        elif _is_agentmem(rest[0]):
            found = _deciding_call(rest[1:])
        else:
            found = next(
                (
                    _deciding_call(rest[k + 1 :])
                    for k, w in enumerate(rest)
                    if _is_agentmem(w) and _deciding_call(rest[k + 1 :])
                ),
                None,
            )
        if found:
            return found
    return None


def decide(payload_text: str | None) -> str:
    """The hook's stdout for a PreToolUse payload: a deny decision as JSON, or ``""`` (no
    opinion: the call goes on). A payload that is not a Bash call is no business of this hook."""
    if not payload_text:
        return ""
    try:
        payload = json.loads(payload_text)
    except ValueError:
        return ""
    if not isinstance(payload, dict) or payload.get("tool_name") != "Bash":
        return ""
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if not isinstance(command, str):
        return ""
    found = denied(command)
    if found is None:
        return ""
    what = " ".join(found)
    reason = (
        f"'agentmem {what}' decides for the person: only they run it, in their own terminal. "
        "Do not retry it or work around it. Tell the user what you wanted to do and let them "
        "run 'agentmem review' (or the command) themselves."
    )
    return json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    )
