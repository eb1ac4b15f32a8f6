"""Publishing ``agentmem check``: the pre-commit hook, the GitHub Actions
example, ``--format github`` from the installed command, and this repository's own memory."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml
from tests.helpers import REPO_ROOT

from agentmem.check.run import run_check
from agentmem.doctrine.model import content_sha256, missing_for_activation
from agentmem.doctrine.parse import load_rules


def test_this_repository_is_a_clean_memory_repository() -> None:
    """The dogfood: the repository root passes its own check."""
    report = run_check(REPO_ROOT)
    assert report.errors == [], [f"{f.path}:{f.line}: {f.message}" for f in report.errors]
    rules = load_rules(REPO_ROOT)
    active = [r for r in rules if r.status == "active"]
    assert len(active) >= 5
    for rule in active:
        assert not missing_for_activation(rule), rule.id
        assert rule.approval is not None and rule.approval.by != rule.proposed_by
        assert rule.approval.content_sha256 == content_sha256(rule)
    assert (REPO_ROOT / "memories" / "lead.md").is_file()


def test_the_hook_manifest() -> None:
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (hook,) = hooks
    assert hook["id"] == "agentmem-check"
    assert hook["entry"] == "agentmem check"
    assert hook["language"] == "python"
    assert hook["pass_filenames"] is False and hook["always_run"] is True


def test_the_github_actions_example() -> None:
    workflow = yaml.safe_load(
        (REPO_ROOT / "docs" / "github-actions-check.yml").read_text(encoding="utf-8")
    )
    steps = workflow["jobs"]["check"]["steps"]
    runs = [step.get("run", "") for step in steps]
    push = next(run for run in runs if "$BEFORE" in run)
    assert 'agentmem check --history --since "$BEFORE" --format github' in push
    assert "agentmem check --history --format github" in push  # a first push: everything
    assert any("--since" in run and "$BASE_REF" in run for run in runs)
    assert steps[0]["with"]["fetch-depth"] == 0


def test_installed_command_prints_github_annotations(memrepo: Path) -> None:
    (memrepo / "memories" / "alice.md").write_text(
        "# Memory: alice\n\nnot an entry\n", encoding="utf-8"
    )
    proc = subprocess.run(
        ["agentmem", "check", "--format", "github"], cwd=memrepo, capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert proc.stdout.startswith(
        "::error file=memories/alice.md,line=3,title=memory-structure::unexpected text"
    )
    assert "1 error" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_pre_commit_try_repo_runs_the_hook(memrepo: Path, tmp_path: Path) -> None:
    """``pre-commit try-repo`` against this repository, in a sample memory repository whose
    memory is over budget: pre-commit builds the hook's environment from this checkout
    (``pip install .``) and the hook runs ``agentmem check``, failing and naming the file.

    No package index is used: pip may not reach one (``PIP_NO_INDEX``); the isolated build
    takes setuptools from the wheels that virtualenv (pre-commit's own dependency) ships, and the
    runtime dependencies are the ones this interpreter already has (its site-packages on
    ``PYTHONPATH``, so this works from a virtual environment too)."""
    text = (
        "# Memory: alice\n\n## Writing style\n"
        + "- Keep a collaborative tone with suppliers.\n" * 200
    )
    (memrepo / "memories" / "alice.md").write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "-A"], cwd=memrepo, check=True)
    subprocess.run(["git", "commit", "-qm", "over budget"], cwd=memrepo, check=True)
    from virtualenv.seed.wheels.embed import BUNDLE_FOLDER

    # A virtual environment made with --system-site-packages finds part of its dependencies in
    # the interpreter's own site-packages: those go on the path too.
    installed = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    installed.update(site.getsitepackages())
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(BUNDLE_FOLDER),  # setuptools for the build
        # in the order this interpreter reads them (the venv's own first), so a newer package
        # the venv installed is not shadowed by an older one of the interpreter's
        "PYTHONPATH": os.pathsep.join(
            [p for p in sys.path if p in installed] + sorted(installed.difference(sys.path))
        ),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO_ROOT), "agentmem-check", "--all-files"],
        cwd=memrepo, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "agentmem check (memory budgets, doctrine approvals, guard)" in proc.stdout
    assert "Failed" in proc.stdout
    assert "memories/alice.md:1: error: 8834/8000 characters" in proc.stdout
