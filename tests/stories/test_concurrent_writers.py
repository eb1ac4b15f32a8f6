"""Concurrent writers: one repository lock around read → validate → write →
commit, commits on a private index published with a compare-and-swap, a person's staged work
never in an agentmem commit, and a file changed since its diff was shown never overwritten."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner

from agentmem.errors import BusyError
from agentmem.store import journal
from agentmem.store.repo import open_repository

PEOPLE = [f"p{n:02d}" for n in range(1, 21)]


def _identity_env(person: str) -> dict[str, str]:
    """Per-process git identity: GIT_CONFIG_* entries win over every config file."""
    return {
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": "user.email",
        "GIT_CONFIG_VALUE_0": f"{person}@example.com",
        "GIT_CONFIG_KEY_1": "user.name",
        "GIT_CONFIG_VALUE_1": person.upper(),
    }


def _add_people(root: Path) -> None:
    roles = root / "roles.yaml"
    text = roles.read_text(encoding="utf-8")
    text += "".join(f"{p}:\n  email: {p}@example.com\n  role: member\n" for p in PEOPLE)
    roles.write_text(text, encoding="utf-8")
    git(root, "commit", "-qm", "add twenty people", "--", "roles.yaml")


@pytest.mark.slow
def test_twenty_parallel_accepts_make_twenty_clean_commits(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    _add_people(memrepo)
    proposals: dict[str, str] = {}
    for person in PEOPLE:
        for key, value in _identity_env(person).items():
            monkeypatch.setenv(key, value)
        assert invoke(runner, "remember", f"Entry of {person}: keep it short.").exit_code == 0
        (pending,) = json.loads(invoke(runner, "inbox", "--format", "json").stdout)
        proposals[person] = pending["id"]
    for key in _identity_env("x"):
        monkeypatch.delenv(key)
    before = git(memrepo, "rev-parse", "HEAD").strip()

    procs = {
        person: subprocess.Popen(
            [sys.executable, "-m", "agentmem", "review", "--accept", proposals[person]],
            cwd=memrepo,
            env={**os.environ, **_identity_env(person), "AGENTMEM_LOCK_TIMEOUT": "300"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for person in PEOPLE
    }
    for person, proc in procs.items():
        _out, err = proc.communicate()
        assert proc.returncode == 0, f"{person}: {err}"

    commits = git(memrepo, "rev-list", "--reverse", f"{before}..HEAD").split()
    assert len(commits) == 20
    seen = set()
    for sha in commits:
        actor = git(
            memrepo, "log", "-1", "--format=%(trailers:key=Agentmem-Actor,valueonly)", sha
        ).strip()
        person = actor.split(" ")[0]
        assert actor == f"{person} <{person}@example.com>"
        pid = git(
            memrepo, "log", "-1", "--format=%(trailers:key=Agentmem-Proposal,valueonly)", sha
        ).strip()
        assert pid == proposals[person]
        assert git(memrepo, "show", "--name-only", "--format=", sha).split() == [
            f"inbox/{person}/{pid}.yaml",
            f"memories/{person}.md",
        ]
        assert git(memrepo, "log", "-1", "--format=%ae", sha).strip() == f"{person}@example.com"
        seen.add(person)
    assert seen == set(PEOPLE)
    for person in PEOPLE:
        text = (memrepo / "memories" / f"{person}.md").read_text(encoding="utf-8")
        assert f"- Entry of {person}: keep it short. <!-- am: basis=declared" in text
    assert git(memrepo, "status", "--porcelain", "--untracked-files=all") == ""
    assert not journal.has_pending(memrepo)
    assert not (memrepo / ".git" / "index.lock").exists()
    with open_repository(memrepo).locked(timeout=0):
        pass  # nobody holds the lock any more


def test_staged_work_of_the_person_stays_staged_and_out_of_the_commit(
    memrepo: Path, runner: CliRunner
) -> None:
    notes = memrepo / "notes.txt"
    notes.write_text("draft v1\n", encoding="utf-8")
    git(memrepo, "add", "notes.txt")
    git(memrepo, "commit", "-qm", "notes")
    notes.write_text("draft v2, staged\n", encoding="utf-8")
    git(memrepo, "add", "notes.txt")
    notes.write_text("draft v3, not staged\n", encoding="utf-8")
    assert invoke(runner, "remember", "Quote clause numbers.").exit_code == 0
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 0, result.stderr
    for rev in ("HEAD", "HEAD^"):
        assert "notes.txt" not in git(memrepo, "show", "--name-only", "--format=", rev)
    assert git(memrepo, "show", ":notes.txt") == "draft v2, staged\n"
    assert notes.read_text(encoding="utf-8") == "draft v3, not staged\n"
    assert git(memrepo, "status", "--porcelain") == "MM notes.txt\n"


def test_a_held_lock_makes_a_writer_say_busy(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A decision under a held lock says busy (remember spools instead: test_bounded_input)."""
    assert invoke(runner, "remember", "Quote clause numbers.").exit_code == 0
    monkeypatch.setenv("AGENTMEM_LOCK_TIMEOUT", "0.2")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom filelock import FileLock\n"
            "with FileLock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(60)\n",
            str(memrepo / ".agentmem" / "lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        result = invoke(runner, "review", "--reject", "all")
        assert result.exit_code == 1
        assert "another agentmem command is writing to this repository" in result.stderr
        assert "retry in a moment" in result.stderr
    finally:
        holder.kill()
        holder.wait()
    assert invoke(runner, "review", "--reject", "all").exit_code == 0


def test_the_lock_is_released_by_the_kernel_when_its_holder_dies(memrepo: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom filelock import FileLock\nlock = FileLock(sys.argv[1])\nlock.acquire()\n"
            "print('held', flush=True)\ntime.sleep(60)\n",
            str(memrepo / ".agentmem" / "lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    repo = open_repository(memrepo)
    with pytest.raises(BusyError), repo.locked(timeout=0):
        pass
    holder.kill()
    holder.wait()
    with repo.locked(timeout=5):
        pass


def test_a_memory_file_changed_since_its_diff_was_shown_is_not_overwritten(
    memrepo: Path, runner: CliRunner
) -> None:
    from agentmem.errors import ApplyConflictError
    from agentmem.proposals.inbox import list_pending
    from agentmem.proposals.review import commit_accept, plan_accept

    assert invoke(runner, "remember", "Quote clause numbers.").exit_code == 0
    repo = open_repository(memrepo)
    (proposal,) = list_pending(repo, "alice")
    plan = plan_accept(repo, proposal)  # the diff the person saw
    memory = memrepo / "memories" / "alice.md"
    memory.write_text(
        "# Memory: alice\n\n## Writing style\n- Edited meanwhile.\n\n## Priorities & scope\n\n"
        "## Recurring patterns\n\n## Rule dependencies\n",
        encoding="utf-8",
    )
    head = git(memrepo, "rev-parse", "HEAD").strip()
    with (
        pytest.raises(ApplyConflictError, match="changed on disk since its diff was shown"),
        repo.locked(),
    ):
        commit_accept(repo, plan, proposal)
    assert "Edited meanwhile" in memory.read_text(encoding="utf-8")
    assert git(memrepo, "rev-parse", "HEAD").strip() == head


def test_the_lock_is_reentrant_in_one_thread(memrepo: Path) -> None:
    repo = open_repository(memrepo)
    with repo.locked(), repo.locked(timeout=0):
        pass
    with repo.locked(timeout=0):
        pass


def test_a_proposal_decided_by_another_review_is_not_applied_again(
    memrepo: Path, runner: CliRunner
) -> None:
    """Review B listed the proposal before review A accepted it: B's accept is refused, its
    reject leaves it out, and the entry is in the memory once."""
    from agentmem.errors import ProposalError
    from agentmem.proposals.inbox import list_pending
    from agentmem.proposals.review import commit_accept, commit_reject, plan_accept

    assert invoke(runner, "remember", "Quote clause numbers first.").exit_code == 0
    repo = open_repository(memrepo)
    actor = repo.actor()
    (listed_by_b,) = list_pending(repo, actor.id)
    assert invoke(runner, "review", "--accept", "all").exit_code == 0  # review A
    head = git(memrepo, "rev-parse", "HEAD")
    with repo.locked():
        plan = plan_accept(repo, listed_by_b)
        with pytest.raises(ProposalError, match="no longer pending: it was accepted or rejected"):
            commit_accept(repo, plan, listed_by_b)
        assert commit_reject(repo, [listed_by_b]) is None
    assert git(memrepo, "rev-parse", "HEAD") == head
    text = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert text.count("Quote clause numbers first.") == 1


@pytest.mark.slow
def test_three_parallel_reviews_of_the_same_inbox_apply_each_proposal_once(
    memrepo: Path, runner: CliRunner
) -> None:
    texts = ["Quote clause numbers first.", "Summaries in three bullet points.", "Dates as ISO."]
    for text in texts:
        assert invoke(runner, "remember", text).exit_code == 0
    before = git(memrepo, "rev-parse", "HEAD").strip()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "agentmem", "review", "--accept", "all"],
            cwd=memrepo,
            env={**os.environ, "AGENTMEM_LOCK_TIMEOUT": "300"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [proc.communicate() for proc in procs]
    accepted = sum(out.count("accepted p-") for out, _err in outputs)
    assert accepted == 3, outputs
    assert len(git(memrepo, "rev-list", f"{before}..HEAD").split()) == 3
    text = (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert [text.count(t) for t in texts] == [1, 1, 1]
    for (_out, err), proc in zip(outputs, procs, strict=True):
        assert proc.returncode == 0 or "no longer pending" in err
    assert git(memrepo, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_reject_names_the_proposals_another_review_decided_meanwhile(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentmem.proposals import inbox

    for text in ("Quote clause numbers first.", "Dates as ISO."):
        assert invoke(runner, "remember", text).exit_code == 0
    first, second = (p["id"] for p in json.loads(invoke(runner, "inbox", "-f", "json").stdout))
    real = inbox.split_pending

    def another_review_first(repo, proposals):  # type: ignore[no-untyped-def]
        (memrepo / "inbox" / "alice" / f"{first}.yaml").unlink()  # decided elsewhere
        git(memrepo, "commit", "-qam", "decided elsewhere")
        return real(repo, proposals)

    monkeypatch.setattr(inbox, "split_pending", another_review_first)
    result = invoke(runner, "review", "--reject", "all")
    assert result.exit_code == 0, result.stderr
    assert f"not rejected: {first} — decided meanwhile by another review" in result.stderr
    assert f"rejected {second} → " in result.stdout and first not in result.stdout


def _counting_git(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A `git` first on PATH that logs each call's subcommand, then runs the real git."""
    real = subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip()
    shim = tmp_path / "shim"
    shim.mkdir(parents=True)
    log = tmp_path / "git-calls.log"
    (shim / "git").write_text(
        f'#!/bin/sh\necho "$3" >> {log}\nexec {real} "$@"\n', encoding="utf-8"
    )
    (shim / "git").chmod(0o755)
    return log, {"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.slow
def test_accepting_proposals_starts_four_git_processes_whatever_their_number_and_the_repository_size(
    memrepo: Path, tmp_path: Path
) -> None:
    counts = []
    for extra in (0, 400):
        for n in range(extra):  # other files: the cost must not grow with them
            (memrepo / "other" / f"{len(counts)}-{n}.txt").parent.mkdir(exist_ok=True)
            (memrepo / "other" / f"{len(counts)}-{n}.txt").write_text(f"{n}\n", encoding="utf-8")
        if extra:
            git(memrepo, "add", "other")
            git(memrepo, "commit", "-qm", "other files")
        for text in ("Keep answers short.", "List the clauses first.", "Quote article numbers."):
            text = f"{text[:-1]} ({len(counts)})."
            result = subprocess.run([sys.executable, "-m", "agentmem", "remember", text], cwd=memrepo, capture_output=True, text=True)  # fmt: skip
            assert result.returncode == 0, result.stderr
        log, env = _counting_git(tmp_path / str(len(counts)))
        result = subprocess.run(
            [sys.executable, "-m", "agentmem", "review", "--accept", "all"],
            cwd=memrepo, capture_output=True, text=True, env={**os.environ, **env},
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        calls = log.read_text(encoding="utf-8").split()
        counts.append(calls)
    for calls in counts:
        per_commit = [c for c in calls if c not in ("config", "rev-parse", "log")]
        assert sorted(set(per_commit)) == ["fast-import", "show", "update-index", "var"]
        # three proposals, three commits, ONE series: one show (the memory's commit), one
        # var, one fast-import, one update-index
        assert len(per_commit) == 4
        assert "read-tree" not in calls and "reset" not in calls
    assert (
        git(memrepo, "rev-list", "--count", "--grep=Agentmem-Decision: accepted", "HEAD") == "6\n"
    )
    assert len(counts[0]) == len(counts[1])
    assert git(memrepo, "status", "--porcelain", "--", "memories", "inbox") == ""


def test_a_commit_whose_head_moved_meanwhile_is_refused_and_nothing_moves(memrepo: Path) -> None:
    from agentmem.errors import GitError
    from agentmem.store import gitio

    before = git(memrepo, "rev-parse", "HEAD").strip()
    (memrepo / "notes.txt").write_text("one\n", encoding="utf-8")
    git(memrepo, "add", "notes.txt")
    git(memrepo, "commit", "-qm", "someone else's commit")
    moved = git(memrepo, "rev-parse", "HEAD").strip()
    (memrepo / "memories" / "extra.md").write_text("# x\n", encoding="utf-8")
    with pytest.raises(GitError, match="HEAD moved"):
        gitio.commit_paths(memrepo, ["memories/extra.md"], "late", expected_head=before)
    assert git(memrepo, "rev-parse", "HEAD").strip() == moved


def test_head_is_read_from_packed_refs_and_commits_follow_git_var(memrepo: Path) -> None:
    from agentmem.store import gitio

    git(memrepo, "pack-refs", "--all")  # no loose ref file left: git is asked
    assert gitio.head(memrepo) == git(memrepo, "rev-parse", "HEAD").strip()
    (memrepo / "a b.txt").write_text("spaced\n", encoding="utf-8")
    new = gitio.commit_paths(memrepo, ["a b.txt"], "subject\n\nAgentmem-Action: add\n")
    assert gitio.head(memrepo) == new == git(memrepo, "rev-parse", "HEAD").strip()
    assert git(memrepo, "log", "-1", "--format=%an <%ae>|%B") == (
        "Alice Martin <alice@example.com>|subject\n\nAgentmem-Action: add\n\n"
    )
    assert git(memrepo, "show", "HEAD:a b.txt") == "spaced\n"
    assert git(memrepo, "status", "--porcelain", "--", "a b.txt") == ""
    (memrepo / "a b.txt").unlink()
    gitio.commit_paths(memrepo, ["a b.txt"], "gone")
    assert "a b.txt" not in git(memrepo, "ls-tree", "--name-only", "HEAD")
