"""Benchmark: the guard over an 8,000-character memory file (target: well under 50 ms).

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_guard.py [RUNS]

Builds a realistic memory file (docs/design/memory.md §Memory file: four sections, English and French
entries with accents, no-break spaces, guillemets, emoji, dates, amounts, clause numbers, links and
a commit hash), then prints the median and worst wall-clock time (``time.perf_counter``) of
``scan(text, kind="file", max_chars=8000)`` over RUNS runs (default 200), and the median CPU time,
after one warm-up run that pays the lazy imports.
"""

from __future__ import annotations

import statistics
import sys
import time

from agentmem.guard import scan

BUDGET = 8000
SECTIONS = ["Writing style", "Priorities & scope", "Recurring patterns", "Rule dependencies"]
ENTRIES = [
    "Keep a collaborative tone with long-standing suppliers.",
    "Do not propose revisions on confidentiality clauses; they are handled separately.",
    "Toujours relire les clauses de garantie avant de valider un contrat de fourniture.",
    "Ne me propose plus de reformulations passives\u00a0: je préfère la voix active.",
    "Écrire les montants en toutes lettres puis en chiffres (12\u202f500\u00a0€).",
    "Use « guillemets » with no-break spaces in French drafts ⚠️ never straight quotes.",
    "The 12-month warranty (24 mois in the playbook) is fine for suppliers older than 2 years.",
    "Cite the clause number first, e.g. clause 14.2, then the page (p. 37 of 112).",
    "Since 2024-01-15 the liability cap is 1.5× the annual fees; flag anything above.",
    "Check the baseline at commit 3f2a9c8e1b7d4a6f0c5e2d9b8a7f6e5d4c3b2a1f before comparing.",
    "Référence interne du dossier\u00a0: 123e4567-e89b-12d3-a456-426614174000.",
    "See https://intranet.example.com/playbook/supply?section=warranty for the template.",
    "Préférer des phrases courtes ; une idée par paragraphe, pas plus de 25 mots.",
    "Always run the tests before pushing; version 2.14.3 of the checker is required.",
    "Quand un fournisseur demande une pénalité plafonnée à 5\u00a0%, proposer 10\u00a0% d'abord.",
    "Summaries go at the top, in three bullet points at most, with the deadline in bold.",
    "Les délais de paiement au-delà de 60 jours sont refusés (article L441-10).",
    "Flag any auto-renewal clause longer than 12 months — tacite reconduction included.",
]


def memory_file() -> str:
    """A valid memory file of exactly BUDGET characters."""
    lines = ["# Memory: alice", ""]
    n = 0
    for section in SECTIONS:
        lines += [f"## {section}"]
        for _ in range(7):
            lines.append(f"- {ENTRIES[n % len(ENTRIES)]}")
            n += 1
        lines.append("")
    text = "\n".join(lines)
    while len(text) < BUDGET:
        text += f"- {ENTRIES[n % len(ENTRIES)]}\n"
        n += 1
    return text[: BUDGET - 1] + "\n"


def main(runs: int = 200) -> None:
    text = memory_file()
    findings = scan(text, kind="file", max_chars=BUDGET)  # warm-up: lazy imports, caches
    times = []
    cpu = []  # process time too: on a busy machine the wall clock also counts other processes
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        scan(text, kind="file", max_chars=BUDGET)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    print(
        f"guard.scan on a {len(text)}-character memory file ({len(findings)} findings): "
        f"median {statistics.median(times):.2f} ms, max {max(times):.2f} ms over {runs} runs "
        f"(CPU median {statistics.median(cpu):.2f} ms)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
