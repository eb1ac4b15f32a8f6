"""Path safety: slugs, ``..``, absolute paths, NUL, case-only collisions and
symlinked targets or parents are refused before anything is written or committed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner

from agentmem.apply.change import FileChange
from agentmem.apply.writer import apply_changes
from agentmem.errors import ConfigError, UsageError
from agentmem.store.paths import UnsafePathError, check_relpath, check_slug
from agentmem.store.repo import parse_roles

MEMORY = "# Memory: alice\n\n## Writing style\n\n## Priorities & scope\n\n## Recurring patterns\n\n## Rule dependencies\n"


@pytest.mark.parametrize(
    "value",
    [
        "../alice",
        "alice/..",
        "/etc/passwd",
        "al\x00ice",
        "Alice",
        "alice\n",
        "",
        "-alice",
        "a" * 65,
        "al ice",
        "ali.ce",
    ],
)
def test_person_and_rule_ids_must_be_slugs(value: str) -> None:
    with pytest.raises(UsageError, match="invalid person id"):
        check_slug(value, "person id")


def test_a_valid_slug_passes() -> None:
    assert check_slug("supply-warranty-12-months", "rule id") == "supply-warranty-12-months"


def test_two_people_whose_ids_differ_only_by_case_are_refused() -> None:
    roles = {
        "alice": {"email": "a@example.com", "role": "admin"},
        "Alice": {"email": "b@example.com", "role": "member"},
    }
    with pytest.raises(ConfigError, match=r"invalid person id 'Alice'"):
        parse_roles(roles, "roles.yaml")


@pytest.mark.parametrize(
    ("relpath", "why"),
    [
        ("../outside.md", "'..'"),
        ("memories/../../outside.md", "'..'"),
        ("/etc/passwd", "absolute"),
        ("memories/al\x00ice.md", "control character"),
        ("memories\\alice.md", "backslash"),
        ("memories//alice.md", "empty part"),
        (".git/config", "inside .git"),
        ("", "empty path"),
    ],
)
def test_unsafe_relative_paths_are_refused(memrepo: Path, relpath: str, why: str) -> None:
    with pytest.raises(UnsafePathError, match=why):
        check_relpath(memrepo, relpath)


def _head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def test_a_symlinked_memory_file_is_refused_and_its_target_untouched(
    memrepo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("precious\n", encoding="utf-8")
    (memrepo / "memories" / "alice.md").symlink_to(outside)
    before = _head(memrepo)
    with pytest.raises(UnsafePathError, match="memories/alice.md is a symbolic link"):
        apply_changes(memrepo, [FileChange("memories/alice.md", "precious\n", MEMORY)], "m\n")
    assert outside.read_text(encoding="utf-8") == "precious\n"
    assert _head(memrepo) == before


def test_a_symlinked_parent_folder_is_refused(memrepo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (memrepo / "inbox" / "bob").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="inbox/bob is a symbolic link"):
        apply_changes(memrepo, [FileChange("inbox/bob/p-1.yaml", None, "x: 1\n")], "m\n")
    assert list(elsewhere.iterdir()) == []


def test_a_case_only_twin_is_refused(memrepo: Path) -> None:
    (memrepo / "memories" / "Alice.md").write_text(MEMORY, encoding="utf-8")
    with pytest.raises(UnsafePathError, match="memories/Alice.md differs from it only by case"):
        apply_changes(memrepo, [FileChange("memories/alice.md", None, MEMORY)], "m\n")
    assert not (memrepo / "memories" / "alice.md").exists()


def test_review_refuses_a_symlinked_memory_with_exit_1(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    outside = tmp_path / "victim.txt"
    outside.write_text(MEMORY, encoding="utf-8")
    assert invoke(runner, "remember", "Keep answers short.").exit_code == 0
    os.symlink(outside, memrepo / "memories" / "alice.md")  # remember itself refuses a link
    before = _head(memrepo)
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 1
    assert "memories/alice.md: a symlink; agentmem reads only regular files" in result.stderr
    assert "Traceback" not in result.stderr
    assert outside.read_text(encoding="utf-8") == MEMORY
    assert _head(memrepo) == before


def test_a_safe_path_is_returned(memrepo: Path) -> None:
    assert check_relpath(memrepo, "memories/alice.md") == str(memrepo / "memories" / "alice.md")
