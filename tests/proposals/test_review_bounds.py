"""Bounded work (docs/design/write-path.md §Write path, §Proposals): a decision on many proposals is one
pass that reports its progress, a full memory says what to do and names the entries that could
make room. The big figures (10,000 proposals) are in ``benchmarks/bench_bounds.py``; here the same
code paths run on a few dozen."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner

import agentmem
from agentmem.proposals import review as review_module

MANY = 12


@pytest.fixture(autouse=True)
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
