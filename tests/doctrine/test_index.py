"""The rule index (docs/design/search.md §Rule index), the bounded usage line and its rotation
(docs/design/context.md §Context), and the duplicate guard from stored forms
(docs/design/doctrine.md §Rule file): same answers as the rules read from their files, only what
changed read again."""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

import pytest
from tests.helpers import git, invoke
from tests.helpers.context import commit_decisions, rule_text, write_rules
from typer.testing import CliRunner

from agentmem.delivery.usage import (
    ROTATED_FILE,
    USAGE_FILE,
    RuleUsage,
    UsageRecord,
    append_usage,
    read_usage,
)
from agentmem.doctrine import index as rule_index
from agentmem.doctrine.drafts import similar_in_index
from agentmem.doctrine.model import LIVE_STATUSES, DoctrineError, Rule, scopes_overlap
from agentmem.doctrine.parse import load_rules
from agentmem.doctrine.render import canonical_text
from agentmem.doctrine.similar import Similar, find_similar, similarity
from agentmem.store import gitrun


@pytest.fixture
def stored(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files just written count as settled (the racy window is for real clocks)."""
    monkeypatch.setattr(rule_index, "RACY_NS", -(10**12))


def _write(root: Path, rule_id: str, status: str, scope: str | None, text: str) -> None:
    (root / "doctrine" / f"{rule_id}.yaml").write_text(
        rule_text(rule_id, status, scope, text, "Not for public bodies.", None), encoding="utf-8"
    )


def _rows(root: Path) -> dict[str, list[object]]:
    """The stored briefs by file name (the index's last line)."""
    lines = (root / rule_index.INDEX_FILE).read_bytes().split(b"\n")
    assert len(lines) == 4  # format and checksum, keys, groups by scope, briefs
    rows: dict[str, list[object]] = json.loads(lines[3])
    assert sorted(json.loads(lines[1])) == sorted(rows)
    return rows


# -- the index ---------------------------------------------------------------------------------


def test_reading_many_rule_files_says_its_progress_on_stderr(
    memrepo: Path, runner: CliRunner, stored: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From ``PROGRESS_FROM`` rule files to read (100,000 in a big doctrine), the first audit
    or check says how far it is, every tenth, on stderr; an index that holds them says
    nothing."""
    monkeypatch.setattr(rule_index, "PROGRESS_FROM", 4)
    for n in range(40):
        _write(memrepo, f"rule-{n}", "draft", "contracts", f"Check clause {n} of annex {n * 3}.")
    commit_decisions(memrepo)
    first = invoke(runner, "context", "audit", "--scope", "contracts")
    assert first.exit_code == 0, first.stderr
    said = [ln for ln in first.stderr.splitlines() if "rule files" in ln]
    assert said[0] == "reading 40 served rule files (40 not in the rule index)…"
    assert said[1:] == [f"read {n} of about 40 rule files" for n in range(4, 41, 4)]
    again = invoke(runner, "context", "audit", "--scope", "contracts")
    assert "rule files" not in again.stderr
    # check, over as many files in its workers, says so too
    from agentmem.check import files

    monkeypatch.setattr(files, "PROGRESS_FROM_FILES", 4)
    monkeypatch.setattr(files, "PARALLEL_FROM_FILES", 4)
    monkeypatch.setenv("AGENTMEM_CHECK_JOBS", "2")
    checked = invoke(runner, "check")
    lines = [ln for ln in checked.stderr.splitlines() if ln.startswith(("checking ", "checked "))]
    assert lines[0] == "checking 40 files…" and lines[-1] == "checked 40 of 40 files"
    assert len(lines) == 1 + 2 * 4  # one line a chunk (two workers, four chunks each)


def test_the_index_reads_again_only_the_files_that_changed(memrepo: Path, stored: None) -> None:
    for n in range(5):
        _write(memrepo, f"rule-{n}", "draft", "contracts", f"Check clause {n}.")
    first = rule_index.read_briefs(memrepo)
    assert sorted(first.parsed) == [f"rule-{n}" for n in range(5)]
    assert sorted(_rows(memrepo)) == [f"rule-{n}.yaml" for n in range(5)]
    again = rule_index.read_briefs(memrepo)
    assert again.parsed == {} and again.briefs == first.briefs
    # a rule edited (a longer scope: another size, another ctime) is read again, alone
    _write(memrepo, "rule-2", "draft", "contracts/supply/food", "Check clause 2.")
    edited = rule_index.read_briefs(memrepo)
    assert list(edited.parsed) == ["rule-2"]
    assert [b.scope for b in edited.briefs if b.id == "rule-2"] == ["contracts/supply/food"]
    assert rule_index.read_briefs(memrepo).parsed == {}
    # a rule removed leaves the index; a new one enters it
    (memrepo / "doctrine" / "rule-4.yaml").unlink()
    _write(memrepo, "rule-9", "active", "hr", "Check clause 9.")
    moved = rule_index.read_briefs(memrepo)
    assert list(moved.parsed) == ["rule-9"]
    assert [b.id for b in moved.briefs] == ["rule-0", "rule-1", "rule-2", "rule-3", "rule-9"]
    assert sorted(_rows(memrepo)) == [f"rule-{n}.yaml" for n in (0, 1, 2, 3, 9)]


def test_an_unchanged_index_is_taken_whole_as_row_by_row(
    memrepo: Path, stored: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When every file's key is the stored one, the briefs come from the index in one piece:
    the same briefs, errors and parsed rules as the row-by-row reading; any change declines."""
    for n in (3, 1, 4, 0, 2):
        _write(memrepo, f"rule-{n}", "draft", "contracts", f"Check clause {n}.")
    built = rule_index.read_briefs(memrepo)
    index = memrepo / rule_index.INDEX_FILE
    whole = rule_index._unchanged(memrepo, index)
    assert whole is not None and whole == built.briefs
    fast = rule_index.read_briefs(memrepo)
    with monkeypatch.context() as patched:
        patched.setattr(rule_index, "_unchanged", lambda _root, _path: None)
        slow = rule_index.read_briefs(memrepo)
    assert (fast.briefs, fast.errors, fast.parsed) == (slow.briefs, slow.errors, slow.parsed)
    _write(memrepo, "rule-2", "draft", "contracts/supply", "Check clause 2.")
    assert rule_index._unchanged(memrepo, index) is None
    rule_index.read_briefs(memrepo)
    assert rule_index._unchanged(memrepo, index) is not None
    (memrepo / "doctrine" / "rule-9.yaml").symlink_to(memrepo / "doctrine" / "rule-1.yaml")
    assert rule_index._unchanged(memrepo, index) is None
    assert rule_index.read_briefs(memrepo).errors  # the link is named, as before


def test_a_file_changed_within_the_racy_window_is_not_stored(memrepo: Path) -> None:
    _write(memrepo, "fresh", "draft", "contracts", "Check clause 1.")
    _write(memrepo, "other", "draft", "contracts", "Check clause 2.")
    briefs = rule_index.read_briefs(memrepo)
    assert [b.id for b in briefs.briefs] == ["fresh", "other"]
    # ctime cannot be set back: with the real window both are too recent to be stored (a second
    # change within the same clock tick could keep their key), so both are read again
    assert not (memrepo / rule_index.INDEX_FILE).exists()
    assert sorted(rule_index.read_briefs(memrepo).parsed) == ["fresh", "other"]


def test_a_damaged_or_foreign_index_is_rebuilt(memrepo: Path, stored: None) -> None:
    _write(memrepo, "rule-a", "draft", "contracts", "Check clause 1.")
    good = rule_index.read_briefs(memrepo).briefs
    path = memrepo / rule_index.INDEX_FILE
    for damage in (b"not json", b'{"format": 99}\n{}', path.read_bytes().replace(b"rule-a", b"x")):
        path.write_bytes(damage)
        again = rule_index.read_briefs(memrepo)
        assert again.briefs == good and list(again.parsed) == ["rule-a"]
    assert rule_index.purge(memrepo) == [rule_index.INDEX_FILE] and not path.exists()


def test_an_index_of_the_previous_format_is_rebuilt_never_misread(
    memrepo: Path, stored: None
) -> None:
    """An index written by the previous format (one checksum over keys, groups of
    ``[id, status, approved]`` and rows) is refused whole: every file is parsed again, the
    audit's groups come from the files, and the index is written anew in the current format."""
    _write(memrepo, "rule-a", "draft", "contracts", "Check clause 1.")
    _write(memrepo, "rule-b", "active", "hr", "Check clause 2.")
    good = rule_index.read_briefs(memrepo).briefs
    path = memrepo / rule_index.INDEX_FILE
    _head, keys, _groups, rows = path.read_bytes().split(b"\n")
    old_groups = json.dumps(
        {"contracts": [["rule-a", "draft", False]], "hr": [["rule-b", "active", True]]}
    ).encode()
    body = b"\n".join([keys, old_groups, rows])
    head = json.dumps({"format": 3, "sha256": hashlib.sha256(body).hexdigest()}).encode()
    path.write_bytes(head + b"\n" + body)
    groups, errors, parsed = rule_index.scope_groups(memrepo)
    assert errors == [] and sorted(parsed) == ["rule-a", "rule-b"]
    assert groups == {
        "contracts": ([["draft", False, 1]], ["rule-a"]),
        "hr": ([["active", True, 1]], ["rule-b"]),
    }
    assert json.loads(path.read_bytes().split(b"\n")[0])["format"] == rule_index.FORMAT
    path.write_bytes(head + b"\n" + body)
    again = rule_index.read_briefs(memrepo)
    assert again.briefs == good and sorted(again.parsed) == ["rule-a", "rule-b"]
    # damage to the rows line alone is caught by its own checksum (the audit does not read it)
    path.write_bytes(path.read_bytes().replace(b"Title of rule-b", b"Title of rule-x"))
    assert rule_index.scope_groups(memrepo)[2] == {}  # keys and groups still good
    damaged = rule_index.read_briefs(memrepo)
    assert damaged.briefs == good and sorted(damaged.parsed) == ["rule-a", "rule-b"]


def test_a_broken_rule_fails_as_the_strict_reader_does(memrepo: Path, stored: None) -> None:
    _write(memrepo, "good", "draft", "contracts", "Check clause 1.")
    rule_index.read_briefs(memrepo)
    (memrepo / "doctrine" / "broken.yaml").write_text("id: broken\nstatus: on\n", encoding="utf-8")
    (memrepo / "doctrine" / "Bad_Name.yaml").write_text("x", encoding="utf-8")
    (memrepo / "doctrine" / "link.yaml").symlink_to("good.yaml")
    briefs = rule_index.read_briefs(memrepo)
    assert [b.id for b in briefs.briefs] == ["good"]
    with pytest.raises(DoctrineError) as strict:
        load_rules(memrepo)
    with pytest.raises(DoctrineError) as indexed:
        briefs.raise_first()
    assert indexed.value.message == strict.value.message
    assert sorted(_rows(memrepo)) == ["good.yaml"]  # nothing broken is ever stored


def test_scope_groups_follow_an_edit(memrepo: Path, stored: None) -> None:
    _write(memrepo, "rule-a", "draft", "contracts", "Check clause 1.")
    _write(memrepo, "rule-b", "active", "hr", "Check clause 2.")
    rule_index.read_briefs(memrepo)
    groups, errors, parsed = rule_index.scope_groups(memrepo)  # from the stored groups
    assert errors == [] and groups == {
        "contracts": ([["draft", False, 1]], ["rule-a"]),
        "hr": ([["active", True, 1]], ["rule-b"]),
    }
    assert parsed == {}  # nothing read
    _write(memrepo, "rule-a", "draft", "contracts/supply/food", "Check clause 1.")
    groups, _, parsed = rule_index.scope_groups(memrepo)
    assert groups == {
        "contracts/supply/food": ([["draft", False, 1]], ["rule-a"]),
        "hr": ([["active", True, 1]], ["rule-b"]),
    }
    assert sorted(parsed) == ["rule-a"]  # the edited file, parsed once and handed on
    assert parsed["rule-a"].scope == "contracts/supply/food"


def test_the_audit_reads_only_the_rules_in_scope(
    memrepo: Path, runner: CliRunner, stored: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(memrepo, "in-scope", "draft", "contracts", "Check clause 1.")
    for n in range(20):
        _write(memrepo, f"elsewhere-{n}", "draft", "hr/policies", f"Check clause {n}.")
    commit_decisions(memrepo)
    assert invoke(runner, "context", "audit", "--scope", "contracts/supply").exit_code == 0
    read: list[str] = []
    real = gitrun.read_objects

    def counting(root: Path, names: list[tuple[str, str]]) -> dict[str, bytes]:
        read.extend(key for key, _name in names)
        return real(root, names)

    monkeypatch.setattr(gitrun, "read_objects", counting)
    assert invoke(runner, "context", "audit", "--scope", "contracts/supply").exit_code == 0
    rules = [key for key in read if not re.fullmatch(r"[0-9a-f]{40}", key)]
    assert rules == ["doctrine/in-scope.yaml"]  # from its served blob; no other rule read
    # nothing else: no version of agentmem.yaml in the history ever required signatures, so
    # the settings at each decision's parent are not read at all (docs/decisions/0119; the
    # history is asked first, by `git log`, which is no object read)
    assert [key for key in read if key not in rules] == []


def test_doctrine_list_is_served_from_the_index(
    memrepo: Path, runner: CliRunner, stored: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(memrepo, "rule-a", "draft", "contracts", "Check clause 1.")
    _write(memrepo, "rule-b", "active", "hr", "Check clause 2.")
    (memrepo / "doctrine" / "broken.yaml").write_text("id: broken\nstatus: on\n", encoding="utf-8")
    first = invoke(runner, "doctrine", "list")
    assert first.exit_code == 1 and "broken.yaml" in first.stderr
    lines = first.stdout.splitlines()
    # the very lines the rules read from their files give
    titles = {
        r.id: r.title for r in (rule_index.read_rule(memrepo, i) for i in ("rule-a", "rule-b"))
    }
    assert [line.split()[0] for line in lines] == ["rule-a", "rule-b"]
    assert all(line.endswith(titles[line.split()[0]]) for line in lines)
    assert {n: row[9] for n, row in _rows(memrepo).items()} == {
        "rule-a.yaml": titles["rule-a"],
        "rule-b.yaml": titles["rule-b"],
    }
    read: list[str] = []
    real = rule_index.read_rule

    def counting(root: Path, rule_id: str) -> Rule:
        read.append(rule_id)
        return real(root, rule_id)

    monkeypatch.setattr(rule_index, "read_rule", counting)
    again = invoke(runner, "doctrine", "list")
    assert (again.exit_code, again.stdout, again.stderr) == (1, first.stdout, first.stderr)
    assert read == ["broken"]  # only the file the index cannot hold is read again
    only = invoke(runner, "doctrine", "list", "--status", "active", "--scope", "hr/policies")
    assert only.stdout.splitlines() == [lines[1]]
    assert read == ["broken", "broken"]


def test_the_audit_from_the_index_decides_as_every_rule_read(
    memrepo: Path, runner: CliRunner, stored: None
) -> None:
    """Rules in several scopes and every status, one approval that no longer matches and one
    rule without a scope: the audit served from the stored counts gives the same decisions,
    counts by reason and usage line as with the index deleted and as every rule read."""
    from datetime import date

    from agentmem.config import load_config
    from agentmem.delivery.context import audit_from_index, build_audit
    from agentmem.store.repo import Person

    statuses = ("draft", "active", "suspended", "archived", "deactivated")
    scopes = ("contracts", "contracts/supply", "contracts/lease", "hr/policies", "finance", None)
    for n in range(60):
        status, scope = statuses[n % 5], scopes[n % 6]
        _write(memrepo, f"rule-{n:02d}", status, scope, f"Check clause {n}.")
    commit_decisions(memrepo)
    scopes_audited = ("contracts/supply", "hr", "finance/tax", "contracts")
    actor = Person("alice", "alice@example.com", "admin")
    config, day = load_config(memrepo), date(2026, 12, 1)
    # an active rule without a scope is incomplete: the judge refuses its activation, so the
    # served view gives it as of its draft (the rest of that commit is served)
    refused = {"rule-11", "rule-41"}
    kept = [
        r.with_changes(status="draft", approval=None) if r.id in refused else r
        for r in load_rules(memrepo)
    ]
    every = {s: build_audit(kept, s, actor, config, day, "t") for s in scopes_audited}
    stale = memrepo / "doctrine" / "rule-01.yaml"  # active, approval of another text
    stale.write_text(
        stale.read_text(encoding="utf-8").replace("Check clause 1.", "Check clause one."),
        encoding="utf-8",
    )
    git(memrepo, "-c", "user.email=ruth@example.com", "commit", "-qam", "by hand")
    for scope in scopes_audited:
        rule_index.purge(memrepo)
        (memrepo / rule_index.SERVED_INDEX_FILE).unlink(missing_ok=True)
        slow = audit_from_index(memrepo, scope, actor, config, day, "t")  # index deleted
        assert (memrepo / rule_index.SERVED_INDEX_FILE).exists()
        fast = audit_from_index(memrepo, scope, actor, config, day, "t")  # stored groups
        # the hand edit is not served: rule-01 is given as of its approved version
        assert slow.notes == fast.notes and len(fast.notes) == 2
        assert "doctrine/rule-01.yaml: the last change" in fast.notes[0]  # hand edit
        assert "doctrine/rule-11.yaml, doctrine/rule-41.yaml: the last change" in fast.notes[1]
        assert "given as of commit" in fast.notes[1]
        assert slow.replace(notes=()) == every[scope] and fast.replace(notes=()) == every[scope]
        assert sum(n for _r, n in fast.others) + len(fast.decisions) == 60
    assert fast.others == (
        ("archived", 10),
        ("deactivated", 10),
        ("draft", 12),
        ("out of scope", 8),
        ("suspended", 10),
    )
    lines = []
    for delete in (True, False):
        if delete:
            rule_index.purge(memrepo)
        assert invoke(runner, "context", "audit", "--scope", "contracts/lease").exit_code == 0
        line = _usage(memrepo)[-1]
        lines.append({k: v for k, v in line.items() if k not in ("run_id", "at", "time")})
    assert lines[0] == lines[1] and lines[0]["others"]


# -- the usage line ----------------------------------------------------------------------------


def _usage(root: Path) -> list[dict[str, object]]:
    lines = (root / USAGE_FILE).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_the_usage_line_does_not_grow_with_the_rules_outside_the_scope(
    memrepo: Path, runner: CliRunner
) -> None:
    write_rules(memrepo)  # 6 rules, 5 of them in scope of contracts/supply
    assert invoke(runner, "context", "audit", "--scope", "contracts/supply").exit_code == 0
    for n in range(40):
        _write(memrepo, f"lease-{n}", "draft" if n % 2 else "archived", "contracts/lease", "x.")
    commit_decisions(memrepo)
    assert invoke(runner, "context", "audit", "--scope", "contracts/supply").exit_code == 0
    few, many = _usage(memrepo)
    assert few["rules"] == many["rules"] and len(few["rules"]) == 4  # type: ignore[arg-type]
    assert few["drafts"] == many["drafts"] == 1  # the draft in scope: counted, not listed
    assert few["others"] == {"out of scope": 1}
    assert many["others"] == {"archived": 20, "draft": 20, "out of scope": 1}
    listed = invoke(runner, "usage", "--last", "1", "--details")
    assert "2 of 46 rules applied" in listed.stdout
    assert "    drafts in scope, not applied: 1\n" in listed.stdout
    assert "    outside the scope, not applied: 20 archived, 20 draft, 1 out of scope" in (
        listed.stdout
    )


def _record(n: int) -> UsageRecord:
    rule = RuleUsage("r", 1, "active", "contracts", True, None, False)
    return UsageRecord(f"r-{n:04d}", "2026-12-01T10:00:00Z", "alice", "admin", "c", (rule,))


def test_the_usage_log_rotates_by_size(memrepo: Path) -> None:
    size = len(json.dumps(_record(0).to_dict(), separators=(",", ":")).encode()) + 1
    limit = size * 3  # three lines per file
    for n in range(3):
        append_usage(memrepo, _record(n), limit=limit)
    assert not (memrepo / ROTATED_FILE).exists()
    append_usage(memrepo, _record(3), limit=limit)  # a fourth line would pass the limit
    assert [r["run_id"] for r in _usage(memrepo)] == ["r-0003"]
    rotated = (memrepo / ROTATED_FILE).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["run_id"] for line in rotated] == ["r-0000", "r-0001", "r-0002"]
    for n in range(4, 8):
        append_usage(memrepo, _record(n), limit=limit)
    # the second rotation replaced the first: at most two files of `limit` bytes
    assert [r.run_id for r in read_usage(memrepo).records] == [f"r-{n:04d}" for n in range(3, 8)]
    assert all(os.path.getsize(memrepo / f) <= limit for f in (USAGE_FILE, ROTATED_FILE))


def test_old_usage_lines_without_counts_still_read(memrepo: Path) -> None:
    line = _record(1).to_dict()
    del line["others"]
    (memrepo / ".agentmem").mkdir(exist_ok=True)
    (memrepo / USAGE_FILE).write_text(json.dumps(line) + "\n", encoding="utf-8")
    (record,) = read_usage(memrepo).records
    assert record.others == () and record.considered == 1


# -- the duplicate guard -----------------------------------------------------------------------

TEXTS = [
    "Never accept a warranty under 24 months",
    "Do not accept warranties shorter than 24 months",
    "Never accept a warranty under 12 months",
    "Twelve-month warranty is acceptable on supply contracts",
    "A 12-month warranty is acceptable on supply contracts",
    "Always cc the account manager on supplier escalations",
    "Always copy the account manager on escalations to suppliers",
    "Ne jamais accepter une garantie inférieure à 24 mois",
    "Ne pas accepter de garanties de moins de 24 mois",
    "use uv",
    "use uv never pip",
    "Cap liability at the contract value",
    "Liability is capped at twice the annual fees",
    "Never force-push to the main branch",
    "never force push to main",
    "Payment terms of 60 days are acceptable for public buyers",
    "Payment terms of 90 days are acceptable for public buyers",
    "The the the",
]
SCOPES = [None, "contracts", "contracts/supply", "contracts/supply/eu", "hr"]
STATUSES = ["draft", "active", "suspended", "archived"]


def _fixture_rules() -> list[Rule]:
    rules = []
    for n, text in enumerate(TEXTS):
        title = TEXTS[(n * 7 + 3) % len(TEXTS)] if n % 3 else text.split(" ", 2)[-1]
        rules.append(
            Rule(
                f"rule-{n:02d}",
                title,
                STATUSES[n % 4],
                SCOPES[n % 5],
                text,
                ("Not for public bodies.",),
                "",
                1,
                "bob",
                "2026-11-29T10:00:00Z",
                None,
                (),
                None,
                None,
                f"doctrine/rule-{n:02d}.yaml",
            )  # fmt: skip
        )
    return rules


def _before(
    title: str, instruction: str, scope: str | None, rules: list[Rule], threshold: float
) -> list[Similar]:
    """The duplicate guard as it was: every pair normalised and scored."""
    mine = [t for t in (title, instruction) if t.strip()]
    found = []
    for rule in rules:
        if rule.status not in LIVE_STATUSES or not scopes_overlap(scope, rule.scope):
            continue
        best, text = 0.0, ""
        for theirs in [t for t in (rule.title, rule.instruction) if t.strip()]:
            for candidate in mine:
                score = similarity(candidate, theirs)
                if score > best:
                    best, text = score, theirs
        if best >= threshold:
            found.append(Similar(rule.id, rule.status, rule.scope, round(best, 1), text))
    return sorted(found, key=lambda s: (-s.score, s.rule_id))


@pytest.mark.slow
@pytest.mark.parametrize("threshold", [0, 30, 50, 51, 70, 85, 100])
def test_the_duplicate_guard_gives_the_same_candidates_as_before(
    memrepo: Path, threshold: int, stored: None
) -> None:
    rules = _fixture_rules()
    for rule in rules:
        (memrepo / rule.path).write_text(canonical_text(rule), encoding="utf-8")
    rule_index.read_briefs(memrepo)  # the forms come from the index from now on
    checked = 0
    for n, text in enumerate(TEXTS):
        for scope in SCOPES:
            title = TEXTS[(n + 5) % len(TEXTS)]
            candidate = rules[n].with_changes(id="candidate", title=title, instruction=text)
            candidate = candidate.with_changes(scope=scope)
            before = _before(title, text, scope, rules, threshold)
            assert find_similar(title, text, scope, rules, threshold) == before
            assert similar_in_index(memrepo, candidate, (), threshold) == before
            checked += len(before)
    assert checked > (0 if threshold == 100 else 10)  # the fixture set does find duplicates
