"""``agentmem sync`` with a real bare remote and two clones on local disk."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke, set_identity
from typer.testing import CliRunner

from agentmem.memory.records import strip_markers
from agentmem.sync.merge import MergeConflict, merge_file, merge_lines

SECTIONS = ("Writing style", "Priorities & scope", "Recurring patterns", "Rule dependencies")


@pytest.fixture
def clones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    """``(remote.git, a, b)``: a is alice's clone that created the repository, b bob's clone."""
    from agentmem.store.init import init_repository

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    a = tmp_path / "a"
    init_repository(a)
    roles = a / "roles.yaml"
    roles.write_text(
        roles.read_text(encoding="utf-8") + "bob:\n  email: bob@example.com\n  role: member\n",
        encoding="utf-8",
    )
    git(a, "commit", "-qm", "add bob", "--", "roles.yaml")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(remote), str(b))
    set_identity(b, "Bob Stone", "bob@example.com")
    return remote, a, b


def _in(monkeypatch: pytest.MonkeyPatch, where: Path) -> None:
    monkeypatch.chdir(where)


def _remember_and_accept(runner: CliRunner, text: str, section: str = "Writing style") -> None:
    assert invoke(runner, "remember", text, "--section", section).exit_code == 0
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 0, result.stderr


def _sync(runner: CliRunner, code: int = 0):
    result = invoke(runner, "sync")
    assert result.exit_code == code, result.stderr
    return result


def _show(root: Path, path: str, rev: str = "HEAD") -> str:
    """A file at ``rev``, memory record markers removed (they carry today's date)."""
    return strip_markers(git(root, "show", f"{rev}:{path}"))


@pytest.mark.slow
def test_two_clones_accept_different_proposals_and_the_remote_holds_both(
    clones: tuple[Path, Path, Path], runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote, a, b = clones
    _in(monkeypatch, a)
    _remember_and_accept(runner, "Alice likes short answers.")
    assert "pushed to origin/main" in _sync(runner).stdout
    _in(monkeypatch, b)
    _remember_and_accept(runner, "Bob wants the clause numbers quoted.")
    mine = git(b, "log", "--format=%s|%(trailers:key=Agentmem-Proposal,valueonly)|%an", "-2").split(
        "\n"
    )
    out = _sync(runner).stdout
    assert "pushed to origin/main" in out and "2 replayed onto theirs" in out
    assert "- Alice likes short answers.\n" in _show(remote, "memories/alice.md")
    assert "- Bob wants the clause numbers quoted.\n" in _show(remote, "memories/bob.md")
    # the replayed commits keep their subject, trailers and author
    assert (
        git(
            remote, "log", "--format=%s|%(trailers:key=Agentmem-Proposal,valueonly)|%an", "-2"
        ).split("\n")
        == mine
    )
    assert git(b, "rev-parse", "HEAD") == git(remote, "rev-parse", "main")
    assert git(b, "status", "--porcelain", "--untracked-files=all") == ""
    assert (b / "memories" / "alice.md").exists()
    _in(monkeypatch, a)
    assert "brought in 2 commit(s) from origin/main" in _sync(runner).stdout
    assert (a / "memories" / "bob.md").read_text(encoding="utf-8") == git(
        remote, "show", "HEAD:memories/bob.md"
    )
    assert "up to date with origin/main" in _sync(runner).stdout


def _as_alice(b: Path) -> None:
    set_identity(b, "Alice Martin", "alice@example.com")


def _modify(runner: CliRunner, tmp_path: Path, target: str, text: str) -> None:
    answer = tmp_path / "answer.json"
    answer.write_text(
        json.dumps(
            {
                "proposals": [
                    {
                        "action": "modify",
                        "basis": "declared",
                        "route": "memory",
                        "section": "Writing style",
                        "target": target,
                        "text": text,
                        "justification": "asked in the session",
                    }
                ]
            }
        ),
        encoding="utf-8",
    )
    session = tmp_path / "session.md"
    session.write_text("User: change it\nAssistant: ok\n", encoding="utf-8")
    result = invoke(runner, "harvest", str(session), "--proposals", str(answer))
    assert result.exit_code == 0, result.stderr
    result = invoke(runner, "review", "--accept", "all")
    assert result.exit_code == 0, result.stderr


@pytest.mark.slow
def test_the_same_entry_changed_on_both_sides_pauses_and_keeps_everything(
    clones: tuple[Path, Path, Path],
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    remote, a, b = clones
    _in(monkeypatch, a)
    _remember_and_accept(runner, "Keep a collaborative tone with suppliers.")
    _sync(runner)
    _as_alice(b)
    _in(monkeypatch, b)
    _sync(runner)
    _in(monkeypatch, a)
    _modify(
        runner, tmp_path, "collaborative tone", "Keep a warm, collaborative tone with suppliers."
    )
    _sync(runner)
    remote_head = git(remote, "rev-parse", "main")
    _in(monkeypatch, b)
    _modify(runner, tmp_path, "collaborative tone", "Keep a formal tone with suppliers.")
    local_head = git(b, "rev-parse", "HEAD")
    result = _sync(runner, code=1)
    assert (
        "sync paused: memories/alice.md: the same entry was changed on both sides" in result.stderr
    )
    assert "Your local commits are kept; nothing was pushed" in result.stderr
    assert "Traceback" not in result.stderr
    assert git(remote, "rev-parse", "main") == remote_head
    assert git(b, "rev-parse", "HEAD") == local_head
    assert "- Keep a formal tone with suppliers.\n" in strip_markers(
        (b / "memories" / "alice.md").read_text(encoding="utf-8")
    )
    assert git(b, "status", "--porcelain", "--untracked-files=all") == ""
    assert not (b / ".git" / "rebase-merge").exists()


@pytest.mark.slow
def test_entries_added_to_the_same_section_on_both_sides_are_both_kept(
    clones: tuple[Path, Path, Path], runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote, a, b = clones
    _as_alice(b)
    _in(monkeypatch, a)
    _remember_and_accept(runner, "From the laptop.")
    _sync(runner)
    _in(monkeypatch, b)
    _remember_and_accept(runner, "From the desktop.")  # b has never seen the file: both created it
    _sync(runner)
    text = _show(remote, "memories/alice.md")
    assert (
        "## Writing style\n- From the laptop.\n- From the desktop.\n\n## Priorities & scope\n"
        in text
    )
    assert text.count("# Memory: alice") == 1


@pytest.mark.slow
def test_a_rejected_push_is_retried(
    clones: tuple[Path, Path, Path],
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """A pre-push hook in b makes a third clone push first, once: b's push is rejected, b
    fetches again, replays and pushes."""
    remote, a, b = clones
    c = tmp_path / "c"
    git(tmp_path, "clone", "-q", str(remote), str(c))
    (c / "notes.txt").write_text("from c\n", encoding="utf-8")
    git(c, "add", "notes.txt")
    git(c, "commit", "-qm", "c's note")
    hook = b / ".git" / "hooks" / "pre-push"
    hook.write_text(
        f"#!{sys.executable}\nimport pathlib, subprocess\n"
        f"flag = pathlib.Path({str(tmp_path / 'raced')!r})\n"
        "if not flag.exists():\n    flag.touch()\n"
        f"    subprocess.run(['git', '-C', {str(c)!r}, 'push', '-q', 'origin', 'main'], check=True)\n",
        encoding="utf-8",
    )
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    _in(monkeypatch, b)
    _remember_and_accept(runner, "Bob wants the clause numbers quoted.")
    result = _sync(runner)
    assert "rejected 1 time(s) by a concurrent push; retried" in result.stderr
    assert _show(remote, "notes.txt") == "from c\n"
    assert "- Bob wants the clause numbers quoted.\n" in _show(remote, "memories/bob.md")
    assert git(remote, "rev-parse", "main") == git(b, "rev-parse", "HEAD")


@pytest.mark.slow
def test_local_changes_in_the_way_stop_the_sync_before_the_push(
    clones: tuple[Path, Path, Path], runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote, a, b = clones
    _in(monkeypatch, a)
    roles = a / "roles.yaml"
    roles.write_text(roles.read_text(encoding="utf-8") + "# edited on a\n", encoding="utf-8")
    git(a, "commit", "-qm", "roles comment", "--", "roles.yaml")
    _sync(runner)
    _in(monkeypatch, b)
    _remember_and_accept(runner, "Bob wants the clause numbers quoted.")
    (b / "roles.yaml").write_text(
        (b / "roles.yaml").read_text(encoding="utf-8") + "# mine\n", encoding="utf-8"
    )
    before = git(remote, "rev-parse", "main")
    result = _sync(runner, code=1)
    assert "your uncommitted changes are in the way" in result.stderr
    assert git(remote, "rev-parse", "main") == before
    assert (b / "roles.yaml").read_text(encoding="utf-8").endswith("# mine\n")


def test_no_remote_is_explained(memrepo: Path, runner: CliRunner) -> None:
    result = _sync(runner, code=1)
    assert (
        "no remote named 'origin'" in result.stderr and "git remote add origin URL" in result.stderr
    )


def test_first_sync_to_an_empty_remote_pushes(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    remote = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(memrepo, "remote", "add", "origin", str(remote))
    assert "pushed to origin/main" in _sync(runner).stdout
    assert git(remote, "rev-parse", "main") == git(memrepo, "rev-parse", "HEAD")


# -- the merge rules, pure --------------------------------------------------------------------
def _memory(*entries: tuple[str, str]) -> bytes:
    text = "# Memory: alice\n"
    for section in SECTIONS:
        text += f"\n## {section}\n" + "".join(f"- {e}\n" for s, e in entries if s == section)
    return text.encode()


def test_merge_keeps_a_modify_and_an_add_next_to_it() -> None:
    base = _memory(("Writing style", "a"))
    ours = _memory(("Writing style", "a2"))
    theirs = _memory(("Writing style", "a"), ("Writing style", "b"))
    assert merge_file("memories/alice.md", base, ours, theirs) == _memory(
        ("Writing style", "a2"), ("Writing style", "b")
    )


def test_merge_of_changes_in_different_sections() -> None:
    base = _memory(("Writing style", "a"), ("Recurring patterns", "r"))
    ours = _memory(("Recurring patterns", "r"))
    theirs = _memory(("Writing style", "a"), ("Recurring patterns", "r2"))
    assert merge_file("memories/alice.md", base, ours, theirs) == _memory(
        ("Recurring patterns", "r2")
    )


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [(("Writing style", "x"), ("Writing style", "y")), (None, ("Writing style", "y"))],
)
def test_the_same_entry_modified_or_removed_on_both_sides_conflicts(ours, theirs) -> None:
    base = _memory(("Writing style", "a"))
    with pytest.raises(MergeConflict, match="the same entry was changed on both sides"):
        merge_file("memories/alice.md", base, _memory(*(x for x in [ours] if x)), _memory(theirs))


def test_a_rule_changed_on_both_sides_conflicts_even_on_different_lines() -> None:
    base = b"id: r\ntitle: T\nversion: 1\n"
    with pytest.raises(MergeConflict, match="the same doctrine rule was changed on both sides"):
        merge_file(
            "doctrine/r.yaml",
            base,
            b"id: r\ntitle: T2\nversion: 2\n",
            b"id: r\ntitle: T\nversion: 2\nx: 1\n",
        )


def test_identical_changes_merge_silently() -> None:
    assert merge_lines(["a\n"], ["b\n"], ["b\n"], union_entries=False) == ["b\n"]
    assert merge_file("doctrine/r.yaml", b"v: 1\n", b"v: 2\n", b"v: 2\n") == b"v: 2\n"


# -- a burst of clones (docs/design/sync.md §Sync: back-off) -----------------------------------------
def test_the_back_off_grows_exponentially_with_full_jitter_up_to_its_cap() -> None:
    from agentmem.sync.replay import BACKOFF_BASE_S, BACKOFF_CAP_S, backoff

    assert [backoff(n, lambda: 1.0) for n in range(1, 8)] == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert backoff(3, lambda: 0.5) == 0.5
    assert backoff(40, lambda: 0.0) == 0.0
    assert (BACKOFF_BASE_S, BACKOFF_CAP_S) == (0.25, 8.0)


@pytest.mark.slow
def test_eight_clones_syncing_at_once_all_land_and_nothing_is_lost(
    tmp_path: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight members, one clone each, one entry each accepted locally; all eight run ``agentmem
    sync`` at the same moment in their own processes: every push lands (the rejected ones
    retried after a jittered back-off) and the remote holds all eight entries.
    ``benchmarks/bench_bounds.py --only sync`` does it with 16 and 32."""
    import os
    import subprocess

    from agentmem.store.init import init_repository

    count = 8
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    admin = tmp_path / "admin"
    init_repository(admin)
    roles = admin / "roles.yaml"
    roles.write_text(
        roles.read_text(encoding="utf-8")
        + "".join(f"p{n}:\n  email: p{n}@example.com\n  role: member\n" for n in range(count)),
        encoding="utf-8",
    )
    git(admin, "commit", "-qm", "the team", "--", "roles.yaml")
    git(admin, "remote", "add", "origin", str(remote))
    git(admin, "push", "-q", "-u", "origin", "main")
    made = []
    for n in range(count):
        clone = tmp_path / f"clone{n}"
        git(tmp_path, "clone", "-q", str(remote), str(clone))
        set_identity(clone, f"Person {n}", f"p{n}@example.com")
        _in(monkeypatch, clone)
        _remember_and_accept(runner, f"Person {n} wants the figures of table {n} checked twice.")
        made.append(clone)
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "agentmem", "sync"],
            cwd=clone,
            env=dict(os.environ),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for clone in made
    ]
    done = [proc.communicate(timeout=300) + (proc.returncode,) for proc in procs]
    assert [code for _, _, code in done] == [0] * count, [err for _, err, _ in done]
    assert all("pushed to origin/main" in out for out, _, _ in done)
    assert sum("the push was rejected" in err for _, err, _ in done) >= 1
    for n in range(count):
        assert f"- Person {n} wants the figures of table {n} checked twice." in _show(
            remote, f"memories/p{n}.md"
        )
    authors = git(remote, "log", "--format=%ae", "main").split()
    assert {f"p{n}@example.com" for n in range(count)} <= set(authors)
