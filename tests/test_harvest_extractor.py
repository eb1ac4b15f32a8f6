"""The offline extractor: the person's own words, triggers and markers per language (data
files), routing by who is concerned, changes of mind, and the cap on valid proposals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.helpers import invoke
from typer.testing import CliRunner

from agentmem.harvest import markers
from agentmem.harvest.own import restates, split_own
from agentmem.harvest.providers import HarvestRequest
from agentmem.harvest.providers.offline import harvest
from agentmem.harvest.transcripts import Transcript, Turn

SECTIONS = ("Writing style", "Priorities & scope", "Recurring patterns", "Rule dependencies")


RECORD = "<!-- am: basis=declared since=2026-12-01 review=2027-12-01 -->"  # as an accept writes it


def _memory(**sections: list[str]) -> str:
    """The memory text a harvest reads, each entry with its record as an accept leaves it."""
    lines = ["# Memory: alice", ""]
    for name in SECTIONS:
        lines.append(f"## {name}")
        lines += [f"- {e} {RECORD}" for e in sections.get(name.split()[0].lower(), [])]
        lines.append("")
    return "\n".join(lines)


def _offline(*said: str, memory: str = "", rules: tuple[str, ...] = ()) -> list[dict]:
    turns = [Turn("user", text, i) for i, text in enumerate(said, start=1)]
    request = HarvestRequest(
        person="alice",
        transcript=Transcript(Path("s.md"), "text", "s1", turns),
        memory_text=memory or _memory(),
        doctrine_text="",
        sections=SECTIONS,
        max_proposals=6,
        scope="contracts",
        model="m",
        doctrine_rules=rules,
    )
    return harvest(request).proposals


def _short(proposals: list[dict]) -> list[tuple]:
    return [(p["action"], p["route"], p["section"], p["target"], p["text"]) for p in proposals]


def test_every_language_file_loads_with_its_markers() -> None:
    codes = [lang.code for lang in markers.languages()]
    assert codes == ["en", "fr", "es", "de"]
    for lang in markers.languages():
        assert lang.triggers and lang.remove and lang.person and lang.team
        assert lang.doctrine_statements and lang.not_standing
        assert dict(lang.sections).keys() == {
            "Rule dependencies",
            "Writing style",
            "Priorities & scope",
        }


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        (
            "Please remember: always start a review with the governing law clause.",
            (
                "add",
                "memory",
                "Priorities & scope",
                None,
                "Always start a review with the governing law clause.",
            ),
        ),
        (
            "Retiens que je préfère des phrases courtes dans les commentaires.",
            (
                "add",
                "memory",
                "Writing style",
                None,
                "Je préfère des phrases courtes dans les commentaires.",
            ),
        ),
        (
            "Recuerda que prefiero frases cortas en los comentarios.",
            ("add", "memory", "Writing style", None, "Prefiero frases cortas en los comentarios."),
        ),
        (
            "Ab jetzt prüfe immer die Gewährleistungsklausel vor den Vertragsstrafen.",
            (
                "add",
                "memory",
                "Rule dependencies",
                None,
                "Prüfe immer die Gewährleistungsklausel vor den Vertragsstrafen.",
            ),
        ),
    ],
)
def test_explicit_requests_in_each_language(said: str, expected: tuple) -> None:
    assert _short(_offline(said)) == [expected]


@pytest.mark.parametrize(
    ("said", "route"),
    [
        ("The team never agrees to unlimited liability for data breaches.", "doctrine"),
        ("A one-page summary is acceptable for me, no need for more.", "memory"),
        ("L'équipe a tranché : pas de clause de non-concurrence de plus de deux ans.", "doctrine"),
        ("Un résumé d'une page est acceptable pour moi.", "memory"),
        ("El equipo no acepta nunca responsabilidad ilimitada.", "doctrine"),
        ("Nosotros nunca aceptamos renovaciones automáticas de más de un año.", "doctrine"),
        ("Wir akzeptieren nie automatische Verlängerungen über ein Jahr.", "doctrine"),
        (
            "Bei dieser Art von Vertrag ist eine Gewährleistung von 12 Monaten akzeptabel.",
            "doctrine",
        ),
    ],
)
def test_statements_without_trigger_are_routed_by_who_is_concerned(said: str, route: str) -> None:
    (proposal,) = _offline(said)
    assert (proposal["action"], proposal["route"]) == ("add", route)


@pytest.mark.parametrize(
    "said",
    [
        "In the future, will this clause still apply if they change suppliers?",
        "From now on the contract says Net 60 instead of Net 30, per the amendment.",
        "Don't suggest anything yet, I am still reading the annex.",
        "À l'avenir, est-ce que cette clause s'appliquera aux filiales ?",
        "Ne propose rien pour l'instant, je relis l'annexe.",
        "No sugieras nada por ahora, estoy leyendo el anexo.",
        "Schlag noch nichts vor, ich lese gerade den Anhang.",
        "That is fine.",
    ],
)
def test_questions_one_off_requests_and_document_facts_are_not_proposed(said: str) -> None:
    assert _offline(said) == []


@pytest.mark.parametrize(
    ("said", "entry", "section", "expected"),
    [
        (
            "From now on 5 bullets, not 3.",
            "Summaries in 3 bullets.",
            "writing",
            ("modify", "Summaries in 5 bullets."),
        ),
        (
            "A partir de ahora, resúmenes en 5 puntos en lugar de 3.",
            "Resúmenes en 3 puntos.",
            "writing",
            ("modify", "Resúmenes en 5 puntos."),
        ),
        (
            "Künftig Zusammenfassungen in 5 Punkten statt 3.",
            "Zusammenfassungen in 3 Punkten.",
            "writing",
            ("modify", "Zusammenfassungen in 5 Punkten."),
        ),
        (
            "Forget the rule about signature blocks, the tool handles them.",
            "Flag every missing signature block.",
            "priorities",
            ("remove", None),
        ),
        (
            "Oublie la règle sur les clauses d'arbitrage.",
            "Signaler chaque clause d'arbitrage.",
            "priorities",
            ("remove", None),
        ),
        (
            "Deja de señalar las cláusulas de arbitraje, ya no me interesan.",
            "Señalar cada cláusula de arbitraje.",
            "priorities",
            ("remove", None),
        ),
        (
            "Vergiss die Regel zu Schiedsklauseln.",
            "Jede Schiedsklausel markieren.",
            "priorities",
            ("remove", None),
        ),
    ],
)
def test_a_change_of_mind_modifies_or_removes_the_entry(
    said: str, entry: str, section: str, expected: tuple
) -> None:
    (proposal,) = _offline(said, memory=_memory(**{section: [entry]}))
    assert (proposal["action"], proposal["text"]) == expected
    assert proposal["target"] == entry
    assert (
        proposal["section"]
        == {"writing": "Writing style", "priorities": "Priorities & scope"}[section]
    )


def test_a_repeat_of_an_entry_or_of_an_active_rule_is_not_proposed() -> None:
    memory = _memory(writing=["Prefer short sentences in comments."])
    assert _offline("Remember that I prefer short sentences in comments.", memory=memory) == []
    rules = ("The team never agrees to unlimited liability.",)
    assert _offline("As you know, the team never agrees to unlimited liability.", rules=rules) == []


def test_a_long_request_is_kept_whole() -> None:
    said = (
        "Keep in mind that "
        + "when I ask for a redline I want a reason for every change, " * 6
        + "always."
    )
    (proposal,) = _offline(said)
    assert len(proposal["text"]) > 300 and "…" not in proposal["text"]


def test_own_text_leaves_out_hooks_quotations_and_pasted_documents() -> None:
    text = (
        "Here is the clause they sent:\n\n14.1 The Receiving Party shall keep all Confidential "
        "Information of Acme Biotech Inc. strictly confidential.\n\nWhat do you think?"
        "<user-prompt-submit-hook>Remember that the repository uses Python 3.12.</user-prompt-submit-hook>"
    )
    own = split_own(text)
    assert "Acme" not in own.own and "Python" not in own.own
    assert own.own == "Here is the clause they sent:\n\nWhat do you think?"
    assert any("Acme Biotech" in o for o in own.other)
    assert restates(
        "Keep all Confidential Information of Acme Biotech Inc. strictly confidential.", own.other
    )
    assert not restates("I prefer short comments.", own.other)
    email = "They replied:\n\nDear Alice,\nGoing forward, we only accept EUR.\nBest regards,\nJohn\n\nNoted."
    assert split_own(email).own == "They replied:\n\nNoted."
    assert _offline(email) == []


def test_the_cap_counts_valid_proposals(memrepo: Path, runner: CliRunner, tmp_path: Path) -> None:
    bad = [
        {
            "action": "add",
            "basis": "declared",
            "section": "Nowhere",
            "text": f"Bad {i}.",
            "justification": "x",
        }
        for i in range(6)
    ]
    good = [
        {
            "action": "add",
            "basis": "declared",
            "section": "Writing style",
            "text": f"Good entry number {w}.",
            "justification": "x",
        }
        for w in ("one", "two", "three", "four", "five", "six", "seven")
    ]
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"proposals": bad + good}), encoding="utf-8")
    session = tmp_path / "s.md"
    session.write_text("User: hello\n", encoding="utf-8")
    result = invoke(runner, "harvest", str(session), "--proposals", str(answer), "--format", "json")
    assert result.exit_code == 0, result.stderr
    (out,) = json.loads(result.stdout)
    assert [p["text"] for p in out["proposals"]] == [g["text"] for g in good[:6]]
    assert len(out["rejected"]) == 6
    assert out["cut"] == 1 and out["cut_proposals"][0]["text"] == "Good entry number seven."


def _replay(
    runner: CliRunner, tmp_path: Path, name: str, proposals: list[dict], *, exit_code: int = 0
) -> dict:
    answer = tmp_path / f"{name}.json"
    answer.write_text(json.dumps({"proposals": proposals}), encoding="utf-8")
    session = tmp_path / f"{name}.md"
    session.write_text(f"User: {name}\n", encoding="utf-8")
    result = invoke(runner, "harvest", str(session), "--proposals", str(answer), "--format", "json")
    assert result.exit_code == exit_code, result.stderr
    return json.loads(result.stdout)[0]


def test_a_modify_targets_its_own_section_and_remove_plus_add_cancel(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    first = _replay(
        runner,
        tmp_path,
        "one",
        [
            {
                "action": "add",
                "basis": "declared",
                "section": "Writing style",
                "text": "Summaries in 3 bullets.",
                "justification": "x",
            }
        ],
    )
    assert invoke(runner, "review", "--accept", first["proposals"][0]["id"]).exit_code == 0
    out = _replay(
        runner,
        tmp_path,
        "two",
        [
            {
                "action": "modify",
                "basis": "declared",
                "section": "Priorities & scope",
                "target": "3 bullets",
                "text": "Summaries in 5 bullets.",
                "justification": "x",
            },
            {
                "action": "remove",
                "basis": "declared",
                "section": "Writing style",
                "target": "Summaries in 3 bullets",
                "justification": "x",
            },
            {
                "action": "add",
                "basis": "declared",
                "section": "Writing style",
                "text": "Summaries in 3 bullets, always.",
                "justification": "x",
            },
        ],
        exit_code=1,  # nothing reached the inbox: harvest says so with exit 1
    )
    assert out["proposals"] == []
    reasons = sorted(r["reason"] for r in out["rejected"])
    assert "the target is not in section 'Priorities & scope'" in reasons[-1]
    cancelled = {r["index"]: r["reason"][:18] for r in out["rejected"] if "cancels" in r["reason"]}
    assert cancelled == {2: "cancels proposal 3", 3: "cancels proposal 2"}


@pytest.mark.parametrize("add_first", [False, True])
def test_removing_an_entry_and_adding_it_back_is_a_no_op(
    memrepo: Path, runner: CliRunner, tmp_path: Path, add_first: bool
) -> None:
    """One answer that removes X and adds X back (word for word) leaves X in the file: the add
    is not refused as a repeat of X while the remove goes through alone."""
    entry = "Summaries in 3 bullets."
    first = _replay(
        runner,
        tmp_path,
        "one",
        [
            {
                "action": "add",
                "basis": "declared",
                "section": "Writing style",
                "text": entry,
                "justification": "x",
            }
        ],
    )
    assert invoke(runner, "review", "--accept", first["proposals"][0]["id"]).exit_code == 0
    batch = [
        {
            "action": "remove",
            "basis": "declared",
            "section": "Writing style",
            "target": "3 bullets",
            "justification": "x",
        },
        {
            "action": "add",
            "basis": "declared",
            "section": "Writing style",
            "text": entry,
            "justification": "x",
        },
    ]
    out = _replay(runner, tmp_path, "two", batch[::-1] if add_first else batch, exit_code=1)
    assert out["proposals"] == []
    reasons = [r["reason"] for r in out["rejected"]]
    assert len(reasons) == 2 and all("a no-op, the entry stays as it is" in r for r in reasons)
    assert entry in (memrepo / "memories" / "alice.md").read_text(encoding="utf-8")
    assert invoke(runner, "inbox", "--format", "json").stdout.count('"id"') == 0
