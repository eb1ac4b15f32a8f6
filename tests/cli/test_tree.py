"""Every command's --help ends with examples a new user can copy: they fit an 80-column terminal
and each one parses (its command, subcommand and options exist)."""

from __future__ import annotations

import shlex

import click
import pytest
import typer.main
from typer.testing import CliRunner

from agentmem.cli import COMMANDS
from agentmem.cli.tree import app

TOP = typer.main.get_command(app)


def _help(name: str) -> str:
    result = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.stdout


def _examples(text: str) -> list[str]:
    """The command lines under 'Examples:' (a line ending in a backslash joined to the next)."""
    block = text.split("\n  Examples:\n", 1)[1].lstrip("\n").split("\n\n", 1)[0]
    return [ln.strip() for ln in block.replace("\\\n", " ").splitlines()]


def _parse(line: str) -> None:
    """Parse an example as the shell and click would, without running it."""
    words = shlex.split(line, comments=True)
    for stop in ("|", ">", "<", ">>"):
        if stop in words:
            words = words[: words.index(stop)]
    if words[:4] == ["claude", "mcp", "add", "agentmem"]:
        words = words[words.index("--") + 1 :]
    assert words[0] == "agentmem", line
    args = words[1:]
    if args[:1] == ["--repo"]:
        args = args[2:]
    command: click.Command = TOP
    while isinstance(command, click.Group):
        command = command.commands[args[0]]
        args = args[1:]
    command.make_context(command.name or "", args)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_has_examples_that_fit_80_columns_and_parse(name: str) -> None:
    text = _help(name)
    assert [ln for ln in text.splitlines() if len(ln) > 80] == []
    examples = _examples(text)
    assert examples, text
    assert any(f"agentmem {name}" in ex or f" {name} " in ex for ex in examples), examples
    for example in examples:
        _parse(example)


@pytest.mark.parametrize("name", sorted(n for n, (_, group) in COMMANDS.items() if group))
def test_a_group_named_alone_shows_its_help_with_its_own_words(name: str) -> None:
    """``agentmem memory`` (no subcommand): its help, exit 2, the command's name intact (the
    typed-value hiding made it read "a person's (value not shown) file")."""
    result = CliRunner().invoke(app, [name], env={"COLUMNS": "80"})
    assert result.exit_code == 2
    assert "value not shown" not in result.output
    assert f"Usage: agentmem {name} [OPTIONS] COMMAND [ARGS]..." in result.output
    assert f"  agentmem {name} " in result.output  # its examples


def test_the_command_list_is_one_line_per_command_at_80_columns() -> None:
    """install-server-hook widened the name column: every short help over 55 characters
    wrapped, and 'agentmem --help' read as 50 lines of halves."""
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "80"})
    commands = result.stdout.split("Commands:\n")[1].splitlines()
    assert len(commands) == len(COMMANDS)
    assert [ln for ln in commands if ln.startswith("   ") or len(ln) > 80] == []


@pytest.mark.parametrize("group", [n for n, c in TOP.commands.items() if hasattr(c, "commands")])
def test_a_groups_list_gives_each_summary_whole(group: str) -> None:
    """click cut a subcommand's summary at the column's width ("Give a rule its scope (member,
    admin): a content change,..."); the list now wraps the first sentence of its help whole."""
    text = _help(group)
    listing = text.split("\nCommands:\n", 1)[1]
    assert "..." not in listing, listing
    for name, sub in TOP.commands[group].commands.items():  # type: ignore[attr-defined]
        first = " ".join(sub.short_help.split()[:4])
        assert first in " ".join(listing.split()), (name, first)
