"""``agentmem tidy`` on real temporary repositories: findings, dry run, proposals filed for
review only, the over-budget candidates by their records' dates (by blame date for entries
without a record), doctrine repeats, who may, the lock. Memories are seeded through the accept
path (``tests.helpers.memory.seed_memory``), but for the files from before records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.helpers import git, invoke, set_identity
from tests.helpers.memory import seed_memory
from typer.testing import CliRunner

from agentmem.memory.records import strip_markers

SECTIONS = ("Writing style", "Priorities & scope", "Recurring patterns", "Rule dependencies")


def write_unrecorded_memory(root: Path, person: str, entries: list[str], *, date: str) -> None:
    """``memories/<person>.md`` with ``entries`` in the first section and no records, committed
    by hand on ``date``: a file from before records."""
    lines = [f"# Memory: {person}\n", f"\n## {SECTIONS[0]}\n"]
    lines += [f"- {e}\n" for e in entries]
    lines += [f"\n## {s}\n" for s in SECTIONS[1:]]
    (root / "memories" / f"{person}.md").write_text("".join(lines), encoding="utf-8")
    git(root, "add", "memories")
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(
        ["git", "-C", str(root), "commit", "-q", "-m", f"memory({person}): by hand"],
        check=True,
        env=env,
    )


def tidy(runner: CliRunner, *args: str) -> tuple[int, dict]:
    result = invoke(runner, "tidy", *args, "--format", "json")
    assert "Traceback" not in result.stderr
    assert result.exit_code in (0, 1), result.stderr
    return result.exit_code, json.loads(result.stdout)


ENTRIES = [
    "Keep a collaborative tone with long-standing suppliers.",
    "Always cite the clause number first.",
    "Keep a collaborative tone with our long-standing suppliers, always.",
    "Never cite the clause number first.",
    "Refuse payment terms over 60 days in supply contracts.",
    "Refuse payment terms over 90 days in supply contracts.",
    "Use the template in `templates/nda.docx` and [the guide](docs/guide.md).",
    "Read ./README.md and https://example.com/gone.html first.",
    "Quote the page after the clause.",
]


@pytest.mark.slow
def test_findings_are_a_dated_dry_run(memrepo: Path, runner: CliRunner) -> None:
    seed_memory(runner, ENTRIES)
    (memrepo / "README.md").write_text("here\n", encoding="utf-8")
    head = git(memrepo, "rev-parse", "HEAD")
    code, report = tidy(runner)
    assert code == 1
    assert report["date"] and report["person"] == "alice"
    assert report["fill"].endswith("/8000 characters")
    found = [(f["kind"], [e["number"] for e in f["entries"]]) for f in report["findings"]]
    assert found == [
        ("duplicate", [1, 3]),
        ("contradiction", [2, 4]),
        ("contradiction", [5, 6]),
        ("dead-link", [7]),
    ]
    duplicate = report["findings"][0]["proposals"]
    assert [(p["action"], p["target"], p["text"]) for p in duplicate] == [
        ("remove", ENTRIES[2], None),
        ("modify", ENTRIES[0], ENTRIES[2]),
    ]
    assert {p["basis"] for p in duplicate} == {"inferred"}
    assert {p["source"] for p in duplicate} == {"tidy"}
    assert report["findings"][1]["proposals"] == []  # flagged only
    dead = report["findings"][3]
    assert dead["reason"] == "#7 points at templates/nda.docx, docs/guide.md, which no longer exist"
    assert [p["action"] for p in dead["proposals"]] == ["remove"]
    # a dry run: nothing written, nothing committed
    assert git(memrepo, "rev-parse", "HEAD") == head
    assert not list((memrepo / "inbox").glob("alice/*.yaml"))
    text = invoke(runner, "tidy")
    assert text.exit_code == 1
    assert text.stdout.startswith(f"tidy report for alice, {report['date']} (memories/alice.md: ")
    assert "4 findings, 3 proposals" in text.stdout
    assert "dry run: nothing written" in text.stderr


@pytest.mark.slow
def test_to_inbox_files_once_and_review_applies(memrepo: Path, runner: CliRunner) -> None:
    seed_memory(runner, ENTRIES[:4])
    result = invoke(runner, "tidy", "--to-inbox")
    assert result.exit_code == 1
    assert "2 proposals filed in your inbox" in result.stderr
    log = git(memrepo, "log", "-1", "--format=%s%n%(trailers:only,unfold)")
    assert log.startswith("inbox(alice): 2 proposals from session tidy-")
    assert "Agentmem-Source: tidy" in log
    again = invoke(runner, "tidy", "--to-inbox")
    assert "0 proposals filed in your inbox (2 already pending there)" in again.stderr
    assert git(memrepo, "log", "-1", "--format=%s").startswith("inbox(alice): 2 proposals")
    pending = json.loads(invoke(runner, "inbox", "--format", "json").stdout)
    assert [(p["action"], p["basis"], p["source"]) for p in pending] == [
        ("remove", "inferred", "tidy"),
        ("modify", "inferred", "tidy"),
    ]
    accepted = invoke(runner, "review", "--accept", "all")
    assert accepted.exit_code == 0, accepted.stderr
    memory = strip_markers((memrepo / "memories" / "alice.md").read_text(encoding="utf-8"))
    assert memory.count("collaborative") == 1
    kept = [ln for ln in memory.splitlines() if ln.startswith("- ")]
    assert [ln.startswith(f"- {e}") for ln, e in zip(kept, ENTRIES[1:3][::-1], strict=False)] == [
        True,
        True,
    ]  # the longer text in the first's place, then the second entry
    code, report = tidy(runner)
    assert (code, [f["kind"] for f in report["findings"]]) == (1, ["contradiction"])


def test_nothing_to_tidy_exits_0(memrepo: Path, runner: CliRunner) -> None:
    result = invoke(runner, "tidy")
    assert result.exit_code == 0, result.stderr
    assert "nothing to tidy" in result.stdout
    seed_memory(runner, ["Quote the page after the clause.", "Summaries go first."])
    assert invoke(runner, "tidy", "--to-inbox").exit_code == 0
    assert invoke(runner, "tidy", "--bogus").exit_code == 2


def _small_budget(memrepo: Path) -> None:
    config = memrepo / "agentmem.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("budget_chars: 8000", "budget_chars: 400"),
        encoding="utf-8",
    )
    git(memrepo, "commit", "-qam", "small budget")


OLD = [f"Old habit number {n} about drafting supply contracts." for n in ("one", "two")]
RECENT = [f"Recent habit {n} for lease contracts and their annexes." for n in ("A", "B")]


def test_over_the_warning_level_oldest_first(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _small_budget(memrepo)
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-01-05")
    seed_memory(runner, OLD)
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-11-20")
    seed_memory(runner, RECENT)
    code, report = tidy(runner)
    assert code == 1
    over = [f for f in report["findings"] if f["kind"] == "over-budget"]
    assert report["fill"].startswith(("8", "9", "1"))  # at or over 80 %
    assert [f["entries"][0]["text"] for f in over][:1] == [OLD[0]]
    assert over[0]["entries"][0]["confirmed"] == "2026-01-05"  # the record's since
    assert "last confirmed 2026-01-05" in over[0]["reason"]
    assert all(f["entries"][0]["text"] in OLD for f in over)  # the recent ones stay
    assert [p["action"] for f in over for p in f["proposals"]] == ["remove"] * len(over)


def test_over_the_warning_level_unrecorded_entries_by_blame_date(
    memrepo: Path, runner: CliRunner
) -> None:
    """A file from before records: the day each line was last committed stands in."""
    _small_budget(memrepo)
    old, recent = OLD, RECENT
    write_unrecorded_memory(memrepo, "alice", old, date="2026-01-05T10:00:00Z")
    write_unrecorded_memory(memrepo, "alice", old + recent, date="2026-11-20T10:00:00Z")
    code, report = tidy(runner)
    assert code == 1
    over = [f for f in report["findings"] if f["kind"] == "over-budget"]
    assert report["fill"].startswith(("8", "9", "1"))  # at or over 80 %
    assert [f["entries"][0]["text"] for f in over][:1] == [old[0]]
    assert over[0]["entries"][0]["confirmed"] == "2026-01-05"
    assert "last confirmed 2026-01-05" in over[0]["reason"]
    assert all(f["entries"][0]["text"] in old for f in over)  # the recent ones stay
    assert [p["action"] for f in over for p in f["proposals"]] == ["remove"] * len(over)


def test_doctrine_rules_that_repeat_across_scopes(memrepo: Path, runner: CliRunner) -> None:
    for rule_id, scope in (("warranty-lease", "contracts/lease"), ("warranty-hr", "hr")):
        result = invoke(
            runner,
            "doctrine",
            "propose",
            "--id",
            rule_id,
            "--title",
            f"Warranty floor {scope}",
            "--instruction",
            "Do not accept warranties shorter than 24 months",
            "--scope",
            scope,
            "--limit",
            "Not for software licences.",
        )
        assert result.exit_code == 0, result.stderr
    code, report = tidy(runner)
    assert code == 1
    assert [(f["kind"], f["rules"], f["proposals"]) for f in report["findings"]] == [
        ("rule-repeat", ["warranty-hr", "warranty-lease"], [])
    ]


def test_who_may_tidy_whom(memrepo: Path, runner: CliRunner) -> None:
    people = {
        "alice": {"email": "alice@example.com", "role": "admin"},
        "bob": {"email": "bob@example.com", "role": "member"},
    }
    (memrepo / "roles.yaml").write_text(yaml.safe_dump(people), encoding="utf-8")
    git(memrepo, "commit", "-qam", "roles")
    set_identity(memrepo, "Bob", "bob@example.com")
    seed_memory(runner, ENTRIES[:3])
    set_identity(memrepo, "Alice Martin", "alice@example.com")
    code, report = tidy(runner, "--person", "bob")  # an admin reads anyone's report
    assert code == 1 and report["person"] == "bob"
    refused = invoke(runner, "tidy", "--person", "bob", "--to-inbox")
    assert refused.exit_code == 1
    assert "only bob files proposals into bob's inbox" in refused.stderr
    set_identity(memrepo, "Bob", "bob@example.com")
    denied = invoke(runner, "tidy", "--person", "alice")
    assert denied.exit_code == 1 and "alice's memory is for alice" in denied.stderr
    assert invoke(runner, "tidy", "--person", "zoe").exit_code == 2


@pytest.mark.slow
def test_tidy_takes_the_repository_lock(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed_memory(runner, ENTRIES[:3])
    lock = memrepo / ".agentmem" / "lock"
    lock.parent.mkdir(exist_ok=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX);"
            " print('held', flush=True); time.sleep(60)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        monkeypatch.setenv("AGENTMEM_LOCK_TIMEOUT", "0.2")
        busy = invoke(runner, "tidy", "--to-inbox")
        assert busy.exit_code == 1
        assert "another agentmem command is writing" in busy.stderr
        assert not list((memrepo / "inbox").glob("alice/*.yaml"))
    finally:
        holder.kill()
        holder.wait()


def test_records_expiry_and_confirmation_dates(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-01-10")
    seed_memory(runner, ["Quote the page after the clause."], basis="inferred")  # 90 days
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-11-02")
    seed_memory(runner, ["Summaries go first."])  # declared: never expires
    monkeypatch.setenv("AGENTMEM_TODAY", "2026-12-01")
    code, report = tidy(runner)
    assert code == 1
    assert [(f["kind"], f["reason"]) for f in report["findings"]] == [
        ("expired", "#1 expired on 2026-04-10 (it reaches no context block)")
    ]
    assert report["findings"][0]["entries"][0]["confirmed"] == "2026-01-10"
    assert [(p["action"], p["target"]) for p in report["findings"][0]["proposals"]] == [
        ("remove", "Quote the page after the clause.")
    ]
