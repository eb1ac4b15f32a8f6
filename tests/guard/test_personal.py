"""Facts about a person no proposal may carry (names, family, health, legal, financial, a
password said in words, URL credentials): refused at harvest, masked before a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.helpers import invoke
from typer.testing import CliRunner

from agentmem import guard
from agentmem.errors import GuardError
from agentmem.guard.personal import person_findings, personal_findings


@pytest.mark.parametrize(
    ("text", "code", "value"),
    [
        ("Tom Becker signs for them, not the CEO.", "pii:name", "Tom Becker"),
        ("Maître Lefebvre représente l'autre partie.", "pii:name", "Lefebvre"),
        ("El Sr. García firma por ellos.", "pii:name", "García"),
        ("Dr. Schneider für die Gegenseite unterschreibt.", "pii:name", "Schneider"),
        ("My daughter Emma is 7.", "pii:family", "Emma"),
        ("Ma fille Léa part tôt.", "pii:family", "Léa"),
        ("Mi hijo Pablo se va.", "pii:family", "Pablo"),
        ("Meine Tochter Mia geht früher.", "pii:family", "Mia"),
        ("I have ADHD and take sertraline.", "pii:health", "ADHD"),
        ("Je suis malade cette semaine.", "pii:health", "malade"),
        ("My salary is 85,000 a year.", "pii:financial", "salary"),
        ("Ich bin geschieden.", "pii:legal", "geschieden"),
        ("The staging password is Tr0ub4dor&3.", "secret:password", "Tr0ub4dor&3."),
        ("Le mot de passe du serveur est Soleil!2024.", "secret:password", "Soleil!2024."),
        ("La contraseña del servidor es Luna#8877.", "secret:password", "Luna#8877."),
        ("Das Passwort für den Testserver ist Sonne!2025.", "secret:password", "Sonne!2025."),
        # the value right after the word, no verb (blind7's fr trap was proposed as an entry)
        (
            "Identifiant achats.lyon, mot de passe Brume!Quai2026, à chaque fois.",
            "secret:password",
            "Brume!Quai2026",
        ),
        ("use login bob, password Hunter2! every time", "secret:password", "Hunter2!"),
        ("contraseña Luna#8877 siempre", "secret:password", "Luna#8877"),
        ("Passwort Sonne!2025 immer nutzen", "secret:password", "Sonne!2025"),
        (
            "The test database is at postgres://admin:S3cretPw9@db.internal/app",
            "secret:url-credentials",
            "S3cretPw9",
        ),
    ],
)
def test_facts_about_a_person_are_found_in_four_languages(text: str, code: str, value: str) -> None:
    found = [f for f in guard.scan(text) if f.code == code]
    assert found, text
    assert any(value in text[f.start : f.end] or text[f.start : f.end] in value for f in found)
    with pytest.raises(GuardError) as caught:
        guard.check_personal(text, where="proposal p-1")
    assert code in str(caught.value) and value.rstrip(".") not in str(caught.value)


@pytest.mark.parametrize(
    "text",
    [
        "I want a collaborative tone with long-standing suppliers.",
        "Always check the warranty clause before the penalty clause.",
        "The team never agrees to unlimited liability.",
        "Je préfère des phrases courtes dans les commentaires.",
        "Ne me propose plus de reformuler les clauses de confidentialité.",
        "Prefiero frases cortas en los comentarios.",
        "Prüfe immer die Gewährleistungsklausel vor den Vertragsstrafen.",
        "Rule Dependencies come first. Review Summary in 3 bullets.",
        "Keep the password field out of the examples.",
        "Never put a password manager link in the README.",
        "Le mot de passe oublié se gère par le portail.",
        "La contraseña nueva la pone el usuario.",
    ],
)
def test_ordinary_preferences_pass(text: str) -> None:
    assert person_findings(text) == []


def test_mask_hides_the_same_facts_before_a_model() -> None:
    text = "My daughter Emma is ill; Tom Becker signs; the password is Tr0ub4dor&3 and I take sertraline."
    masked = guard.mask(text)
    for value in ("Emma", "Tom Becker", "Tr0ub4dor", "sertraline"):
        assert value not in masked
    assert "[FAMILY]" in masked and "[NAME]" in masked and "[HEALTH]" in masked


def test_harvest_refuses_a_proposal_with_personal_data(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    session = tmp_path / "s.md"
    session.write_text(
        "User: Remember that my daughter Emma is 7. Remember that the staging password is "
        "Tr0ub4dor&3. Remember that I want short comments.\n",
        encoding="utf-8",
    )
    result = invoke(runner, "harvest", str(session), "--provider", "offline", "--format", "json")
    assert result.exit_code == 0, result.stderr
    (out,) = json.loads(result.stdout)
    assert [p["text"] for p in out["proposals"]] == ["I want short comments."]
    assert len(out["rejected"]) == 2
    assert "Emma" not in result.stdout and "Tr0ub4dor" not in result.stdout


@pytest.mark.parametrize(
    ("word", "common"),
    [
        *[
            (w, True)
            for w in ("code", "channels", "context", "sessions", "salary", "cup", "system")
        ],
        *[(w, False) for w in ("dupont", "becker", "schneider", "müller", "garcía", "lefebvre")],
        *[(w, False) for w in ("gibbs", "chen", "smith", "martin", "sharma", "vogelsang")],
    ],
)
def test_the_word_lists_put_known_words_on_their_side(word: str, common: bool) -> None:
    """The thresholds of pyspellchecker's lists (``_COMMON_COUNT``) keep product words common
    and frequent surnames (García, Martin: the lists come from subtitles) not."""
    from agentmem.guard.personal import _COMMON_COUNT, _common

    assert _common(word, _COMMON_COUNT) is common


ISSUE_25 = [
    ("Jean Dupont prefers short answers", "pii:name"),
    ("The client was born 12/03/1975", "pii:birth-date"),
    ("Numéro de sécurité sociale : 1 85 05 78 006 084 91", "pii:national-id"),
    ("185057800608491 est son NIR", "pii:national-id"),
    ("He lives at 12 rue de la Paix", "pii:address"),
    ("Mot de passe du serveur : Azerty123!", "secret:password"),
    ("The database password is Tr0ub4dor&3", "secret:password"),
    ("psql -h db -U app -W Tr0ub4dor3", "secret:password"),
    ("The lawyer has breast cancer", "pii:health"),
]


#: Found since, in every language: sick leave for a condition, phone numbers written the
#: national way (Germany, Spain, the UK besides France).
FOUND_SINCE = [
    ("My colleague is off sick with depression.", "pii:health"),
    ("Ma collègue est en arrêt maladie pour un burn-out.", "pii:health"),
    ("Mon collègue est arrêté pour une dépression.", "pii:health"),
    ("Mi compañera está de baja por ansiedad.", "pii:health"),
    ("Der Kollege ist wegen einer Depression krankgeschrieben.", "pii:health"),
    ("Die Kollegin ist seit März wegen Burnout krankgeschrieben.", "pii:health"),
    ("Meine Handynummer ist 0151 23456789.", "pii:phone"),
    ("Tel. 030 1234567, ab 9 Uhr.", "pii:phone"),
    ("Llámame al 612 345 678 por la tarde.", "pii:phone"),
    ("Call me on 020 7946 0958.", "pii:phone"),
    ("Mon portable : 06 12 34 56 78.", "pii:phone"),
]


@pytest.mark.parametrize(("text", "code"), ISSUE_25 + FOUND_SINCE)
def test_one_check_refuses_entries_refuses_proposals_and_masks_the_model_request(
    text: str, code: str
) -> None:
    """A trial: the same findings decide the entry guard (scan), harvest validation
    (check_personal) and the masking of the model request (mask)."""
    found = [f for f in guard.scan(text) if f.code == code]
    assert found, guard.describe(guard.scan(text))
    with pytest.raises(GuardError) as refused:
        guard.check_personal(text, where="proposal p-1")
    assert code in str(refused.value)
    masked = guard.mask(text)
    for f in found:
        value = text[f.start : f.end]
        assert value not in masked and value not in str(refused.value)
        assert guard.placeholder(code) in masked
    assert [f for f in personal_findings(text) if f.code == code]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Rechnung Nr. 2024 2025 2026", "pii:phone"),
        ("Order 0045 123456 shipped", "pii:phone"),
        ("Totals: 1 234 567 890 €", "pii:phone"),
        ("Always mark sick leave requests for HR.", "pii:health"),
        ("Los empleados de baja por maternidad conservan el acceso.", "pii:health"),
        ("Krankmeldungen gehen an die Personalabteilung.", "pii:health"),
    ],
)
def test_grouped_figures_and_sick_leave_as_a_process_are_no_personal_fact(
    text: str, code: str
) -> None:
    assert [f for f in guard.scan(text) if f.code == code] == []


@pytest.mark.parametrize(
    "text",
    [
        "Spotter helps to review Claude Code sessions",
        "Phoenix Channels and stream lifecycle events",
        "Claude, Cursor and Letta each keep their own memory",
        "Bob prefers the préavis in bold.",
    ],
)
def test_product_names_and_a_team_id_are_no_personal_data(text: str) -> None:
    assert guard.scan(text) == [] and guard.mask(text) == text


def test_remember_refuses_a_name_and_never_echoes_it(memrepo: Path, runner: CliRunner) -> None:
    result = invoke(runner, "remember", "Jean Dupont wants the summary first")
    assert result.exit_code == 1
    assert "pii:name" in result.stderr and "Dupont" not in result.stderr + result.stdout


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("Wir akzeptieren 14 Tage Vorankündigung nicht.", False),
        ("Nach 2 Monate Kündigungsfrist gilt der Vertrag.", False),
        ("Die Tage Frist ist zu kurz.", False),
        ("Wir warten 14 Tage, Anna Schneider zuliebe.", True),
        ("Call 3 Jean Dupont before signing.", True),
    ],
)
def test_a_count_and_its_german_noun_is_no_name(text: str, refused: bool) -> None:
    """German capitalises nouns: "14 Tage Vorankündigung" is a period, not a first name and a
    surname (blind2's German red line was refused as one); a name after a number still is."""
    assert bool(guard.scan(text)) is refused


def test_the_name_index_gives_what_searching_the_list_gives() -> None:
    """After a few names searched in gender-guesser's list, ``_name_frequency`` reads an index
    of it built once: the same frequency for names of the list and 0 for words that are not."""
    import random

    from agentmem.guard import personal

    index = personal._name_index()
    assert len(index) > 40_000
    names = random.Random(5).sample(sorted(index), 20)
    words = [*names, "jean", "ALICE", "marie-claire", "Keep", "Never", "Zzzq", "O'Brien", "A"]
    for word in words:
        key = word[:1].upper() + word[1:].lower()
        assert index.get(key, 0) == personal._search_name(word), word
    assert index["Jean"] >= 2 and "Keep" not in index


def test_the_names_of_each_ascii_initial_are_together_in_the_list() -> None:
    """``_search_name`` searches a name that starts with A-Z only among the lines found for its
    initial: that holds only while the installed ``nam_dict.txt`` keeps the names that start with
    an ASCII capital in that capital's order (it sorts by its own folding of accents)."""
    from agentmem.guard import personal

    data = personal._name_bytes()
    seen = 0
    for line in data.split(b"\n"):
        if len(line) > 3 and not line.startswith(b"#") and 0x41 <= line[3] <= 0x5A:
            assert line[3] >= seen, line[:30]
            seen = line[3]
    start, end = personal._initial_lines(ord("S"))
    assert data[start + 3] == ord("S") and data[end + 3] == ord("T")
    assert personal._search_name("Sarah") == personal._name_index()["Sarah"] >= 2


def test_the_name_cue_runs_for_every_word_its_pattern_opens_with() -> None:
    """``_CUE_OPENERS`` gates ``_NAME_CUE`` (its compilation is costly): every word an
    alternative of the pattern opens with ("my", "notre", "nuestra", "ich" …) must be in it, or
    "nuestra abogada Carmen" would pass unseen."""
    import re

    from agentmem.guard import personal

    source = personal._NAME_CUE._args[0]
    source = source if isinstance(source, str) else source()
    # "nuestr[oa]" → "nuestro|nuestra"
    source = re.sub(r"([a-z]+)\[([a-z]+)\]", lambda m: "|".join(m[1] + c for c in m[2]), source)
    openers = {
        word
        for m in re.finditer(r"\\b(?:\(\?:([a-z|]+)\)|([a-z]+))", source)
        for word in (m[1] or m[2]).split("|")
    }
    assert {"my", "notre", "nuestra", "nuestro", "mein", "ich", "je", "me"} <= openers
    assert openers <= personal._CUE_OPENERS


@pytest.mark.parametrize(
    "text",
    [
        "Ask my colleague Sarah first.",
        "Notre avocate Claire relit.",
        "Nuestra abogada Carmen revisa.",
        "Unser Anwalt Jonas prüft das.",
        "Bonjour, je m'appelle Léa.",
        "Hallo, ich heiße Klaus.",
    ],
)
def test_a_name_after_a_relation_or_an_introduction_is_found(text: str) -> None:
    assert [f.code for f in guard.scan(text)] == ["pii:name"]


def test_the_name_patterns_find_what_they_found_with_the_curly_apostrophe_in_the_class() -> None:
    """``_NOT_AFTER`` / ``_NOT_BEFORE`` (’ in an assertion of its own, a cheaper compilation)
    match where the single classes ``[\\w.'’-]`` and ``[\\w'’-]`` did: on every case of the
    corpus and on random text made of names, apostrophes, hyphens and dots."""
    import random
    import re

    from tests.helpers.guard_cases import CASES, materialise

    from agentmem.guard import personal

    cap, particle = personal._CAPITALISED, personal._PARTICLE
    before = {
        "pair": rf"(?<![\w.'’-])({cap})[^\S\n]+{particle}?({cap})(?![\w'’-])",
        "next": rf"[^\S\n]+{particle}?({cap})(?![\w'’-])",
        "said": rf"(?<![\w.'’-])({cap})[^\S\n]+(?:said|says|a dit|dijo|sagte)\b",
    }
    now = {
        "pair": personal._NAME_PAIR,
        "next": personal._NEXT_NAME,
        "said": re.compile(
            rf"{personal._NOT_AFTER}({cap})[^\S\n]+(?:said|says|a dit|dijo|sagte)\b"
        ),
    }
    rng = random.Random(13)
    pieces = ["Jean", "Dupont", "Léa", "Ömer", " ", "  ", "\n", "’", "'", "-", ".", "x", "2", "_",
              "de ", "said", "Anna-Lena", "von "]  # fmt: skip
    texts = [materialise(case)[0] for case in CASES]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(4000)]
    for name, source in before.items():
        old = re.compile(source)
        for text in texts:
            found = [m.span(1) for m in now[name].finditer(text)]
            assert found == [m.span(1) for m in old.finditer(text)], (name, text)


def test_a_text_the_codice_fiscale_hint_cannot_match_is_not_searched() -> None:
    """``_may_hold_cf`` is false only when ``_CF_HINT`` finds nothing: on every case and on
    random text of digits, capitals and other characters (Latin-1 and beyond)."""
    import random

    from tests.helpers.guard_cases import CASES, materialise

    from agentmem.guard import personal
    from agentmem.guard.unicode import _Raw

    rng = random.Random(15)
    alphabet = "0123456789ABEHLMPRSTZ abz٣²-é"
    texts = [materialise(case)[0] for case in CASES] + ["RSSMRA85T10A562S", "85T10A"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16))) for _ in range(5000)]
    for text in texts:
        raw = _Raw(text)
        if not personal._may_hold_cf(raw):
            assert personal._CF_HINT.search(raw.tokens) is None, text


def test_tokens_the_national_insurance_hint_cannot_match_are_not_searched() -> None:
    """``_may_hold_nino`` is false only when ``_NINO_HINT`` finds nothing in the tokens: on
    every case and on random tokens of capitals, digits and other characters."""
    import random

    from tests.helpers.guard_cases import CASES, materialise

    from agentmem.guard import personal
    from agentmem.guard.unicode import _Raw

    rng = random.Random(16)
    alphabet = "ABCDGHQZab0123456789٣²É-. "
    texts = [materialise(case)[0] for case in CASES] + ["AB 12 34 56 C", "QQ123456C", "AB"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(5000)]
    for text in texts:
        tokens = _Raw(text).tokens
        if not personal._may_hold_nino(tokens):
            assert personal._NINO_HINT.search(tokens) is None, text
