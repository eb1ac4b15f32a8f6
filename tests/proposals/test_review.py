"""Corrections at review: route, section and target besides the text, scripted and
interactive, recorded in the commit's trailers (the changed words shown: cli/test_review.py)."""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner


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
    # edit: keep the text, keep the route, section "Writing style", keep the scope; then accept.
    result = invoke(runner, "review", "--interactive", input="e\n\n\nWriting style\n\na\n")
    assert result.exit_code == 0, result.stderr
    assert "## Writing style\n- Cite clause numbers." in (
        memrepo / "memories" / "alice.md"
    ).read_text(encoding="utf-8")
    assert "Agentmem-Corrected: section: Recurring patterns -> Writing style" in git(
        memrepo, "log", "-1", "--format=%(trailers)"
    )
    assert pid in git(memrepo, "log", "-1", "--format=%(trailers)")


def _until(master: int, seen: bytearray, marker: bytes) -> None:
    """Read the terminal until ``marker`` appears in what it showed since the last call
    (styles left out)."""
    start = len(seen)
    while marker not in re.sub(rb"\x1b\[[0-9;]*m", b"", bytes(seen[start:])):
        ready, _, _ = select.select([master], [], [], 60)
        assert ready, f"the review never showed {marker!r}: {bytes(seen[start:])!r}"
        seen += os.read(master, 65536)


@pytest.mark.slow
def test_on_a_terminal_an_empty_answer_after_an_edit_ends_its_line(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    """The edit step loads readline; rich's prompts then left the next prompt on the same line
    after an empty answer (Enter to keep the route, the section, or at the menu)."""
    _pending(
        memrepo,
        runner,
        tmp_path,
        [{"action": "add", "basis": "declared", "section": "Recurring patterns",
          "text": "Cite clause numbers.", "justification": "said"}],
    )  # fmt: skip
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agentmem", "review"],
        stdin=slave, stdout=slave, stderr=slave, cwd=memrepo,
        env={**os.environ, "TERM": "xterm", "COLUMNS": "200"}, start_new_session=True,
    )  # fmt: skip
    os.close(slave)
    seen = bytearray()
    try:
        for marker, answer in (
            (b"uit: ", b"e"),
            (b"text: ", b""),
            (b"(memory): ", b""),
            (b"(Recurring patterns): ", b""),
            (b"everywhere): ", b""),
            (b"uit: ", b""),
            (b"uit: ", b"q"),
        ):
            _until(master, seen, marker)
            os.write(master, answer + b"\r")
        _until(master, seen, b"stopped: 1 proposal left in your inbox, nothing decided")
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    shown = re.sub(r"\x1b\[[0-9;]*m", "", seen.decode("utf-8", "replace").replace("\r\n", "\n"))
    assert "\nroute [memory/doctrine] (memory): \nsection [" in shown
    assert "(Recurring patterns): \nscope (a path, or everywhere): " in shown
    assert "[q]uit: \nPlease select one of the available options" in shown


def _scoped(memrepo: Path, runner: CliRunner, tmp_path: Path, text: str) -> str:
    """One pending memory ``add`` harvested with ``--scope contracts/supply``."""
    answer = tmp_path / "scoped.json"
    proposal = {
        "action": "add",
        "basis": "declared",
        "section": "Writing style",
        "text": text,
        "justification": "said",
    }
    answer.write_text(json.dumps({"proposals": [proposal]}), encoding="utf-8")
    session = tmp_path / f"scoped-{len(list(tmp_path.glob('scoped-*.md')))}.md"
    session.write_text(f"User: supply contracts, {text}\n", encoding="utf-8")
    result = invoke(
        runner,
        "harvest",
        str(session),
        "--proposals",
        str(answer),
        "--scope",
        "contracts/supply",
        "--format",
        "json",
    )
    assert result.exit_code == 0, result.stderr
    ((pid,),) = [[p["id"] for p in out["proposals"]] for out in json.loads(result.stdout)]
    return pid


def _entry_line(memrepo: Path, words: str) -> str:
    text = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    (line,) = [ln for ln in text.splitlines() if words in ln]
    return line


def test_review_shows_the_scope_and_scope_flag_changes_record_and_trailers(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    first = _scoped(memrepo, runner, tmp_path, "Quote the annex number.")
    second = _scoped(memrepo, runner, tmp_path, "Sign with initials only.")
    preview = invoke(runner, "review", "--dry-run")
    assert preview.exit_code == 0, preview.stderr
    assert "  record: declared · scope contracts/supply · since " in preview.stdout
    result = invoke(
        runner, "review", "--scope", f"{first}=contracts/sales", "--scope", f"{second}=everywhere"
    )
    assert result.exit_code == 0, result.stderr
    assert "scope=contracts/sales since=" in _entry_line(memrepo, "Quote the annex number.")
    assert "scope=" not in _entry_line(memrepo, "Sign with initials only.")
    log = git(memrepo, "log", "-2", "--format=%(trailers)")
    newest, older = log.split("Agentmem-Justification: said", 1)
    assert "Agentmem-Corrected: scope: contracts/supply -> everywhere" in newest
    assert "Agentmem-Scope" not in newest
    assert "Agentmem-Scope: contracts/sales" in older
    assert "Agentmem-Corrected: scope: contracts/supply -> contracts/sales" in older


def test_a_bad_scope_at_review_is_refused_without_its_value(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    pid = _scoped(memrepo, runner, tmp_path, "Quote the annex number.")
    token = "sk-ant-api03-" + "Q7x9" * 20
    for value in ("../etc", "a b", token, ""):
        result = invoke(runner, "review", "--scope", f"{pid}={value}")
        assert result.exit_code == 2, (value, result.stderr)
        assert "Traceback" not in result.stderr
        if value:
            assert value not in result.stdout + result.stderr
    assert (
        "invalid scope (value not shown)"
        in invoke(runner, "review", "--scope", f"{pid}=../etc").stderr
    )
    assert "the guard refuses it" in invoke(runner, "review", "--scope", f"{pid}={token}").stderr
    assert (memrepo / "inbox" / "alice" / f"{pid}.yaml").exists()  # still pending


def test_a_scope_given_at_review_is_validated_once(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentmem.errors import UsageError
    from agentmem.proposals import ids

    pid = _scoped(memrepo, runner, tmp_path, "Quote the annex number.")
    checked: list[str] = []
    real = ids.check_scope

    def counted(value, where="--scope", error=UsageError):  # type: ignore[no-untyped-def]
        checked.append(where)
        return real(value, where, error)

    monkeypatch.setattr(ids, "check_scope", counted)
    result = invoke(runner, "review", "--scope", f"{pid}=contracts/sales")
    assert result.exit_code == 0, result.stderr
    assert checked == [f"--scope {pid}"]  # the guard read the scope once (it was twice)
    assert "scope=contracts/sales since=" in _entry_line(memrepo, "Quote the annex number.")
    other = _scoped(memrepo, runner, tmp_path, "Sign with initials only.")
    checked.clear()  # the harvest checked its own --scope
    bad = invoke(runner, "review", "--scope", f"{other}=../etc")
    assert bad.exit_code == 2
    assert checked == [f"--scope {other}"]
    assert f"error: --scope {other}: invalid scope (value not shown)" in bad.stderr


def test_interactive_review_shows_and_changes_the_scope(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    pid = _scoped(memrepo, runner, tmp_path, "Quote the annex number.")
    # edit: keep the text, the route and the section; scope "contracts/sales"; then accept.
    result = invoke(runner, "review", "--interactive", input="e\n\n\n\ncontracts/sales\na\n")
    assert result.exit_code == 0, result.stderr
    assert "record: declared · scope contracts/supply · since" in result.stderr
    assert "record: declared · scope contracts/sales · since" in result.stderr  # after the change
    assert "scope=contracts/sales since=" in _entry_line(memrepo, "Quote the annex number.")
    trailers = git(memrepo, "log", "-1", "--format=%(trailers)")
    assert pid in trailers and "Agentmem-Scope: contracts/sales" in trailers
    # a scope the validation refuses is said, and asked again (value not echoed)
    other = _scoped(memrepo, runner, tmp_path, "Sign with initials only.")
    again = invoke(runner, "review", "--interactive", input="e\n\n\n\n../x\ne\n\n\n\n\na\n")
    assert again.exit_code == 0, again.stderr
    assert "invalid scope (value not shown)" in again.stderr
    assert other in git(memrepo, "log", "-1", "--format=%(trailers)")
    assert "scope=contracts/supply since=" in _entry_line(memrepo, "Sign with initials only.")
