"""``agentmem sync`` checks what it would publish (docs/design/memory.md §Memory file, §Trailers): a
replayed approval whose author was demoted meanwhile, a local commit the history check refuses, two
entries merged over the memory budget. Real bare remote and clones on local disk."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest
from tests.helpers import git, invoke, set_identity
from typer.testing import CliRunner

from agentmem.memory.records import strip_markers

RULE = "net-60"


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path]:
    """``(remote.git, a)``: alice's clone a created the repository; alice and dan are admins,
    bob is a member. cwd is not changed."""
    from agentmem.store.init import init_repository

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    a = tmp_path / "a"
    init_repository(a)
    roles = a / "roles.yaml"
    roles.write_text(
        roles.read_text(encoding="utf-8")
        + "bob:\n  email: bob@example.com\n  role: member\n"
        + "dan:\n  email: dan@example.com\n  role: admin\n",
        encoding="utf-8",
    )
    config = a / "agentmem.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("budget_chars: 8000", "budget_chars: 300"),
        encoding="utf-8",
    )
    git(a, "commit", "-qm", "team and budget", "--", "roles.yaml", "agentmem.yaml")
    git(a, "remote", "add", "origin", str(remote))
    git(a, "push", "-q", "-u", "origin", "main")
    return remote, a


def _clone(tmp_path: Path, remote: Path, name: str, who: str, email: str) -> Path:
    where = tmp_path / name
    git(tmp_path, "clone", "-q", str(remote), str(where))
    set_identity(where, who, email)
    return where


def _ok(runner: CliRunner, *args: str):
    result = invoke(runner, *args)
    assert result.exit_code == 0, result.stdout + result.stderr
    return result


def _accept(runner: CliRunner, text: str) -> None:
    _ok(runner, "remember", text, "--section", "Writing style")
    _ok(runner, "review", "--accept", "all")


def _snapshot(root: Path) -> tuple[str, str, str, dict[str, bytes]]:
    """HEAD, the index, ``git status`` and every file's bytes (outside ``.git`` and the lock
    folder ``.agentmem/``)."""
    files = {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not {".git", ".agentmem"} & set(p.relative_to(root).parts)
    }
    return (
        git(root, "rev-parse", "HEAD"),
        git(root, "ls-files", "-s"),
        git(root, "status", "--porcelain", "--untracked-files=all"),
        files,
    )


def _no_worktree_left(root: Path) -> None:
    assert git(root, "worktree", "list", "--porcelain").count("worktree ") == 1
    assert not (root / ".git" / "worktrees").exists() or not any(
        (root / ".git" / "worktrees").iterdir()
    )


def _demote_dan(runner: CliRunner, a: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(a)
    _ok(runner, "sync")
    roles = a / "roles.yaml"
    roles.write_text(
        roles.read_text(encoding="utf-8").replace(
            "dan@example.com\n  role: admin", "dan@example.com\n  role: member"
        ),
        encoding="utf-8",
    )
    git(a, "commit", "-qm", "dan is a member now", "--", "roles.yaml")
    assert "pushed to origin/main" in _ok(runner, "sync").stdout


@pytest.mark.slow
def test_an_approval_replayed_after_the_approver_was_demoted_is_refused(
    team: tuple[Path, Path],
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    remote, a = team
    b = _clone(tmp_path, remote, "b", "Bob Stone", "bob@example.com")
    monkeypatch.chdir(b)
    _ok(runner, "doctrine", "propose", "--id", RULE, "--title", "Sixty-day payment terms",
        "--instruction", "Accept payment terms up to 60 days.", "--limit", "Not for new suppliers.",
        "--scope", "contracts/supply")  # fmt: skip
    _ok(runner, "sync")
    d = _clone(tmp_path, remote, "d", "Dan Reed", "dan@example.com")
    monkeypatch.chdir(d)
    _ok(runner, "doctrine", "approve", RULE, "--version", "1")
    approval = git(d, "rev-parse", "HEAD").strip()
    _accept(runner, "Dan reads the annex first.")  # a later local commit, still allowed
    _demote_dan(runner, a, monkeypatch)
    remote_head = git(remote, "rev-parse", "main")
    monkeypatch.chdir(d)
    before = _snapshot(d)

    result = invoke(runner, "sync")

    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.stdout == ""
    err = result.stderr
    assert "sync refused: on top of origin/main, your commits would fail the team's check" in err
    assert "nothing was pushed and this branch is as it was" in err
    assert (
        f"doctrine/{RULE}.yaml:1: commit {approval[:10]} by Dan Reed <dan@example.com> sets rule "
        f"'{RULE}' to active, but dan was member in roles.yaml at the parent commit (admin "
        "required) [history-not-admin]" in " ".join(err.split())
    )
    hint = " ".join(err.split())
    assert f"commit {approval[:10]} is not allowed there" in hint
    assert f"git rebase --onto {approval[:10]}^ {approval[:10]}" in hint
    assert "an admin for doctrine and roles, can redo it" in hint
    assert hint.endswith("then run agentmem sync again")
    assert "Traceback" not in err
    assert git(remote, "rev-parse", "main") == remote_head
    assert _snapshot(d) == before
    _no_worktree_left(d)
    assert git(d, "rev-parse", "origin/main") == remote_head  # the fetch itself is kept

    # the hint works: drop the approval, keep the memory entry, sync
    git(d, "rebase", "-q", "--onto", f"{approval[:10]}^", approval[:10])
    assert "pushed to origin/main" in _ok(runner, "sync").stdout
    assert "status: draft" in git(remote, "show", f"main:doctrine/{RULE}.yaml")
    assert "- Dan reads the annex first.\n" in strip_markers(
        git(remote, "show", "main:memories/dan.md")
    )
    monkeypatch.chdir(a)
    _ok(runner, "sync")
    assert _ok(runner, "check", "--history").exit_code == 0


@pytest.mark.slow
def test_a_demotion_pushed_during_the_sync_refuses_the_retry_and_the_branch_is_untouched(
    team: tuple[Path, Path],
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """dan's first push (a fast-forward, allowed) loses a race to alice's demotion, pushed by a
    pre-push hook: the retry replays the approval onto the demotion and is refused; the local
    branch never moved."""
    remote, a = team
    b = _clone(tmp_path, remote, "b", "Bob Stone", "bob@example.com")
    monkeypatch.chdir(b)
    _ok(runner, "doctrine", "propose", "--id", RULE, "--title", "Sixty-day payment terms",
        "--instruction", "Accept payment terms up to 60 days.", "--limit", "Not for new suppliers.",
        "--scope", "contracts/supply")  # fmt: skip
    _ok(runner, "sync")
    d = _clone(tmp_path, remote, "d", "Dan Reed", "dan@example.com")
    monkeypatch.chdir(d)
    _ok(runner, "doctrine", "approve", RULE, "--version", "1")
    approval = git(d, "rev-parse", "HEAD").strip()
    monkeypatch.chdir(a)
    _ok(runner, "sync")
    roles = a / "roles.yaml"
    roles.write_text(
        roles.read_text(encoding="utf-8").replace(
            "dan@example.com\n  role: admin", "dan@example.com\n  role: member"
        ),
        encoding="utf-8",
    )
    git(a, "commit", "-qm", "dan is a member now", "--", "roles.yaml")
    hook = d / ".git" / "hooks" / "pre-push"
    hook.write_text(
        f"#!{sys.executable}\nimport pathlib, subprocess\n"
        f"flag = pathlib.Path({str(tmp_path / 'raced')!r})\n"
        "if not flag.exists():\n    flag.touch()\n"
        f"    subprocess.run(['git', '-C', {str(a)!r}, 'push', '-q', 'origin', 'main'], check=True)\n",
        encoding="utf-8",
    )
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    monkeypatch.chdir(d)
    before = _snapshot(d)

    result = invoke(runner, "sync")

    assert (tmp_path / "raced").exists()
    assert result.exit_code == 1
    err = " ".join(result.stderr.split())
    assert f"commit {approval[:10]} by Dan Reed" in err and "[history-not-admin]" in err
    assert git(remote, "rev-parse", "main") == git(a, "rev-parse", "HEAD")
    assert _snapshot(d) == before
    _no_worktree_left(d)


def test_a_local_commit_the_history_check_refuses_is_not_pushed_even_without_a_replay(
    team: tuple[Path, Path],
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Fast-forward: bob (member) makes himself admin with a plain git commit."""
    remote, _a = team
    b = _clone(tmp_path, remote, "b", "Bob Stone", "bob@example.com")
    monkeypatch.chdir(b)
    roles = b / "roles.yaml"
    roles.write_text(
        roles.read_text(encoding="utf-8").replace(
            "bob@example.com\n  role: member", "bob@example.com\n  role: admin"
        ),
        encoding="utf-8",
    )
    git(b, "commit", "-qm", "promote myself", "--", "roles.yaml")
    mine = git(b, "rev-parse", "HEAD").strip()
    remote_head = git(remote, "rev-parse", "main")
    before = _snapshot(b)

    result = invoke(runner, "sync")

    assert result.exit_code == 1
    err = " ".join(result.stderr.split())
    assert (
        f"roles.yaml:1: commit {mine[:10]} by Bob Stone <bob@example.com> changes roles.yaml, "
        "but bob was member in roles.yaml at the parent commit (admin required) "
        "[history-not-admin]" in err
    )
    assert f"git rebase --onto {mine[:10]}^ {mine[:10]}" in err
    assert git(remote, "rev-parse", "main") == remote_head
    assert _snapshot(b) == before
    _no_worktree_left(b)


def _entry(tag: str, size: int) -> str:
    text = f"{tag}: keep the supplier letters short and quote the clause numbers"
    return (text + " and the annex" * 20)[:size].rstrip() + "."


def _two_clones_accept(
    team: tuple[Path, Path],
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    size: int,
) -> tuple[Path, Path, Path]:
    """alice accepts one entry in clone a and pushes, another in clone a2 (not synced yet)."""
    remote, a = team
    a2 = _clone(tmp_path, remote, "a2", "Alice Martin", "alice@example.com")
    monkeypatch.chdir(a)
    _accept(runner, _entry("Laptop", size))
    _ok(runner, "sync")
    monkeypatch.chdir(a2)
    _accept(runner, _entry("Desktop", size))
    return remote, a, a2


@pytest.mark.slow
def test_entries_merged_over_the_memory_budget_are_refused(
    team: tuple[Path, Path],
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    remote, _a, a2 = _two_clones_accept(team, runner, monkeypatch, tmp_path, 120)
    for clone in (remote, a2):  # each clone alone is under the budget
        size = len(strip_markers(git(clone, "show", "main:memories/alice.md")))
        assert 200 < size < 240
    remote_head = git(remote, "rev-parse", "main")
    mine = next(ln for ln in (a2 / "memories" / "alice.md").open() if ln.startswith("- Desktop"))
    merged = len(strip_markers(git(remote, "show", "main:memories/alice.md"))) + len(
        strip_markers(mine)
    )
    assert merged > 300
    before = _snapshot(a2)

    result = invoke(runner, "sync")

    assert result.exit_code == 1
    err = " ".join(result.stderr.split())
    assert (
        f"memories/alice.md:1: {merged}/300 characters: remove or merge entries first "
        "[memory-budget]" in err
    )
    assert (
        f"hint: remove or merge entries of memories/alice.md (at least {merged - 300} "
        "characters) with agentmem memory edit; then run agentmem sync again" in err
    )
    assert "git rebase" not in err
    assert git(remote, "rev-parse", "main") == remote_head
    assert _snapshot(a2) == before
    _no_worktree_left(a2)

    # the hint works: shorten this clone's entry, then sync
    fixer = tmp_path / "shorten.py"
    fixer.write_text(
        "import pathlib, sys\np = pathlib.Path(sys.argv[1])\nlines = p.read_text().splitlines(True)\n"
        "p.write_text(''.join(ln if not ln.startswith('- Desktop') else '- Desktop: be brief.\\n' "
        "for ln in lines))\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("EDITOR", f"{sys.executable} {fixer}")
    _ok(runner, "memory", "edit")
    assert "pushed to origin/main" in _ok(runner, "sync").stdout
    merged = strip_markers(git(remote, "show", "main:memories/alice.md"))
    assert "- Desktop: be brief.\n" in merged and "- Laptop: keep" in merged
    assert len(merged) <= 300


@pytest.mark.slow
def test_a_merged_memory_file_near_its_budget_warns_and_is_pushed(
    team: tuple[Path, Path],
    runner: CliRunner,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    remote, _a, a2 = _two_clones_accept(team, runner, monkeypatch, tmp_path, 75)

    result = invoke(runner, "sync")

    assert result.exit_code == 0, result.stderr
    assert "pushed to origin/main" in result.stdout
    warnings = [ln for ln in result.stderr.splitlines() if ln.startswith("warning:")]
    assert len(warnings) == 1
    assert "memories/alice.md:1: " in warnings[0] and "[memory-budget]" in warnings[0]
    assert git(remote, "rev-parse", "main") == git(a2, "rev-parse", "HEAD")
    _no_worktree_left(a2)


def test_the_first_push_to_an_empty_remote_checks_every_commit_and_memory_file(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    """No remote head: every commit and every memory file is checked; one line per error and
    both hints (drop the commit, trim the file)."""
    config = memrepo / "agentmem.yaml"
    config.write_text(
        config.read_text(encoding="utf-8").replace("budget_chars: 8000", "budget_chars: 300"),
        encoding="utf-8",
    )
    git(memrepo, "commit", "-qm", "small budget", "--", "agentmem.yaml")
    _accept(runner, "Short sentences.")
    memory = memrepo / "memories" / "alice.md"
    memory.write_text(
        memory.read_text(encoding="utf-8").replace(
            "\n\n## Priorities", f"\n- {'x' * 200}.\n\n## Priorities"
        ),
        encoding="utf-8",
    )
    git(memrepo, "commit", "-qm", "by hand", "--", "memories/alice.md")
    by_hand = git(memrepo, "rev-parse", "HEAD").strip()[:10]
    remote = tmp_path / "empty.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(memrepo, "remote", "add", "origin", str(remote))
    before = _snapshot(memrepo)

    result = invoke(runner, "sync")

    assert result.exit_code == 1
    lines = [ln.strip() for ln in result.stderr.splitlines()]
    found = [ln for ln in lines if ln.startswith(("memories/", "doctrine/", "roles.yaml"))]
    assert found[0].startswith(f"memories/alice.md:1: commit {by_hand} by Alice Martin")
    assert found[0].endswith("[history-trailers]")
    assert found[1].startswith("memories/alice.md:1: ") and found[1].endswith("[memory-budget]")
    assert len(found) == 2
    err = " ".join(result.stderr.split())
    assert f"git rebase --onto {by_hand}^ {by_hand}" in err
    assert "remove or merge entries of memories/alice.md (at least" in err
    assert git(remote, "for-each-ref") == ""
    assert _snapshot(memrepo) == before
