"""The command tree: the root typer group, where errors become exit codes (in ONE place), and
the lazy registry of the commands, one typer sub-app per file (docs/decisions/0106).

Exit codes (docs/design/overview.md §Exit codes): 0 done; 1 refused or invalid input (an ``AgentmemError``);
2 usage (typer's own, or ``UsageError``); 3 unexpected (``AGENTMEM_DEBUG=1`` shows the
traceback); 130 on Ctrl-C. Sub-apps import their heavy dependencies lazily so that
``agentmem memory show`` does not pay for the anthropic SDK.
"""

from __future__ import annotations

import copy
import importlib
import os
import re
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer._click.exceptions import ClickException, NoArgsIsHelpError, NoSuchOption
from typer.core import TyperGroup
from typer.exceptions import TyperException

from agentmem import __version__, notices
from agentmem import trailers as tr
from agentmem.cli import output, params
from agentmem.errors import failure


def _discard_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (tests, some embedders): nothing left to protect


#: Help metavars by parameter name (typer 0.29 would print ``<str>``, ``<list[str]>``,
#: ``{rule_ids}``); any other parameter shows its name in capitals.
METAVARS = {
    "rule_id": "ID",
    "rule_ids": "ID",
    "accept": "ID|all",
    "reject": "ID|all",
    "edit": "ID=TEXT",
    "transcripts": "TRANSCRIPT",
    "outcomes": "FILE",
    "proposals": "FILE",
    "repo": "PATH",
    "since": "REV",
    "remote": "NAME",
    "limits": "TEXT",
    "limit": "TEXT",
    "rule": "ID",
    "actor": "PERSON",
    "last": "N",
    "version": "N",
    "max_chars": "N",
    "provider": "anthropic|openai|offline|replay|auto",
    "status": "draft|active|suspended|deactivated|archived",
    "kind": "entry|rule|file",
    "section": "NAME",
    "session": "ID",
    "paths": "PATH",
}


def name_metavars(command: Any) -> None:
    """Give every option and argument under ``command`` a readable metavar (``--scope SCOPE``,
    ``--format text|json``, ``ID...``) unless it sets its own; flags keep none. A command
    without a ``short_help`` of its own is listed by the first sentence of its help (a
    top-level command sets one: ``@app.command(short_help=...)``, ``typer.Typer(short_help=...)``
    for a group, short enough for ``agentmem --help``'s 80 columns)."""
    for param in getattr(command, "params", ()):
        if param.metavar is not None or getattr(param, "is_flag", False):
            continue
        desc = getattr(param, "type_descriptor", None)
        if desc is not None and desc.is_choice and desc.choices:
            param.metavar = "|".join(str(getattr(c, "value", c)) for c in desc.choices)
        else:
            param.metavar = METAVARS.get(param.name, (param.name or "value").upper())
    for sub in getattr(command, "commands", {}).values():
        if not sub.short_help and sub.help:
            sub.short_help = first_sentence(sub.help)
        name_metavars(sub)


def first_sentence(help_text: str) -> str:
    """A command's summary in its group's list: the first sentence of its help, whole (click
    cut it at the column's width with "...": "Give a rule its scope (member, admin): a content
    change,..."); the list wraps it under its name instead."""
    words = help_text.split("\n\n", 1)[0].split()
    for i, word in enumerate(words):
        if word.endswith("."):
            return " ".join(words[: i + 1])
    return " ".join(words)


_ARGV_KEY = "agentmem.argv"
_OPTION_NAME = re.compile(r"--?[A-Za-z][A-Za-z0-9-]{0,30}")
_NO_SUCH_COMMAND = re.compile(r"No such command (?P<name>'[^']*'|\"[^\"]*\")")
#: A command name typed by mistake that may be shown back: a plain word (a letter, then
#: letters, digits, dashes; at most 30 characters) in which the guard finds nothing.
_PLAIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,29}")


def _shown_command_name(exc: ClickException, argv: list[str]) -> str | None:
    """The message for an unknown command whose name is a plain word, with the closest
    commands (``difflib``) when there are any; ``None`` for every other message."""
    match = _NO_SUCH_COMMAND.match(exc.message)
    ctx = getattr(exc, "ctx", None)
    if match is None or ctx is None:
        return None
    name = next((a for a in argv if repr(a) == match["name"]), None)
    if name is None or not _PLAIN_WORD.fullmatch(name):
        return None
    # lazy: the guard's detectors only load for a mistyped command (the error path)
    from agentmem import guard

    if guard.scan(name):
        return None
    # lazy: difflib is only needed on this error path
    from difflib import get_close_matches

    commands = [c for c in ctx.command.list_commands(ctx) if c != name]
    close = get_close_matches(name, commands)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return f"No such command {name!r}.{hint}"


def _hide_values(exc: ClickException, argv: list[str]) -> None:
    """Take every argument's value out of a parse error's message (a private key pasted as an
    argument was printed back as "No such option: -----BEGIN …"). Option names stay; anything
    else the person typed becomes ``(value not shown)``, except an unknown command's name when
    it is a plain word (``No such command 'undo'``). A group named without its subcommand
    (``agentmem memory``) prints its help as the message: only command names were typed, and
    hiding them made its help read "Read, edit and trace a person's (value not shown) file".
    Mutates ``exc`` in place."""
    if isinstance(exc, NoArgsIsHelpError | params.NotAChoice):
        return
    shown = _shown_command_name(exc, argv)
    if shown is not None:
        exc.message = shown
        return
    if isinstance(exc, NoSuchOption) and not _OPTION_NAME.fullmatch(exc.option_name):
        exc.option_name = "(value not shown)"
        exc.message = (
            "an argument that starts with '-' is not an option of this command (value not "
            "shown); a value that starts with '-' goes after '--' or as --option=VALUE"
        )
        exc.possibilities = None
    values: set[str] = set()
    for arg in argv:
        name, eq, value = arg.partition("=")
        if eq and _OPTION_NAME.fullmatch(name):
            values.add(value)
        elif not _OPTION_NAME.fullmatch(arg):
            values.add(arg)
    hidden = sorted((v for v in values if len(v) >= 3), key=len, reverse=True)
    if hidden:
        # One pass: a value inside the placeholder itself ("show") is not replaced again.
        pattern = re.compile("|".join(re.escape(v) for v in hidden))
        exc.message = pattern.sub("(value not shown)", exc.message)


class AgentmemGroup(TyperGroup):
    """Root group: the single place where exceptions become exit codes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        name_metavars(self)
        params.install(self)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[_ARGV_KEY] = list(args)
        try:
            return super().parse_args(ctx, args)
        except ClickException as exc:
            _hide_values(exc, args)
            raise

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except ClickException as exc:
            _hide_values(exc, ctx.meta.get(_ARGV_KEY, []))
            raise
        except (typer.Exit, typer.Abort, TyperException):
            raise
        except (KeyboardInterrupt, Exception) as exc:
            mapped = failure(exc)
            if mapped is None:
                raise
            code, text = mapped
            if isinstance(exc, BrokenPipeError):
                _discard_stdout()
            if text:
                output.error(text)
            raise typer.Exit(code) from None


#: Every command: its name → the ``agentmem.cli`` module that defines it, and whether the module
#: is a command group (``agentmem memory …``) or holds the one top-level command. The order is
#: the order of ``agentmem --help``.
COMMANDS: dict[str, tuple[str, bool]] = {
    "init": ("init", False),
    "harvest": ("harvest", False),
    "import": ("importer", False),
    "export": ("export", False),
    "doctor": ("doctor", False),
    "completion": ("completion", False),
    "remember": ("remember", False),
    "inbox": ("inbox", False),
    "review": ("review", False),
    "log": ("log", False),
    "search": ("search", False),
    "tidy": ("tidy", False),
    "check": ("check", False),
    "guard": ("guard", False),
    "usage": ("usage", False),
    "stats": ("stats", False),
    "mcp": ("mcp", False),
    "sync": ("sync", False),
    "erase": ("erase", False),
    "serve": ("serve", False),
    "install-server-hook": ("serverhook", False),
    "memory": ("memory", True),
    "doctrine": ("doctrine", True),
    "context": ("context", True),
    "hook": ("hook", True),
    "scope": ("scope", True),
    "settings": ("settings", True),
}


def _version(value: bool) -> None:
    if value:
        output.data(f"agentmem {__version__}")
        raise typer.Exit()


def root(
    repo: Annotated[
        Path | None,
        typer.Option(
            "--repo",
            help="The memory repository (default: found from the current folder upward; "
            "or $AGENTMEM_REPO).",
            show_default=False,
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """agentmem — reviewed, committed memory for AI agents."""
    if repo is not None:
        os.environ["AGENTMEM_REPO"] = str(repo)


def build_app(only: str | None = None, sub: str | None = None) -> typer.Typer:
    """The root app with every command, or with only the command ``only`` (a key of
    :data:`COMMANDS`): building the whole tree costs every command module's import and typer's
    work on every parameter, which a command line naming one command does not need
    (docs/decisions/0055). ``sub``: when ``only`` is a
    group (``doctrine``) and ``sub`` one of its commands (``list``), the group holds that command
    alone (:func:`_one_command`)."""
    typer_app = typer.Typer(
        cls=AgentmemGroup,
        name="agentmem",
        help=(
            "A memory for AI agents that people can read, approve, correct and undo.\n\n"
            "Personal memory (memories/<person>.md) reaches only its owner's chat prompt; team "
            "doctrine (doctrine/*.yaml) reaches only audit prompts. The model proposes, the "
            f"owner reviews, agentmem applies and commits every decision with {tr.PREFIX}* "
            "trailers."
        ),
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        pretty_exceptions_show_locals=False,
        add_completion=False,
        rich_markup_mode=None,
    )
    typer_app.callback()(root)
    for name, (module_name, group) in COMMANDS.items():
        if only is not None and name != only:
            continue
        module = importlib.import_module(f"agentmem.cli.{module_name}")
        if group:
            typer_app.add_typer(_one_command(module.app, sub), name=name)
        else:
            typer_app.add_typer(module.app)
    params.evaluate_annotations(typer_app)
    return typer_app


def _one_command(group: typer.Typer, sub: str | None) -> typer.Typer:
    """``group`` with only its command named ``sub`` when it has one (typer builds every command
    of a group, with all their parameters, to run one of them, ``doctrine``'s 15 of them);
    ``group`` itself for any other ``sub`` (``--help``, a typo: the whole group answers, as
    before). The command is the same object, so its help and errors are the same."""
    for info in group.registered_commands:
        callback = info.callback
        name = info.name or (callback and typer.main.get_command_name(callback.__name__))
        if sub is not None and name == sub:
            alone = copy.copy(group)
            alone.registered_commands = [info]
            alone.registered_groups = []
            return alone
    return group


def _first_word(argv: list[str]) -> int:
    """The index of the first word after the root options (``--repo PATH``, ``--repo=PATH``);
    ``len(argv)`` when there is none."""
    i = 0
    while i < len(argv):
        if argv[i] == "--repo":
            i += 2
        elif argv[i].startswith("--repo="):
            i += 1
        else:
            return i
    return len(argv)


def subcommand_named(argv: list[str]) -> str | None:
    """The word after the command :func:`command_named` finds (``list`` in ``doctrine list``),
    or None when there is none or it is an option."""
    i = _first_word(argv) + 1
    after = argv[i] if i < len(argv) else None
    return None if after is None or after.startswith("-") else after


def command_named(argv: list[str]) -> str | None:
    """The command an argument list names when it names one of :data:`COMMANDS` right after
    the root options (``--repo PATH``); None for anything else (``--help``, ``--version``, no
    command, a typo), which the whole tree answers."""
    i = _first_word(argv)
    return argv[i] if i < len(argv) and argv[i] in COMMANDS else None


_WHOLE: list[typer.Typer] = []


def __getattr__(name: str) -> typer.Typer:
    """``agentmem.cli.tree.app``: the whole command tree, built on first use (tests, completion,
    the gate's table)."""
    if name != "app":
        raise AttributeError(name)
    if not _WHOLE:
        _WHOLE.append(build_app())
    return _WHOLE[0]


def _completion_classes() -> None:
    """Register typer's bash, zsh and fish completion with click, so that
    ``_AGENTMEM_COMPLETE=complete_bash agentmem`` answers (``agentmem completion SHELL``
    prints the script that calls it)."""
    from typer._completion_classes import completion_init

    completion_init()


_completion_classes()


def _print_warning(message: str) -> None:
    """Domain warnings (:mod:`agentmem.notices`) reach the person as ``warning: …``."""
    output.warn(output.esc(message))


notices.send_to(_print_warning)
notices.progress_to(output.progress)


def main() -> None:
    """Console-script entry point: the tree of the one command the line names (the whole tree
    for help, completion and anything else)."""
    argv = sys.argv[1:]
    only = None if "_AGENTMEM_COMPLETE" in os.environ else command_named(argv)
    sys.exit(build_app(only, subcommand_named(argv))(standalone_mode=True))
