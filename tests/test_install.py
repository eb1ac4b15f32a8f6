"""What the package installs (docs/design/code.md §Install): the base leaves out what one feature
needs (extras ``mcp``, ``openai``, ``serve``), a feature without its extra says which to
install, and every declared dependency is imported while every imported one is declared."""

from __future__ import annotations

import ast
import importlib.util
import re
import tomllib
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner

from agentmem.errors import EXTRAS

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
#: Distribution name -> the module it installs, where they differ.
MODULE = {
    "pyyaml": "yaml",
    "ruamel.yaml": "ruamel",
    "python-stdnum": "stdnum",
    "git-filter-repo": "git_filter_repo",
    "confusable-homoglyphs": "confusable_homoglyphs",
    "gender-guesser": "gender_guesser",
    "pyspellchecker": "spellchecker",
    "markdown-it-py": "markdown_it",
}


def _modules(requirements: list[str]) -> set[str]:
    names = {re.split(r"[<>=!~\[ ;]", r, maxsplit=1)[0].lower() for r in requirements}
    return {MODULE.get(name, name.replace("-", "_")) for name in names if name != "agentmem"}


def _imported() -> set[str]:
    """Top-level names src/agentmem imports, plus packages whose data it reads
    (``resources.files("x")``, ``package_folder("x")``, ``find_spec("x")``)."""
    found: set[str] = set()
    for path in (ROOT / "src" / "agentmem").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
        found.update(
            re.findall(r'(?:resources\.files|package_folder|find_spec)\("([a-z_]+)"\)', text)
        )
    import sys

    return {name for name in found if name not in sys.stdlib_module_names and name != "agentmem"}


@pytest.mark.slow
def test_every_declared_dependency_is_imported_and_every_imported_one_declared() -> None:
    extras = PROJECT["optional-dependencies"]
    declared = _modules(PROJECT["dependencies"])
    for extra in EXTRAS:
        declared |= _modules(extras[extra])
    assert _imported() == declared


def test_the_extras_table_is_pyprojects() -> None:
    """``errors.EXTRAS`` looks up the modules each extra of pyproject.toml brings; ``test``
    pulls every extra, so the suite runs everything."""
    extras = PROJECT["optional-dependencies"]
    for extra, (_, modules) in EXTRAS.items():
        assert set(modules) == _modules(extras[extra]) - {"markupsafe"}, extra
    assert "agentmem[mcp,openai,serve]" in extras["test"]
    base = _modules(PROJECT["dependencies"])
    assert not base & {"mcp", "openai", "starlette", "uvicorn", "jinja2"}


@pytest.fixture
def without(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Make the named modules look uninstalled to ``require_extra``."""
    real = importlib.util.find_spec

    def hide(*names: str) -> None:
        monkeypatch.setattr(
            importlib.util, "find_spec", lambda name, *a: None if name in names else real(name, *a)
        )

    return hide


@pytest.mark.parametrize(
    ("args", "hidden", "extra"),
    [
        (("mcp",), ("mcp",), "mcp"),
        (("serve",), ("uvicorn",), "serve"),
    ],
)
def test_a_feature_without_its_extra_says_the_pip_command(
    memrepo: Path, runner: CliRunner, without, args: tuple[str, ...], hidden, extra: str
) -> None:
    without(*hidden)
    result = invoke(runner, *args)
    assert result.exit_code == 1
    assert result.stdout == ""
    first, hint = result.stderr.strip().splitlines()
    assert first.startswith("error: agentmem ") and f"needs {hidden[0]}," in first
    assert (
        hint
        == f"  hint: pip install 'agentmem[{extra}]' (or, from a clone: pip install -e '.[{extra}]')"
    )
    assert "Traceback" not in result.stderr


def test_the_openai_provider_without_its_extra_says_the_pip_command(
    memrepo: Path, runner: CliRunner, without, tmp_path: Path
) -> None:
    without("openai")
    (memrepo / "agentmem.yaml").write_text(
        "harvest:\n  openai:\n    base_url: http://127.0.0.1:9/v1\n    model: llama3.1\n",
        encoding="utf-8",
    )
    git(memrepo, "commit", "-qam", "settings")
    session = tmp_path / "s.md"
    session.write_text("User: From now on keep my emails short.\n", encoding="utf-8")
    result = invoke(runner, "harvest", str(session), "--provider", "openai")
    assert result.exit_code == 1
    assert "the openai harvest provider needs openai" in result.stderr
    assert "pip install 'agentmem[openai]'" in result.stderr
    assert "Traceback" not in result.stderr
