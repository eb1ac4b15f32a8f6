"""Corrections at review: route, section and target besides the text, scripted and
interactive, recorded in the commit's trailers; word-level highlighting of a change."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import git, invoke
from typer.testing import CliRunner

from agentmem.cli.review import _word_diff


def _pending(memrepo: Path, runner: CliRunner, tmp_path: Path, proposals: list[dict]) -> list[str]:
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"proposals": proposals}), encoding="utf-8")
    session = tmp_path / "s.md"
    session.write_text("User: hello\n", encoding="utf-8")
    result = invoke(runner, "harvest", str(session), "--proposals", str(answer), "--format", "json")
    assert result.exit_code == 0, result.stderr
    (out,) = json.loads(result.stdout)
    return [p["id"] for p in out["proposals"]]


def test_section_and_route_corrections_are_applied_and_recorded(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    first, second = _pending(
        memrepo,
        runner,
        tmp_path,
        [
            {
                "action": "add",
                "basis": "declared",
                "section": "Recurring patterns",
                "text": "Check the annexes first.",
                "justification": "said",
            },
            {
                "action": "add",
                "basis": "declared",
                "route": "memory",
                "section": "Writing style",
                "text": "The team never signs unlimited liability.",
                "justification": "said",
            },
        ],
    )
    result = invoke(
        runner,
        "review",
        "--section",
        f"{first}=Priorities & scope",
        "--route",
        f"{second}=doctrine",
    )
    assert result.exit_code == 0, result.stderr
    text = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert "## Priorities & scope\n- Check the annexes first." in text
    log = git(memrepo, "log", "--format=%(trailers)", "-2")
    assert "Agentmem-Corrected: section: Recurring patterns -> Priorities & scope" in log
    assert "Agentmem-Corrected: route: memory -> doctrine" in log
    assert list((memrepo / "doctrine").glob("*.yaml")), "the corrected proposal became a draft rule"


def test_target_correction_and_bad_corrections(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    (first,) = _pending(
        memrepo,
        runner,
        tmp_path,
        [
            {
                "action": "add",
                "basis": "declared",
                "section": "Writing style",
                "text": "Summaries in 3 bullets.",
                "justification": "said",
            }
        ],
    )
    assert invoke(runner, "review", "--accept", first).exit_code == 0
    answer = tmp_path / "m.json"
    answer.write_text(
        json.dumps(
            {
                "proposals": [
                    {
                        "action": "modify",
                        "basis": "declared",
                        "section": "Writing style",
                        "target": "3 bullets",
                        "text": "Summaries in 5 bullets.",
                        "justification": "changed mind",
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    session = tmp_path / "s2.md"
    session.write_text("User: five now\n", encoding="utf-8")
    out = json.loads(
        invoke(
            runner, "harvest", str(session), "--proposals", str(answer), "--format", "json"
        ).stdout
    )
    (pid,) = [p["id"] for p in out[0]["proposals"]]
    bad = invoke(runner, "review", "--target", f"{pid}")
    assert bad.exit_code == 2 and "--target takes ID=VALUE" in bad.stderr
    result = invoke(runner, "review", "--target", f"{pid}=Summaries in 3")
    assert result.exit_code == 0, result.stderr
    assert "- Summaries in 5 bullets." in (memrepo / "memories" / "alice.md").read_text(
        encoding="utf-8"
    )
    assert "Agentmem-Corrected: target: changed" in git(
        memrepo, "log", "-1", "--format=%(trailers)"
    )


def test_interactive_correction_of_route_and_section(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    (pid,) = _pending(
        memrepo,
        runner,
        tmp_path,
        [
            {
                "action": "add",
                "basis": "declared",
                "section": "Recurring patterns",
                "text": "Cite clause numbers.",
                "justification": "said",
            }
        ],
    )
    # edit: keep the text, keep the route, section "Writing style"; then accept.
    result = invoke(runner, "review", "--interactive", input="e\n\n\nWriting style\na\n")
    assert result.exit_code == 0, result.stderr
    assert "## Writing style\n- Cite clause numbers." in (
        memrepo / "memories" / "alice.md"
    ).read_text(encoding="utf-8")
    assert "Agentmem-Corrected: section: Recurring patterns -> Writing style" in git(
        memrepo, "log", "-1", "--format=%(trailers)"
    )
    assert pid in git(memrepo, "log", "-1", "--format=%(trailers)")


def test_word_diff_marks_the_changed_words() -> None:
    assert _word_diff("Summaries in 3 bullets.", "Summaries in 5 bullets.") == (
        "Summaries in [red strike]3[/] [bold green]5[/] bullets."
    )
