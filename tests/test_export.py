"""``agentmem export``: memory or doctrine between markers; only the block changes; ``check``
warns when a block is older than what it came from; memory and doctrine never share a file."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import invoke
from tests.helpers.context import RULES, write_memory, write_rules


def test_memory_export_prints_one_marked_block(memrepo, runner):
    write_memory(memrepo, runner)
    result = invoke(runner, "export", "--to", "claude-md")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("<!-- agentmem:begin memory person=alice sha256=")
    assert lines[-1] == "<!-- agentmem:end memory person=alice -->"
    assert '<agentmem-memory person="alice">' in result.stdout
    assert "agentmem-doctrine" not in result.stdout


def test_export_into_a_file_replaces_only_its_block(memrepo, runner, tmp_path):
    write_memory(memrepo, runner)
    target = tmp_path / "project" / "CLAUDE.md"
    target.parent.mkdir()
    target.write_text("# Project\n\nUse uv.\n", encoding="utf-8")
    first = invoke(runner, "export", "--to", "claude-md", "--output", str(target))
    assert first.exit_code == 0, first.stderr
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# Project\n\nUse uv.\n\n<!-- agentmem:begin memory person=alice")
    # The person adds text after the block; a new export changes the block only.
    target.write_text(text + "\n## Notes\nmine\n", encoding="utf-8")
    invoke(runner, "remember", "Sign letters with the full name.", "--section", "Writing style")
    invoke(runner, "review", "--accept", "all")
    again = invoke(runner, "export", "--to", "claude-md", "--output", str(target))
    assert again.exit_code == 0
    updated = target.read_text(encoding="utf-8")
    assert updated.startswith("# Project\n\nUse uv.\n\n<!-- agentmem:begin")
    assert updated.endswith("\n## Notes\nmine\n")
    assert updated.count("agentmem:begin") == 1
    assert "Sign letters with the full name." in updated
    same = invoke(runner, "export", "--to", "claude-md", "--output", str(target))
    assert "already up to date" in same.stderr
    assert target.read_text(encoding="utf-8") == updated


def test_check_warns_when_an_exported_block_is_older_than_the_memory(memrepo, runner, tmp_path):
    write_memory(memrepo, runner)
    target = tmp_path / "AGENTS.md"
    invoke(runner, "export", "--to", "agents-md", "--output", str(target))
    clean = invoke(runner, "check", "--format", "json")
    assert not [f for f in json.loads(clean.stdout) if f["code"] == "export-stale"]
    invoke(runner, "remember", "Prefer short commit subjects.", "--section", "Writing style")
    invoke(runner, "review", "--accept", "all")
    stale = invoke(runner, "check", "--format", "json")
    assert stale.exit_code == 0  # a warning
    (finding,) = [f for f in json.loads(stale.stdout) if f["code"] == "export-stale"]
    assert finding["severity"] == "warning"
    assert finding["path"] == str(target.resolve())
    assert finding["line"] == 1
    assert "memory of alice changed" in finding["message"]
    invoke(runner, "export", "--to", "agents-md", "--output", str(target))
    fresh = invoke(runner, "check", "--format", "json")
    assert not [f for f in json.loads(fresh.stdout) if f["code"] == "export-stale"]


def test_doctrine_export_as_a_cursor_rule_and_never_beside_memory(memrepo, runner):
    write_memory(memrepo, runner)
    write_rules(memrepo, RULES)
    rule = memrepo / ".cursor" / "rules" / "team.mdc"
    result = invoke(
        runner, "export", "--to", "cursor-rule", "--audit", "--scope", "contracts/supply",
        "--output", str(rule),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    text = rule.read_text(encoding="utf-8")
    assert text.startswith("---\ndescription: Team doctrine for scope contracts/supply")
    assert "alwaysApply: true" in text
    assert "<!-- agentmem:begin doctrine scope=contracts/supply sha256=" in text
    assert "Accept a 12-month warranty on supply contracts." in text
    assert "Flag clauses written in legalese." in text  # the parent scope's rule too
    assert "Prefer DAP incoterms" not in text  # suspended
    assert "Cap late-delivery penalties" not in text  # draft
    assert "agentmem-memory" not in text
    assert not (memrepo / ".agentmem" / "usage.jsonl").exists()  # an export is not an audit run
    mixed = invoke(runner, "export", "--to", "cursor-rule", "--output", str(rule))
    assert mixed.exit_code == 1
    assert "personal memory and team doctrine never share a file" in mixed.stderr
    assert rule.read_text(encoding="utf-8") == text


def test_a_half_written_block_is_refused_and_the_file_left_alone(memrepo, runner, tmp_path):
    write_memory(memrepo, runner)
    target = tmp_path / "CLAUDE.md"
    broken = "# Mine\n<!-- agentmem:begin memory person=alice sha256=0123456789ab -->\nhalf\n"
    target.write_text(broken, encoding="utf-8")
    result = invoke(runner, "export", "--to", "claude-md", "--output", str(target))
    assert result.exit_code == 1
    assert "begin marker without its end marker" in result.stderr
    assert target.read_text(encoding="utf-8") == broken


def test_scope_goes_with_audit_only(memrepo, runner):
    result = invoke(runner, "export", "--to", "markdown", "--scope", "contracts")
    assert result.exit_code == 2
    assert "--scope goes with --audit" in result.stderr
    assert invoke(runner, "export", "--to", "markdown", "--audit").exit_code == 2


def test_another_persons_memory_is_for_admins(memrepo, runner, tmp_path: Path):
    from tests.helpers import set_identity
    from tests.helpers.context import add_person

    add_person(memrepo, "bob", "bob@example.com", "member")
    set_identity(memrepo, "Bob", "bob@example.com")
    result = invoke(runner, "export", "--to", "markdown", "--person", "alice")
    assert result.exit_code == 1
    assert "the chat context of alice is for alice and the admins; you are bob (member)" in (
        result.stderr
    )
