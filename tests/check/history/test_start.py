"""Where the judge's walk starts, and whether an earlier ``agentmem.yaml`` was stricter
(``check/history/start.py``, docs/design/served.md §Served view)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.helpers import git, invoke, set_identity
from tests.helpers.context import add_person
from tests.helpers.memory import seed_memory
from tests.helpers.team import commit_as
from typer.testing import CliRunner

from agentmem.check.findings import ERROR, Finding
from agentmem.check.history import start, walk
from agentmem.store import gitrun

REQUIRED = "signing:\n  decisions: required\n"


def _relaxed(root: Path) -> tuple[bytes, bytes]:
    """``signing.decisions: required`` committed, then dropped: (strict text, lenient text)."""
    config = root / "agentmem.yaml"
    lenient = config.read_bytes()
    config.write_text(lenient.decode("utf-8") + REQUIRED, encoding="utf-8")
    git(root, "commit", "-qam", "settings: decisions are signed")
    strict = config.read_bytes()
    config.write_bytes(lenient)
    git(root, "commit", "-qam", "settings: no more signatures")
    return strict, lenient


def _relaxed_by_hand(root: Path) -> str:
    """alice drops ``signing.decisions: required`` with plain git; the commit."""
    config = root / "agentmem.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace(REQUIRED, ""), encoding="utf-8")
    git(root, "commit", "-qam", "settings: no more signatures")
    return git(root, "rev-parse", "HEAD").strip()


def _processes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    run = gitrun.run

    def counted(*args: object, **kwargs: object) -> object:
        seen.append(str(args[1][0]))  # type: ignore[index]
        return run(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(gitrun, "run", counted)
    return seen


def test_a_version_already_read_is_not_read_again(
    memrepo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    strict, lenient = _relaxed(memrepo)
    names = ["signing.decisions", "doctrine.require_signed"]
    assert start.stricter(memrepo, ["HEAD"], names) == ["signing.decisions"]
    seen = _processes(monkeypatch)
    assert start.stricter(memrepo, ["HEAD"], names, [lenient, strict]) == ["signing.decisions"]
    assert seen == ["log"]  # every version known: no cat-file
    seen.clear()
    assert start.stricter(memrepo, ["HEAD"], names, [lenient]) == ["signing.decisions"]
    assert seen == ["log", "cat-file"]  # the strict version read from git


def test_a_known_text_that_is_no_version_changes_nothing(memrepo: Path) -> None:
    """What is known only spares reading a version whose blob id it hashes to: a text that
    is none of them is not taken for the strict version it is not."""
    _strict, lenient = _relaxed(memrepo)
    other = lenient + b"# not a version\n"
    assert start.stricter(memrepo, ["HEAD"], ["signing.decisions"], [other, lenient]) == [
        "signing.decisions"
    ]
    git(memrepo, "commit", "-q", "--allow-empty", "-m", "nothing")
    assert start.stricter(memrepo, ["HEAD~3"], ["signing.decisions"], [lenient]) == []


def test_the_root_commits_version_counts_whatever_log_show_root_says(tmp_path: Path) -> None:
    """A version of ``agentmem.yaml`` that only the root commit made (never changed since) is
    in the history too: ``git log`` shows no change for a root commit under ``log.showRoot =
    false`` unless asked (``--root``), and the served view takes "no strict version" to mean
    no signature is required (``served._never_strict``)."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "log.showRoot", "false")
    (root / "agentmem.yaml").write_text(REQUIRED, encoding="utf-8")
    git(root, "add", "agentmem.yaml")
    git(root, "commit", "-qm", "settings: decisions are signed")
    git(root, "commit", "-q", "--allow-empty", "-m", "nothing")
    names = ["signing.decisions", "doctrine.require_signed"]
    assert start.stricter(root, ["HEAD"], names) == ["signing.decisions"]
    assert start.stricter(root, ["HEAD"], names, [REQUIRED.encode()]) == ["signing.decisions"]


def _findings(found: list[Finding]) -> set[tuple[str, str | None]]:
    return {(f.code, f.commit) for f in found if f.severity == ERROR}


def test_one_walk_judges_each_commit_as_a_walk_of_its_own_would(
    memrepo: Path, runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice relaxes ``signing.decisions`` alone and accepts a line unsigned (refused: the
    judge holds the relaxation); bob approves the relaxation; then three more changes of her
    file, one of them bob's with plain git. A walk from the root to the newest says nothing
    against the first accept — the approval after it reaches back — while a walk to it
    refuses it. ``judge_each`` gives what each commit's own walk gives, in two walks, each
    from the commit before the relaxation: the newest's, which judges the three changes above
    the approval, and the first accept's."""
    add_person(memrepo, "bob", "bob@example.com", "admin")
    config = memrepo / "agentmem.yaml"
    config.write_text(config.read_text(encoding="utf-8") + REQUIRED, encoding="utf-8")
    git(memrepo, "commit", "-qam", "settings: decisions are signed")
    relax = _relaxed_by_hand(memrepo)
    seed_memory(runner, ["Answer in French."])
    first = git(memrepo, "rev-parse", "HEAD").strip()
    set_identity(memrepo, "Bob", "bob@example.com")
    assert invoke(runner, "settings", "approve", relax).exit_code == 0
    set_identity(memrepo, "Alice", "alice@example.com")
    seed_memory(runner, ["Cite the clause number."])
    path = memrepo / "memories" / "alice.md"
    path.write_text(path.read_text(encoding="utf-8") + "- A line bob adds.\n", encoding="utf-8")
    bobs = commit_as(memrepo, "bob", "a helpful line", "memories/alice.md")
    seed_memory(runner, ["Quote the page."])
    log = git(memrepo, "log", "--first-parent", "--format=%H %P", "--", "memories/alice.md")
    commits = [(ids[0], tuple(ids[1:])) for ids in map(str.split, log.splitlines())]
    assert len(commits) == 4 and commits[-1][0] == first
    own = {  # each commit's own walk, from the root
        c: _findings([f for f in walk.check_history(memrepo, tip=c).findings if f.commit == c])
        for c, _p in commits
    }
    assert own[first] == {("history-decision-unsigned", first)}
    assert [c for c in own if own[c]] == [bobs, first]
    newest = walk.check_history(memrepo, tip=commits[0][0]).findings
    assert ("history-decision-unsigned", first) not in _findings(newest)  # reached back
    walks: list[tuple[str | None, str]] = []
    judge = walk.check_history

    def counted(*args: Any, **kwargs: Any) -> Any:
        walks.append((kwargs["since"], kwargs["tip"]))
        return judge(*args, **kwargs)

    monkeypatch.setattr(walk, "check_history", counted)
    each = start.judge_each(memrepo, commits)
    assert {c: _findings(found) for c, found in each.items()} == own
    signed = git(memrepo, "rev-parse", f"{relax}^").strip()  # where decisions were signed
    assert walks == [(signed, commits[0][0]), (signed, first)]  # from there, not the root


@pytest.mark.parametrize("steps", [8, 1], ids=["two versions back", "past the steps: the root"])
def test_a_walk_starts_before_the_relaxation_held_under_a_later_version(
    memrepo: Path, monkeypatch: pytest.MonkeyPatch, steps: int
) -> None:
    """alice drops ``signing.decisions: required`` alone, edits ``agentmem.yaml`` again (a
    comment: no relaxation), then accepts a line unsigned. The version at the accept's parent
    was made by the edit, after the relaxation: the walk starts two versions back, at the
    commit where decisions were required, and holds the relaxation (the accept refused, as a
    walk from the root refuses it); with fewer steps allowed, at the root."""
    monkeypatch.setattr(start, "NEAREST_STEPS", steps)
    config = memrepo / "agentmem.yaml"
    config.write_text(config.read_text(encoding="utf-8") + REQUIRED, encoding="utf-8")
    git(memrepo, "commit", "-qam", "settings: decisions are signed")
    signed = git(memrepo, "rev-parse", "HEAD").strip()
    _relaxed_by_hand(memrepo)
    config.write_text(config.read_text(encoding="utf-8") + "# reviewed\n", encoding="utf-8")
    git(memrepo, "commit", "-qam", "settings: a note")
    seed_memory(CliRunner(), ["Answer in French."])
    accept, parent = git(memrepo, "rev-parse", "HEAD", "HEAD^").split()
    assert start.walk_start(memrepo, parent, accept) is None
    assert start.nearest_start(memrepo, parent, accept) == (signed if steps > 1 else None)
    found = start.judge_range(memrepo, parent, accept).findings
    assert _findings(found) == {("history-decision-unsigned", accept)}
    whole = walk.check_history(memrepo).findings
    assert ("history-decision-unsigned", accept) in _findings(whole)
