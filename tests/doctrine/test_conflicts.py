"""The doctrine conflict heuristic (``agentmem.doctrine.conflicts``): opposites and other values
for the same setting, in overlapping scopes only, deterministic."""

from __future__ import annotations

import pytest
from tests.helpers.team import make_rule

from agentmem.doctrine.conflicts import conflicts_among, find_conflicts, judge, profile


def _p(text: str, rule_id: str = "a", scope: str = "contracts"):
    found = profile(make_rule(rule_id, instruction=text, scope=scope))
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        ("Cap penalties at 10 %.", "Cap penalties at 20 %.", "value"),
        ("Cap late-delivery penalties at 10 % of the order value.",
         "Late-delivery penalties are capped at 20 % of the order value.", "value"),
        ("Payment terms of 60 days at most.", "Payment terms of 30 days at most.", "value"),
        ("Plafonner les pénalités à 10 %.", "Plafonner les pénalités à 20 %.", "value"),
        ("Never accept a warranty under 24 months.", "Accept warranties under 24 months.",
         "opposite"),
        ("Reject warranties under 24 months.", "Accept warranties under 24 months.", "opposite"),
        ("Write short answers.", "Never write short answers.", "opposite"),
        # not conflicts
        ("Accept warranties of at least 12 months.", "Accept warranties of at most 36 months.",
         None),  # a floor and a ceiling hold together
        ("Cap penalties at 10 %.", "Cap liability at 20 %.", None),  # another setting
        ("Accept a warranty of 14 months although the playbook asks for 24.",
         "Check a warranty of 18 months although the playbook asks for 30.", None),
        ("Do not accept warranties shorter than 24 months.",
         "Never accept a warranty under 24 months.", None),  # the same rule
        ("Cap penalties at 10 %.", "Cap penalties at 10 %.", None),
    ],
)  # fmt: skip
def test_judge(a: str, b: str, kind: str | None) -> None:
    assert judge(_p(a), _p(b, "b")) == kind
    assert judge(_p(b, "b"), _p(a)) == kind


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Avoid tables in client letters.", "Prefer tables in client letters."),
        ("Évite les tableaux dans les courriers.", "Utilise les tableaux dans les courriers."),
        ("Deny refunds after 30 days.", "Authorise refunds after 30 days."),
    ],
)
def test_verbs_that_negate_are_the_memory_detectors_too(a: str, b: str) -> None:
    """One vocabulary (``NEGATING_VERBS``, ``SYNONYMS``) for rules and memory entries: a pair
    a rule reads as opposite, memory reads as two values of ``stance``."""
    from agentmem.proposals.conflicts import contradicted

    assert judge(_p(a), _p(b, "b")) == "opposite"
    ((index, why),) = contradicted(b, [a])
    assert (index, why.kind, why.words) == (0, "value", ("avoid", "use"))


def test_the_negation_vocabulary_has_one_home() -> None:
    from agentmem.doctrine import conflicts as rules
    from agentmem.proposals import conflicts as memory

    assert memory.NEGATING_VERBS is rules.NEGATING_VERBS
    assert memory.SETTINGS["stance"]["avoid"].split() == sorted(rules.NEGATING_VERBS)
    assert memory._NOT.pattern == (
        r"\b(?:alway|immer|kein|nicht|nie|not|nunca|siempre|toujour)\b"
    )  # the normaliser's forms of rules.NEGATIONS and rules.ALWAYS
    assert rules.form("Siempre respuestas cortas.") == rules.form("Respuestas cortas.")


def test_among_many_each_rule_names_its_smallest_partner_in_an_overlapping_scope() -> None:
    cap = "Cap late-delivery penalties at {} % of the order value."
    profiles = [
        _p(cap.format(10), "p-3", "contracts"),
        _p(cap.format(20), "p-1", "contracts/supply"),
        _p(cap.format(20), "p-2", "contracts/supply/food"),
        _p(cap.format(30), "p-4", "hr"),
        _p(cap.format(40), "p-5", "contractsx"),
        _p("Write short answers.", "w-1", "contracts/lease"),
        _p("Never write short answers.", "w-2", "contracts"),
    ]
    found = conflicts_among(profiles)
    assert {rule_id: (c.rule_id, c.kind) for rule_id, (_p_, c) in found.items()} == {
        "p-1": ("p-3", "value"),
        "p-2": ("p-3", "value"),  # p-1 sets the same value: no conflict with it
        "p-3": ("p-1", "value"),
        "w-1": ("w-2", "opposite"),
        "w-2": ("w-1", "opposite"),
    }
    assert conflicts_among(list(reversed(profiles))) == found


def test_a_consistent_doctrine_is_tried_once_per_figure_and_an_odd_rule_is_still_found() -> None:
    """1,000 rules setting one cap and one, last by id, setting another: the odd one is found
    and named by each of the others (one representative per figure is tried, so the 400 tries
    per group no longer end before it), and none of the 1,000 conflicts with another."""
    cap = "Cap late-delivery penalties at {} % of the order value."
    same = _p(cap.format(10), "p-0000")
    profiles = [same._replace(rule_id=f"p-{n:04d}") for n in range(1000)]
    profiles.append(_p(cap.format(20), "p-9999"))
    found = conflicts_among(profiles)
    assert len(found) == 1001
    assert found["p-9999"][1].rule_id == "p-0000"
    assert {c.rule_id for rule_id, (_p_, c) in found.items() if rule_id != "p-9999"} == {"p-9999"}
    assert conflicts_among(profiles[:1000]) == {}


def test_find_conflicts_for_one_rule_leaves_out_other_scopes_and_retired_rules() -> None:
    rule = make_rule("new", instruction="Cap penalties at 10 %.", scope="contracts/supply")
    others = [
        make_rule("same-scope", instruction="Cap penalties at 20 %.", scope="contracts/supply"),
        make_rule("parent", instruction="Cap penalties at 15 %.", scope="contracts"),
        make_rule("elsewhere", instruction="Cap penalties at 30 %.", scope="hr"),
        make_rule("retired", instruction="Cap penalties at 5 %.", status="archived"),
        make_rule("same-value", instruction="Penalties capped at 10 %.", scope="contracts"),
    ]
    found = find_conflicts(rule, [rule, *others])
    assert [(c.rule_id, c.kind) for c in found] == [("parent", "value"), ("same-scope", "value")]
    assert found[0].describe() == (
        "parent (draft, scope contracts) sets another value: Cap penalties at 15 %."
    )
