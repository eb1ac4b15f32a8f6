"""The PreToolUse gate (docs/design/governance.md §Trust boundary): what an agent may not run or write,
however it spells it, and what stays open. In process (``toolgate.decide``) against a real
memory repository; ``tests/stories/test_hostile_trial.py`` runs the real hook command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from tests.helpers.gate_cases import ALLOWED, DENIED, payload
from typer.testing import CliRunner

from agentmem.delivery import gatetable, toolgate


def _reason(cwd: Path, command: str) -> str | None:
    answer = toolgate.decide(payload(cwd, command=command))
    if not answer:
        return None
    out = json.loads(answer)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "deny"
    reason = out["permissionDecisionReason"]
    assert isinstance(reason, str)
    return reason


@pytest.mark.slow
@pytest.mark.parametrize(("command", "said"), DENIED)
def test_the_gate_denies_every_spelling(memrepo: Path, command: str, said: str) -> None:
    reason = _reason(memrepo, command)
    assert reason is not None, command
    assert said in reason
    assert "Do not" in reason or "do not" in reason


def test_the_table_has_at_least_36_spellings() -> None:
    assert len(DENIED) >= 36 and len(ALLOWED) >= 10
    assert len({c for c, _ in DENIED}) == len(DENIED)


@pytest.mark.parametrize("command", ALLOWED)
def test_the_gate_lets_honest_work_through(memrepo: Path, command: str) -> None:
    assert _reason(memrepo, command) is None


def test_a_denial_names_what_to_do_instead(memrepo: Path) -> None:
    review = _reason(memrepo, "agentmem review -aall")
    assert review is not None and "ask them to run 'agentmem review' themselves" in review
    memory = _reason(memrepo, "echo x >> memories/alice.md")
    assert memory is not None and "agentmem remember" in memory
    rule = _reason(memrepo, "sed -i s/a/b/ doctrine/r7.yaml")
    assert rule is not None and "agentmem doctrine propose" in rule
    pipe = _reason(memrepo, "printf x | sh")
    assert pipe is not None and "Write the command out plainly" in pipe


@pytest.mark.parametrize("tool", ["Edit", "Write", "MultiEdit"])
def test_the_edit_tools_may_not_write_agentmem_files(memrepo: Path, tool: str) -> None:
    for path in ("memories/alice.md", "doctrine/r7.yaml", "roles.yaml", ".agentmem/x.json"):
        answer = toolgate.decide(payload(memrepo, tool, file_path=str(memrepo / path)))
        reason = json.loads(answer)["hookSpecificOutput"]["permissionDecisionReason"]
        assert f"{path} is written only by agentmem" in reason
    relative = toolgate.decide(payload(memrepo, tool, file_path="inbox/alice/p.yaml"))
    assert "inbox/alice/p.yaml is written only by agentmem" in relative
    assert toolgate.decide(payload(memrepo, tool, file_path=str(memrepo / "README.md"))) == ""
    notebook = payload(memrepo, "NotebookEdit", notebook_path=str(memrepo / "memories/a.ipynb"))
    assert "is written only by agentmem" in toolgate.decide(notebook)
    assert toolgate.decide(payload(memrepo, "Read", file_path="memories/alice.md")) == ""


def test_outside_a_memory_repository_paths_are_free(tmp_path: Path) -> None:
    assert _reason(tmp_path, "echo x >> memories/alice.md") is None
    assert toolgate.decide(payload(tmp_path, "Write", file_path="memories/a.md")) == ""
    assert _reason(tmp_path, "agentmem review -a all") is not None


def test_a_commit_that_would_take_a_staged_memory_file_is_denied(
    memrepo: Path, runner: CliRunner
) -> None:
    assert invoke(runner, "remember", "Quote clause numbers first.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    assert _reason(memrepo, "git commit -m 'work'") is None
    memory = memrepo / "memories" / "alice.md"
    memory.write_text(memory.read_text(encoding="utf-8") + "- Planted.\n", encoding="utf-8")
    all_changes = _reason(memrepo, "git commit -am 'work'")
    assert (
        all_changes is not None and "memories/alice.md is written only by agentmem" in all_changes
    )
    assert _reason(memrepo, "git commit -m 'work'") is None  # not staged: not taken
    assert _reason(memrepo, "git add -A") is not None
    git(memrepo, "add", "memories/alice.md")
    staged = _reason(memrepo, "git commit -m 'work'")
    assert staged is not None and "memories/alice.md" in staged
    assert _reason(memrepo / "memories", "git -C .. commit -m 'work'") is not None


def test_the_table_is_the_typer_tree() -> None:
    """The generated table is what the real command tree gives (regenerate it with
    ``python -m agentmem.cli.gatetable --write`` when this fails)."""
    from agentmem.cli import gatetable as build

    assert gatetable.__file__ is not None
    assert Path(gatetable.__file__).read_text(encoding="utf-8") == build.render()
    review_open, review_values = gatetable.PERSON_ONLY[("review",)]
    assert review_open is not None and {"-i", "-e", "-a", "--allow-foreign"}.isdisjoint(review_open)
    assert {"-a", "-e", "-r", "--accept"} <= review_values
    assert "--repo" in gatetable.ROOT_VALUES


def test_every_option_of_a_person_only_command_is_covered() -> None:
    """Whatever option is added to review later decides until governance lists it as open."""
    import typer

    from agentmem.cli.tree import app
    from agentmem.governance import PERSON_ONLY

    review = typer.main.get_command(app).commands["review"]  # type: ignore[attr-defined]
    for param in review.params:
        for spelling in param.opts:
            found = toolgate._deciding(["review", spelling, "x"])
            if param.name in (PERSON_ONLY[("review",)] or ()):
                assert found is None, spelling
            else:
                assert found == f"review {spelling}", spelling


def test_a_policy_naming_a_missing_parameter_fails_the_build() -> None:
    from agentmem.cli import gatetable as build

    with pytest.raises(KeyError, match="no parameter"):
        build.build({("review",): ("no_such_option",)})
    with pytest.raises(KeyError, match="no such command"):
        build.build({("doctrine", "promote"): None})
