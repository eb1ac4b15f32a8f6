"""Generate a large memory repository for ``benchmarks/bench_check.py``.

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/gen_large_repo.py DEST [--rules 10000] [--memories 1000] [--commits 5000]

Builds, with ONE ``git fast-import`` stream (seconds, not minutes), a repository whose history
an agentmem team could have made, every commit carrying the trailers of docs/design/governance.md §Trailers:

- commit 1: ``agentmem.yaml`` and ``roles.yaml`` (one person per memory file; one in fifty is
  an admin, the others members);
- one commit per memory file, by its owner, creating it; then memory edits by their owners;
- proposal commits by members, each adding a batch of draft rules (English and French prose,
  scopes over a small tree such as ``contracts/supply``);
- approval commits, one rule each, by an admin who did not propose it (correct
  ``content_sha256``), so that a fifth of the rules end active.

The working tree is checked out at the end, so ``agentmem check`` sees every file. The result is
deterministic (seeded); ``check`` and ``check --history`` on it are clean.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from agentmem.config import DEFAULT_CONFIG_TEXT, DEFAULT_SECTIONS
from agentmem.doctrine.fastread import fast_canonical_text
from agentmem.doctrine.model import Approval, Rule, content_sha256
from agentmem.doctrine.render import canonical_text

SUBJECTS = [
    "warranty",
    "payment terms",
    "liability cap",
    "confidentiality",
    "termination notice",
    "price revision",
    "delivery penalties",
    "audit rights",
    "subcontracting",
    "insurance",
]
SUBJECTS_FR = [
    "la garantie",
    "les délais de paiement",
    "le plafond de responsabilité",
    "la confidentialité",
    "le préavis de résiliation",
    "la révision des prix",
]
SCOPES = [
    "contracts",
    "contracts/supply",
    "contracts/lease",
    "contracts/services",
    "contracts/supply/food",
    "procurement",
    "procurement/it",
    "hr/policies",
]
VERBS = ["Accept", "Refuse", "Flag", "Ask for", "Propose", "Check"]
NEGATIVE_VERBS = frozenset({"Refuse"})
#: FIGURES: a team's doctrine is consistent, so the generated one is too (``check`` finds no
#: ``doctrine-conflict``): the figures of an instruction follow from its subject, so rules on one
#: subject set the same value (another value would be a conflict), and a refusal's figure is
#: never its acceptance's (the same figure, refused and accepted, would be the opposite).
ENTRIES = [
    "Keep a collaborative tone with long-standing suppliers.",
    "Do not propose revisions on confidentiality clauses; they are handled separately.",
    "Toujours relire les clauses de garantie avant de valider un contrat de fourniture.",
    "Ne me propose plus de reformulations passives : je préfère la voix active.",
    "Cite the clause number first, then the page of the contract.",
    "Summaries go at the top, in three bullet points at most, with the deadline in bold.",
    "Les délais de paiement au-delà de 60 jours sont refusés sauf accord de la direction.",
    "Flag any auto-renewal clause longer than 12 months, tacit renewal included.",
    "Préférer des phrases courtes ; une idée par paragraphe, pas plus de 25 mots.",
    "Write amounts in words then in figures in French drafts.",
]  # fmt: skip


@dataclass
class Person:
    id: str
    email: str
    role: str


@dataclass
class Stream:
    """A ``git fast-import`` stream being written, with a clock for commit dates."""

    parts: list[bytes] = field(default_factory=list)
    mark: int = 0
    clock: int = 1_790_000_000

    def commit(
        self, person: Person, subject: str, trailers: list[tuple[str, str]], files: dict[str, str]
    ) -> None:
        self.mark += 1
        self.clock += 60
        message = subject + "\n\n" + "".join(f"{k}: {v}\n" for k, v in trailers)
        head = [
            "commit refs/heads/main",
            f"mark :{self.mark}",
            f"author {person.id.title()} <{person.email}> {self.clock} +0000",
            f"committer {person.id.title()} <{person.email}> {self.clock} +0000",
        ]
        out = ("\n".join(head) + "\n").encode()
        data = message.encode()
        out += b"data %d\n" % len(data) + data + b"\n"
        if self.mark > 1:
            out += f"from :{self.mark - 1}\n".encode()
        for path, text in files.items():
            blob = text.encode()
            out += f"M 100644 inline {path}\n".encode() + b"data %d\n" % len(blob) + blob + b"\n"
        self.parts.append(out + b"\n")


def trailers(action: str, person: Person, **extra: str) -> list[tuple[str, str]]:
    found = [("Agentmem-Action", action), ("Agentmem-Actor", f"{person.id} <{person.email}>"),
             ("Agentmem-Role", person.role)]  # fmt: skip
    return found + [(f"Agentmem-{k.title()}", v) for k, v in extra.items()]


def rule_text(rule: Rule) -> str:
    """The canonical text (the fast renderer when it applies: ruamel takes ms a rule)."""
    return fast_canonical_text(rule) or canonical_text(rule)


def make_rule(rng: random.Random, number: int, proposer: Person) -> Rule:
    if rng.random() < 0.3:
        topic = rng.randrange(len(SUBJECTS_FR))
        subject = SUBJECTS_FR[topic]
        title = f"Règle {number} sur {subject}"
        instruction = f"Accepter {subject} à {12 + 2 * topic} mois lorsque le fournisseur est référencé depuis {2 + topic} ans."
        limits = (f"Pas pour les contrats de plus de {rng.randint(50, 900)} 000 euros.",)
    else:
        topic = rng.randrange(len(SUBJECTS))
        subject = SUBJECTS[topic]
        verb = rng.choice(VERBS)
        title = f"Rule {number} on {subject}"
        months = 12 + 2 * topic + (verb in NEGATIVE_VERBS)  # see FIGURES
        instruction = f"{verb} {subject} of {months} months on these contracts although the playbook asks for {30 + topic}."
        limits = tuple(
            f"Not when the counterparty has traded with us for less than {rng.randint(1, 5)} years, case {i}."
            for i in range(rng.randint(1, 3))
        )
    return Rule(
        id=f"rule-{number:05d}", title=title, status="draft", scope=rng.choice(SCOPES),
        instruction=instruction, limits=limits,
        justification=f"Settled across {rng.randint(2, 12)} audits of comparable contracts.",
        version=1, proposed_by=proposer.id, proposed_at="2026-11-29T10:02:00Z",
        origin_session=f"s-{number:05d}", distinct_from=(), approval=None, review_due=None,
        path=f"doctrine/rule-{number:05d}.yaml",
    )  # fmt: skip


def memory_text(rng: random.Random, person: Person, entries: int) -> str:
    lines = [f"# Memory: {person.id}\n"]
    per = [0] * len(DEFAULT_SECTIONS)
    for _ in range(entries):
        per[rng.randrange(len(per))] += 1
    for section, count in zip(DEFAULT_SECTIONS, per, strict=True):
        lines.append(f"\n## {section}\n")
        for _ in range(count):
            lines.append(f"- {rng.choice(ENTRIES)} (#{rng.randint(1, 999)})\n")
    return "".join(lines)


def generate(dest: Path, rules: int, memories: int, commits: int, seed: int = 5) -> None:
    rng = random.Random(seed)
    people = [
        Person(f"p{i:04d}", f"p{i:04d}@team.example", "admin" if i % 50 == 0 else "member")
        for i in range(memories)
    ]
    admins = [p for p in people if p.role == "admin"]
    members = [p for p in people if p.role == "member"]
    stream = Stream()
    roles = "".join(f"{p.id}:\n  email: {p.email}\n  role: {p.role}\n" for p in people)
    stream.commit(admins[0], "agentmem: initialise memory repository", [("Agentmem-Action", "init")],
                  {"agentmem.yaml": DEFAULT_CONFIG_TEXT, "roles.yaml": roles, "inbox/.gitkeep": ""})  # fmt: skip
    active_target = rules // 5
    batch = 10
    propose_commits = -(-rules // batch)
    memory_edits = max(0, commits - 1 - memories - propose_commits - active_target)
    drafts: list[Rule] = []
    for person in people:
        text = memory_text(rng, person, rng.randint(10, 45))
        stream.commit(person, f'memory({person.id}): add to "Writing style"', trailers("add", person, Route="memory"),
                      {f"memories/{person.id}.md": text})  # fmt: skip
    number = 0
    plan = ["propose"] * propose_commits + ["approve"] * active_target + ["edit"] * memory_edits
    rng.shuffle(plan)
    plan.sort(key=lambda kind: kind == "approve")  # approvals after the proposals they need
    for kind in plan:
        if kind == "propose":
            proposer = rng.choice(members)
            files = {}
            for _ in range(min(batch, rules - number)):
                rule = make_rule(rng, number, proposer)
                drafts.append(rule)
                files[rule.path] = rule_text(rule)
                number += 1
            stream.commit(
                proposer,
                f"doctrine: propose {len(files)} rules",
                trailers("propose", proposer, Route="doctrine"),
                files,
            )
        elif kind == "approve":
            rule = drafts.pop(rng.randrange(len(drafts)))
            admin = rng.choice([a for a in admins if a.id != rule.proposed_by])
            approval = Approval(
                admin.id, "2026-11-30T08:00:00Z", rule.version, content_sha256(rule)
            )
            active = rule.with_changes(status="active", approval=approval, review_due="2099-02-28")
            stream.commit(
                admin,
                f"doctrine({rule.id}): approve",
                trailers("approve", admin, Rule=rule.id, Version=str(rule.version)),
                {rule.path: rule_text(active)},
            )
        else:
            person = rng.choice(people)
            text = memory_text(rng, person, rng.randint(10, 60))
            stream.commit(person, f"memory({person.id}): edit by hand", trailers("edit", person, Route="memory"),
                          {f"memories/{person.id}.md": text})  # fmt: skip
    dest.mkdir(parents=True, exist_ok=False)
    subprocess.run(["git", "init", "-q", "-b", "main", str(dest)], check=True)
    subprocess.run(
        ["git", "-C", str(dest), "fast-import", "--quiet"], input=b"".join(stream.parts), check=True
    )
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", "-f", "main"], check=True)
    (dest / ".gitignore").write_text(".agentmem/\n", encoding="utf-8")
    print(
        f"{dest}: {number} rules ({active_target} active), {len(people)} memory files, {stream.mark} commits"
    )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--rules", type=int, default=10_000)
    parser.add_argument("--memories", type=int, default=1_000)
    parser.add_argument("--commits", type=int, default=5_000)
    args = parser.parse_args(argv)
    generate(args.dest, args.rules, args.memories, args.commits)


if __name__ == "__main__":
    main(sys.argv[1:])
