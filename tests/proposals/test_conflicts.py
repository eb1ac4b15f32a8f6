"""Contradictions in personal memory: the one detector (negation, another value of a setting,
the opposite word, other figures) in English and French; validation flags a proposal, review
shows it beside the entry and offers it as a modify (scripted and interactive); ``check``
warns about contradicting entries already in a file, without failing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from tests.helpers import git, invoke
from tests.helpers.memory import seed_memory
from typer.testing import CliRunner

from agentmem.memory.records import strip_markers
from agentmem.proposals.conflicts import contradicted, related_pairs


@pytest.mark.parametrize(
    ("entry", "proposal", "kind", "why"),
    [
        ("Write short answers.", "Never write short answers.", "negation", "a negation"),
        ("Use British English.", "Use American English.", "value", "(british / american)"),
        ("Write short answers.", "Write long, detailed answers.", "value", "(short / long)"),
        ("Prefer tabs for indentation.", "Prefer spaces for indentation.", "value", "(tabs"),
        ("Avoid emojis in replies.", "Use emojis in replies.", "value", "(avoid / use)"),
        ("Refuse payment terms over 60 days.", "Refuse payment terms over 90 days.", "figures", ""),
        ("Écris des réponses courtes.", "N'écris jamais de réponses courtes.", "negation", ""),
        ("Réponds en français.", "Réponds en anglais.", "value", "(french / english)"),
        ("Utilise l'anglais britannique.", "Utilise l'anglais américain.", "value", "(british"),
        ("Tutoie-moi.", "Vouvoie-moi.", "value", "(tu / vous)"),
        ("Réponses concises.", "Réponses détaillées.", "value", "(short / long)"),
        ("Évite la voix passive.", "Utilise la voix passive.", "value", "(avoid / use)"),
    ],
)
def test_contradictions_in_english_and_french(
    entry: str, proposal: str, kind: str, why: str
) -> None:
    ((index, found),) = contradicted(proposal, [entry])
    assert (index, found.kind) == (0, kind)
    assert why in found.describe()


@pytest.mark.parametrize(
    ("entry", "proposal"),
    [
        ("Use British English.", "Never use American English."),  # they agree
        ("Write short answers.", "Never write long answers."),
        ("Speak French with Marie.", "Speak English with John."),  # two people, two settings
        ("Use uv for Python projects.", "Use pnpm for JS projects."),
        ("Cite the clause number first.", "Always cite the clause number first."),
        ("Réponds en français.", "Réponds en français aux fournisseurs."),
        ("Tutoie-moi.", "Tutoie les stagiaires."),
    ],
)
def test_what_is_not_a_contradiction(entry: str, proposal: str) -> None:
    assert contradicted(proposal, [entry]) == []


def test_related_pairs_finds_both_kinds_once() -> None:
    texts = [
        "Use British English.",
        "Keep a collaborative tone with long-standing suppliers.",
        "Use American English.",
        "Keep a collaborative tone with our long-standing suppliers, always.",
    ]
    found = [(p.i, p.j, p.why.kind if p.why else "same") for p in related_pairs(texts)]
    assert found == [(0, 2, "value"), (1, 3, "same")]


def harvest(runner: CliRunner, tmp_path: Path, texts: list[str]) -> tuple[list[dict], str]:
    answer = tmp_path / f"answer-{len(list(tmp_path.glob('answer-*')))}.json"
    proposals = [
        {
            "action": "add",
            "basis": "declared",
            "section": "Writing style",
            "text": text,
            "justification": "said in the session",
        }
        for text in texts
    ]
    answer.write_text(json.dumps({"proposals": proposals}), encoding="utf-8")
    session = answer.with_suffix(".md")
    session.write_text("User: " + " ".join(texts) + "\n", encoding="utf-8")
    args = ["harvest", str(session), "--proposals", str(answer)]
    result = invoke(runner, *args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    ((out,),) = [json.loads(result.stdout)]
    return out["proposals"], result.stderr


def memory_lines(root: Path) -> list[str]:
    text = strip_markers((root / "memories" / "alice.md").read_text(encoding="utf-8"))
    return [ln for ln in text.splitlines() if ln.startswith("- ")]


def test_validation_flags_and_review_offers_a_modify(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    seed_memory(runner, ["Quote the page after the clause.", "Write short answers."])
    (flagged, plain), _ = harvest(
        runner, tmp_path, ["Never write short answers.", "Sign with initials only."]
    )
    assert flagged["contradicts"] == [
        {"entry": "Write short answers.", "why": "the same with and without a negation"}
    ]
    assert plain["contradicts"] == []
    stored = yaml.safe_load(
        (memrepo / "inbox" / "alice" / f"{flagged['id']}.yaml").read_text(encoding="utf-8")
    )
    assert stored["contradicts"] == flagged["contradicts"]
    assert "contradicts" not in yaml.safe_load(
        (memrepo / "inbox" / "alice" / f"{plain['id']}.yaml").read_text(encoding="utf-8")
    )
    listing = invoke(runner, "inbox").stdout
    assert "contradicts 1 of your entries" in listing
    preview = invoke(runner, "review", "--dry-run")
    assert preview.exit_code == 0, preview.stderr
    assert (
        "contradicts entry #2 (Writing style): Write short answers. — the same with and "
        "without a negation" in preview.stdout
    )
    assert f"agentmem review --modify {flagged['id']}=2" in preview.stdout
    result = invoke(runner, "review", "--modify", f"{flagged['id']}=2")
    assert result.exit_code == 0, result.stderr
    assert memory_lines(memrepo) == [
        "- Quote the page after the clause.",
        "- Never write short answers.",
    ]
    trailers = git(memrepo, "log", "-1", "--format=%s%n%(trailers)")
    assert trailers.startswith('memory(alice): modify in "Writing style"')
    assert "Agentmem-Action: modify" in trailers
    assert "Agentmem-Corrected: action: add -> modify" in trailers
    assert flagged["id"] in trailers


def test_interactive_review_turns_the_add_into_a_modify(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    seed_memory(runner, ["Réponds en français.", "Cite le numéro de clause."])
    (flagged,), _ = harvest(runner, tmp_path, ["Réponds en anglais."])
    assert flagged["contradicts"] == [
        {
            "entry": "Réponds en français.",
            "why": "another value for the same thing (french / english)",
        }
    ]
    result = invoke(runner, "review", "--interactive", input="m\na\n")
    assert result.exit_code == 0, result.stderr
    assert "contradicts entry #1 (Writing style): Réponds en français." in result.stderr
    assert "[m]odify #1 instead" in result.stderr
    assert "1 accepted, 0 rejected, 0 skipped" in result.stderr
    assert memory_lines(memrepo) == ["- Réponds en anglais.", "- Cite le numéro de clause."]
    assert "Agentmem-Corrected: action: add -> modify" in git(
        memrepo, "log", "-1", "--format=%(trailers)"
    )


def test_a_flagged_add_may_still_be_added_beside(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    seed_memory(runner, ["Use British English."])
    (flagged,), _ = harvest(runner, tmp_path, ["Use American English."])
    assert flagged["contradicts"][0]["why"].endswith("(british / american)")
    assert invoke(runner, "review", "--accept", flagged["id"]).exit_code == 0
    assert memory_lines(memrepo) == [
        "- Use British English.",
        "- Use American English.",
    ]


@pytest.mark.slow
def test_modify_refusals(memrepo: Path, runner: CliRunner, tmp_path: Path) -> None:
    seed_memory(runner, ["Write short answers."])
    (flagged,), _ = harvest(runner, tmp_path, ["Write long answers."])
    bad = invoke(runner, "review", "--modify", f"{flagged['id']}=first")
    assert bad.exit_code == 2 and "--modify takes ID=N" in bad.stderr
    missing = invoke(runner, "review", "--modify", f"{flagged['id']}=7")
    assert missing.exit_code == 1, missing.stderr
    assert "has no entry #7 (entries: #1 to #1)" in missing.stderr
    assert "Traceback" not in missing.stderr
    assert (memrepo / "inbox" / "alice" / f"{flagged['id']}.yaml").exists()


def test_check_warns_about_contradicting_entries_without_failing(
    memrepo: Path, runner: CliRunner
) -> None:
    seed_memory(
        runner,
        [
            "Use British English.",
            "Tutoie-moi.",
            "Quote the page after the clause.",
            "Use American English.",
            "Vouvoie-moi.",
            "Never quote the page after the clause.",
        ],
    )
    result = invoke(runner, "check", "--format", "json")
    assert result.exit_code == 0, result.stdout + result.stderr
    findings = json.loads(result.stdout)
    found = [
        (f["line"], f["severity"], f["message"])
        for f in findings
        if f["code"] == "memory-contradiction"
    ]
    assert found == [
        (
            7,
            "warning",
            "entry #4 contradicts entry #1 (line 4): they say another value for the same thing "
            "(british / american); keep the one that holds (agentmem memory edit, or agentmem "
            "tidy)",
        ),
        (
            8,
            "warning",
            "entry #5 contradicts entry #2 (line 5): they say another value for the same thing "
            "(tu / vous); keep the one that holds (agentmem memory edit, or agentmem tidy)",
        ),
        (
            9,
            "warning",
            "entry #6 contradicts entry #3 (line 6): they say the same with and without a "
            "negation; keep the one that holds (agentmem memory edit, or agentmem tidy)",
        ),
    ]
    assert all(f["path"] == "memories/alice.md" for f in findings)
    # the entries' words are never quoted in a finding (check output may be public)
    assert "British" not in result.stdout and "Vouvoie" not in result.stdout


def test_tidy_flags_another_value_with_the_same_detector(memrepo: Path, runner: CliRunner) -> None:
    seed_memory(runner, ["Use British English.", "Réponds en français.", "Use American English."])
    result = invoke(runner, "tidy", "--format", "json")
    assert result.exit_code == 1, result.stderr
    report = json.loads(result.stdout)
    assert [(f["kind"], f["reason"], f["proposals"]) for f in report["findings"]] == [
        (
            "contradiction",
            "#1 and #3 say another value for the same thing (british / american): keep the one "
            "that holds",
            [],
        )
    ]


def test_check_gives_one_finding_per_group_of_contradicting_entries(
    memrepo: Path, runner: CliRunner
) -> None:
    """Five entries that all contradict one another are one finding naming them and counting
    the pairs; a pair elsewhere in the file keeps its own."""
    seed_memory(
        runner,
        [f"Keep answers under {n * 10} words." for n in range(1, 6)]
        + ["Use British English.", "Use American English."],
    )
    findings = json.loads(invoke(runner, "check", "--format", "json").stdout)
    found = [(f["line"], f["message"]) for f in findings if f["code"] == "memory-contradiction"]
    assert found == [
        (
            8,
            "5 entries contradict one another (10 pairs): #1, #2, #3, #4, #5; e.g. #2 and #1 say "
            "the same with other figures; keep the ones that hold (agentmem memory edit, or "
            "agentmem tidy)",
        ),
        (
            10,
            "entry #7 contradicts entry #6 (line 9): they say another value for the same thing "
            "(british / american); keep the one that holds (agentmem memory edit, or agentmem "
            "tidy)",
        ),
    ]


@pytest.mark.slow
def test_75_contradicting_entries_are_one_finding_and_a_small_sarif(
    memrepo: Path, runner: CliRunner
) -> None:
    seed_memory(runner, [f"Keep answers under {n * 10} words." for n in range(1, 76)])
    findings = json.loads(invoke(runner, "check", "--format", "json").stdout)
    grouped = [f for f in findings if f["code"] == "memory-contradiction"]
    assert len(grouped) == 1 and grouped[0]["message"].startswith(
        "75 entries contradict one another (2775 pairs): #1, #2, #3"
    )
    sarif = invoke(runner, "check", "--format", "sarif").stdout
    assert len(sarif.encode()) < 100_000
