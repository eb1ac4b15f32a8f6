"""``agentmem stats`` (docs/design/overview.md §Commands): figures per person and for the team, with a
small per-week chart."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from agentmem.cli import output
from agentmem.cli.common import FormatOption, repository
from agentmem.cli.output import Format

if TYPE_CHECKING:
    from agentmem.tidy.stats import Figures, Stats

app = typer.Typer()

BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[int]) -> str:
    """One character a week: ``·`` for none, else a bar scaled to the largest week."""
    top = max(values, default=0)
    if top <= 0:
        return "·" * len(values)
    return "".join(
        "·" if v <= 0 else BARS[min(len(BARS) - 1, (v * len(BARS) - 1) // top)] for v in values
    )


@app.command(short_help="Figures per person and for the team, week by week.")
def stats(
    person: Annotated[
        str | None,
        typer.Option(
            "--person",
            "-p",
            help="Only this person's figures (yours; anyone's for an admin), with the team's.",
            show_default=False,
        ),
    ] = None,
    fmt: FormatOption = Format.text,
) -> None:
    """What the memory holds and what happened to it: entries by basis and age, fill levels,
    proposals accepted, edited, rejected and refused by the guard, conflicts, entries expired,
    reconfirmed and corrected, erasures, doctrine applied and not (usage log), and a per-week
    chart. Your own figures and the team's totals; an admin sees everyone's. Read only.

    Examples:

    \b
      agentmem stats
      agentmem stats --person claire --format json
    """
    from agentmem.doctrine.model import today
    from agentmem.tidy.stats import collect

    repo = repository()
    found = collect(repo, repo.actor(), person, today())
    if fmt is Format.json:
        output.as_json(found.to_dict())
        return
    _table(found)
    _trend(found)
    for note in found.notes:
        output.info(output.esc(note))
    if found.hidden:
        output.info(
            f"{found.hidden} other person(s) are in the team totals only (an admin sees each)"
        )


def _rows(f: Figures) -> list[tuple[str, str]]:
    from agentmem.tidy.stats import AGES

    fill = f.fill
    if "files" in fill:
        fill_text = (
            f"{fill['mean_ratio']:.0%} mean of {fill['files']}; {fill['warning']} warn, "
            f"{fill['over']} over"
        )
    elif fill:
        fill_text = f"{fill['ratio']:.0%} ({fill['used']}/{fill['budget']})"
    else:
        fill_text = "no file"
    rows = [
        ("entries", str(f.entries)),
        *((f"  {b}", str(f.basis.get(b, 0))) for b in ("declared", "inferred", "unrecorded")),
        *((f"  {a}", str(f.age.get(a, 0))) for a in AGES),
        ("  expired now", str(f.expired)),
        ("  review due now", str(f.review_due)),
        ("fill", fill_text),
        ("proposals accepted as proposed", str(f.accepted)),
        ("  accepted after an edit", str(f.edited)),
        ("  rejected", str(f.rejected)),
        ("  refused by the guard", str(sum(f.refused.values()))),
        *((f"    {r}", str(n)) for r, n in sorted(f.refused.items())),
        ("  refused otherwise", str(f.invalid)),
        ("conflicts flagged", str(f.conflicts)),
        ("  pending proposals flagged", str(f.pending_flagged)),
        ("  doctrine rules in conflict", str(f.rule_conflicts) if "files" in f.fill else "-"),
        ("conflicts resolved", "unknown"),
        ("entries reconfirmed", str(f.reconfirmed)),
        ("entries corrected", str(f.corrected)),
        ("erasures", str(f.erasures)),
        ("doctrine audits", str(f.audits)),
        ("  rules applied", str(f.rules_applied)),
        ("  rules not applied", str(sum(f.rules_not_applied.values()))),
        *((f"    {r}", str(n)) for r, n in sorted(f.rules_not_applied.items())),
        ("chat blocks", str(f.chats)),
    ]
    return rows


def _table(found: Stats) -> None:
    from rich.table import Table

    columns = [("team", found.team), *found.people.items()]
    rendered = [dict(_rows(f)) for _name, f in columns]
    labels: list[str] = []
    for _name, f in columns:
        for label, _value in _rows(f):
            if label not in labels:
                labels.append(label)
    table = Table(box=None, title=f"agentmem stats, {found.date}", title_justify="left")
    table.add_column("")
    for name, _f in columns:
        table.add_column(output.esc(name), justify="right")
    for label in labels:
        table.add_row(output.esc(label), *(output.esc(r.get(label, "0")) for r in rendered))
    output.table(table)


def _trend(found: Stats) -> None:
    from rich.table import Table

    weeks = found.weeks
    table = Table(
        box=None,
        title=f"per week, {weeks[0]} to {weeks[-1]} (Mondays; the last is this week)",
        title_justify="left",
    )
    table.add_column("")
    table.add_column("")
    table.add_column("weekly counts")
    table.add_column("total", justify="right")
    for name, f in [("team", found.team), *found.people.items()]:
        for series, values in f.trend.items():
            table.add_row(
                output.esc(f"{name} {series}"),
                sparkline(values),
                " ".join(str(v) for v in values),
                str(sum(values)),
            )
    output.table(table)
