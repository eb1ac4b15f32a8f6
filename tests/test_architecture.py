"""Meta-tests: layers import one way, hot paths stay light, every command has
help and is documented in the README."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import REPO_ROOT
from typer.testing import CliRunner

from agentmem.cli import app

SRC = REPO_ROOT / "src" / "agentmem"
HEAVY = ("anthropic", "git", "ruamel", "rapidfuzz", "mcp", "httpx2", "phonenumbers")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_domain_never_imports_typer_or_rich() -> None:
    offenders = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if "cli" not in path.relative_to(SRC).parts and _imports(path) & {"typer", "rich"}
    ]
    assert offenders == []


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes of a module, its classes and functions."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found.add(id(value))
    return found


def test_trailer_names_are_spelt_only_in_the_trailers_module() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "trailers.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str | bytes)
                and id(node) not in docs
                and (
                    "Agentmem-" in node.value
                    if isinstance(node.value, str)
                    else b"Agentmem-" in node.value
                )
            ):
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


def test_the_trailers_module_builds_and_parses_its_own_block() -> None:
    from agentmem import trailers

    text = trailers.message(
        "subject  with   spaces",
        [
            (trailers.ACTION, "accept"),
            (trailers.PROPOSAL, "p1"),
            (trailers.PROPOSAL, "p2"),
            ("Other", "x"),
        ],
    )
    assert text == (
        "subject with spaces\n\nAgentmem-Action: accept\nAgentmem-Proposal: p1\n"
        "Agentmem-Proposal: p2\nOther: x\n"
    )
    assert trailers.parse(text.split("\n\n", 1)[1]) == {
        "Agentmem-Action": ["accept"],
        "Agentmem-Proposal": ["p1", "p2"],
    }
    assert len(set(trailers.ALL)) == len(trailers.ALL)
    assert all(name.startswith("Agentmem-") for name in trailers.ALL)
    assert trailers.actor_email("alice <alice@example.com>") == "alice@example.com"
    assert trailers.actor_id("alice <alice@example.com>") == "alice"


def test_role_names_are_spelt_only_in_governance() -> None:
    """Who may do what is decided in one table (agentmem/governance.py): nothing else compares
    a role with "admin" or "member"."""
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "governance.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [
            f"{path.relative_to(SRC)}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in ("admin", "member")
        ]
    assert offenders == []


def test_the_distinct_approver_rule_names_the_first_conflict() -> None:
    from agentmem import governance as gov

    calls: list[str] = []

    def writer() -> str:
        calls.append("asked")
        return "carol"

    assert gov.self_approval("bob", proposed_by="bob", created_by="bob", wrote=writer) == "proposed"
    assert (
        gov.self_approval("bob", proposed_by="alice", created_by="bob", wrote=writer) == "created"
    )
    assert calls == []  # the writer is looked up only when the first two do not decide
    assert (
        gov.self_approval("carol", proposed_by="alice", created_by="bob", wrote=writer) == "wrote"
    )
    assert gov.self_approval("dave", proposed_by="alice", created_by=None, wrote="carol") is None
    assert gov.self_approval(None, proposed_by=None) is None
    assert [gov.needed(a) for a in (gov.APPROVE, gov.PROPOSE)] == ["admin", "member or admin"]
    assert gov.may("admin", gov.ERASE) and not gov.may("member", gov.ERASE)
    assert not gov.may(None, gov.PROPOSE) and not gov.may("user", gov.HAVE_MEMORY)


def test_apply_never_reaches_the_network() -> None:
    for path in (SRC / "apply").glob("*.py"):
        assert not _imports(path) & {"anthropic", "httpx2", "httpx", "urllib", "socket", "requests"}


def _loaded_after(args: list[str], cwd: Path) -> list[str]:
    code = (
        "import sys\n"
        "from agentmem.cli import app\n"
        "try:\n"
        f"    app({args!r}, standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True
    )
    return eval(proc.stdout.strip().splitlines()[-1])  # noqa: S307 - our own printed list


@pytest.mark.slow
def test_memory_show_imports_neither_the_model_sdk_nor_gitpython(memrepo: Path) -> None:
    assert _loaded_after(["memory", "show"], memrepo) == []
    assert _loaded_after(["inbox"], memrepo) == []


def _commands(group: object, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    import typer.main

    click_group = typer.main.get_command(app) if group is None else group
    found: list[tuple[str, ...]] = []
    for name, command in getattr(click_group, "commands", {}).items():
        path = (*prefix, name)
        if getattr(command, "commands", None):
            found += _commands(command, path)
        else:
            found.append(path)
    return found


ALL_COMMANDS = _commands(None)


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=lambda c: " ".join(c))
def test_every_command_has_help(command: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*command, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.stdout
    lines = [ln for ln in result.stdout.splitlines() if ln.strip()]
    assert len(lines) >= 3, result.stdout
    # Options read "--scope SCOPE", "--format text|json": never typer's "<str>", "<list[str]>".
    options = [ln for ln in result.stdout.splitlines() if ln.lstrip().startswith("-")]
    assert not [ln for ln in options if "<" in ln.strip().split("  ")[0]], result.stdout


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=lambda c: " ".join(c))
def test_every_command_is_in_the_readme(command: tuple[str, ...]) -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert f"agentmem {' '.join(command)}" in readme


def test_the_command_list_is_not_cut() -> None:
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "80"})
    commands = result.stdout.split("Commands:")[1].splitlines()
    assert [ln for ln in commands if ln.rstrip().endswith("...")] == []
    from agentmem.cli import SHORT_HELP

    assert len([ln for ln in commands if ln.strip()]) == len(SHORT_HELP)
