"""Memory entries as governable records: the record marker, its survival through hand edits,
retention, scope, basis, conflicts (docs/decisions/0051)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from tests.helpers.memory import commit_by_owner
from typer.testing import CliRunner

from agentmem.config import MemoryConfig
from agentmem.errors import InvalidMemoryError
from agentmem.memory.file import budget_status, parse_memory
from agentmem.memory.records import Record, parse_record, strip_markers

CONFIG = MemoryConfig()
MARKED = (
    "# Memory: alice\n\n## Writing style\n"
    "- Use British English. <!-- am: basis=inferred scope=contracts/supply since=2026-12-01 "
    "review=2026-12-31 expires=2027-03-01 -->\n"
    "- Keep answers short.\n"
    "\n## Priorities & scope\n\n## Recurring patterns\n\n## Rule dependencies\n"
)


def test_a_marker_is_read_and_the_file_renders_back_byte_for_byte() -> None:
    memory = parse_memory(MARKED, "alice", CONFIG, "memories/alice.md")
    assert memory.render() == MARKED
    first, second = memory.entries()
    assert first.text == "Use British English."
    assert first.record == Record(
        "inferred", "contracts/supply", "2026-12-01", "2026-12-31", "2027-03-01", marked=True
    )
    assert second.text == "Keep answers short."
    assert not second.record.marked and second.record.basis_label == "unrecorded"


def test_the_budget_counts_what_reaches_the_prompt() -> None:
    plain = strip_markers(MARKED)
    assert "<!--" not in plain and "- Use British English.\n" in plain
    assert budget_status(MARKED, CONFIG).used == len(plain)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("<!-- am: basis=maybe -->", "metadata basis is 'maybe'; expected declared or inferred"),
        ("<!-- am: scope=a -->", "metadata basis is None"),
        ("<!-- am: basis=declared since=2026-13-01 -->", "since='2026-13-01' is not a date"),
        ("<!-- am: basis=declared colour=red -->", "unknown metadata key 'colour'"),
        ("<!-- am: basis=declared basis=inferred -->", "metadata key 'basis' appears twice"),
        ("<!-- am: basis=declared scope=../x -->", "invalid scope '../x'"),
        ("<!-- am: basis=declared --> trailing", "a marker '<!-- am: … -->' must end the line"),
        ("<!-- am: basis=declared", "a marker '<!-- am: … -->' must end the line"),
    ],
)
def test_a_broken_marker_is_refused_with_its_line(marker: str, message: str) -> None:
    text = MARKED.replace("- Keep answers short.\n", f"- Keep answers short. {marker}\n")
    with pytest.raises(InvalidMemoryError) as caught:
        parse_memory(text, "alice", CONFIG, "memories/alice.md")
    assert "memories/alice.md:5: " in str(caught.value)
    assert message in str(caught.value)


def test_parse_record_renders_in_key_order() -> None:
    record = parse_record(" since=2026-12-01 basis=declared ", "x")
    assert record.render() == "<!-- am: basis=declared since=2026-12-01 -->"


def _editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: str) -> None:
    script = tmp_path / "ed.py"
    script.write_text(
        "import sys, pathlib\np = pathlib.Path(sys.argv[1])\nt = p.read_text()\n"
        + code
        + "\np.write_text(t)\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")


def _accept(runner: CliRunner, text: str) -> None:
    assert invoke(runner, "remember", text).exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0


def test_an_accepted_entry_carries_basis_date_and_review(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    _accept(runner, "Quote the clause number.")
    text = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert (
        "- Quote the clause number. <!-- am: basis=declared since=2026-12-01 "
        "review=2027-12-01 -->\n" in text
    )


def test_memory_edit_restores_a_dropped_marker_and_records_a_new_entry(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    _accept(runner, "Quote the clause number.")
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-05")
    _editor(
        tmp_path,
        monkeypatch,
        "import re\nt = re.sub(r' <!-- am:.*?-->', '', t)\n"
        "t = t.replace('clause number.', 'clause number and page.')\n"
        "t = t.replace('## Recurring patterns\\n', '## Recurring patterns\\n- Read annexes.\\n')",
    )
    result = invoke(runner, "memory", "edit")
    assert result.exit_code == 0, result.stderr
    assert "entry #1: the edit dropped its metadata; restored (declared, since 2026-12-01)" in (
        result.stderr
    )
    assert "entry #2: written by hand, recorded as declared from today" in result.stderr
    text = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert (
        "- Quote the clause number and page. <!-- am: basis=declared since=2026-12-01 "
        "review=2027-12-01 -->\n" in text
    )
    assert "- Read annexes. <!-- am: basis=declared since=2026-12-05 review=2027-12-05 -->\n" in (
        text
    )


def test_memory_edit_refuses_a_broken_marker_and_says_which(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _accept(runner, "Quote the clause number.")
    before = (memrepo / "memories" / "alice.md").read_bytes()
    head = git(memrepo, "rev-parse", "HEAD")
    _editor(tmp_path, monkeypatch, "t = t.replace('basis=declared', 'basis=sure')")
    result = invoke(runner, "memory", "edit")
    assert result.exit_code == 1
    assert "memories/alice.md:4: metadata basis is 'sure'; expected declared or inferred" in (
        result.stderr
    )
    assert "was left as it was" in result.stderr
    assert (memrepo / "memories" / "alice.md").read_bytes() == before
    assert git(memrepo, "rev-parse", "HEAD") == head


def test_a_file_without_markers_keeps_working_and_stays_unrecorded(
    memrepo: Path, runner: CliRunner
) -> None:
    memory = memrepo / "memories" / "alice.md"
    memory.parent.mkdir(exist_ok=True)
    memory.write_text(
        "# Memory: alice\n\n## Writing style\n- Keep answers short.\n\n## Priorities & scope\n"
        "\n## Recurring patterns\n\n## Rule dependencies\n",
        encoding="utf-8",
    )
    commit_by_owner(memrepo, "memories/alice.md")
    chat = invoke(runner, "context", "chat")
    assert chat.exit_code == 0, chat.stderr
    assert "1. Keep answers short." in chat.stdout
    check = invoke(runner, "check")
    assert "memories/alice.md" not in check.stdout


def _write_memory(root: Path, entries: str) -> None:
    memory = root / "memories" / "alice.md"
    memory.parent.mkdir(exist_ok=True)
    memory.write_text(
        f"# Memory: alice\n\n## Writing style\n{entries}\n## Priorities & scope\n"
        "\n## Recurring patterns\n\n## Rule dependencies\n",
        encoding="utf-8",
    )
    commit_by_owner(root, "memories/alice.md")


RECORDED = (
    "- Use British English. <!-- am: basis=inferred scope=contracts since=2026-10-01 "
    "review=2026-10-31 expires=2026-12-30 -->\n"
    "- Quote clause numbers. <!-- am: basis=declared since=2026-01-01 review=2027-01-01 -->\n"
    "- Old habit. <!-- am: basis=inferred since=2026-08-01 review=2026-08-31 "
    "expires=2026-10-30 -->\n"
    "- Supply only. <!-- am: basis=declared scope=contracts/supply since=2026-11-01 "
    "review=2027-11-01 -->\n"
)


def test_chat_leaves_out_expired_and_other_scopes_and_marks_inferred(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    _write_memory(memrepo, RECORDED)
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    plain = invoke(runner, "context", "chat")
    assert plain.exit_code == 0, plain.stderr
    assert "2. Quote clause numbers." in plain.stdout
    for gone in ("British", "Old habit", "Supply only"):
        assert gone not in plain.stdout
    assert "memories/alice.md: #3 not given: expired" in plain.stderr
    assert "#1, #4 not given: scoped elsewhere" in plain.stderr
    scoped = invoke(runner, "context", "chat", "--scope", "contracts/supply")
    assert "1. [inferred, scope contracts, review due] Use British English." in scoped.stdout
    assert "4. [scope contracts/supply] Supply only." in scoped.stdout
    assert "Entries marked [inferred] were inferred" in scoped.stdout
    assert "Old habit" not in scoped.stdout
    data = json.loads(invoke(runner, "context", "chat", "-s", "contracts", "-f", "json").stdout)
    assert [(e["number"], e["basis"], e["review_due"]) for e in data["entries"]] == [
        (1, "inferred", True),
        (2, "declared", False),
    ]
    assert data["left_out"] == [
        {"number": 3, "reason": "expired"},
        {"number": 4, "reason": "out of scope"},
    ]


def test_suspend_leaves_out_past_review_entries(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = memrepo / "agentmem.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "on_review_due: alert      # alert: a past", "on_review_due: suspend    # alert: a past"
        ),
        encoding="utf-8",
    )
    _write_memory(memrepo, RECORDED)
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    result = invoke(runner, "context", "chat", "--scope", "contracts")
    assert "British" not in result.stdout
    assert "#1 not given: review due" in result.stderr


def test_hook_scope_comes_from_the_scopes_map(
    memrepo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from agentmem.delivery import fastpath

    project = tmp_path / "acme" / "sub"
    project.mkdir(parents=True)
    config = memrepo / "agentmem.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + f"scopes:\n  {tmp_path / 'acme'}: contracts/supply\n",
        encoding="utf-8",
    )
    _write_memory(memrepo, RECORDED)
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    monkeypatch.setenv("AGENTMEM_REPO", str(memrepo))
    payload = json.dumps(
        {
            "session_id": "s1",
            "transcript_path": str(project / "s1.jsonl"),
            "hook_event_name": "SessionStart",
            "cwd": str(project),
        }
    )
    printed = fastpath.session_start(payload)
    assert "4. [scope contracts/supply] Supply only." in printed.stdout
    monkeypatch.setenv("AGENTMEM_SCOPE", "legal")
    assert "Supply only" not in fastpath.session_start(payload).stdout


def test_due_lists_and_reconfirm_moves_the_dates_in_one_commit(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    _write_memory(memrepo, RECORDED + "- Unmarked entry.\n")
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    due = json.loads(invoke(runner, "memory", "due", "--format", "json").stdout)
    assert [(d["number"], d["state"], d["applied"]) for d in due] == [
        (1, "review due", True),
        (3, "expired", False),
        (5, "unrecorded", True),
    ]
    head = git(memrepo, "rev-parse", "HEAD")
    result = invoke(runner, "memory", "reconfirm", "1", "5")
    assert result.exit_code == 0, result.stderr
    assert "#1: inferred, review 2026-12-31, expires 2027-03-01" in result.stdout
    assert "#5: declared, review 2027-12-01" in result.stdout
    assert git(memrepo, "rev-parse", "HEAD~1") == head
    assert "Agentmem-Action: reconfirm" in git(memrepo, "log", "-1", "--format=%(trailers)")
    text = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert (
        "- Use British English. <!-- am: basis=inferred scope=contracts since=2026-12-01 "
        "review=2026-12-31 expires=2027-03-01 -->\n" in text
    )
    assert "- Unmarked entry. <!-- am: basis=declared since=2026-12-01 review=2027-12-01 -->" in (
        text
    )
    unknown = invoke(runner, "memory", "reconfirm", "9")
    assert unknown.exit_code == 2 and "no entry #9" in unknown.stderr


def test_show_and_blame_mark_the_basis(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    _write_memory(memrepo, RECORDED + "- Unmarked entry.\n")
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    shown = invoke(runner, "memory", "show")
    assert "[inferred: #1, #3; unrecorded: #5; past review (still given): #1; expired" in (
        shown.stdout
    )
    data = json.loads(invoke(runner, "memory", "show", "--format", "json").stdout)
    assert [e["basis"] for e in data] == [
        "inferred",
        "declared",
        "inferred",
        "declared",
        "unrecorded",
    ]
    blame = invoke(runner, "memory", "blame")
    assert "    inferred · scope contracts · since 2026-10-01 · review 2026-10-31" in blame.stdout
    assert "    unrecorded: no basis or dates recorded" in blame.stdout
    blamed = json.loads(invoke(runner, "memory", "blame", "--format", "json").stdout)
    assert blamed[0]["basis"] == "inferred" and blamed[0]["scope"] == "contracts"


def test_a_proposal_without_basis_is_refused_and_everywhere_widens_the_scope() -> None:
    from agentmem.errors import ProposalError
    from agentmem.proposals.model import parse_proposal

    raw = {"action": "add", "section": "Writing style", "text": "X.", "justification": "j"}
    with pytest.raises(ProposalError, match="field 'basis' is missing"):
        parse_proposal(raw, person="a", session="s", source="replay", scope="legal", where="p1")
    kept = parse_proposal(
        {**raw, "basis": "inferred"}, person="a", session="s", source="r", scope="legal", where="p"
    )
    assert kept.scope == "legal"
    wide = parse_proposal(
        {**raw, "basis": "declared", "scope": "everywhere"},
        person="a",
        session="s",
        source="r",
        scope="legal",
        where="p",
    )
    assert wide.scope is None


def test_retention_settings_are_checked() -> None:
    from agentmem.config import parse_config
    from agentmem.errors import ConfigError

    config = parse_config(
        {"memory": {"retention": {"inferred": {"review_days": 10, "expire_days": None}}}}, "x"
    )
    assert config.memory.retention["inferred"].expire_days is None
    assert config.memory.retention["declared"].review_days == 365
    with pytest.raises(ConfigError, match="memory.retention.guessed"):
        parse_config({"memory": {"retention": {"guessed": {}}}}, "x")
    with pytest.raises(ConfigError, match="review_days must be a positive number of days"):
        parse_config({"memory": {"retention": {"declared": {"review_days": 0}}}}, "x")


def test_the_fast_marker_split_agrees_with_the_regular_expression() -> None:
    """split_entry finds a marker without the regular expression in the usual shapes; on
    every shape it gives what the expression gives (seeded random lines of marker pieces),
    for the line as the file holds it (``- `` and the line end) and for its body alone."""
    import random

    from agentmem.memory.records import _MARKER, split_entry

    def by_expression(body: str) -> tuple[str, str | None]:
        match = _MARKER.match(body) if "<!-- am:" in body else None
        return (body, None) if match is None else (match.group("text"), match.group("body"))

    pieces = ["a", " ", "\t", "<!-- am:", "-->", " basis=declared", "x", "--", "<!--", "\n"]
    rng = random.Random(7)
    for _ in range(20_000):
        body = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 9)))
        assert split_entry(f"- {body}\n") == by_expression(body), repr(body)
        if not body.endswith("\n"):
            assert split_entry(body) == by_expression(body), repr(body)


def test_show_names_the_command_behind_its_record_summary(memrepo: Path, runner: CliRunner) -> None:
    """The demo's "[inferred: #4]" said nothing of where to look: the next step follows it on
    stderr (stdout stays the file's data)."""
    from tests.helpers.memory import seed_memory

    seed_memory(runner, ["Leave penalties aside unless asked."], basis="inferred")
    shown = invoke(runner, "memory", "show")
    assert shown.stdout.endswith("]\n[inferred: #1]\n")
    assert shown.stderr == "  agentmem memory show --records shows each entry's record\n"
    with_records = invoke(runner, "memory", "show", "--records")
    assert with_records.stdout.endswith("[inferred: #1]\n") and with_records.stderr == ""
