"""The duplicate guard's scoring: paraphrases meet, distinct rules do not, and
the subset trap of token_set_ratio does not make a longer rule a duplicate of a shorter one."""

from __future__ import annotations

import pytest
from rapidfuzz import fuzz, utils

from agentmem.doctrine.model import Rule, applies_to, scopes_overlap
from agentmem.doctrine.similar import find_similar, normalise, similarity

THRESHOLD = 85  # the default doctrine.duplicate_threshold


def test_the_issue_pair_is_one_rule_after_normalisation() -> None:
    a, b = (
        "Never accept a warranty under 24 months",
        "Do not accept warranties shorter than 24 months",
    )
    assert normalise(a) == normalise(b) == "not accept warranty lt 24 month"
    assert similarity(a, b) == 100.0
    # Raw rapidfuzz alone would have let it through (about 70).
    assert fuzz.token_set_ratio(a, b, processor=utils.default_process) < THRESHOLD


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Twelve-month warranty is acceptable on supply contracts",
            "A 12-month warranty is acceptable on supply contracts",
        ),
        (
            "Always cc the account manager on supplier escalations",
            "Always copy the account manager on escalations to suppliers",
        ),
        (
            "Ne jamais accepter une garantie inférieure à 24 mois",
            "Ne pas accepter de garanties de moins de 24 mois",
        ),
        (
            "Require a warranty of at least 24 months",
            "Require a warranty of no less than 24 months",
        ),
        ("Never force-push to the main branch", "never force push to main"),
    ],
)
def test_paraphrases_are_caught(a: str, b: str) -> None:
    assert similarity(a, b) >= THRESHOLD


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the subset trap: token_set_ratio gives 100 to both
        ("use uv", "use uv never pip"),
        (
            "Never accept a warranty under 24 months",
            "Never accept a warranty under 24 months unless the buyer is a public body",
        ),
        # a different figure is a different rule
        ("Never accept a warranty under 24 months", "Never accept a warranty under 12 months"),
        (
            "Payment terms of 60 days are acceptable for public buyers",
            "Payment terms of 90 days are acceptable for public buyers",
        ),
        # ordinary distinct rules
        (
            "Never accept a warranty under 24 months",
            "Never accept a liability cap under 24 months of fees",
        ),
        ("Never accept a warranty under 24 months", "Require a warranty of at least 24 months"),
        (
            "Do not propose revisions on confidentiality clauses",
            "Never accept a warranty under 24 months",
        ),
        ("Cap liability at the contract value", "Liability is capped at twice the annual fees"),
        (
            "Do not accept penalties above 10% of the contract value",
            "Do not accept penalties above 10% of the contract value for public buyers in the EU",
        ),
        (
            "Accept a 12-month warranty on supply contracts although the playbook asks for 24.",
            "Never accept a warranty under 24 months",
        ),
    ],
)
def test_distinct_rules_are_not_caught(a: str, b: str) -> None:
    assert similarity(a, b) < THRESHOLD


def _rule(rule_id: str, instruction: str, scope: str | None, status: str = "draft") -> Rule:
    return Rule(
        rule_id,
        rule_id.replace("-", " "),
        status,
        scope,
        instruction,
        (),
        "",
        1,
        "bob",
        "2026-11-29T10:00:00Z",
        None,
        (),
        None,
        None,
        f"doctrine/{rule_id}.yaml",
    )


def test_find_similar_looks_only_at_live_rules_of_meeting_scopes() -> None:
    text = "Do not accept warranties shorter than 24 months"
    rules = [
        _rule("same-scope", text, "contracts/supply"),
        _rule("parent-scope", text, "contracts", "active"),
        _rule("child-scope", text, "contracts/supply/eu", "suspended"),
        _rule("other-scope", text, "hr"),
        _rule("no-scope", text, None),
        _rule("archived", text, "contracts/supply", "archived"),
        _rule("deactivated", text, "contracts/supply", "deactivated"),
        _rule("unrelated", "Cap liability at the contract value", "contracts/supply"),
    ]
    found = find_similar(
        "Warranty", "Never accept a warranty under 24 months", "contracts/supply", rules, THRESHOLD
    )
    assert [s.rule_id for s in found] == ["child-scope", "parent-scope", "same-scope"]
    assert all(s.score == 100.0 for s in found)
    assert (
        found[0].describe()
        == "child-scope (suspended, 100 %): Do not accept warranties shorter than 24 months"
    )
    excluded = find_similar(
        "W",
        "Never accept a warranty under 24 months",
        "contracts/supply",
        rules,
        THRESHOLD,
        exclude=["same-scope"],
    )
    assert "same-scope" not in [s.rule_id for s in excluded]
    unscoped = find_similar("W", "Never accept a warranty under 24 months", None, rules, THRESHOLD)
    assert [s.rule_id for s in unscoped] == ["no-scope"]


@pytest.mark.parametrize(
    ("rule_scope", "scope", "expected"),
    [
        ("contracts", "contracts", True),
        ("contracts", "contracts/supply", True),
        ("contracts", "contracts/supply/eu", True),
        ("contracts", "contractsx", False),
        ("contracts/supply", "contracts", False),
        (None, "contracts", False),
        ("contracts/", "contracts/supply", True),
    ],
)
def test_applies_to(rule_scope: str | None, scope: str, expected: bool) -> None:
    assert applies_to(rule_scope, scope) is expected


def test_scopes_overlap() -> None:
    assert scopes_overlap("contracts", "contracts/supply") and scopes_overlap(
        "contracts/supply", "contracts"
    )
    assert not scopes_overlap("contracts", "hr") and not scopes_overlap(None, "hr")
    assert scopes_overlap(None, None)
