"""A scoped entry reaches the sessions it belongs to (docs/design/settings.md §Settings, §Context;
docs/decisions/0087): ``agentmem scope map``, the mapping ``harvest --scope`` offers for the folder its session
ran in, the SessionStart hook's ``systemMessage`` when no entry is given, ``context chat`` and
``doctor`` naming entries scoped elsewhere, and ``check --history`` judging a mapping."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.helpers import DATA, git, invoke, set_identity
from tests.helpers.context import add_person
from tests.helpers.history import history_errors
from typer.testing import CliRunner

from agentmem import trailers as tr
from agentmem.config import load_config
from agentmem.delivery.toolgate import decide
from agentmem.doctrine.settings import adds_folders_only

TRANSCRIPT = DATA / "transcripts" / "spotter_tool_heavy.jsonl"  # ran in /home/USER/projects/spotter
FOLDER = "/home/USER/projects/spotter"
SCOPE = "contracts/supply"
PROPOSALS = {
    "proposals": [
        {
            "action": "add",
            "route": "memory",
            "section": "Writing style",
            "text": "Quote the supplier's clause number when citing a contract.",
            "justification": "asked in the session",
            "basis": "declared",
        },
        {
            "action": "add",
            "route": "memory",
            "section": "Recurring patterns",
            "text": "Flag penalty clauses above 10 percent.",
            "justification": "asked in the session",
            "basis": "declared",
        },
    ]
}


def _start(runner: CliRunner, cwd: str) -> str:
    """A real SessionStart payload (macOS), run in ``cwd``: the hook's stdout."""
    payload = json.loads((DATA / "hooks" / "macos_session_start.json").read_text("utf-8"))[0]
    payload = {k: v for k, v in payload.items() if k != "logged_at"} | {"cwd": cwd}
    result = invoke(runner, "hook", "session-start", input=json.dumps(payload))
    assert result.exit_code == 0, result.stderr
    return result.stdout


def _harvest(root: Path, runner: CliRunner, *more: str, input: str | None = None):  # noqa: A002
    answer = root.parent / "proposals.json"
    answer.write_text(json.dumps(PROPOSALS), encoding="utf-8")
    return invoke(
        runner,
        "harvest",
        str(TRANSCRIPT),
        "--scope",
        SCOPE,
        "--proposals",
        str(answer),
        *more,
        input=input,
    )


@pytest.fixture
def scoped(memrepo: Path, runner: CliRunner) -> Path:
    """alice's two entries, both scoped contracts/supply: harvested and accepted."""
    result = _harvest(memrepo, runner)
    assert result.exit_code == 0, result.stderr
    accepted = invoke(runner, "review", "--accept", "all")
    assert accepted.exit_code == 0, accepted.stderr
    return memrepo


def test_harvest_without_a_terminal_says_the_command_and_maps_nothing(
    memrepo: Path, runner: CliRunner
) -> None:
    before = (memrepo / "agentmem.yaml").read_text(encoding="utf-8")
    result = _harvest(memrepo, runner)
    assert result.exit_code == 0, result.stderr
    assert (
        f"this session ran in {FOLDER}; sessions started there get no scope, so the entries "
        f"scoped {SCOPE} would not reach them" in result.stderr
    )
    assert f"to give them those entries: agentmem scope map {FOLDER} {SCOPE}" in result.stderr
    assert (memrepo / "agentmem.yaml").read_text(encoding="utf-8") == before


def test_the_json_harvest_names_the_session_folder(memrepo: Path, runner: CliRunner) -> None:
    answer = memrepo.parent / "proposals.json"
    answer.write_text(json.dumps(PROPOSALS), encoding="utf-8")
    result = invoke(
        runner, "harvest", str(TRANSCRIPT), "--proposals", str(answer), "--format", "json"
    )
    assert result.exit_code == 0, result.stderr
    assert [r["folder"] for r in json.loads(result.stdout)] == [FOLDER]
    assert "scope map" not in result.stderr  # no --scope: nothing to map


def test_harvest_on_a_terminal_maps_the_folder_and_the_next_session_there_gets_the_entries(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's main job: harvest --scope S of a real Claude Code session, yes to the
    question, accept; the next session started in that folder gets S's entries."""
    monkeypatch.setattr("agentmem.cli.harvest._asking", lambda: True)
    result = _harvest(memrepo, runner, input="y\n")
    assert result.exit_code == 0, result.stderr
    assert f"Map {FOLDER} to {SCOPE} in agentmem.yaml (one commit)? [Y/n]" in result.stderr
    assert f"mapped {FOLDER} to {SCOPE}: sessions started there get its entries" in result.stderr
    assert load_config(memrepo).scopes == ((FOLDER, SCOPE),)
    message = git(memrepo, "log", "-1", "--format=%B")
    assert tr.parse(message)[tr.ACTION] == ["map-scope"]
    assert tr.parse(message)[tr.SESSION] == ["d6e0bada-1959-4eec-a9d2-0bfade768d8f"]
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    block = _start(runner, FOLDER)
    assert block.startswith('<agentmem-memory person="alice">')
    assert "1. [scope contracts/supply] Quote the supplier's clause number" in block
    assert "2. [scope contracts/supply] Flag penalty clauses above 10 percent." in block
    below = _start(runner, FOLDER + "/src")  # a folder inside it: the same scope
    assert "2. [scope contracts/supply] Flag penalty clauses" in below
    assert history_errors(runner) == []


def test_no_to_the_question_maps_nothing(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agentmem.cli.harvest._asking", lambda: True)
    result = _harvest(memrepo, runner, input="n\n")
    assert result.exit_code == 0, result.stderr
    assert f"not mapped; later: agentmem scope map {FOLDER} {SCOPE}" in result.stderr
    assert load_config(memrepo).scopes == ()


@pytest.mark.slow
def test_a_session_start_that_gives_none_of_the_entries_says_so_in_a_system_message(
    scoped: Path, runner: CliRunner, tmp_path: Path
) -> None:
    other = tmp_path / "other project"
    out = json.loads(_start(runner, str(other)))
    assert out == {
        "systemMessage": "agentmem: none of your 2 memory entries was given to this session "
        "(no scope): 2 are scoped contracts/supply (no folder of the scopes: map has that "
        f"scope). To fix: agentmem scope map '{other}' contracts/supply (if this folder is "
        "part of contracts/supply)."
    }
    # the memo names each folder: another folder is not given the first one's message
    again = json.loads(_start(runner, str(tmp_path / "third")))
    assert f"agentmem scope map {tmp_path / 'third'} contracts/supply" in again["systemMessage"]
    assert invoke(runner, "scope", "map", FOLDER, SCOPE).exit_code == 0
    mapped = json.loads(_start(runner, str(other)))["systemMessage"]
    assert f"2 are scoped contracts/supply (given in sessions started in {FOLDER})" in mapped
    assert "2. [scope contracts/supply] Flag penalty" in _start(runner, FOLDER)


def test_an_unscoped_chat_names_the_entries_scoped_elsewhere(
    scoped: Path, runner: CliRunner
) -> None:
    result = invoke(runner, "context", "chat")
    assert result.exit_code == 0
    assert "No entries yet" not in result.stdout and "0 numbered" not in result.stdout
    assert (
        "None of alice's 2 entries is given here (no scope): 2 are kept for other scopes "
        "(contracts/supply: 2)." in result.stdout
    )
    assert (
        "memories/alice.md: #1, #2 not given: scoped elsewhere (contracts/supply: 2; agentmem "
        "context chat --scope contracts/supply gives them)" in result.stderr
    )
    given = invoke(runner, "context", "chat", "--scope", SCOPE)
    assert "1. [scope contracts/supply] Quote the supplier's clause number" in given.stdout


def test_doctor_warns_about_entries_no_session_gets(scoped: Path, runner: CliRunner) -> None:
    checks = {c["name"]: c for c in json.loads(invoke(runner, "doctor", "-f", "json").stdout)}
    assert checks["scopes"] == {
        "name": "scopes",
        "status": "warn",
        "message": "2 of your entries reach no session: scoped contracts/supply (2), and no "
        "folder of the scopes: map of agentmem.yaml has that scope (nor AGENTMEM_SCOPE)",
        "fix": "agentmem scope map FOLDER contracts/supply (the project folder where you work on "
        "it)",
    }
    assert invoke(runner, "scope", "map", str(scoped), SCOPE).exit_code == 0
    checks = {c["name"]: c for c in json.loads(invoke(runner, "doctor", "-f", "json").stdout)}
    assert checks["scopes"]["status"] == "ok"
    assert checks["scopes"]["message"] == (
        f"sessions started in {scoped} (scope contracts/supply) get 2 of your 2 entries"
    )


def test_scope_map_is_one_audited_commit_a_member_may_add_and_history_accepts(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    home = Path.home()
    (home / "work" / "acme").mkdir(parents=True)
    done = invoke(runner, "scope", "map", str(home / "work" / "acme"), SCOPE)
    assert done.exit_code == 0, done.stderr
    assert done.stdout == f"sessions started in ~/work/acme get scope {SCOPE}\n"
    assert "scopes:\n  ~/work/acme: contracts/supply\n" in (memrepo / "agentmem.yaml").read_text(
        "utf-8"
    )
    trailers = tr.parse(git(memrepo, "log", "-1", "--format=%B"))
    assert trailers[tr.ACTION] == ["map-scope"] and trailers[tr.SCOPE] == [SCOPE]
    assert invoke(runner, "scope", "map", "~/work/acme", SCOPE).stderr == (
        "~/work/acme is already mapped to contracts/supply\n"
    )
    add_person(memrepo, "bob", "bob@example.com", "member")
    set_identity(memrepo, "Bob", "bob@example.com")
    inside = invoke(runner, "scope", "map", str(memrepo / "projects" / "lease"), "contracts/lease")
    assert inside.exit_code == 0, inside.stderr
    assert dict(load_config(memrepo).scopes)["projects/lease"] == "contracts/lease"  # every clone
    refused = invoke(runner, "scope", "map", "~/work/acme", "contracts/other", "--replace")
    assert refused.exit_code == 1 and "admin required" in refused.stderr
    plain = invoke(runner, "scope", "map", "~/work/acme", "contracts/other")
    assert plain.exit_code == 2 and "--replace (an admin) changes it" in plain.stderr
    set_identity(memrepo, "Alice Martin", "alice@example.com")
    replaced = invoke(runner, "scope", "map", "~/work/acme", "contracts/other", "--replace")
    assert replaced.stdout == (
        "sessions started in ~/work/acme get scope contracts/other (was contracts/supply)\n"
    )
    assert history_errors(runner) == []


def test_history_lets_a_member_add_folders_only(memrepo: Path, runner: CliRunner) -> None:
    """A member's commit of agentmem.yaml that does more than add folders to scopes: is a
    settings change, an admin's (check --history says so)."""
    add_person(memrepo, "bob", "bob@example.com", "member")
    set_identity(memrepo, "Bob", "bob@example.com")
    assert invoke(runner, "scope", "map", "/srv/acme", SCOPE).exit_code == 0
    path = memrepo / "agentmem.yaml"
    path.write_text(
        path.read_text("utf-8").replace("/srv/acme: contracts/supply", "/srv/acme: contracts"),
        encoding="utf-8",
    )
    git(memrepo, "commit", "-qam", "widen acme")
    errors = history_errors(runner)
    assert [(e["code"], e["path"]) for e in errors] == [("history-not-admin", "agentmem.yaml")]


def test_adds_folders_only() -> None:
    base = "memory:\n  budget_chars: 8000\n"
    one = base + "scopes:\n  ~/a: x\n"
    two = one + "  /srv/b: y/z  # a comment\n"
    assert adds_folders_only(base, one) and adds_folders_only(one, two)
    assert adds_folders_only(None, "scopes:\n  ~/a: x\n")
    assert not adds_folders_only(one, one)  # nothing added
    assert not adds_folders_only(two, one)  # a folder removed
    assert not adds_folders_only(one, "memory:\n  budget_chars: 8000\nscopes:\n  ~/a: other\n")
    assert not adds_folders_only(one, two.replace("8000", "9000"))  # another setting too
    assert not adds_folders_only(one, "scopes: [")  # does not read


def test_the_folder_is_checked_and_never_echoed(memrepo: Path, runner: CliRunner) -> None:
    for folder in ("/home/alice@example.com/x", "/srv/a\x1b[2Jb", "C:\\Users\\USER\\Project"):
        result = invoke(runner, "scope", "map", folder, SCOPE)
        assert result.exit_code == 2, result.stderr
        assert "alice@example.com" not in result.stderr and "\x1b" not in result.stderr
    assert load_config(memrepo).scopes == ()


def test_an_agent_may_not_map_a_folder() -> None:
    call = {"tool_name": "Bash", "tool_input": {"command": "agentmem scope map ~/x contracts"}}
    decision = json.loads(decide(json.dumps({"hook_event_name": "PreToolUse", **call})))
    assert decision["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.slow
def test_the_installed_hook_gives_the_block_in_the_mapped_folder_and_the_message_elsewhere(
    scoped: Path, runner: CliRunner, tmp_path: Path
) -> None:
    """The real entry point (the hot path and its cache, in fresh processes): twice in each
    folder, the second start of each with the cache warm."""
    import os
    import subprocess
    import sys

    assert invoke(runner, "scope", "map", FOLDER, SCOPE).exit_code == 0
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}

    def start(cwd: str) -> str:
        payload = json.dumps({"session_id": "x", "cwd": cwd, "hook_event_name": "SessionStart"})
        done = subprocess.run(
            [sys.executable, "-m", "agentmem", "hook", "session-start"],
            input=payload, capture_output=True, text=True, env=env, cwd=scoped, check=True,
        )  # fmt: skip
        return done.stdout

    for _ in range(2):
        assert "2. [scope contracts/supply] Flag penalty clauses" in start(FOLDER)
        for other in ("a", "b"):
            message = json.loads(start(str(tmp_path / other)))["systemMessage"]
            assert f"agentmem scope map {tmp_path / other} contracts/supply" in message
    assert (scoped / ".agentmem" / "hotcache.json").is_file()
