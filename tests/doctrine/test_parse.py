"""Rule files: strict reading, one canonical layout, round-trip edits that keep
a person's comments, and the hand-written YAML traps — each a clean exit 1 with file and line,
no traceback and no side effect, on a real repository."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from tests.helpers import DATA, git, invoke
from typer.testing import CliRunner

from agentmem.doctrine.model import (
    Approval,
    DoctrineError,
    Rule,
    content_sha256,
    is_overdue,
    lifecycle_problems,
    missing_for_activation,
)
from agentmem.doctrine.parse import load_rules, parse_rule_text
from agentmem.doctrine.render import canonical_text, updated_text

TRAPS = DATA / "doctrine"

RULE = Rule(
    id="supply-warranty-12-months",
    title="Twelve-month warranty is acceptable on supply contracts",
    status="active",
    scope="contracts/supply",
    instruction="Accept a 12-month warranty on supply contracts although the playbook asks for 24.",
    limits=("Not when the supplier has traded with us for less than two years.",),
    justification="Settled across several audits of long-standing suppliers.",
    version=3,
    proposed_by="alice",
    proposed_at="2026-11-29T10:02:00Z",
    origin_session="5f1c9a",
    distinct_from=(),
    approval=Approval("bob", "2026-11-30T08:00:00Z", 3, "0" * 64),
    review_due="2027-02-28",
    path="doctrine/supply-warranty-12-months.yaml",
)
APPROVED = replace(RULE, approval=replace(RULE.approval, content_sha256=content_sha256(RULE)))  # type: ignore[arg-type]


def test_canonical_text_is_the_spec_layout_and_reads_back() -> None:
    text = canonical_text(APPROVED)
    assert text == (
        "id: supply-warranty-12-months\n"
        "title: Twelve-month warranty is acceptable on supply contracts\n"
        "status: active\n"
        "scope: contracts/supply\n"
        "instruction: Accept a 12-month warranty on supply contracts although the playbook asks for 24.\n"
        "limits:\n"
        "  - Not when the supplier has traded with us for less than two years.\n"
        "justification: Settled across several audits of long-standing suppliers.\n"
        "version: 3\n"
        "proposed_by: alice\n"
        "proposed_at: 2026-11-29T10:02:00Z\n"
        "origin_session: 5f1c9a\n"
        "distinct_from: []\n"
        "approval:\n"
        "  by: bob\n"
        "  at: 2026-11-30T08:00:00Z\n"
        "  version: 3\n"
        f"  content_sha256: {content_sha256(RULE)}\n"
        "review_due: 2027-02-28\n"
    )
    assert parse_rule_text(text, APPROVED.path) == APPROVED
    assert lifecycle_problems(APPROVED) == []


def test_text_that_yaml_1_1_would_misread_is_quoted() -> None:
    tricky = replace(
        RULE,
        title="yes",
        limits=("on", "1.10", "a: b", "2026-11-29"),
        origin_session="12345",
        approval=None,
        review_due=None,
        status="draft",
    )
    text = canonical_text(tricky)
    assert "title: 'yes'\n" in text and "  - 'on'\n" in text and "origin_session: '12345'\n" in text
    assert parse_rule_text(text, tricky.path) == tricky
    loaded = yaml.safe_load(text)  # any YAML 1.1 reader gets the same strings
    assert loaded["title"] == "yes" and loaded["limits"] == ["on", "1.10", "a: b", "2026-11-29"]


def test_content_sha256_is_the_hash_of_the_canonical_json_content() -> None:
    blob = json.dumps(
        {
            "title": RULE.title,
            "scope": RULE.scope,
            "instruction": RULE.instruction,
            "limits": list(RULE.limits),
        },
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    assert content_sha256(RULE) == hashlib.sha256(blob.encode()).hexdigest()
    assert content_sha256(replace(RULE, justification="other", status="draft")) == content_sha256(
        RULE
    )
    assert content_sha256(replace(RULE, limits=())) != content_sha256(RULE)
    assert lifecycle_problems(RULE) == [
        ("approval.content_sha256", "does not match the content: it changed after approval")
    ]


def test_content_sha256_is_json_dumps_on_hard_texts() -> None:
    """The hash writes its JSON key by key: the same bytes as ``json.dumps`` on quotes,
    backslashes, control and non-ASCII characters, lone surrogates, no scope, 0–3 limits."""
    import random

    rng = random.Random(25)
    alphabet = ['"', "\\", "\n", "\t", "\x00", "\x1f", "\x7f", "é", "—", "\u2028", "\ud800",
                "😀", "a", " ", "/", ",", ":", "[", "}"]  # fmt: skip

    def text() -> str:
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))

    for n in range(2000):
        rule = replace(
            RULE,
            title=text(),
            scope=None if n % 7 == 0 else text(),
            instruction=text(),
            limits=tuple(text() for _ in range(n % 4)),
        )
        content = {"title": rule.title, "scope": rule.scope, "instruction": rule.instruction,
                   "limits": list(rule.limits)}  # fmt: skip
        blob = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        digest = hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()
        try:
            assert content_sha256(rule) == digest
        except UnicodeEncodeError:  # a lone surrogate: json.dumps' bytes cannot be UTF-8 either
            assert "\ud800" in blob


def test_missing_for_activation_and_overdue() -> None:
    from datetime import date

    assert missing_for_activation(RULE) == []
    assert missing_for_activation(replace(RULE, scope=None, instruction=" ", limits=())) == [
        "scope",
        "instruction",
        "limit",
    ]
    assert not is_overdue(RULE, date(2027, 2, 28))
    assert is_overdue(RULE, date(2027, 3, 1))
    assert not is_overdue(replace(RULE, status="suspended"), date(2027, 3, 1))


def test_an_edit_keeps_comments_and_key_order() -> None:
    text = (TRAPS / "commented-rule.yaml").read_text(encoding="utf-8")
    rule = parse_rule_text(text, "doctrine/commented-rule.yaml")
    edited = replace(rule, instruction="Never accept a warranty under 24 months.", version=2)
    new = updated_text(text, edited, rule.path)
    assert new == text.replace(
        "instruction: Do not accept warranties shorter than 24 months.",
        "instruction: Never accept a warranty under 24 months.",
    ).replace("version: 1", "version: 2")
    assert parse_rule_text(new, rule.path) == edited


def test_an_edit_of_a_short_hand_written_file_inserts_missing_keys_in_place() -> None:
    text = "id: short\ntitle: Short   # hand-made\nstatus: draft\ninstruction: Do it.\nversion: 1\nproposed_by: bob\nproposed_at: 2026-11-29T10:02:00Z\n"
    rule = parse_rule_text(text, "doctrine/short.yaml")
    assert rule.limits == () and rule.scope is None and rule.approval is None
    new = updated_text(text, replace(rule, scope="hr", limits=("Only in France.",)), rule.path)
    assert new.startswith(
        "id: short\ntitle: Short   # hand-made\nstatus: draft\nscope: hr\ninstruction: Do it.\nlimits:\n  - Only in France.\n"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("id: x\nid: y\n", "doctrine/x.yaml:2: id: duplicate key"),
        ("- a\n- b\n", "doctrine/x.yaml:1: (file): expected a mapping"),
        ("id: x\ntitle: [unclosed\n", "doctrine/x.yaml:"),
        ("id: x\n---\nid: y\n", "doctrine/x.yaml:2: (file): one YAML document"),
        (
            "id: x\ntitle: T\nstatus: draft\ninstruction: I\nversion: 1\nproposed_by: bob\n",
            "doctrine/x.yaml:1: proposed_at: missing",
        ),
        (
            "id: X_Y\ntitle: T\nstatus: draft\ninstruction: I\nversion: 1\nproposed_by: bob\nproposed_at: 2026-11-29T10:02:00Z\n",
            "doctrine/x.yaml:1: id: 'X_Y' is not",
        ),
        (
            "id: x\ntitle: T\nstatus: draft\ninstruction: I\nversion: 0\nproposed_by: bob\nproposed_at: 2026-11-29T10:02:00Z\n",
            "doctrine/x.yaml:5: version: expected a whole number ≥ 1, got 0",
        ),
        (
            "id: x\ntitle: T\nstatus: draft\ninstruction: I\nversion: true\nproposed_by: bob\nproposed_at: 2026-11-29T10:02:00Z\n",
            "doctrine/x.yaml:5: version: expected a whole number ≥ 1, got a boolean 'true'",
        ),
        (
            "id: x\ntitle: T\nstatus: draft\ninstruction: 12\nversion: 1\nproposed_by: bob\nproposed_at: 2026-11-29T10:02:00Z\n",
            "doctrine/x.yaml:4: instruction: expected text, got a whole number '12'; quote it",
        ),
        (
            "id: x\ntitle: T\nstatus: draft\ninstruction: I\nlimits: a limit\nversion: 1\nproposed_by: bob\nproposed_at: 2026-11-29T10:02:00Z\n",
            "doctrine/x.yaml:5: limits: expected a list",
        ),
        (
            "id: x\ntitle: T\nstatus: draft\ninstruction: I\nlimits:\n  - ok\n  - [nested]\nversion: 1\nproposed_by: bob\nproposed_at: 2026-11-29T10:02:00Z\n",
            "doctrine/x.yaml:7: limits[2]: expected text, got a list",
        ),
        (
            "id: x\ntitle: T\nstatus: draft\ninstruction: I\nversion: 1\nproposed_by: bob\nproposed_at: 2026-13-29T10:02:00Z\n",
            "doctrine/x.yaml:7: proposed_at:",
        ),
        (
            "id: x\ntitle: T\nstatus: draft\ninstruction: I\nversion: 1\nproposed_by: bob\nproposed_at: 2026-11-29T10:02:00Z\napproval:\n  by: carol\n  at: 2026-11-29T10:02:00Z\n  version: 1\n",
            "doctrine/x.yaml:8: approval.content_sha256: missing",
        ),
        (
            "id: x\ntitle: T\nstatus: draft\nscope: ../etc\ninstruction: I\nversion: 1\nproposed_by: bob\nproposed_at: 2026-11-29T10:02:00Z\n",
            "doctrine/x.yaml:4: scope: invalid scope",
        ),
        ("id: x\n? [a, b]\n: c\n", "doctrine/x.yaml:2: "),
    ],
)
def test_strict_reading_names_file_line_and_key(text: str, expected: str) -> None:
    with pytest.raises(DoctrineError) as caught:
        parse_rule_text(text, "doctrine/x.yaml")
    assert str(caught.value).startswith(expected), str(caught.value)


TRAP_CASES = [
    (
        "trap-duplicate-status",
        "doctrine/trap-duplicate-status.yaml:4: status: duplicate key (first at line 3)",
    ),
    (
        "trap-status-on",
        "doctrine/trap-status-on.yaml:3: status: expected one of draft, active, suspended, deactivated, archived; got a boolean 'on'",
    ),
    (
        "trap-version-float",
        "doctrine/trap-version-float.yaml:8: version: expected a whole number ≥ 1, got a decimal number '1.10'",
    ),
    (
        "trap-python-tag",
        "doctrine/trap-python-tag.yaml:5: instruction: tags (tag:yaml.org,2002:python/object/apply:os.system) are not allowed",
    ),
    ("trap-billion-laughs", "doctrine/trap-billion-laughs.yaml:1: a: anchors (&a) are not allowed"),
    ("trap-unknown-key", "doctrine/trap-unknown-key.yaml:14: approved: unknown key"),
]


def _state(root: Path) -> tuple[str, str, dict[str, bytes]]:
    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".git" not in p.parts and ".agentmem" not in p.parts
    }
    return git(root, "rev-parse", "HEAD"), git(root, "status", "--porcelain"), files


@pytest.mark.parametrize(("name", "expected"), TRAP_CASES, ids=[c[0] for c in TRAP_CASES])
@pytest.mark.parametrize(
    "command",
    [("doctrine", "show"), ("doctrine", "approve"), ("doctrine", "edit"), ("doctrine", "list")],
)
@pytest.mark.slow
def test_hand_written_traps_exit_1_with_file_line_and_no_side_effect(
    memrepo: Path, runner: CliRunner, name: str, expected: str, command: tuple[str, ...]
) -> None:
    shutil.copy(TRAPS / f"{name}.yaml", memrepo / "doctrine" / f"{name}.yaml")
    git(memrepo, "add", "doctrine")
    git(memrepo, "commit", "-q", "-m", "a hand-written rule")
    before = _state(memrepo)
    args = [*command] if command[1] == "list" else [*command, name]
    if command[1] == "edit":
        args += ["--title", "New title", "--yes"]
    result = invoke(runner, *args)
    assert result.exit_code == 1, result.stdout
    assert result.stderr.startswith(f"error: {expected}"), result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert _state(memrepo) == before
    assert not (memrepo / "pwned").exists()


def test_a_2_mb_rule_file_exits_1_before_it_is_read(memrepo: Path, runner: CliRunner) -> None:
    big = memrepo / "doctrine" / "huge.yaml"
    big.write_text("id: huge\ntitle: " + "x" * (2 * 1024 * 1024) + "\n", encoding="utf-8")
    before = _state(memrepo)
    for args in (
        ("doctrine", "show", "huge"),
        ("doctrine", "list"),
        ("doctrine", "approve", "huge"),
    ):
        result = invoke(runner, *args)
        assert result.exit_code == 1
        assert result.stderr.startswith(
            "error: doctrine/huge.yaml:1: (file): 2,097,169 bytes; a rule file holds at most 65,536"
        )
        assert "Traceback" not in result.stderr
    assert _state(memrepo) == before


def test_a_rule_whose_id_is_not_its_file_name_is_refused(memrepo: Path) -> None:
    text = (TRAPS / "commented-rule.yaml").read_text(encoding="utf-8")
    (memrepo / "doctrine" / "other-name.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(
        DoctrineError,
        match=r"^doctrine/other-name.yaml:1: id: is 'commented-rule'; it must match the file name",
    ):
        load_rules(memrepo)


@pytest.mark.slow
def test_list_shows_the_readable_rules_and_names_the_broken_file(
    memrepo: Path, runner: CliRunner
) -> None:
    proposed = invoke(
        runner,
        "doctrine",
        "propose",
        "--id",
        "warranty-floor",
        "--title",
        "Warranty floor",
        "--instruction",
        "Accept a 12-month warranty.",
        "--scope",
        "contracts",
    )
    assert proposed.exit_code == 0, proposed.stderr
    (memrepo / "doctrine" / "broken.yaml").write_text(
        "id: broken\ntitle: [unclosed\nstatus: draft\n", encoding="utf-8"
    )
    listed = invoke(runner, "doctrine", "list")
    assert listed.exit_code == 1
    assert listed.stdout.startswith("warranty-floor ") and "broken" not in listed.stdout
    assert "error: doctrine/broken.yaml:3:" in listed.stderr
    assert "1 rule file(s) unreadable: listed without them" in listed.stderr
    as_json = invoke(runner, "doctrine", "list", "--format", "json")
    assert [r["id"] for r in json.loads(as_json.stdout)] == ["warranty-floor"]
    assert invoke(runner, "doctrine", "show", "warranty-floor").exit_code == 0
    audit = invoke(runner, "context", "audit", "--scope", "contracts")
    # an audit serves doctrine as committed (docs/design/served.md §Served doctrine): the
    # broken file was never committed, so it is named and left out, never parsed
    assert audit.exit_code == 0
    assert "doctrine/broken.yaml is not committed: not given" in audit.stderr
