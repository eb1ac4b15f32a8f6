"""The erasure record for the readers (docs/design/sync.md §Sync): what a served view, ``sync`` and
the server gate ask of it — the record as committed, a value erased in any spelling, a history
that holds a commit an erase rewrote."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import git

from agentmem.store import erasures


def _record(root: Path, values: list[str], commits: list[str]) -> erasures.Record:
    record = erasures.new_record()
    hashed = tuple(v for v in (record.value(t) for t in values) if v)
    record.erasures.append(erasures.Erasure("2026-12-02", "alice", "text", hashed, tuple(commits)))
    (root / erasures.ERASURES_FILE).write_text(erasures.render_record(record), encoding="utf-8")
    git(root, "add", erasures.ERASURES_FILE)
    git(root, "commit", "-qm", "erase: text")
    return record


def test_the_record_is_read_as_committed_and_matches_every_spelling(memrepo: Path) -> None:
    assert erasures.committed_record(memrepo) is None
    _record(memrepo, ["1 85 05 78 006 084 36", "Dave Chen"], [])
    (memrepo / erasures.ERASURES_FILE).write_text("not: [a record", encoding="utf-8")
    record = erasures.committed_record(memrepo)  # the work tree's edit is not authority
    assert record is not None
    assert erasures.holds_erased(record, "NIR 185057800608436 on file")
    assert erasures.holds_erased(record, "ask DAVE-CHEN first")
    assert not erasures.holds_erased(record, "ask Dave first")
    assert not erasures.holds_erased(None, "anything")


def test_a_history_holding_a_rewritten_commit_is_named(memrepo: Path) -> None:
    old = git(memrepo, "rev-parse", "HEAD").strip()
    gone = "0" * 39 + "1"  # listed, not in this clone
    record = _record(memrepo, [], [old, gone])
    assert erasures.erased_history(memrepo, record) == [old]
    assert erasures.erased_history(memrepo, erasures.committed_record(memrepo)) == [old]
    assert erasures.erased_history(memrepo, None) == []
