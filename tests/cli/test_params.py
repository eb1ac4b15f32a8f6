"""typer commands without pydantic, and one command's tree instead of the whole
(docs/decisions/0055): what the command line does
and prints stays what typer alone would do."""

from __future__ import annotations

import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer
import typer.main
import typer.testing
from tests.helpers import REPO_ROOT
from typer._click.exceptions import BadParameter
from typer._coercion import build_runtime_param, resolve_type_descriptor
from typer.models import ArgumentInfo, OptionInfo
from typer.testing import CliRunner

from agentmem.cli import COMMANDS, build_app, command_named, params, subcommand_named
from agentmem.cli.tree import app


def _run_in_one_process(cwd: Path, *lines: list[str]) -> str:
    """Run command lines through the console script's ``main`` in one interpreter; what it
    printed last: which of typer's pydantic-bound modules were loaded."""
    code = (
        "import sys\n"
        "from agentmem.entry import main\n"
        f"for argv in {list(lines)!r}:\n"
        "    sys.argv = ['agentmem', *argv]\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pydantic' "
        "or m == 'typer._adapters'))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True
    )
    return proc.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_commands_run_without_pydantic(memrepo: Path) -> None:
    """If this fails after a typer upgrade, typer moved what cli/params.py relies on (the
    ``_runtime_param`` slot of its parameters, ``RuntimeParam``): see docs/decisions/."""
    loaded = _run_in_one_process(
        memrepo,
        ["memory", "show"],
        ["inbox", "--format", "json"],
        ["--repo", str(memrepo), "doctrine", "list", "--status", "active"],
        ["log", "--last", "3"],
        ["memory", "show", "--help"],
        ["--help"],
        ["memory", "shw"],
        ["search", "anything"],  # --limit left at its int default
    )
    assert loaded == "[]"


def test_the_mcp_command_is_the_one_that_may_load_pydantic(memrepo: Path) -> None:
    """Only ``agentmem mcp`` (the SDK builds on pydantic) loads it; its help does not."""
    assert _run_in_one_process(memrepo, ["mcp", "--help"]) == "[]"


class Colour(Enum):
    red = "red"
    dark_blue = "dark-blue"


def _both(annotation: Any, value: Any, info: Any = None) -> tuple[Any, Any]:
    """``value`` converted by typer's own adapter and by :class:`params.LightParam`: each the
    result, or the error message."""
    descriptor = resolve_type_descriptor(annotation, info or OptionInfo())
    light = params.LightParam(
        parameter_info=descriptor.parameter_info, annotation=annotation, descriptor=descriptor
    )
    command = typer.main.get_command(_probe)
    ctx = command.make_context("probe", [])
    param = command.params[0]
    found = []
    for runtime in (build_runtime_param(descriptor), light):
        try:
            found.append(runtime.coerce(value, param=param, ctx=ctx))
        except BadParameter as exc:
            found.append(("error", exc.format_message()))
    return found[0], found[1]


_probe = typer.Typer()


@_probe.command()
def _probe_command(x: str = "") -> None:
    """A command whose context the conversions run in."""


@pytest.mark.parametrize(
    ("annotation", "value", "info"),
    [
        (str, "plain", None),
        (str, "", None),
        (str, " spaced ", None),
        (str, "a\udcff", None),  # undecodable argv byte
        (str, None, None),
        (int, "42", None),
        (int, "-7", None),
        (int, "0", None),
        (int, " 5", None),
        (int, "1_000", None),
        (int, "007", None),
        (int, "5.0", None),
        (int, "five", None),
        (int, "0", OptionInfo(min=1)),
        (int, 20, None),  # an int default (search --limit): no pydantic
        (int, 0, OptionInfo(min=1)),
        (int, True, None),
        (int, "3", OptionInfo(min=1)),
        (bool, True, None),
        (bool, "yes", None),
        (Path, "notes/a.md", None),
        (Path, "", None),
        (Path, "-", None),
        (Colour, "red", None),
        (Colour, "dark-blue", None),
        (list[str], ("a", "b"), ArgumentInfo()),
        (list[str], (), ArgumentInfo()),
        (list[int], ("1", "x"), ArgumentInfo()),
        (list[Path], ("a", "b/c"), ArgumentInfo()),
    ],
)
def test_light_conversion_equals_typers(annotation: Any, value: Any, info: Any) -> None:
    typer_own, light = _both(annotation, value, info)
    assert light == typer_own
    assert type(light) is type(typer_own)


@pytest.mark.parametrize("value", ["RED", "green", "dark"])
def test_a_wrong_choice_names_the_choices_whole(value: str) -> None:
    """typer's own message is "'green' is not one of 'red', 'dark-blue'"; the CLI hides what
    was typed from it, which turned `--format tex` into "not one of '(value not shown)t'". The
    light conversion says which values are allowed, whole, and never echoes the typed one."""
    typer_own, light = _both(Colour, value)
    assert typer_own[0] == "error"
    assert light == (
        "error",
        "Invalid value for '--x': expected one of red, dark-blue (the value typed is not shown)",
    )


def test_a_wrong_format_is_refused_with_its_choices(memrepo: Path, runner: CliRunner) -> None:
    result = runner.invoke(app, ["inbox", "--format", "tex"])
    assert result.exit_code == 2
    assert "Invalid value for '--format' / '-f': expected one of text, json" in result.output
    assert "(value not shown)t" not in result.output


def test_every_parameter_of_the_cli_gets_the_light_conversion() -> None:
    """A new parameter type typer would give pydantic shows up here first."""
    root = typer.main.get_command(app)
    missing: list[str] = []

    def walk(command: Any, path: str) -> None:
        for param in command.params:
            if not isinstance(param._runtime_param, params.LightParam):
                missing.append(f"{path} {param.name}")
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(root, "agentmem")
    assert missing == []


def test_command_named() -> None:
    assert command_named(["memory", "show"]) == "memory"
    assert command_named(["--repo", "/x", "inbox"]) == "inbox"
    assert command_named(["--repo=/x", "import", "a.md"]) == "import"
    assert command_named(["--help"]) is None
    assert command_named(["--version"]) is None
    assert command_named(["--repo"]) is None
    assert command_named(["memroy", "show"]) is None
    assert command_named([]) is None


def _paths(command: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [prefix]
    for name, sub in getattr(command, "commands", {}).items():
        found += _paths(sub, (*prefix, name))
    return found


def test_one_commands_tree_answers_as_the_whole_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command's help and usage errors are the same whether ``agentmem`` built the whole
    tree or only the command the line names."""
    built: dict[int, tuple[Any, Any]] = {}

    def get_command(typer_app: typer.Typer) -> Any:  # the runner builds each app once here
        if id(typer_app) not in built:
            built[id(typer_app)] = (typer_app, typer.main.get_command(typer_app))
        return built[id(typer_app)][1]

    monkeypatch.setattr(typer.testing, "_get_command", get_command)
    whole = get_command(app)
    assert list(whole.commands) == list(COMMANDS)  # type: ignore[attr-defined]
    runner = CliRunner()
    for name in COMMANDS:
        one = build_app(name)
        assert list(typer.main.get_command(one).commands) == [name]  # type: ignore[attr-defined]
        for path in _paths(whole.commands[name], (name,)):  # type: ignore[attr-defined]
            # the group's own help and errors from the whole group; a command's from a group
            # that holds only it (what ``main`` builds for ``agentmem doctrine list …``)
            tree = one
            if len(path) > 1:
                tree = build_app(name, path[1])
                group = typer.main.get_command(tree).commands[name]  # type: ignore[attr-defined]
                assert list(group.commands) == [path[1]]
            for tail in (["--help"], ["--no-such-option"]):
                expected = runner.invoke(app, [*path, *tail], prog_name="agentmem")
                got = runner.invoke(tree, [*path, *tail], prog_name="agentmem")
                assert (got.exit_code, got.stdout, got.stderr) == (
                    expected.exit_code,
                    expected.stdout,
                    expected.stderr,
                ), path


def test_subcommand_named() -> None:
    assert subcommand_named(["doctrine", "list"]) == "list"
    assert subcommand_named(["--repo", "/x", "memory", "show", "-p", "a"]) == "show"
    assert subcommand_named(["--repo=/x", "doctrine", "list"]) == "list"
    assert subcommand_named(["doctrine", "--help"]) is None
    assert subcommand_named(["doctrine"]) is None
    assert subcommand_named(["--repo"]) is None
    # a word that is no command of the group (a typo) leaves the whole group to answer
    group = typer.main.get_command(build_app("doctrine", "lst")).commands["doctrine"]  # type: ignore[attr-defined]
    assert "list" in group.commands and "approve" in group.commands


def test_inbox_names_the_queue_file_of_the_queue_module() -> None:
    """``inbox`` looks for the harvest queue's file before loading that module."""
    from agentmem.cli import inbox
    from agentmem.harvest import queue
    from agentmem.store.repo import LOCAL_DIR

    assert (inbox.QUEUE_FILE, LOCAL_DIR) == (queue.QUEUE_FILE, queue.LOCAL_DIR)


def test_typer_is_the_minor_version_its_private_modules_were_read_from() -> None:
    """``agentmem.cli`` imports from typer's private modules (``typer._click``, ``_coercion``,
    ``_param_types``, ``_completion_*``, ``core._TyperParameter``), read from typer 0.29. The
    dependency is pinned to that minor version; on the next one, this fails: read those modules
    again, run this file, then move the pin in pyproject.toml and the version here."""
    import tomllib
    from importlib.metadata import version

    assert version("typer").startswith("0.29.")
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "typer>=0.29,<0.30" in pyproject["project"]["dependencies"]
