"""Benchmark: ``agentmem search`` and ``agentmem tidy`` against floors measured side by side.

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_search.py [REPO] [--runs N]

REPO is a large repository made by ``benchmarks/gen_large_repo.py`` (1,000 people, 10,000
rules, 5,000 commits; generated into a temporary folder when omitted, about a minute). It is
cloned first (``git clone --shared``): the benchmark commits in its copy, never in REPO.
Each pair runs interleaved (ours, floor, ours, floor…) and prints medians, min–max and the
ratio of the medians:

- search: ``agentmem.search.search`` (HEAD check, index open, query, hits) vs ``sqlite3``
  opening the built index and running the very statement it runs (target ≤ 1.5×);
- update after one new commit (a memory file and a rule changed): ``open_index`` bringing the
  index from the parent to HEAD vs ``git diff-tree`` of that commit and reading its changed files
  once (target ≤ 2×);
- full build: ``index.build`` vs a loop that lists and reads every watched file once and reads
  every commit message once (one ``git log``) — the same inputs, without indexing them
  (target ≤ 1.5×); wall and CPU (every thread and git process: the build indexes one batch
  while it reads the next, which only a second idle core turns into wall time), then the CPU
  of each part alone (the files, the ``git log``, the documents, FTS5 storing and indexing);
- tidy on one full 8,000-character memory file (about 100 entries, some duplicates and dead
  links): ``run_tidy`` in process and ``agentmem tidy`` as a command (target ≤ 1 s).
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUERIES = ["warranty", "garantie", '"payment terms"', "confidential*", "préavis OR audit"]


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    ).stdout


def _stats(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:8.1f} ms ({min(values) * 1000:.1f}–{max(values) * 1000:.1f})"


def _cpu() -> float:
    """CPU seconds (user + system) of this process (every thread) and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _pair(
    ours: Callable[[], object],
    floor: Callable[[], object],
    runs: int,
    before: Callable[[], object] | None = None,
    cpu: dict[str, list[float]] | None = None,
) -> tuple[list[float], list[float]]:
    """Wall times of ``ours`` and ``floor`` run interleaved; with ``cpu``, their CPU times too
    (``cpu["ours"]``, ``cpu["floor"]``: steadier than wall on a loaded machine)."""
    mine: list[float] = []
    base: list[float] = []
    for n in range(runs):
        for which in ((ours, mine), (floor, base)) if n % 2 == 0 else ((floor, base), (ours, mine)):
            if before is not None and which[0] is ours:
                before()
            used = _cpu()
            start = time.perf_counter()
            which[0]()
            which[1].append(time.perf_counter() - start)
            if cpu is not None:
                cpu.setdefault("ours" if which[0] is ours else "floor", []).append(_cpu() - used)
    return mine, base


def _row(name: str, mine: list[float], base: list[float], target: str) -> None:
    ratio = statistics.median(mine) / statistics.median(base)
    print(f"{name:34s} ours {_stats(mine)}  floor {_stats(base)}  {ratio:5.2f}x  (target {target})")


def bench_search(root: Path, runs: int) -> None:
    from agentmem.search.index import index_path, open_index
    from agentmem.search.query import KINDS, _sql
    from agentmem.search.query import search as run_search
    from agentmem.store.repo import open_repository

    open_index(root).conn.close()
    repo = open_repository(root)
    actor = repo.actor()
    ratios: list[float] = []
    for query in QUERIES:
        sql, params = _sql(query, KINDS, actor.id, actor.role == "admin", None, None, 20)

        def raw(s: str = sql, p: list[object] = params) -> None:
            conn = sqlite3.connect(index_path(root))
            conn.execute(s, p).fetchall()
            conn.close()

        mine, base = _pair(lambda q=query: run_search(repo, actor, q, limit=20), raw, runs)
        _row(f"search {query!r}", mine, base, "≤ 1.5×")
        ratios.append(statistics.median(mine) / statistics.median(base))
    print(f"{'search, median of the ratios':34s} {statistics.median(ratios):.2f}x  (target ≤ 1.5×)")


def bench_update(root: Path, runs: int) -> None:
    from agentmem.search.index import open_index, read_files

    open_index(root).conn.close()
    memories = sorted(os.listdir(root / "memories"))
    rules = sorted(os.listdir(root / "doctrine"))
    counter = [0]

    def commit() -> None:
        n = counter[0] = counter[0] + 1
        memory = root / "memories" / memories[n]
        memory.write_text(
            memory.read_text(encoding="utf-8").replace(
                "## Writing style\n", f"## Writing style\n- Bench entry {n} on tacit renewals.\n", 1
            ),
            encoding="utf-8",
        )
        rule = root / "doctrine" / rules[n]
        rule.write_text(
            rule.read_text(encoding="utf-8").replace(
                "justification: ", f"justification: Bench {n}. ", 1
            ),
            encoding="utf-8",
        )
        _git(root, "commit", "-qam", f"memory({memories[n][:-3]}): bench {n}",
             "--trailer", "Agentmem-Action: edit")  # fmt: skip

    def floor() -> None:
        changed = subprocess.run(
            ["git", "-C", str(root), "diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD~1", "HEAD"],
            check=True, capture_output=True, text=True,
        ).stdout.split()  # fmt: skip
        read_files(root, changed)

    mine, base = _pair(lambda: open_index(root).conn.close(), floor, runs, before=commit)
    _row("update after one commit", mine, base, "≤ 2×")


def bench_build(root: Path, runs: int) -> None:
    from agentmem.search.index import _LOG_FORMAT, build, head_commit, read_files, work_tree_files

    head = head_commit(root)

    def floor() -> None:
        read_files(root, work_tree_files(root))
        subprocess.run(
            ["git", "-C", str(root), "log", f"--format={_LOG_FORMAT}", head or "HEAD"],
            check=True, capture_output=True,
        )  # fmt: skip

    cpu: dict[str, list[float]] = {}
    mine, base = _pair(lambda: build(root, head), floor, runs, cpu=cpu)
    _row("full build", mine, base, "≤ 1.5×")
    ratio = statistics.median(cpu["ours"]) / statistics.median(cpu["floor"])
    print(f"{'  full build, CPU (all threads, git)':34s} ours {_stats(cpu['ours'])}  "
          f"floor {_stats(cpu['floor'])}  {ratio:5.2f}x")  # fmt: skip
    _build_parts(root, head, runs)


def _build_parts(root: Path, head: str | None, runs: int) -> None:
    """Where a build's CPU goes, each part alone in one thread (medians): what the floor also
    does (the files, the ``git log``) and what it does not (documents, FTS5)."""
    from agentmem.search import index

    parts: dict[str, list[float]] = {}
    for _ in range(runs):
        used = _cpu()
        texts = index.read_files(root, index.work_tree_files(root))
        parts.setdefault("files listed and read", []).append(_cpu() - used)
        used = _cpu()
        commits = index._log(root, [head], raw=False) if head else []
        parts.setdefault("git log, parsed", []).append(_cpu() - used)
        used = _cpu()
        docs = [doc for rel, text in texts.items() for doc in index.file_docs(root, rel, text)]
        current = {d.path: d.version for d in docs if d.kind == "doctrine"}
        docs += [*index.commit_docs(commits), *index.version_docs(root, commits, current)]
        parts.setdefault("documents", []).append(_cpu() - used)
        with tempfile.TemporaryDirectory(prefix="bench-fts5-") as tmp:
            conn = sqlite3.connect(Path(tmp) / "x.sqlite", isolation_level=None)
            conn.execute("PRAGMA journal_mode = OFF")
            conn.execute("PRAGMA synchronous = OFF")
            index._create(conn)
            used = _cpu()
            conn.execute("BEGIN")
            index._insert(conn, docs)
            conn.execute("COMMIT")
            parts.setdefault("FTS5 stores and indexes them", []).append(_cpu() - used)
            conn.close()
    shown = " · ".join(f"{name} {statistics.median(v) * 1000:.0f} ms" for name, v in parts.items())
    print(f"{'  full build, CPU by part':34s} {shown} (one thread each)")


def _full_memory(person: str) -> str:
    """A memory file just under 8,000 characters: distinct entries over the four sections, two
    near-duplicates, one contradiction and one entry naming a missing file."""
    import random

    rng = random.Random(15)
    verbs = ["Flag", "Quote", "Check", "Summarise", "Refuse", "Underline", "Translate", "Compare"]
    things = [
        "warranty clauses",
        "payment terms",
        "liability caps",
        "termination notices",
        "price revisions",
        "audit rights",
        "insurance certificates",
        "subcontracting",
        "delivery penalties",
        "confidentiality periods",
        "governing law",
        "annexes",
    ]
    where = [
        "in supply contracts",
        "for long-standing suppliers",
        "before the summary",
        "in French drafts",
        "when the buyer asks",
        "for public bodies",
        "in leases",
        "in the cover note",
        "at the first reading",
        "with the clause number",
    ]
    how = [
        "in bold",
        "as a bullet",
        "with the page",
        "in one sentence",
        "before anything else",
        "with the deadline",
        "in a table",
        "with a short reason",
    ]
    entries = [
        "Keep a collaborative tone with long-standing suppliers.",
        "Keep a collaborative tone with our long-standing suppliers, always.",
        "Always cite the clause number first.",
        "Never cite the clause number first.",
        "Use the checklist in docs/review-checklist.md before a supply review.",
    ]
    seen = set()
    while len(entries) < 200:
        entry = f"{rng.choice(verbs)} {rng.choice(things)} {rng.choice(where)}, {rng.choice(how)}."
        if entry not in seen:
            seen.add(entry)
            entries.append(entry)
    sections = ["Writing style", "Priorities & scope", "Recurring patterns", "Rule dependencies"]
    parts = [f"# Memory: {person}\n"]
    for index, section in enumerate(sections):
        parts.append(f"\n## {section}\n")
        while entries and len("".join(parts)) < 7950 * (index + 1) // len(sections):
            parts.append(f"- {entries.pop(0)}\n")
    return "".join(parts)


def bench_tidy(runs: int) -> None:
    from agentmem.memory.file import char_count
    from agentmem.store.init import init_repository
    from agentmem.store.repo import open_repository
    from agentmem.tidy.hygiene import run_tidy

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mem"
        init_repository(root)
        person = _git(root, "config", "user.email").strip().split("@")[0]
        person = "".join(c if c.isalnum() else "-" for c in person.lower()).strip("-")
        text = _full_memory(person)
        (root / "memories" / f"{person}.md").write_text(text, encoding="utf-8")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"memory({person}): full")
        repo = open_repository(root)
        actor = repo.actor()
        report = run_tidy(repo, actor)
        inproc = []
        for _ in range(runs):
            start = time.perf_counter()
            with repo.locked():
                run_tidy(repo, actor)
            inproc.append(time.perf_counter() - start)
        command: list[float] = []
        baseline: list[float] = []
        env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
        for _ in range(max(3, runs // 2)):
            for args, times in ((["tidy"], command), (["--version"], baseline)):
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "agentmem", *args], cwd=root, env=env,
                               capture_output=True, check=False)  # fmt: skip
                times.append(time.perf_counter() - start)
        size = char_count(text)
        print(
            f"{'tidy, ' + str(size) + '-character memory':34s} in process {_stats(inproc)}; "
            f"command {_stats(command)}  (target ≤ 1 s; {len(report.findings)} findings, "
            f"{len(report.proposals)} proposals)"
        )
        print(f"{'  agentmem --version (start-up)':34s} {_stats(baseline)}")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path, nargs="?")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        source = args.repo
        if source is None:
            sys.path.insert(0, str(HERE))
            from gen_large_repo import generate

            source = Path(tmp) / "large"
            generate(source, 10_000, 1_000, 5_000)
        root = Path(tmp) / "copy"
        subprocess.run(["git", "clone", "-q", "--shared", str(source), str(root)], check=True)
        email = _git(root, "log", "-1", "--format=%ae", "--", "memories").strip()
        _git(root, "config", "user.email", email)
        _git(root, "config", "user.name", "Bench")
        print(f"{root}: {len(os.listdir(root / 'doctrine'))} rules, "
              f"{len(os.listdir(root / 'memories'))} memory files, "
              f"{_git(root, 'rev-list', '--count', 'HEAD').strip()} commits")  # fmt: skip
        bench_build(root, max(5, args.runs // 2))
        bench_search(root, args.runs)
        bench_update(root, args.runs)
    bench_tidy(args.runs)


if __name__ == "__main__":
    main(sys.argv[1:])
