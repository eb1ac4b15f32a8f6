"""Benchmark: what building the value classes costs at import, in the forms they could take:
``agentmem.frozen.Frozen`` subclasses (what the settings, the repository, memory entries and
the chat context use), ``typing.NamedTuple``, and ``@dataclass(frozen=True, slots=True)``
(docs/decisions/0082).

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_value_classes.py [RUNS]

Each run is a fresh interpreter that builds 16 classes of 5 fields (about what ``memory show``
and the SessionStart hook build) in one form; for the dataclass, importing ``dataclasses``
(which loads ``inspect``) is timed apart. Prints the median and min–max of RUNS (default 5), in
milliseconds.
"""

from __future__ import annotations

import statistics
import subprocess
import sys

CLASSES, FIELDS = 16, ("a", "b", "c", "d", "e")

SCRIPT = f"""
import sys, time
from typing import NamedTuple
from agentmem.frozen import Frozen
form = sys.argv[1]
fields = {FIELDS!r}
imported = 0.0
if form == "dataclass":
    t = time.perf_counter()
    import dataclasses
    imported = time.perf_counter() - t
t = time.perf_counter()
for i in range({CLASSES}):
    if form == "namedtuple":
        NamedTuple(f"C{{i}}", [(f, str) for f in fields])
    elif form == "dataclass":
        dataclasses.make_dataclass(
            f"C{{i}}", [(f, str) for f in fields], frozen=True, slots=True
        )
    else:
        def __init__(self, a, b, c, d, e):
            self._set(a=a, b=b, c=c, d=d, e=e)
        type(f"C{{i}}", (Frozen,), {{"_fields": fields, "__init__": __init__}})
print((time.perf_counter() - t) * 1000, imported * 1000)
"""


def _run(form: str) -> tuple[float, float]:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, form], capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    for form in ("frozen", "namedtuple", "dataclass"):
        built, imported = zip(*(_run(form) for _ in range(runs)), strict=True)
        line = (
            f"{form:<11} {CLASSES} classes: median {statistics.median(built):.2f} ms "
            f"({min(built):.2f}-{max(built):.2f})"
        )
        if form == "dataclass":
            line += f", import dataclasses {statistics.median(imported):.2f} ms"
        print(line)


if __name__ == "__main__":
    main()
