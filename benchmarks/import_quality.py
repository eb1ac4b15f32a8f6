"""How well ``agentmem import`` picks what a person would keep.

Scores the import's items (:func:`agentmem.harvest.instructions.items`, what a dry run lists)
on the real instruction files of ``tests/data/imports`` against the expectations written by hand
in ``tests/data/imports/expected.yaml`` before the filters were tuned
(``tests/helpers/imports.py`` scores):

- precision: proposals that hold the words of an item to keep, among the proposals that hold
  words to keep or hold no expected words at all (those holding only optional words count
  neither way);
- recall: items to keep whose words some proposal holds;
- skipped: items that must not be proposed and were not (and, with the expected reason).

Run: ``PYTHONPATH=src python benchmarks/import_quality.py [--verbose]``. Exit 1 when precision
or recall is under the floor (``tests/harvest/test_imports.py`` holds the same floor).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.helpers.imports import FLOOR, expectations, score_file, totals  # noqa: E402


def pct(num: int, den: int) -> str:
    return f"{num / den:6.1%}" if den else "    —"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verbose", action="store_true", help="list misses and wrong proposals")
    args = parser.parse_args(argv)
    scores = [score_file(name, spec) for name, spec in expectations().items()]
    print(
        f"{'file':36} {'proposed':>8} {'precision':>9} {'recall':>7} {'skipped':>8} "
        f"{'reason':>7}  skipped by reason"
    )
    for s in scores:
        judged = s.right + len(s.wrong)
        reasons = ", ".join(f"{n} {r}" for r, n in s.reasons.items())
        print(
            f"{s.name:36} {s.proposals:8} {pct(s.right, judged):>9} {pct(s.found, s.keep):>7} "
            f"{pct(s.skipped, s.skip):>8} {pct(s.skipped_as_said, s.skip):>7}  {reasons}"
        )
        if args.verbose:
            for line in s.wrong:
                print(f"    wrong   {line}")
            for words in s.missed:
                print(f"    missed  {words}")
            for line in s.leaked:
                print(f"    leaked  {line}")
    precision, recall, skipped, said = totals(scores)
    print(
        f"{'all files':36} {sum(s.proposals for s in scores):8} {precision:9.1%} {recall:7.1%} "
        f"{skipped:8.1%} {said:7.1%}"
    )
    ok = precision >= FLOOR and recall >= FLOOR
    print(f"floor {FLOOR:.0%} on precision and recall: {'met' if ok else 'NOT MET'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
