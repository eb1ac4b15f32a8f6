"""`agentmem --version` reports the package version, written in one place (agentmem.__version__,
which the build reads for the distribution's metadata)."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version

from tests.helpers import REPO_ROOT, invoke
from typer.testing import CliRunner

import agentmem


def test_version_prints_the_package_version(runner: CliRunner) -> None:
    result = invoke(runner, "--version")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"agentmem {agentmem.__version__}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+", agentmem.__version__)


def test_the_version_is_written_once() -> None:
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert version("agentmem") == agentmem.__version__
