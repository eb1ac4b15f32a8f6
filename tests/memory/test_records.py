"""Memory entries as governable records: the record marker, its survival through hand edits,
retention, scope, basis, conflicts (docs/decisions/0051)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from tests.helpers.memory import commit_by_owner, seed_memory
from typer.testing import CliRunner

import agentmem
from agentmem.config import MemoryConfig
from agentmem.errors import InvalidMemoryError
from agentmem.memory.file import budget_status, parse_memory
from agentmem.memory.records import (
    MARKER_OPEN,
    Record,
    entry_text,
    parse_record,
    split_entry,
    strip_markers,
)

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


# One reading of an entry line for every reader (was test_entry_text.py):
# An entry's record never shows where its text does (docs/design/memory.md §Memory file): one
# reading of an entry line (``memory.records.split_entry``) for the parser and every reader —
# the offline extractor, the model request, targets, review diffs, ``memory show``, export, the
# memory tool, search, tidy. Every memory here is seeded through the real accept path, so its
# entries carry records as an accept writes them.

MEMORY = Path("memories") / "alice.md"


def _memory(root: Path) -> str:
    return (root / MEMORY).read_text(encoding="utf-8")


def _session(tmp_path: Path, name: str, said: str) -> Path:
    path = tmp_path / f"{name}.txt"
    path.write_text(f"User: {said}\nAssistant: OK.\n", encoding="utf-8")
    return path


def _harvest(runner: CliRunner, session: Path) -> list[dict]:
    result = invoke(runner, "harvest", str(session), "--format", "json")
    assert result.exit_code == 0, result.stderr
    (done,) = json.loads(result.stdout)
    assert done["rejected"] == [], done["rejected"]
    return done["proposals"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("- Be brief. <!-- am: basis=declared since=2026-12-01 -->\n", ("Be brief.", " basis=declared since=2026-12-01 ")),
        ("- Be brief.\n", ("Be brief.", None)),
        ("Be brief. <!-- am: basis=inferred -->", ("Be brief.", " basis=inferred ")),
        ("- Be brief.\t<!-- am: basis=declared -->  ", ("Be brief.", " basis=declared ")),
        ("- - nested", ("- nested", None)),  # one "- " only: the parser refuses the rest
        ("- A <!-- am: x --> mid-line", ("A <!-- am: x --> mid-line", None)),
        ("- <!-- am: basis=declared -->", ("<!-- am: basis=declared -->", None)),
    ],
)  # fmt: skip
def test_split_entry_reads_a_line_or_a_quoted_target(line: str, expected: tuple) -> None:
    assert split_entry(line) == expected
    assert entry_text(line) == expected[0]


def test_strip_markers_is_split_entry_on_every_entry_line() -> None:
    text = (
        "# Memory: alice\n\n## Writing style\n"
        "- Be brief. <!-- am: basis=declared since=2026-12-01 review=2027-12-01 -->\n"
        "- Plain. \n"
        "- Tabs.\t<!-- am: basis=inferred -->\t\n"
        "- Broken <!-- am: x --> here\n"
        "- Last <!-- am: basis=declared -->"
    )
    assert strip_markers(text) == (
        "# Memory: alice\n\n## Writing style\n- Be brief.\n- Plain. \n- Tabs.\n"
        "- Broken <!-- am: x --> here\n- Last"
    )
    assert strip_markers("# Memory: alice\n") == "# Memory: alice\n"


def test_a_change_of_mind_modifies_a_recorded_entry_with_a_fresh_record(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-11-02")
    assert invoke(runner, "remember", "Summaries in 3 bullets.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    assert "- Summaries in 3 bullets. <!-- am: basis=declared since=2026-11-02 " in _memory(memrepo)
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    (modify,) = _harvest(runner, _session(tmp_path, "s1", "From now on 5 bullets, not 3."))
    assert (modify["action"], modify["target"], modify["text"]) == (
        "modify",
        "Summaries in 3 bullets.",
        "Summaries in 5 bullets.",
    )
    accepted = invoke(runner, "review", "--accept", modify["id"])
    assert accepted.exit_code == 0, accepted.stderr
    entries = [ln for ln in _memory(memrepo).splitlines() if ln.startswith("- ")]
    assert entries == [
        "- Summaries in 5 bullets. <!-- am: basis=declared since=2026-12-01 review=2027-12-01 -->"
    ]
    (remove,) = _harvest(runner, _session(tmp_path, "s2", "Forget the rule about summaries."))
    assert (remove["action"], remove["target"]) == ("remove", "Summaries in 5 bullets.")
    assert invoke(runner, "review", "--accept", remove["id"]).exit_code == 0
    assert not [ln for ln in _memory(memrepo).splitlines() if ln.startswith("- ")]


def test_a_target_quoted_with_its_record_matches_the_entry_text(
    memrepo: Path, runner: CliRunner
) -> None:
    text = seed_memory(runner, ["Quote the clause number.", "Answer in French."])
    whole = next(ln for ln in text.splitlines() if ln.startswith("- Quote"))
    assert MARKER_OPEN in whole
    mem = agentmem.open()
    proposal = mem.propose_change(
        "modify",
        target=whole,
        text="Quote the clause number and its title.",
        justification="x",
        session="s1",
    )
    assert proposal.target == "Quote the clause number."  # stored as the entry's text
    other = mem.propose_change(
        "remove", target="- Answer in French.", justification="y", session="s1"
    )
    assert other.target == "Answer in French."
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 0, result.stderr
    assert [entry_text(ln) for ln in _memory(memrepo).splitlines() if ln.startswith("- ")] == [
        "Quote the clause number and its title."
    ]


def test_review_target_flag_accepts_the_whole_line(memrepo: Path, runner: CliRunner) -> None:
    text = seed_memory(runner, ["Quote the clause number.", "Answer in French."])
    whole = next(ln for ln in text.splitlines() if ln.startswith("- Answer"))
    mem = agentmem.open()
    proposal = mem.propose_change(
        "remove", target="Quote the clause", justification="x", session="s1"
    )
    result = invoke(runner, "review", "--target", f"{proposal.id}={whole}")
    assert result.exit_code == 0, result.stderr
    assert [entry_text(ln) for ln in _memory(memrepo).splitlines() if ln.startswith("- ")] == [
        "Quote the clause number."
    ]


def test_the_model_request_shows_entries_without_their_records(
    memrepo: Path, runner: CliRunner
) -> None:
    from agentmem.harvest.providers.anthropic_provider import build_prompt
    from agentmem.harvest.providers.request import HarvestRequest
    from agentmem.harvest.transcripts import Transcript, Turn

    text = seed_memory(runner, ["Quote the clause number."])
    request = HarvestRequest(
        person="alice",
        transcript=Transcript(Path("s.md"), "text", "s1", [Turn("user", "Hi.", 1)]),
        memory_text=text,
        doctrine_text="",
        sections=("Writing style",),
        max_proposals=6,
        scope=None,
        model="m",
    )
    _system, user = build_prompt(request)
    block = user.split("<memory_file>")[1].split("</memory_file>")[0]
    assert "- Quote the clause number.\n" in block
    assert MARKER_OPEN not in user


def test_memory_show_prints_texts_and_records_apart(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    seed_memory(runner, ["Quote the clause number."])
    seed_memory(
        runner,
        [("Recurring patterns", "Checks the annexes first.")],
        basis="inferred",
        scope="contracts",
    )
    shown = invoke(runner, "memory", "show")
    assert shown.exit_code == 0, shown.stderr
    assert MARKER_OPEN not in shown.stdout
    assert "\n- Quote the clause number.\n" in shown.stdout
    with_records = invoke(runner, "memory", "show", "--records").stdout
    assert (
        "- Quote the clause number.\n"
        "    declared · everywhere · since 2026-12-01 · review 2027-12-01 · never expires\n"
    ) in with_records
    assert (
        "- Checks the annexes first.\n    inferred · scope contracts · since 2026-12-01"
        in with_records
    )
    assert MARKER_OPEN not in with_records
    data = json.loads(invoke(runner, "memory", "show", "--format", "json").stdout)
    assert [(e["text"], e["basis"], e["since"]) for e in data] == [
        ("Quote the clause number.", "declared", "2026-12-01"),
        ("Checks the annexes first.", "inferred", "2026-12-01"),
    ]  # fmt: skip


def test_a_review_diff_shows_texts_and_the_record_on_its_own_line(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    seed_memory(runner, ["Summaries in 3 bullets."])
    agentmem.open().propose_change(
        "modify", target="3 bullets", text="Summaries in 5 bullets.", justification="x",
        session="s1", basis="declared",
    )  # fmt: skip
    shown = invoke(runner, "review", "--dry-run")
    assert shown.exit_code == 0, shown.stderr
    assert MARKER_OPEN not in shown.stdout
    assert "\n  -- Summaries in 3 bullets.\n  +- Summaries in 5 bullets.\n" in shown.stdout
    assert (
        "\n  record: declared · everywhere · since 2026-12-01 · review 2027-12-01" in shown.stdout
    )


def test_an_edit_of_a_modify_keeps_the_text_and_writes_a_fresh_record(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-11-02")
    seed_memory(runner, ["Summaries in 3 bullets."])
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    proposal = agentmem.open().propose_change(
        "modify", target="Summaries in 3 bullets.", text="Summaries in 5 bullets.",
        justification="x", session="s1", basis="declared",
    )  # fmt: skip
    result = invoke(runner, "review", "--edit", f"{proposal.id}=Summaries in 4 bullets.")
    assert result.exit_code == 0, result.stderr
    assert [ln for ln in _memory(memrepo).splitlines() if ln.startswith("- ")] == [
        "- Summaries in 4 bullets. <!-- am: basis=declared since=2026-12-01 review=2027-12-01 -->"
    ]


def test_the_memory_tool_views_texts_and_takes_a_quoted_line(
    memrepo: Path, runner: CliRunner
) -> None:
    from agentmem.integrations.anthropic import MemoryTool

    seed_memory(runner, ["Answer in French."])
    tool = MemoryTool(agentmem.open(), session="s1")
    view = tool.call({"command": "view", "path": "/memories/alice.md"})
    assert "\t- Answer in French.\n" in view and MARKER_OPEN not in view
    line = next(ln for ln in _memory(memrepo).splitlines() if ln.startswith("- "))
    filed = tool.call(
        {
            "command": "str_replace",
            "path": "/memories/alice.md",
            "old_str": f"     4\t{line}",
            "new_str": "- Answer in English.",
        }
    )
    assert "modify in [Answer in French.] -> Answer in English." in filed


def test_export_search_and_tidy_read_entry_texts(memrepo: Path, runner: CliRunner) -> None:
    seed_memory(
        runner, ["Quote the clause number.", "Use British English.", "Use American English."]
    )
    exported = invoke(runner, "export", "--to", "claude-md")
    assert exported.exit_code == 0, exported.stderr
    assert "Quote the clause number." in exported.stdout and MARKER_OPEN not in exported.stdout
    found = json.loads(invoke(runner, "search", "clause", "--format", "json").stdout)
    assert [hit["snippet"] for hit in found] == ["Quote the **clause** number."]
    tidy = invoke(runner, "tidy", "--format", "json")
    assert tidy.exit_code == 1, tidy.stderr  # 1: something found
    (finding,) = json.loads(tidy.stdout)["findings"]
    assert [e["text"] for e in finding["entries"]] == [
        "Use British English.",
        "Use American English.",
    ]
