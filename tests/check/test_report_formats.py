"""``check --format sarif``, the GitHub job summary, and shell completion."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.helpers import invoke

from agentmem.check import report_formats, rule_help
from agentmem.check.findings import Finding


def _broken(root: Path) -> None:
    """A memory file of someone not in roles.yaml (a warning) and one without its title (an
    error)."""
    (root / "memories" / "zed.md").write_text("# Memory: zed\n\n## Writing style\n", "utf-8")
    (root / "memories" / "alice.md").write_text("no title here\n", encoding="utf-8")


def test_sarif_is_a_2_1_0_log_with_rules_results_and_locations(memrepo: Path, runner):
    _broken(memrepo)
    result = invoke(runner, "check", "--format", "sarif")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "agentmem" and driver["version"]
    ids = [rule["id"] for rule in driver["rules"]]
    assert len(ids) == len(set(ids))
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels["memory-unknown-person"] == "warning"
    assert "error" in levels.values()
    for r in run["results"]:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        (location,) = r["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert physical["region"]["startLine"] >= 1
        assert r["message"]["text"]
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    }
    assert {"memories/zed.md", "memories/alice.md"} <= uris


def test_clean_sarif_has_no_results(memrepo: Path, runner):
    result = invoke(runner, "check", "--format", "sarif")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["runs"][0]["results"] == []


def test_github_format_appends_a_summary_table(memrepo: Path, runner, monkeypatch, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    _broken(memrepo)
    result = invoke(runner, "check", "--format", "github")
    assert result.exit_code == 1
    assert result.stdout.startswith("::")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("earlier step\n## agentmem check\n")
    assert "| severity | file | line | code | message |" in text
    assert "| warning | `memories/zed.md` | 1 | `memory-unknown-person` |" in text


def test_no_summary_without_the_variable_or_for_other_formats(
    memrepo: Path, runner, monkeypatch, tmp_path
):
    summary = tmp_path / "summary.md"
    invoke(runner, "check", "--format", "github")
    assert not summary.exists()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    invoke(runner, "check")
    assert not summary.exists()
    invoke(runner, "check", "--format", "github")
    assert "Clean (" in summary.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("shell", "marker"),
    [
        ("bash", "_AGENTMEM_COMPLETE=complete_bash"),
        ("zsh", "#compdef agentmem"),
        ("fish", "_AGENTMEM_COMPLETE=complete_fish"),
    ],
)
def test_completion_scripts(runner, shell: str, marker: str):
    result = invoke(runner, "completion", shell)
    assert result.exit_code == 0
    assert marker in result.stdout
    assert invoke(runner, "completion", "tcsh").exit_code == 2


def test_completion_answers_commands_and_option_values(runner, monkeypatch):
    from agentmem.cli.tree import app

    monkeypatch.setenv("_AGENTMEM_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", "agentmem exp")
    monkeypatch.setenv("COMP_CWORD", "1")
    commands = runner.invoke(app, [], prog_name="agentmem")
    assert commands.stdout.split() == ["export"]
    monkeypatch.setenv("COMP_WORDS", "agentmem export --to ")
    monkeypatch.setenv("COMP_CWORD", "3")
    values = runner.invoke(app, [], prog_name="agentmem")
    assert values.stdout.split() == ["claude-md", "agents-md", "cursor-rule", "markdown"]


def test_sarif_rules_carry_their_help_and_results_a_stable_fingerprint(memrepo: Path, runner):
    _broken(memrepo)
    (run,) = json.loads(invoke(runner, "check", "--format", "sarif").stdout)["runs"]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    unknown = rules["memory-unknown-person"]["help"]
    assert unknown["markdown"].startswith("`memory-unknown-person` (warning), `memory-user-role`: ")
    assert "`" not in unknown["text"] and unknown["text"].endswith(rule_help.SEE)
    prints = [r["partialFingerprints"][report_formats.FINGERPRINT] for r in run["results"]]
    assert len(prints) == len(set(prints)) and all(len(p) == 32 for p in prints)
    again = json.loads(invoke(runner, "check", "--format", "sarif").stdout)["runs"][0]
    assert [r["partialFingerprints"] for r in again["results"]] == [
        r["partialFingerprints"] for r in run["results"]
    ]


def test_a_fingerprint_leaves_line_numbers_out() -> None:
    moved = Finding("memories/a.md", 9, "warning", "memory-contradiction", "#4 and #1 (line 7)")
    here = Finding("memories/a.md", 5, "warning", "memory-contradiction", "#4 and #1 (line 3)")
    other = Finding("memories/b.md", 5, "warning", "memory-contradiction", "#4 and #1 (line 3)")
    assert report_formats.fingerprint(moved) == report_formats.fingerprint(here)
    assert report_formats.fingerprint(other) != report_formats.fingerprint(here)


def test_the_help_rows_are_the_code_tables_of_the_design() -> None:
    """``check/rule_help.py`` holds docs/design/check.md §Check's two code tables word for word."""
    design = (Path(__file__).resolve().parents[2] / "docs" / "design" / "check.md").read_text(
        "utf-8"
    )
    start = design.index("## 17. Check")
    section = design[start : design.index("**The server gate", start)]
    rows = re.findall(r"^\| (`[^|]*`[^|]*) \| ([^\n]*) \|$", section, re.M)
    expected = tuple(
        (tuple(re.findall(r"`([a-z][a-z:<>-]+)`", codes)), f"{codes}: {text}")
        for codes, text in rows
    )
    assert expected == rule_help.ROWS
    assert rule_help.help_text("guard:pii:email").startswith("guard:<code>: a guard finding")
