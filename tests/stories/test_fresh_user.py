"""Failures a new user ran into (fresh-user trial, 2026-11-29): each must be a clear refusal
with nothing half-done, never an "unexpected error"."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.helpers import DATA, git, invoke, set_identity
from typer.testing import CliRunner


def test_init_without_identity_leaves_nothing_and_a_second_init_commits_everything(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "m"
    empty = tmp_path / "empty.gitconfig"
    empty.write_text("", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    result = invoke(runner, "init", str(target))
    assert result.exit_code == 1 and "no git identity" in result.stderr
    assert not (target / ".git").exists() and not (target / "agentmem.yaml").exists()
    # An interrupted init (files left, nothing committed) is completed by the next one.
    git(tmp_path, "init", "-q", str(target))
    set_identity(target, "Carol", "carol@example.com")
    (target / "agentmem.yaml").write_text("memory:\n  budget_chars: 9000\n", encoding="utf-8")
    assert invoke(runner, "init", str(target)).exit_code == 0
    assert git(target, "status", "--porcelain") == ""
    assert "agentmem.yaml" in git(target, "show", "--name-only", "--format=", "HEAD").split()
    assert (target / "agentmem.yaml").read_text(
        encoding="utf-8"
    ) == "memory:\n  budget_chars: 9000\n"


def test_init_on_a_file_is_a_usage_error(tmp_path: Path, runner: CliRunner) -> None:
    path = tmp_path / "file"
    path.write_text("x", encoding="utf-8")
    result = invoke(runner, "init", str(path))
    assert result.exit_code == 2 and "is a file, not a folder" in result.stderr


def test_memory_edit_repairs_a_broken_file(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (
        invoke(runner, "remember", "Short sentences.", "--section", "Writing style").exit_code == 0
    )
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    memory = memrepo / "memories" / "alice.md"
    good = memory.read_text(encoding="utf-8")
    memory.write_text(good + "## Extra\n- stray\n", encoding="utf-8")
    shown = invoke(runner, "memory", "show")
    assert shown.exit_code == 1 and "unexpected section 'Extra'" in shown.stderr
    fixer = tmp_path / "fix.py"
    fixer.write_text(
        f"import pathlib, sys\npathlib.Path(sys.argv[1]).write_text({good!r})\n", encoding="utf-8"
    )
    monkeypatch.setenv("EDITOR", f"python {fixer}")
    result = invoke(runner, "memory", "edit")
    assert result.exit_code == 0, result.stderr
    assert memory.read_text(encoding="utf-8") == good
    assert git(memrepo, "status", "--porcelain") == ""


def test_a_missing_editor_is_explained(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDITOR", "/nonexistent/editor")
    result = invoke(runner, "memory", "edit")
    assert result.exit_code == 2
    assert (
        "cannot start the editor '/nonexistent/editor'" in result.stderr
        and "Traceback" not in result.output
    )


def test_blame_never_calls_a_plain_git_commit_approved(memrepo: Path, runner: CliRunner) -> None:
    assert (
        invoke(runner, "remember", "Short sentences.", "--section", "Writing style").exit_code == 0
    )
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    memory = memrepo / "memories" / "alice.md"
    memory.write_text(
        memory.read_text(encoding="utf-8").replace("Short sentences.", "Bullet points everywhere."),
        encoding="utf-8",
    )
    git(memrepo, "commit", "-qam", "helpful tweak")
    entries = json.loads(invoke(runner, "memory", "blame", "--format", "json").stdout)
    assert (
        entries[0]["approver"] is None
        and entries[0]["author"] == "Alice Martin <alice@example.com>"
    )
    text = invoke(runner, "memory", "blame").stdout
    assert "NOT approved through agentmem: a plain git commit by Alice Martin" in text


def test_cut_proposals_are_listed_not_dropped(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    texts = [
        f"Habit {word} is worth keeping."
        for word in ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")
    ]
    answer = tmp_path / "a.json"
    answer.write_text(
        json.dumps(
            {
                "proposals": [
                    {
                        "action": "add",
                        "basis": "declared",
                        "section": "Recurring patterns",
                        "text": t,
                        "justification": "said",
                    }
                    for t in texts
                ]
            }
        ),
        encoding="utf-8",
    )
    result = invoke(
        runner,
        "harvest",
        str(DATA / "sessions" / "contract-review-session.md"),
        "--proposals",
        str(answer),
    )
    assert result.exit_code == 0, result.stderr
    assert (
        "  cut #7 add (memory, Recurring patterns): Habit golf is worth keeping." in result.stdout
    )
    assert (
        "  cut #8 add (memory, Recurring patterns): Habit hotel is worth keeping." in result.stdout
    )


def test_a_pending_repeat_is_named_as_pending(memrepo: Path, runner: CliRunner) -> None:
    assert invoke(runner, "remember", "Limit comments to 3 bullet points.").exit_code == 0
    result = invoke(runner, "remember", "Comments: limit them to three bullet points.")
    assert result.exit_code == 1
    assert "pending in your inbox" in result.stderr and "accept or reject" in result.stderr


@pytest.mark.slow
def test_memory_repeats_are_found_by_meaning_not_by_characters(
    memrepo: Path, runner: CliRunner
) -> None:
    """The memory side uses doctrine's scorer: figures must match, word order does not count."""
    assert invoke(runner, "remember", "Limit comments to 3 bullet points.").exit_code == 0
    other_figure = invoke(runner, "remember", "Limit comments to 5 bullet points.")
    assert other_figure.exit_code == 0, other_figure.stderr  # a different preference
    first = "Cite the clause number first, then the page of the contract."
    assert invoke(runner, "remember", first).exit_code == 0
    reordered = invoke(
        runner, "remember", "Cite the page of the contract, then the clause number first."
    )
    assert reordered.exit_code == 1 and "pending in your inbox" in reordered.stderr
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    again = invoke(
        runner, "remember", "Never propose passive rewordings; I prefer the active voice."
    )
    assert again.exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    paraphrase = invoke(
        runner, "remember", "Do not propose passive rewordings: I prefer the active voice."
    )
    assert paraphrase.exit_code == 1
    assert "repeats entry #" in paraphrase.stderr and "100 % similar" in paraphrase.stderr


def test_a_closed_pipe_is_not_an_error(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``agentmem log | head -1``: the reader goes away; agentmem stops quietly with 0."""

    def closed(*_a: object, **_k: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr("agentmem.proposals.trail.audit_log", closed)
    result = invoke(runner, "log")
    assert result.exit_code == 0
    assert "unexpected error" not in result.stderr


def test_a_rule_edited_by_hand_after_approval_is_not_applied() -> None:
    import dataclasses
    from datetime import date

    from tests.helpers import REPO_ROOT

    from agentmem.doctrine.model import not_applied_reason
    from agentmem.doctrine.parse import load_rules

    rule = next(r for r in load_rules(REPO_ROOT) if r.status == "active")
    assert not_applied_reason(rule, rule.scope or "", date(2026, 11, 29), "alert") is None
    edited = dataclasses.replace(rule, instruction=rule.instruction + " Except on Fridays.")
    assert (
        not_applied_reason(edited, rule.scope or "", date(2026, 11, 29), "alert")
        == "changed after approval"
    )


def test_a_session_still_being_written_is_read_up_to_its_last_complete_line(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    whole = (DATA / "transcripts" / "spotter_tool_heavy.jsonl").read_bytes()
    partial = tmp_path / "live.jsonl"
    partial.write_bytes(whole[:-40])  # the last line cut mid-way, no line end
    result = invoke(runner, "harvest", str(partial), "--provider", "offline")
    assert result.exit_code == 0, result.stderr
    assert "live.jsonl:39: invalid JSON" in result.stderr and "was skipped" in result.stderr
    assert "turns, 2 of them yours) via offline: 0 proposals kept" in result.stdout
    # A broken line that is not the unfinished last one is still an error.
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(whole[:-40] + b"\n")
    assert invoke(runner, "harvest", str(broken), "--provider", "offline").exit_code == 1


def test_settings_without_git_point_to_init(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "agentmem.yaml").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = invoke(runner, "inbox")
    assert result.exit_code == 1
    assert (
        "has agentmem.yaml but is not in a git work tree" in result.stderr
        and "agentmem init" in result.stderr
    )


@pytest.mark.parametrize("name", ["agentmem.yaml", "roles.yaml"])
@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_settings_file_that_is_not_a_regular_file_is_named_not_read(
    memrepo: Path, runner: CliRunner, name: str, kind: str
) -> None:
    # A named pipe in a settings file's place used to block every command on its read; the
    # root finder looks for a regular agentmem.yaml, so one that is not is not a repository.
    path = memrepo / name
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.mkdir()
    result = invoke(runner, "inbox")
    assert result.exit_code == 1
    expected = "no agentmem.yaml in" if name == "agentmem.yaml" else f"{name}: not a regular file"
    assert expected in result.stderr
    assert "Traceback" not in result.stderr


def test_log_of_a_rule_that_never_existed_is_a_usage_error(
    memrepo: Path, runner: CliRunner
) -> None:
    """``log --rule ID`` with a mistyped id: exit 2 with the way to the ids, as ``--person``
    and ``doctrine show`` do (it was exit 0 with a note)."""
    result = invoke(runner, "log", "--rule", "warranty-12-monts")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "error: no rule 'warranty-12-monts': no doctrine file and no commit has that id",
        "  hint: agentmem doctrine list shows the ids",
    ]
    assert result.stdout == ""
