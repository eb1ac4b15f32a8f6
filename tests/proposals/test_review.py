"""Corrections at review: route, section and target besides the text, scripted and
interactive, recorded in the commit's trailers (the changed words shown: cli/test_review.py)."""

from __future__ import annotations

import json
import os
import re
import secrets
import select
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner

import agentmem
from agentmem.proposals import review as review_module


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


# Bounded work (docs/design/write-path.md §Write path, §Proposals): a decision on many proposals is one
# pass that reports its progress, a full memory says what to do and names the entries that could
# make room. The big figures (10,000 proposals) are in ``benchmarks/bench_bounds.py``; here the same
# code paths run on a few dozen.


MANY = 12


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch of :data:`MANY` reports as one of thousands does (progress from 50, ten ids
    named): the same code, smaller figures."""
    from agentmem.cli import review as review_cli

    monkeypatch.setattr(review_cli, "PROGRESS_FROM", 10)
    monkeypatch.setattr(review_cli, "SHOWN_IDS", 4)


def _settings(root: Path, text: str) -> None:
    (root / "agentmem.yaml").write_text(text, encoding="utf-8")
    git(root, "commit", "-qam", "settings for a big batch")


def _file_pending(root: Path, runner: CliRunner, count: int, tmp_path: Path) -> list[str]:
    """``count`` pending adds filed by ONE harvest (the caller raised ``harvest.max_proposals``
    to it), the model's answer replayed; returns their ids in order."""
    words = ["annexes", "clauses", "prices", "dates", "signatures", "parties", "terms", "fees"]
    answer = tmp_path / f"answer-{secrets.token_hex(4)}.json"
    answer.write_text(
        json.dumps(
            {
                "proposals": [
                    {
                        "action": "add",
                        "basis": "declared",
                        "section": "Writing style",
                        "text": f"Check the {words[n % 8]} of batch {n} before item {n * 7 + 3}.",
                        "justification": "said so",
                    }
                    for n in range(count)
                ]
            }
        ),
        encoding="utf-8",
    )
    session = tmp_path / f"session-{secrets.token_hex(4)}.md"
    session.write_text("User: Here is how I work.\n\nAssistant: Noted.\n", encoding="utf-8")
    result = invoke(runner, "harvest", str(session), "--proposals", str(answer), "--format", "json")
    assert result.exit_code == 0, result.stderr
    (done,) = json.loads(result.stdout)
    assert not done["rejected"], done["rejected"]
    return [p["id"] for p in done["proposals"]]


@pytest.mark.usefixtures("small_batches")
def test_reject_all_is_one_commit_with_progress_and_a_short_line(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    _settings(memrepo, f"harvest:\n  max_proposals: {MANY}\n")
    ids = _file_pending(memrepo, runner, MANY, tmp_path)
    assert len(ids) == MANY
    before = int(git(memrepo, "rev-list", "--count", "HEAD"))
    result = invoke(runner, "review", "--reject", "all")
    assert result.exit_code == 0, result.stderr
    assert int(git(memrepo, "rev-list", "--count", "HEAD")) == before + 1
    head = git(memrepo, "rev-parse", "--short=10", "HEAD").strip()
    first = ", ".join(ids[:4])
    assert result.stdout == f"rejected {MANY} proposals: {first} and {MANY - 4} more → {head}\n"
    assert result.stderr == f"rejecting {MANY} proposals in one commit…\n"
    trailers = git(memrepo, "log", "-1", "--format=%(trailers:key=Agentmem-Proposal,valueonly)")
    assert sorted(trailers.split()) == sorted(ids)  # the commit names every one
    assert not list((memrepo / "inbox" / "alice").glob("*.yaml"))


@pytest.mark.slow
@pytest.mark.usefixtures("small_batches")
def test_accept_all_into_a_full_memory_says_why_once_and_plans_a_few(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _settings(memrepo, f"memory:\n  budget_chars: 400\nharvest:\n  max_proposals: {MANY}\n")
    ids = _file_pending(memrepo, runner, MANY, tmp_path)
    texts = {p.id: p.text or "" for p in agentmem.open().pending()}
    planned: list[str] = []
    real_plan = review_module.plan_memory

    def counting(proposal, *args, **kwargs):  # type: ignore[no-untyped-def]
        planned.append(proposal.id)
        return real_plan(proposal, *args, **kwargs)

    monkeypatch.setattr(review_module, "plan_memory", counting)
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 1
    accepted = [ln.split()[1] for ln in result.stdout.splitlines()]
    assert accepted == ids[: len(accepted)] and 0 < len(accepted) < 20
    refused = MANY - len(accepted)
    lines = result.stderr.splitlines()
    assert lines[0] == f"accepting {MANY} proposals…"
    full = [ln for ln in lines if ln.startswith("error: ")]
    assert len(full) == 2, result.stderr
    assert full[0].startswith(f"error: {ids[len(accepted)]} not applied: memories/alice.md: ")
    assert full[0].endswith("characters: the memory is full")
    hint = lines[lines.index(full[0]) + 1]
    assert hint.startswith(
        "  hint: make room first: 'agentmem memory edit' (remove or merge entries yourself) or "
        "'agentmem tidy --to-inbox' (proposes removals and merges for your review); least "
        "recently confirmed: #1 'Check the annexes of batch 0 before item 3.' (since "
    )
    rest = ", ".join(ids[len(accepted) + 1 : len(accepted) + 5])
    assert full[1] == (
        f"error: {refused - 1} more not applied for the same reason (the memory is full): "
        f"{rest} and {refused - 5} more"
    )
    assert [ln for ln in lines if ln.endswith(f" of {MANY}")] == [
        f"  {n} of {MANY}" for n in range(1, MANY)
    ]
    # One plan per accept, and per refusal only for a text shorter than every one refused
    # before it: an add at least as long to the same full memory is refused unplanned.
    shortest, expected = 10**6, ids[: len(accepted)]
    for pid in ids[len(accepted) :]:
        if len(texts[pid]) < shortest:
            expected.append(pid)
            shortest = len(texts[pid])
    assert planned == expected and len(expected) < MANY
    assert len(agentmem.open().pending()) == refused


@pytest.mark.slow
@pytest.mark.usefixtures("small_batches")
def test_accept_all_commits_a_series_at_a_time_one_commit_each_with_its_trailers(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Accepts are planned and committed a series at a time (one journaled ``fast-import``
    under one holding of the lock; other commands run between two series): 12 proposals in
    series of 5 are three series and 12 commits, each naming its own proposal."""
    _settings(memrepo, f"harvest:\n  max_proposals: {MANY}\n")
    ids = _file_pending(memrepo, runner, MANY, tmp_path)
    monkeypatch.setattr(review_module, "SERIES_MAX", 5)
    series: list[int] = []
    from agentmem.apply import writer  # imported where it is used: the writer's is patched

    real = writer.apply_series

    def counting(root, changes, steps):  # type: ignore[no-untyped-def]
        series.append(len(steps))
        return real(root, changes, steps)

    monkeypatch.setattr(writer, "apply_series", counting)
    before = git(memrepo, "rev-parse", "HEAD").strip()
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 0, result.stderr
    assert series == [5, 5, 2]
    made = git(memrepo, "rev-list", "--reverse", f"{before}..HEAD").split()
    assert [ln.split()[3][:10] for ln in result.stdout.splitlines()] == [m[:10] for m in made]
    for pid, commit in zip(ids, made, strict=True):
        said = git(
            memrepo, "log", "-1", "--format=%(trailers:key=Agentmem-Proposal,valueonly)", commit
        )
        assert said.strip() == pid
        assert git(memrepo, "show", "--format=", "--name-only", commit).split() == [
            f"inbox/alice/{pid}.yaml",
            "memories/alice.md",
        ]
    assert git(memrepo, "status", "--porcelain") == ""
    assert not list((memrepo / "inbox" / "alice").glob("*.yaml"))


@pytest.mark.usefixtures("small_batches")
def test_a_series_that_does_not_land_names_what_was_not_applied_and_keeps_it_pending(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentmem.apply import writer
    from agentmem.errors import GitError

    _settings(memrepo, f"harvest:\n  max_proposals: {MANY}\n")
    ids = _file_pending(memrepo, runner, MANY, tmp_path)
    monkeypatch.setattr(review_module, "SERIES_MAX", 5)
    calls: list[int] = []
    real = writer.apply_series

    def second_fails(root, changes, steps):  # type: ignore[no-untyped-def]
        calls.append(len(steps))
        if len(calls) == 2:
            raise GitError("HEAD moved while agentmem was committing; nothing was committed")
        return real(root, changes, steps)

    monkeypatch.setattr(writer, "apply_series", second_fails)
    before = int(git(memrepo, "rev-list", "--count", "HEAD"))
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 1
    assert [ln.split()[1] for ln in result.stdout.splitlines()] == ids[:5]
    assert int(git(memrepo, "rev-list", "--count", "HEAD")) == before + 5
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error: ")]
    assert errors == [
        f"error: {MANY - 5} proposals not applied ({', '.join(ids[5:9])} and {MANY - 9} more): "
        "HEAD moved while agentmem was committing; nothing was committed"
    ]
    assert sorted(p.id for p in agentmem.open().pending()) == sorted(ids[5:])
    assert git(memrepo, "status", "--porcelain") == ""
