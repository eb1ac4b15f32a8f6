"""The main job end to end on real temporary git repositories: harvest → review →
memory, with the audit trailers, the refusals and the exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.helpers import DATA, git, invoke, set_identity
from typer.testing import CliRunner

from agentmem.memory.records import strip_markers

SESSION = DATA / "sessions" / "contract-review-session.md"
OUTCOMES = DATA / "sessions" / "contract-review-outcomes.json"


def _harvest_json(runner: CliRunner, *extra: str, expect: int = 0) -> dict:
    """The JSON of one harvest; ``expect`` 1 when every proposal is rejected."""
    result = invoke(
        runner, "harvest", str(SESSION), "--provider", "offline", "--format", "json", *extra
    )
    assert result.exit_code == expect, result.stderr
    (only,) = json.loads(result.stdout)
    return only


def _replay(tmp_path: Path, proposals: list[dict]) -> Path:
    path = tmp_path / "answer.json"
    path.write_text(json.dumps({"proposals": proposals}), encoding="utf-8")
    return path


def test_offline_harvest_of_the_example_session(memrepo: Path, runner: CliRunner) -> None:
    out = _harvest_json(runner, "--outcomes", str(OUTCOMES), "--scope", "contracts/supply")
    kept = [(p["route"], p["section"], p["text"], p["basis"]) for p in out["proposals"]]
    assert kept == [
        (
            "memory",
            "Writing style",
            "I want a collaborative tone with long-standing suppliers.",
            "declared",
        ),
        (
            "memory",
            "Priorities & scope",
            "Don't suggest revisions on confidentiality clauses: legal handles them separately.",
            "declared",
        ),
        (
            "memory",
            "Writing style",
            "Je préfère des phrases courtes et à la voix active dans les commentaires.",
            "declared",
        ),
        (
            "memory",
            "Rule dependencies",
            "Vérifie toujours la clause de garantie avant la clause de pénalités.",
            "declared",
        ),
        (
            "doctrine",
            None,
            "The team accepts a 12-month warranty on supply contracts with suppliers we have worked with for more than two years.",
            "declared",
        ),
        (
            "memory",
            "Priorities & scope",
            "Leave suggestions on penalties aside unless asked: they are usually ignored.",
            "inferred",
        ),
    ]
    assert out["rejected"] == [] and out["cut"] == 0
    assert all(
        p["person"] == "alice" and p["scope"] == "contracts/supply" for p in out["proposals"]
    )
    pending = sorted(p.name for p in (memrepo / "inbox" / "alice").glob("*.yaml"))
    assert len(pending) == 6
    assert git(memrepo, "status", "--porcelain") == ""
    trailers = git(memrepo, "log", "-1", "--format=%(trailers:key=Agentmem-Action,valueonly)")
    assert trailers.strip() == "propose"


def test_accept_all_commits_each_proposal_with_trailers_and_blame(
    memrepo: Path, runner: CliRunner
) -> None:
    out = _harvest_json(runner, "--scope", "contracts/supply")
    memory_ids = [p["id"] for p in out["proposals"] if p["route"] == "memory"]
    before = int(git(memrepo, "rev-list", "--count", "HEAD"))
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 0, result.stderr
    # Memory proposals first, then the doctrine proposal as a draft rule.
    assert "it needs at least one limit" in result.stderr
    assert int(git(memrepo, "rev-list", "--count", "HEAD")) == before + len(memory_ids) + 1
    text = strip_markers((memrepo / "memories" / "alice.md").read_text(encoding="utf-8"))
    assert (
        "## Writing style\n- I want a collaborative tone with long-standing suppliers.\n- Je préfère"
        in text
    )
    last = git(memrepo, "log", "-1", "HEAD~1", "--format=%s%n%(trailers)")
    assert last.startswith('memory(alice): add to "Rule dependencies"\n')
    for line in (
        "Agentmem-Action: add",
        "Agentmem-Route: memory",
        f"Agentmem-Proposal: {memory_ids[-1]}",
        "Agentmem-Actor: alice <alice@example.com>",
        "Agentmem-Role: admin",
        "Agentmem-Scope: contracts/supply",
        "Agentmem-Basis: declared",
        "Agentmem-Justification: asked explicitly in line 17 of the session",
    ):
        assert line in last
    assert git(memrepo, "show", "--name-only", "--format=", "HEAD~1").split() == [
        f"inbox/alice/{memory_ids[-1]}.yaml",
        "memories/alice.md",
    ]
    blame = invoke(runner, "memory", "blame", "--format", "json")
    entries = json.loads(blame.stdout)
    assert [e["proposal"] for e in entries] == [
        memory_ids[0],
        memory_ids[2],
        memory_ids[1],
        memory_ids[3],
    ]
    assert entries[0]["approver"] == "alice <alice@example.com>"
    assert entries[0]["justification"] == "asked explicitly in line 13 of the session"
    # The doctrine proposal became a draft rule, committed last.
    left = json.loads(invoke(runner, "inbox", "--format", "json").stdout)
    assert left == []
    assert git(memrepo, "log", "-1", "--format=%s").startswith("doctrine(")


@pytest.mark.parametrize(
    ("proposal", "message"),
    [
        (
            {
                "action": "remove",
                "basis": "declared",
                "section": "Writing style",
                "target": "absent",
                "justification": "j",
            },
            "no entry contains 'absent'",
        ),
        (
            {
                "action": "modify",
                "basis": "declared",
                "section": "Writing style",
                "target": "tone",
                "text": "New.",
                "justification": "j",
            },
            "2 entries contain 'tone'",
        ),
    ],
)
@pytest.mark.slow
def test_target_zero_or_two_matches_is_refused_and_nothing_changes(
    memrepo: Path, runner: CliRunner, tmp_path: Path, proposal: dict, message: str
) -> None:
    for text in ("Warm tone with suppliers.", "Firm tone with new suppliers."):
        assert invoke(runner, "remember", text, "--section", "Writing style").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    memory_before = (memrepo / "memories" / "alice.md").read_bytes()
    # The harvest refuses it at once, with the reason …
    out = _harvest_json(
        runner, "--provider", "replay", "--proposals", str(_replay(tmp_path, [proposal])), expect=1
    )
    assert out["proposals"] == [] and message in out["rejected"][0]["reason"]
    # … and a proposal that went stale in the inbox is refused at review.
    from agentmem.proposals.inbox import write_to_inbox
    from agentmem.proposals.model import parse_proposal
    from agentmem.store.repo import open_repository

    repo = open_repository()
    stale = parse_proposal(
        proposal, person="alice", session="s", source="replay", scope=None, where="p"
    )
    write_to_inbox(repo, repo.actor(), [stale], "s", "replay")
    head = git(memrepo, "rev-parse", "HEAD")
    result = invoke(runner, "review", "--accept", stale.id)
    assert result.exit_code == 1
    assert message in result.stderr and "#1" in result.stderr
    assert git(memrepo, "rev-parse", "HEAD") == head
    assert (memrepo / "memories" / "alice.md").read_bytes() == memory_before


def test_accept_over_budget_is_refused_with_the_figures(memrepo: Path, runner: CliRunner) -> None:
    (memrepo / "agentmem.yaml").write_text("memory:\n  budget_chars: 180\n", encoding="utf-8")
    git(memrepo, "commit", "-qam", "small budget")
    # Each fits alone (102 + 45 = 147 characters); together they do not (192).
    for text in ("A" + "b" * 40 + ".", "C" + "d" * 40 + "."):
        assert invoke(runner, "remember", text, "--section", "Writing style").exit_code == 0
    from agentmem.proposals.inbox import list_pending
    from agentmem.store.repo import open_repository

    first, second = [p.id for p in list_pending(open_repository(), "alice")]
    assert invoke(runner, "review", "--accept", first).exit_code == 0
    before = (memrepo / "memories" / "alice.md").read_bytes()
    head = git(memrepo, "rev-parse", "HEAD")
    result = invoke(runner, "review", "--accept", second)
    assert result.exit_code == 1
    assert "memories/alice.md: 192/180 characters: the memory is full" in result.stderr
    assert "'agentmem memory edit'" in result.stderr
    assert "'agentmem tidy --to-inbox'" in result.stderr
    assert "least recently confirmed: #1 'Abbbbbbbbbb" in result.stderr
    assert (memrepo / "memories" / "alice.md").read_bytes() == before
    assert git(memrepo, "rev-parse", "HEAD") == head


def test_more_than_six_proposals_are_cut_and_said(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    many = [
        {
            "action": "add",
            "basis": "declared",
            "section": "Recurring patterns",
            "text": text,
            "justification": "said so",
        }
        for text in (
            "Read the annexes before the main body.",
            "Quote clause numbers in every comment.",
            "Flag unlimited liability at once.",
            "Compare the price schedule with last year's.",
            "Check the governing law early.",
            "Summarise the termination rights first.",
            "List the missing signatures.",
            "Mention the renewal date.",
        )
    ]
    result = invoke(runner, "harvest", str(SESSION), "--proposals", str(_replay(tmp_path, many)))
    assert result.exit_code == 0, result.stderr
    assert "6 proposals kept, 0 rejected" in result.stdout
    assert (
        "the answer held 8 proposals; only the first 6 were kept (harvest.max_proposals)"
        in result.stdout
    )


def test_zero_proposals_is_said_as_zero(memrepo: Path, runner: CliRunner, tmp_path: Path) -> None:
    quiet = tmp_path / "quiet.md"
    quiet.write_text(
        "User: Summarise clause 4.\n\nAssistant: It sets the price.\n", encoding="utf-8"
    )
    result = invoke(runner, "harvest", str(quiet), "--provider", "offline")
    assert result.exit_code == 0
    assert "0 proposals kept, 0 rejected" in result.stdout


def test_rejections_are_one_commit_listing_them(memrepo: Path, runner: CliRunner) -> None:
    out = _harvest_json(runner)
    ids = [p["id"] for p in out["proposals"] if p["route"] == "memory"][:2]
    result = invoke(runner, "review", "--reject", ids[0], "--reject", ids[1])
    assert result.exit_code == 0, result.stderr
    body = git(memrepo, "log", "-1", "--format=%s%n%(trailers:key=Agentmem-Proposal,valueonly)")
    assert body.split("\n")[:3] == ["inbox(alice): reject 2 proposals", ids[0], ids[1]]
    assert not (memrepo / "memories" / "alice.md").exists()


def test_edit_accepts_the_persons_text_and_marks_it(memrepo: Path, runner: CliRunner) -> None:
    out = _harvest_json(runner)
    pid = out["proposals"][0]["id"]
    result = invoke(
        runner, "review", "--edit", f"{pid}=Warm, collaborative tone with long-standing suppliers."
    )
    assert result.exit_code == 0, result.stderr
    assert "- Warm, collaborative tone with long-standing suppliers.\n" in strip_markers(
        (memrepo / "memories/alice.md").read_text()
    )
    assert "Agentmem-Edited: yes" in git(memrepo, "log", "-1", "--format=%(trailers)")


def test_dry_run_writes_nothing(memrepo: Path, runner: CliRunner) -> None:
    _harvest_json(runner)
    head = git(memrepo, "rev-parse", "HEAD")
    result = invoke(runner, "review", "--dry-run")
    assert result.exit_code == 0
    # A preview is data (stdout); each fill level counts the proposals before it, as
    # --accept all would apply them.
    assert "+- I want a collaborative tone with long-standing suppliers." in result.stdout
    fills = [int(n) for n in re.findall(r"fill level after: \d+ % — (\d+)/8000", result.stdout)]
    assert len(fills) == 4 and fills == sorted(fills) and len(set(fills)) == 4
    assert git(memrepo, "rev-parse", "HEAD") == head
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    text = strip_markers((memrepo / "memories" / "alice.md").read_text(encoding="utf-8"))
    assert len(text) == fills[-1]


def test_review_without_terminal_or_flags_refuses_with_advice(
    memrepo: Path, runner: CliRunner
) -> None:
    _harvest_json(runner)
    result = invoke(runner, "review")
    assert result.exit_code == 2
    assert "no terminal to ask in" in result.stderr and "--accept ID|all" in result.stderr


def test_staged_work_of_the_person_never_leaks_into_an_agentmem_commit(
    memrepo: Path, runner: CliRunner
) -> None:
    (memrepo / "notes.txt").write_text("my draft\n", encoding="utf-8")
    git(memrepo, "add", "notes.txt")
    _harvest_json(runner)
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    assert "notes.txt" not in git(memrepo, "log", "--name-only", "--format=")
    assert git(memrepo, "status", "--porcelain") == "A  notes.txt\n"


def test_memory_edit_commits_a_valid_file_and_refuses_a_broken_one(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "ed.py"
    script.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\n"
        "p.write_text(p.read_text().replace('## Recurring patterns\\n', '## Recurring patterns\\n- Read the annexes first.\\n'))\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("EDITOR", f"python {script}")
    result = invoke(runner, "memory", "edit")
    assert result.exit_code == 0, result.stderr
    assert "- Read the annexes first." in strip_markers((memrepo / "memories/alice.md").read_text())
    assert "Agentmem-Action: edit" in git(memrepo, "log", "-1", "--format=%(trailers)")
    broken = tmp_path / "broken.py"
    broken.write_text(
        "import sys, pathlib\npathlib.Path(sys.argv[1]).write_text('# Memory: alice\\nstray\\n')\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("EDITOR", f"python {broken}")
    before = (memrepo / "memories/alice.md").read_bytes()
    result = invoke(runner, "memory", "edit")
    assert result.exit_code == 1
    assert "memories/alice.md:2: unexpected text 'stray'" in result.stderr
    assert "was left as it was" in result.stderr
    assert (memrepo / "memories/alice.md").read_bytes() == before


def test_memory_show_prints_the_fill_level(memrepo: Path, runner: CliRunner) -> None:
    _harvest_json(runner)
    invoke(runner, "review", "--accept", "all")
    result = invoke(runner, "memory", "show")
    assert result.exit_code == 0
    assert result.stdout.startswith("# Memory: alice\n")
    size = len(strip_markers((memrepo / "memories/alice.md").read_text()))
    assert f"[{round(size / 80)} % — {size}/8000 characters]" in result.stdout


def test_log_lists_audit_commits_as_json(memrepo: Path, runner: CliRunner) -> None:
    harvested = [p["id"] for p in _harvest_json(runner)["proposals"]]
    invoke(runner, "review", "--accept", "all")
    records = json.loads(invoke(runner, "log", "--person", "alice", "--format", "json").stdout)
    assert [r["action"] for r in records][-1] == "propose"
    # Newest: the doctrine proposal made a draft (it removes alice's inbox file), after her memory.
    assert records[0]["trailers"]["Agentmem-Route"] == "doctrine"
    assert records[1]["action"] == "add" and records[1]["actor"] == "alice <alice@example.com>"
    harvest = records[-1]  # one commit, several proposals: every id is kept, not only the last
    assert len(harvested) > 1 and harvest["proposals"] == harvested
    assert harvest["proposal"] == harvested[0]
    text = invoke(runner, "log", "--person", "alice").stdout
    assert f"proposals: {', '.join(harvested)}" in text


def test_a_member_reads_only_their_own_memory_and_inbox(memrepo: Path, runner: CliRunner) -> None:
    with (memrepo / "roles.yaml").open("a", encoding="utf-8") as handle:
        handle.write("bob:\n  email: bob@example.com\n  role: member\n")
    git(memrepo, "commit", "-qam", "bob joins")
    assert invoke(runner, "remember", "Quote clause numbers.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    set_identity(memrepo, "Bob", "bob@example.com")
    for args in (("memory", "show"), ("memory", "blame"), ("inbox",)):
        refused = invoke(runner, *args, "--person", "alice")
        assert refused.exit_code == 1, args
        assert "alice's memory and inbox are for alice and the admins; you are bob (member)" in (
            refused.stderr
        )
        assert "Quote clause numbers" not in refused.stdout
    assert invoke(runner, "memory", "show").exit_code == 0  # his own
    set_identity(memrepo, "Alice Martin", "alice@example.com")
    assert invoke(runner, "memory", "show", "--person", "bob").exit_code == 0  # an admin reads


def test_only_the_owner_writes_their_memory(memrepo: Path, runner: CliRunner) -> None:
    with (memrepo / "roles.yaml").open("a", encoding="utf-8") as handle:
        handle.write("bob:\n  email: bob@example.com\n  role: member\n")
    result = invoke(runner, "harvest", str(SESSION), "--person", "bob", "--provider", "offline")
    assert result.exit_code == 1
    assert "harvesting into bob's memory is for bob only; you are alice (admin)" in result.stderr


def test_remember_puts_a_pending_add_in_the_inbox(memrepo: Path, runner: CliRunner) -> None:
    result = invoke(
        runner,
        "remember",
        "Cite the clause number in every comment.",
        "--section",
        "Recurring patterns",
    )
    assert result.exit_code == 0, result.stderr
    assert 'add to "Recurring patterns": Cite the clause number in every comment.' in result.stdout
    assert git(memrepo, "status", "--porcelain") == ""
    bad = invoke(runner, "remember", "x", "--section", "Nope")
    assert bad.exit_code == 1 and "unknown section 'Nope'" in bad.stderr


def test_expected_errors_have_no_traceback(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke(runner, "inbox")
    assert result.exit_code == 1
    assert "not a memory repository" in result.stderr and "agentmem init" in result.stderr
    assert "Traceback" not in result.output


def test_a_malformed_transcript_is_exit_1_with_file_and_line(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "user"}\n{not json\n', encoding="utf-8")
    result = invoke(runner, "harvest", str(bad), "--provider", "offline")
    assert result.exit_code == 1
    assert f"{bad}:2:" in result.stderr
    assert "Traceback" not in result.output


def test_unexpected_errors_are_exit_3(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr("agentmem.proposals.inbox.read_inbox", boom)
    result = invoke(runner, "inbox")
    assert result.exit_code == 3
    assert "unexpected error (RuntimeError: kaboom); rerun with AGENTMEM_DEBUG=1" in result.stderr


def test_init_is_idempotent(tmp_path: Path, runner: CliRunner) -> None:
    target = tmp_path / "new"
    first = invoke(runner, "init", str(target))
    assert first.exit_code == 0, first.stderr
    assert "you are 'alice' (admin) in roles.yaml" in first.stderr
    head = git(target, "rev-parse", "HEAD")
    second = invoke(runner, "init", str(target))
    assert second.exit_code == 0 and "already a memory repository" in second.stderr
    assert git(target, "rev-parse", "HEAD") == head
    assert sorted(p.name for p in target.iterdir()) == [
        ".git",
        ".gitignore",
        "agentmem.yaml",
        "doctrine",
        "inbox",
        "memories",
        "roles.yaml",
    ]


def test_interactive_review_records_accept_edit_and_reject(
    memrepo: Path, runner: CliRunner
) -> None:
    out = _harvest_json(runner)
    first, second, third = [p["id"] for p in out["proposals"] if p["route"] == "memory"][:3]
    # After an edit's text: the route, the section and the scope, Enter keeps each as it is.
    answers = "a\ne\nLeave confidentiality clauses aside; legal reviews them.\n\n\n\na\nr\nq\n"
    result = invoke(runner, "review", "--interactive", input=answers)
    assert result.exit_code == 0, result.stderr
    assert "2 accepted, 1 rejected, 0 skipped" in result.stderr
    log = git(
        memrepo,
        "log",
        "-3",
        "--format=%s|%(trailers:key=Agentmem-Proposal,valueonly,separator=%x2C)|%(trailers:key=Agentmem-Edited,valueonly)",
    )
    assert [ln for ln in log.splitlines() if ln] == [
        f"inbox(alice): reject 1 proposal|{third}|",
        f'memory(alice): add to "Priorities & scope"|{second}|yes',
        f'memory(alice): add to "Writing style"|{first}|',
    ]
    text = strip_markers((memrepo / "memories" / "alice.md").read_text(encoding="utf-8"))
    assert "- Leave confidentiality clauses aside; legal reviews them.\n" in text
    assert f"rejected {third} (committed when the review ends)" in result.stderr


def test_interactive_skip_after_an_edit_says_the_edit_is_not_kept(
    memrepo: Path, runner: CliRunner
) -> None:
    out = _harvest_json(runner)
    first = [p for p in out["proposals"] if p["route"] == "memory"][0]
    result = invoke(runner, "review", "--interactive", input="e\nShorter text.\n\n\n\ns\nq\n")
    assert result.exit_code == 0, result.stderr
    assert (
        f"skipped {first['id']}: it stays in your inbox as it was; your edited text is not kept"
        in result.stderr
    )
    pending = json.loads(invoke(runner, "inbox", "--format", "json").stdout)
    assert [p["text"] for p in pending if p["id"] == first["id"]] == [first["text"]]


def test_quitting_the_interactive_review_says_what_is_left(
    memrepo: Path, runner: CliRunner
) -> None:
    out = _harvest_json(runner)
    total = len(out["proposals"])
    assert total == 5
    quit_at_once = invoke(runner, "review", "--interactive", input="q\n")
    assert quit_at_once.exit_code == 0, quit_at_once.stderr
    last = quit_at_once.stderr.splitlines()[-1].rpartition("[q]uit: ")[2]  # input not echoed
    assert last == "stopped: 5 proposals left in your inbox, nothing decided"
    after_some = invoke(runner, "review", "--interactive", input="s\nr\nq\n")
    assert after_some.exit_code == 0, after_some.stderr
    last = after_some.stderr.splitlines()[-1].rpartition("[q]uit: ")[2]
    assert last == "stopped: 0 accepted, 1 rejected, 1 skipped; 4 proposals left in your inbox"
    assert len(json.loads(invoke(runner, "inbox", "--format", "json").stdout)) == 4
    to_the_end = invoke(runner, "review", "--interactive", input="s\n" * 4)
    assert (
        to_the_end.stderr.splitlines()[-1].rpartition("[q]uit: ")[2]
        == "0 accepted, 0 rejected, 4 skipped"
    )


def test_a_session_is_harvested_once_unless_again_is_asked(
    memrepo: Path, runner: CliRunner
) -> None:
    first = _harvest_json(runner)
    head = git(memrepo, "rev-parse", "HEAD")
    again = invoke(runner, "harvest", str(SESSION), "--provider", "offline")
    assert again.exit_code == 1
    assert f"session {first['session']} was already harvested" in again.stderr
    assert "add --again to read it once more" in again.stderr
    assert git(memrepo, "rev-parse", "HEAD") == head
    assert invoke(runner, "review", "--reject", "all").exit_code == 0
    forced = invoke(runner, "harvest", str(SESSION), "--provider", "offline", "--again")
    assert forced.exit_code == 0, forced.stderr
    assert "5 proposals kept" in forced.stdout
