"""``agentmem hook pre-tool-use``: deny an agent's own calls that would decide for its person
or write agentmem's files behind its back (docs/design/governance.md §Trust boundary).

Claude Code runs this hook before a tool call with the call's JSON on stdin; the answer is a
``PreToolUse`` decision (``permissionDecision: "deny"`` and a reason the agent reads, naming
what to do instead) or nothing (the call goes on as usual). Denied:

- a shell line that runs an agentmem command only a person decides
  (:data:`agentmem.governance.PERSON_ONLY`, read through the table generated from the typer
  command tree, :mod:`agentmem.delivery.gatetable`: every short option, attached values,
  ``--repo=X`` before the command), however it is spelled once the quotes are gone
  (``ag'ent'mem``, ``bash -lc "…"``, ``$(…)``, ``env``/``sudo``/``timeout`` prefixes,
  ``python -m agentmem…``, ``uvx``/``pipx run``, a path ending in ``agentmem``);
- what the hook cannot judge: ``eval``, a program piped into a shell or an interpreter, a
  variable or a command substitution in command position, inline code (``perl -e``,
  ``python -c``, ``node -e`` …) that names agentmem or writes one of its files;
- a write to ``doctrine/``, ``memories/``, ``inbox/``, ``roles.yaml``, the erasure record or
  ``.agentmem/`` of the memory repository: by the Edit, Write, MultiEdit and NotebookEdit tools,
  a shell redirection, ``tee``, ``sed -i``, ``cp``/``mv``/``rm`` and the like, or git
  (``add``/``rm``/``checkout``/``restore`` of those paths, a ``commit`` that would take them).

This is a speed bump for an honest agent, not a security boundary: whoever holds the git
identity IS the person to agentmem, and a process determined to get past a hook will. The
boundary is the served view (``context`` withholds what did not come through agentmem), the
server gate (``check --history`` on the team's remote) and signed decisions. Light: ``json``,
``os``, ``re`` and ``shlex``; git runs only to judge a ``git commit``/``git add``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Callable, Iterator

from agentmem.delivery.gatetable import HELP, PERSON_ONLY, ROOT_VALUES
from agentmem.errors import AgentmemError
from agentmem.nesting import too_deep
from agentmem.store.root import (
    DOCTRINE_DIR,
    ERASURES_FILE,
    INBOX_DIR,
    LOCAL_DIR,
    MEMORY_DIR,
    ROLES_FILE,
    locate,
)

_OPERATORS = ";&|()<>"
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash"})
_PYTHON = re.compile(r"python[0-9.]*(?:\.exe)?|pypy[0-9.]*")
#: interpreters and the options whose value is a program text (awk: its first argument)
_INLINE = {
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "node": ("-e", "--eval", "-p", "--print"),
    "deno": ("eval",),
    "bun": ("-e", "--eval", "-p", "--print"),
    "php": ("-r",),
    "lua": ("-e",),
    "Rscript": ("-e",),
    "osascript": ("-e",),
    "pwsh": ("-c", "-Command", "-command"),
    "powershell": ("-c", "-Command", "-command"),
    "tclsh": (),
    "awk": (),
    "gawk": (),
    "mawk": (),
    "nawk": (),
}
_AWK = frozenset({"awk", "gawk", "mawk", "nawk"})
#: short options of an interpreter that take a value which is not a program text
_VALUE_LETTERS = {**dict.fromkeys(_AWK, "Fvf"), "perl": "I", "ruby": "Ir", "node": "r"}
#: words that run the command after them (with their options; ``_PREFIX_VALUES`` take a value,
#: ``_PREFIX_POSITIONAL`` one more word before the command)
_PREFIXES = frozenset(
    {
        *("env", "sudo", "doas", "exec", "command", "builtin", "nohup", "time", "nice"),
        *("ionice", "chrt", "taskset", "stdbuf", "setsid", "timeout", "xargs", "unbuffer"),
        *("caffeinate", "chronic", "flock", "then", "do", "else", "if", "elif", "while"),
        *("until", "!", "{", "}", "coproc", "watch", "parallel", "strace", "ltrace"),
        "busybox",
    }
)
_PREFIX_VALUES = {
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "--unset", "--chdir"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "xargs": frozenset({"-I", "-i", "-n", "-P", "-L", "-l", "-d", "-s", "-E", "-a"}),
    "watch": frozenset({"-n", "--interval", "-d"}),
    "strace": frozenset({"-o", "-e", "-p", "-s"}),
}
_PREFIX_POSITIONAL = {"timeout": 1, "taskset": 1, "chrt": 1, "flock": 1}
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_HEREDOC = re.compile(r"(?<!<)<<(-?)[ \t]*(?:'([^'\n]+)'|\"([^\"\n]+)\"|\\?([^\s;&|<>()'\"]+))")

#: The memory repository's files that only agentmem writes, and what to do instead.
PROTECTED = {
    MEMORY_DIR: (
        "a memory changes only through its owner's review: propose the entry with "
        "'agentmem remember \"…\"' (the owner accepts it with 'agentmem review', or changes "
        "their own file with 'agentmem memory edit')"
    ),
    INBOX_DIR: (
        "proposals are filed by 'agentmem remember \"…\"', 'agentmem harvest' or the MCP "
        "remember tool"
    ),
    DOCTRINE_DIR: (
        "a rule changes through 'agentmem doctrine propose' or 'agentmem doctrine edit ID' "
        "(a draft, which an admin approves)"
    ),
    ROLES_FILE: "an admin changes roles.yaml and commits it themselves",
    ERASURES_FILE: "only 'agentmem erase' (run by an admin) writes the erasure record",
    LOCAL_DIR: (
        "agentmem's local state is written by its own commands ('agentmem harvest --queue', "
        "'agentmem doctor' says what is wrong)"
    ),
}
_WRITE_TOOLS = {"Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path"}
_WRITE_TOOLS["NotebookEdit"] = "notebook_path"
#: commands that write every path they are given
_WRITERS = frozenset(
    {
        *("tee", "mv", "rm", "rmdir", "unlink", "shred", "truncate", "touch", "mkdir"),
        *("chmod", "chown", "chgrp", "chattr", "setfacl", "patch", "ed", "ex", "vi", "vim"),
        *("nvim", "nano", "emacs", "pico", "joe", "mcedit", "sponge"),
    }
)
#: commands that write their last path (the destination)
_COPIERS = frozenset({"cp", "install", "ln", "rsync", "scp", "link"})
#: commands that write the paths they are given with an in-place option
_IN_PLACE = frozenset({"sed", "gsed", "perl", "ruby"})
_WRITE_WORDS = re.compile(
    r"write|unlink|remove|rename|replace|rmtree|truncate|move|copy|chmod|symlink|mkdir|touch|"
    r"system|popen|subprocess|exec|spawn|['\"][wax]b?\+?['\"]|>"
)


class _Line:
    """What the hook knows while it reads one tool call: the folder commands run in (a ``cd``
    moves it) and the memory repository, found on first need."""

    def __init__(self, cwd: str | None) -> None:
        self.cwd = cwd if cwd and os.path.isabs(cwd) else os.getcwd()
        self._root: str | None | bool = False
        self.bodies: list[str] = []  # the here-documents of the line being read, in order

    @property
    def root(self) -> str | None:
        if self._root is False:
            try:
                self._root = locate(near=self.cwd)
            except (AgentmemError, OSError):
                self._root = None
        return self._root if isinstance(self._root, str) else None

    def protected(self, word: str, *, whole: bool = False) -> str | None:
        """The repository path ``word`` names when only agentmem writes it (``whole``: also
        a folder holding the repository, as ``rm -r`` or ``mv`` would take it), else None."""
        root = self.root
        if root is None or not word or "$" in word:
            return None
        path = os.path.expanduser(word)
        full = os.path.realpath(os.path.join(self.cwd, path))
        rel = os.path.relpath(full, root)
        if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir:
            if whole and (root + os.sep).startswith(full.rstrip(os.sep) + os.sep):
                return os.curdir
            return None
        first = rel.split(os.sep, 1)[0]
        return rel if first in PROTECTED else None

    def protected_in(self, code: str) -> str | None:
        """A protected name that a program text mentions next to a write, or None."""
        if self.root is None or not _WRITE_WORDS.search(code):
            return None
        for name in PROTECTED:
            if re.search(rf"(?<![\w.-]){re.escape(name)}(?:/|\b)", code):
                return name
        return None

    def moved(self, cwd: str) -> _Line:
        """The same call seen from another folder (``git -C``), with the same repository."""
        other = _Line(cwd)
        other._root = self._root
        return other

    def changed(self, *, worktree: bool, untracked: bool = False) -> str | None:
        """A protected path with changes staged (``worktree``: or not yet staged;
        ``untracked``: or not tracked) in the memory repository, when the current folder is in
        it or holds it; None when none (or git cannot say)."""
        root = self.root
        if root is None:
            return None
        real = os.path.realpath(self.cwd)
        if not (real + os.sep).startswith(root + os.sep) and not (root + os.sep).startswith(
            real + os.sep
        ):
            return None
        # lazy: git runs only to judge a commit or an add
        from agentmem.store import gitrun

        args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *PROTECTED]
        try:
            proc = gitrun.run(root, args, None, None, True)
        except AgentmemError:
            return None
        out: str = proc.stdout
        items = iter(out.split("\0"))
        for item in items:
            if len(item) < 4:
                continue
            if item[0] in "RC":
                next(items, None)  # a rename's or a copy's old path
            staged = item[0] not in " ?"
            changed = item[1] != " " and (item[0] != "?" or untracked)
            if staged or (worktree and changed):
                return str(item[3:])
        return None


def _substitutions(command: str) -> tuple[str, list[tuple[str, str]]]:
    """The line with each command or process substitution replaced by one word (``$SUB``:
    a value the hook cannot know; ``/dev/fd/63`` for ``<(…)``/``>(…)``), and the
    substitutions: ``($(, text)``, ``(`, text)``, ``(<(, text)``, ``(>(, text)`` (none inside
    single quotes; one left open runs to the end of the line)."""
    found: list[tuple[str, str]] = []
    out: list[str] = []
    i, at, quoted = 0, 0, False
    while i < len(command):
        char = command[i]
        if char == "'" and not quoted:
            end = command.find("'", i + 1)
            i = len(command) if end < 0 else end + 1
            continue
        quoted = not quoted if char == '"' else quoted
        if char == "`":
            end = command.find("`", i + 1)
            end = len(command) if end < 0 else end
            found.append(("`", command[i + 1 : end]))
            out += [command[at:i], "$SUB"]
            i = at = end + 1
            continue
        if char in "$<>" and command[i + 1 : i + 2] == "(" and command[i + 2 : i + 3] != "(":
            depth, k = 1, i + 2
            while k < len(command) and depth:
                depth += {"(": 1, ")": -1}.get(command[k], 0)
                k += 1
            found.append((char + "(", command[i + 2 : k - 1 if depth == 0 else k]))
            out += [command[at:i], "$SUB" if char == "$" else "/dev/fd/63"]
            i = at = k
            continue
        i += 1
    out.append(command[at:])
    return "".join(out), found


def _heredocs(command: str) -> tuple[str, list[str]]:
    """``command`` without the bodies of its here-documents, and the bodies in order (a shell
    gives them to the program as its input; they are not words of the line)."""
    bodies: list[str] = []
    text, at = command, 0
    while True:
        match = _HEREDOC.search(text, at)
        start = text.find("\n", match.end()) if match else -1
        if match is None or start < 0:
            return text, bodies
        delimiter = match.group(2) or match.group(3) or match.group(4)
        lines = text[start + 1 :].split("\n")
        body: list[str] = []
        rest = ""
        for k, row in enumerate(lines):
            if (row.lstrip("\t") if match.group(1) else row) == delimiter:
                rest = "\n".join(lines[k + 1 :])
                break
            body.append(row)
        bodies.append("\n".join(body))
        text, at = text[: start + 1] + rest, match.end()


def _tokens(line: str) -> list[str] | None:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=_OPERATORS)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:
        return None


def _is_operator(word: str) -> bool:
    return bool(word) and set(word) <= set(_OPERATORS)


def _simple_commands(words: list[str]) -> Iterator[tuple[list[str], bool]]:
    """Each simple command (its words, redirections included) and whether its input is a pipe."""
    current: list[str] = []
    piped = False
    for word in words:
        if _is_operator(word) and not set(word) & set("<>"):
            if current:
                yield current, piped
            current = []
            piped = word in ("|", "|&")
        else:
            current.append(word)
    if current:
        yield current, piped


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _is_agentmem(word: str) -> bool:
    return _base(word) in ("agentmem", "agentmem.exe")


def _deciding(args: list[str]) -> str | None:
    """What an agentmem argument list (after the program) decides, as ``command [option]``,
    or None: root options skipped (``--repo X``, ``--repo=X``), the command's options read
    with the typer tree's spellings (:mod:`agentmem.delivery.gatetable`)."""
    words: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in HELP:
            return None
        if arg == "--":
            return _deciding(words + args[i + 1 :]) if args[i + 1 :] else None
        if arg.startswith("-") and len(arg) > 1:
            if arg in ROOT_VALUES:
                i += 1
        else:
            words.append(arg)
            for command in PERSON_ONLY:
                if tuple(words) == command:
                    return _decides(command, args[i + 1 :])
            if len(words) >= 2:
                return None
        i += 1
    return None


def _decides(command: tuple[str, ...], args: list[str]) -> str | None:
    opened, values = PERSON_ONLY[command]
    given: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        if arg.startswith("--"):
            name, eq, _value = arg.partition("=")
            given.append(name)
            if name in values and not eq:
                i += 1
        elif arg.startswith("-") and len(arg) > 1:
            for k in range(1, len(arg)):
                option = "-" + arg[k]
                given.append(option)
                if option in values:
                    if k == len(arg) - 1:
                        i += 1
                    break
        i += 1
    if any(option in HELP for option in given):
        return None
    shown = " ".join(command)
    if opened is None:
        return shown
    deciding = next((option for option in given if option not in opened), None)
    return f"{shown} {deciding}" if deciding else None


def _decision_reason(what: str) -> str:
    command = what.split(" -", 1)[0]
    return (
        f"'agentmem {what}' decides for the person: only they run it, in their own terminal. "
        "Do not retry it or work around it. Tell the user what you wanted to do and ask them "
        f"to run 'agentmem {command}' themselves."
    )


def _unjudged_reason(what: str) -> str:
    return (
        f"this hook cannot tell what the command runs ({what}), and agentmem's deciding "
        "commands and files are the person's. Write the command out plainly, one program per "
        "command (e.g. 'agentmem inbox', 'agentmem memory show'); do not work around it."
    )


def _write_reason(path: str) -> str:
    first = path.split(os.sep, 1)[0]
    instead = PROTECTED.get(first, "ask the person to do it themselves")
    shown = "the memory repository" if path == os.curdir else path
    return (
        f"{shown} is written only by agentmem, so that every change is a person's reviewed "
        "and audited decision (a direct write skips review, and 'agentmem check --history' "
        f"fails on it). Instead: {instead}. Do not retry it or work around it."
    )


def _options_then(words: list[str], start: int, values: frozenset[str]) -> int:
    """The index of the first word from ``start`` that is not an option (or an option's
    value)."""
    i = start
    while i < len(words) and words[i].startswith("-") and len(words[i]) > 1:
        if words[i] in values:
            i += 1
        i += 1
    return i


def _head(words: list[str], line: _Line, depth: int) -> tuple[int, str | None]:
    """The index of the word in command position (after assignments and prefixes such as
    ``env``, ``sudo``, ``timeout 5``), and a reason to deny found on the way."""
    i = 0
    while i < len(words):
        word = words[i]
        if _ASSIGNMENT.match(word):
            i += 1
            continue
        base = _base(word)
        if base not in _PREFIXES:
            return i, None
        values = _PREFIX_VALUES.get(base, frozenset())
        i += 1
        while i < len(words) and words[i].startswith("-") and len(words[i]) > 1:
            option = words[i]
            if base == "env" and option.startswith("-S") or option == "--split-string":
                script = option[2:] or (words[i + 1] if i + 1 < len(words) else "")
                found = judge_command(script, line, depth + 1)
                if found:
                    return i, found
            if option in values:
                i += 1
            i += 1
        if base == "env":
            while i < len(words) and _ASSIGNMENT.match(words[i]):
                i += 1
        if base == "watch":  # the rest is a command line of its own
            return i, judge_command(" ".join(words[i:]), line, depth + 1)
        i += _PREFIX_POSITIONAL.get(base, 0)
    return i, None


class _Redirected:
    """A simple command without its redirections: ``words``; ``denied``, a reason (a write to
    a protected file); ``here``, stdin is a here-document or a here-string; ``strings``, their
    texts; ``writes``, its output goes to a file."""

    __slots__ = ("words", "denied", "here", "strings", "writes")

    def __init__(self) -> None:
        self.words: list[str] = []
        self.denied: str | None = None
        self.here = False
        self.strings: list[str] = []
        self.writes = False


def _redirections(words: list[str], line: _Line) -> _Redirected:
    """Take the redirections out of a simple command (:class:`_Redirected`)."""
    out = _Redirected()
    i = 0
    while i < len(words):
        word = words[i]
        if _is_operator(word) and set(word) & set("<>"):
            target = words[i + 1] if i + 1 < len(words) else ""
            i += 2
            if word in ("<<", "<<-", "<<<"):
                out.here = True
                if word == "<<<":
                    out.strings.append(target)
                elif line.bodies:
                    out.strings.append(line.bodies.pop(0))
                continue
            if word.endswith("&") and (target.isdigit() or target == "-"):
                continue
            if word in ("<(", ">("):  # process substitution: judged as a line of its own
                out.words.append(target)
                continue
            if ">" in word:
                out.writes = out.writes or target != "/dev/null"
                found = line.protected(target)
                if found:
                    out.denied = _write_reason(found)
                    return out
            continue
        if word.isdigit() and i + 1 < len(words) and _is_operator(words[i + 1]):
            i += 1  # the fd number of 2> or 2>&1
            continue
        out.words.append(word)
        i += 1
    return out


def _shell(
    words: list[str], at: int, piped: bool, strings: list[str], line: _Line, depth: int
) -> str | None:
    """A shell in command position: its ``-c`` script and here-strings judged as lines; a
    program it reads from a pipe cannot be judged."""
    for script in strings:
        found = judge_command(script, line, depth + 1)
        if found:
            return found
    i = at + 1
    inline = False
    while i < len(words) and words[i][:1] in ("-", "+") and len(words[i]) > 1:
        option = words[i]
        if option == "--":
            i += 1
            break
        if not option.startswith("--") and "c" in option[1:]:
            inline = True
        if option in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 1
        i += 1
    if inline:
        script = words[i] if i < len(words) else ""
        return judge_command(script, line, depth + 1)
    if (i >= len(words) or words[i] in ("-", "/dev/stdin")) and piped:
        return _unjudged_reason(f"a program piped into {_base(words[at])}")
    return None


def _short(arg: str, letters: str) -> tuple[str, str] | None:
    """The first letter of a short option cluster (``-lne``) that takes a value, with what
    follows it in the cluster; None when none does."""
    for k in range(1, len(arg)):
        if arg[k] in letters:
            return arg[k], arg[k + 1 :]
    return None


def _interpreter(
    words: list[str], at: int, piped: bool, here: bool, line: _Line, strings: list[str]
) -> str | None:
    """An interpreter in command position: ``python -m agentmem…`` judged as agentmem; inline
    code that names agentmem or writes a protected file, or a program piped in, denied."""
    base = _base(words[at])
    python = bool(_PYTHON.fullmatch(base))
    inline = ("-c",) if python else _INLINE[base]
    letters = "cmWX" if python else "".join(o[1] for o in inline if len(o) == 2)
    letters += _VALUE_LETTERS.get(base, "")
    rest = words[at + 1 :]
    code: list[str] = list(strings)
    script = False
    i = 0
    while i < len(rest):
        arg = rest[i]
        following = rest[i + 1] if i + 1 < len(rest) else ""
        if arg in inline and len(arg) > 2:  # --eval CODE, -Command CODE, deno eval CODE
            code.append(following)
            i += 2
            continue
        if arg == "--" or arg == "-" or not arg.startswith("-"):
            if arg != "-" and base in _AWK and not code:
                code.append(arg)
            elif arg != "-":
                script = True
            break
        found = None if arg.startswith("--") else _short(arg, letters)
        if found is None:
            i += 1
            continue
        letter, attached = found
        value = attached or following
        i += 1 if attached else 2
        if python and letter == "m":
            if value == "agentmem" or value.startswith("agentmem."):
                what = _deciding(rest[i:])
                return _decision_reason(what) if what else None
            return None
        if "-" + letter in inline:
            code.append(value)
        elif letter == "f":  # awk -f FILE: a program in a file
            script = True
    if not code and not script and piped and not here:
        return _unjudged_reason(f"a program piped into {base}")
    text = " ".join(code)
    if "agentmem" in text:
        return _unjudged_reason(f"{base} code that names agentmem")
    written = line.protected_in(text)
    if written:
        return _write_reason(written)
    return None


_GIT_VALUES = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
)
#: per git command: the short options that take a value, and those that take every change
_GIT_SHORT = {
    "commit": ("mFCct", "a"),
    "add": ("", "Au"),
    "stage": ("", "Au"),
    "checkout": ("bB", ""),
}
_GIT_LONG = frozenset(
    {"--message", "--file", "--author", "--date", "--fixup", "--squash", "--template"}
) | {"--cleanup", "--trailer", "--reuse-message", "--reedit-message", "--pathspec-from-file"}


def _git(words: list[str], at: int, line: _Line) -> str | None:
    """``git add/rm/mv/checkout/restore`` of a protected path, and a ``git commit`` that would
    take one (named, staged, or with ``-a`` changed)."""
    here = line
    i = at + 1
    while i < len(words) and words[i].startswith("-"):
        if words[i] in _GIT_VALUES:
            if words[i] == "-C" and i + 1 < len(words):
                here = line.moved(os.path.join(here.cwd, os.path.expanduser(words[i + 1])))
            i += 1
        i += 1
    if i >= len(words):
        return None
    sub, args = words[i], words[i + 1 :]
    if sub not in ("add", "stage", "rm", "mv", "checkout", "restore", "commit"):
        return None
    values, taking = _GIT_SHORT.get(sub, ("", ""))
    every = False
    paths: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            paths += args[i + 1 :]
            break
        if arg.startswith("--"):
            every = every or arg in ("--all", "--update")
            i += 2 if arg in _GIT_LONG else 1
            continue
        if arg.startswith("-") and len(arg) > 1:
            found = _short(arg, values)
            cluster = arg[1:] if found is None else arg[1 : len(arg) - len(found[1]) - 1]
            every = every or bool(set(cluster) & set(taking))
            i += 2 if found is not None and not found[1] else 1
            continue
        paths.append(arg)
        i += 1
    for path in paths:
        named = here.protected(path, whole=sub == "rm")
        if named:
            return _write_reason(named)
    changed = None
    if sub == "commit":
        changed = here.changed(worktree=every)
    elif sub in ("add", "stage") and (every or any(here.protected(p, whole=True) for p in paths)):
        changed = here.changed(worktree=True, untracked=True)
    return _write_reason(changed) if changed else None


def _writes(words: list[str], at: int, line: _Line) -> str | None:
    """A write to a protected path by a file command in command position."""
    base = _base(words[at])
    args = [w for w in words[at + 1 :] if w != "--"]
    plain = [w for w in args if not w.startswith("-") or len(w) == 1]
    targets: list[str] = []
    whole = base in ("rm", "mv", "rmdir")
    if base in _WRITERS:
        targets = plain
    elif base in _COPIERS:
        named = [w.split("=", 1)[1] for w in args if w.startswith("--target-directory=")]
        given = [args[k + 1] for k, w in enumerate(args[:-1]) if w == "-t"]
        targets = named + given + plain[-1:]
    elif base in _IN_PLACE:
        if any(
            w.startswith("--in-place") or (w[:1] == "-" and w[1:2] != "-" and "i" in w[1:])
            for w in args
        ):
            targets = plain
    elif base == "dd":
        targets = [w[3:] for w in args if w.startswith("of=")]
    elif base == "find" and any(
        w in ("-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprintf", "-fls")
        for w in args
    ):
        targets = plain
    for target in targets:
        found = line.protected(target, whole=whole)
        if found:
            return _write_reason(found)
    return None


def _script_written(texts: list[str], line: _Line, depth: int) -> str | None:
    """A text written to a file (``echo … > run.sh``, ``tee``, a here-document) that would run
    a deciding agentmem command: the reason to deny, or None."""
    for text in texts:
        if "agentmem" in text:
            found = judge_command(text, line, depth + 1)
            if found and "decides for the person" in found:
                return found
    return None


def _judge_simple(simple: list[str], piped: bool, line: _Line, depth: int) -> str | None:
    redirected = _redirections(simple, line)
    if redirected.denied:
        return redirected.denied
    words, here, strings = redirected.words, redirected.here, redirected.strings
    at, found = _head(words, line, depth)
    if found:
        return found
    if at < len(words):
        head = words[at]
        base = _base(head)
        if "$" in base or "`" in base:
            return _unjudged_reason("a variable or a command substitution in command position")
        if base == "eval":
            return _unjudged_reason("eval")
        if base in ("cd", "pushd") and at + 1 < len(words):
            line.cwd = os.path.join(line.cwd, os.path.expanduser(words[at + 1]))
            return None
        judges: dict[str, Callable[[], str | None]] = {
            "shell": lambda: _shell(words, at, piped, strings, line, depth),
            "interpreter": lambda: _interpreter(words, at, piped, here, line, strings),
            "git": lambda: _git(words, at, line),
        }
        kind = (
            "shell"
            if base in _SHELLS
            else "interpreter"
            if base in _INLINE or _PYTHON.fullmatch(base)
            else "git"
            if base == "git"
            else None
        )
        found = (judges[kind]() if kind else None) or _writes(words, at, line)
        if not found and (redirected.writes or base == "tee"):
            found = _script_written([*words[at + 1 :], *strings], line, depth)
        if found:
            return found
    for k, word in enumerate(words):
        if _is_agentmem(word):
            what = _deciding(words[k + 1 :])
            if what:
                return _decision_reason(what)
    return None


def judge_command(command: str, line: _Line, depth: int = 0) -> str | None:
    """The reason to deny a shell line, or None (docstring of the module). Command and process
    substitutions are judged as lines of their own; a line a shell could not split (an open
    quote, e.g. in a here-document) is judged with its quotes taken out."""
    if depth > 5:
        return _unjudged_reason("commands nested this deep")
    command, inner_lines = _substitutions(command)
    for kind, inner in inner_lines:
        if kind == ">(":
            inner = "true | " + inner  # what it runs reads the output: a pipe
        found = judge_command(inner, line, depth + 1)
        if found:
            return found
    command, bodies = _heredocs(command)
    words = _tokens(command)
    if words is None:
        words = _tokens(re.sub(r"[\"'\\]", "", command)) or []
    saved, line.bodies = line.bodies, bodies
    try:
        for simple, piped in _simple_commands(words):
            found = _judge_simple(simple, piped, line, depth)
            if found:
                return found
    finally:
        line.bodies = saved
    return None


def judge(payload: dict[str, object]) -> str | None:
    """The reason to deny one PreToolUse payload, or None (no opinion)."""
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if not isinstance(tool, str) or not isinstance(tool_input, dict):
        return None
    cwd = payload.get("cwd")
    line = _Line(cwd if isinstance(cwd, str) else None)
    if tool == "Bash":
        command = tool_input.get("command")
        return judge_command(command, line) if isinstance(command, str) else None
    key = _WRITE_TOOLS.get(tool)
    path = tool_input.get(key) if key else None
    if isinstance(path, str):
        found = line.protected(path)
        return _write_reason(found) if found else None
    return None


def decide(payload_text: str | None) -> str:
    """The hook's stdout for a PreToolUse payload: a deny decision as JSON, or ``""`` (no
    opinion: the call goes on)."""
    if not payload_text:
        return ""
    try:
        payload = json.loads(payload_text)
    except (ValueError, RecursionError):
        return ""
    if not isinstance(payload, dict) or too_deep(payload):
        return ""
    reason = judge(payload)
    if reason is None:
        return ""
    return json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    )
