"""Checking many memory and rule files, in parallel on a large repository.

Files are independent (duplicate rule ids and conflicting rules aside, found afterwards), so a repository of
thousands of files is split into chunks checked by forked worker processes, one per CPU. Small
repositories, platforms without ``fork``, and ``AGENTMEM_CHECK_JOBS=1`` stay in one process.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from datetime import date
from pathlib import Path

from agentmem import notices
from agentmem.check import rules, tree
from agentmem.check.findings import Finding
from agentmem.doctrine.conflicts import Profile
from agentmem.store.repo import MEMORY_DIR

PARALLEL_FROM_FILES = 1500  # below this, starting workers costs more than it saves
PROGRESS_FROM_FILES = 2000  # from this many files, progress lines on stderr
_CHUNKS_PER_WORKER = 4
_WARM_UP = 8  # memory files and rule files checked before the workers fork


def jobs() -> int:
    """Worker processes to use: ``$AGENTMEM_CHECK_JOBS``, else the usable CPUs (at most 8)."""
    wanted = os.environ.get("AGENTMEM_CHECK_JOBS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


#: Guard lines found clean in this process during one :func:`check_files` (memory lines, rule
#: field lines): emptied when it starts, so a forked worker starts with the parent's and keeps
#: its own across its chunks (the guard is a pure function of the text).
_CLEAN: tuple[set[str], set[str]] = (set(), set())


Result = tuple[list[Finding], list[tuple[str, str]], list[tuple[str, Profile]]]


def _chunk(memory: list[Path], doctrine: list[Path], state: tree.TreeState, today: date) -> Result:
    found = tree.check_memory_files(memory, state, _CLEAN[0]) if memory else []
    if not doctrine:
        return found, [], []
    rule_findings, ids, profiles = rules.check_rule_files(doctrine, state, today, _CLEAN[1])
    return found + rule_findings, ids, profiles


#: The chunks of the check under way and what they are checked against, set before the workers
#: fork: a worker inherits them and is sent only a chunk's number (no path is pickled).
_TASKS: list[tuple[list[Path], list[Path]]] = []
_AGAINST: list[tuple[tree.TreeState, date]] = []


def _task(number: int) -> Result:
    state, today = _AGAINST[0]
    return _chunk(*_TASKS[number], state, today)


#: Allocations between two collections of the youngest generation while files are checked
#: (Python's default is 700): nearly every object a check makes lives until its end (the
#: parsed files wait for their guard batch, the rule ids and profiles for the cross-file
#: checks), so each collection walked them for nothing; cyclic garbage is still collected.
_GC_THRESHOLD = 50_000


def check_files(root: Path, state: tree.TreeState, today: date) -> tuple[list[Finding], list[str]]:
    """Every memory file and rule file of ``root``; returns the findings and the relative paths
    of the files checked (symlinks and other non-regular entries are findings, not read)."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], _GC_THRESHOLD), *before[1:])
    try:
        return _check_files(root, state, today)
    finally:
        gc.set_threshold(*before)


def _check_files(root: Path, state: tree.TreeState, today: date) -> tuple[list[Finding], list[str]]:
    for clean in _CLEAN:
        clean.clear()
    memory, refused = tree.memory_paths(root)
    doctrine, more = rules.rule_paths(root)
    refused += more
    checked = [f"{MEMORY_DIR}/{p.name}" for p in memory]
    checked += [f"{rules.DOCTRINE_DIR}/{p.name}" for p in doctrine]
    total = len(checked)
    workers = jobs()
    said = total >= PROGRESS_FROM_FILES
    if said:
        notices.progress(f"checking {total:,} files…")
    if workers == 1 or total < PARALLEL_FROM_FILES or not hasattr(os, "fork"):
        serial, serial_ids, serial_profiles = _chunk(memory, doctrine, state, today)
        across = rules.duplicate_ids(serial_ids) + rules.conflict_findings(serial_profiles)
        return refused + serial + across, checked
    parts = workers * _CHUNKS_PER_WORKER
    tree.file_scan_sees_line_ends()  # computed once, inherited by the workers
    # The first files are checked here before forking: what the guard and the parsers build on
    # first use (compiled patterns, word caches) is then built once and inherited, not once per
    # worker.
    findings, ids, profiles = _chunk(memory[:_WARM_UP], doctrine[:_WARM_UP], state, today)
    memory, doctrine = memory[_WARM_UP:], doctrine[_WARM_UP:]
    done = total - len(memory) - len(doctrine)
    # Memory chunks first, rule chunks last: the workers start on memory files, this process on
    # rules, so that most rule ids and profiles (what a rule chunk sends back) are never sent,
    # and each process's guard lines found clean are mostly of one kind (no line read twice).
    tasks: list[tuple[list[Path], list[Path]]]
    tasks = [(memory[i::parts], []) for i in range(parts) if memory[i::parts]]
    tasks += [([], doctrine[i::parts]) for i in range(parts) if doctrine[i::parts]]
    _TASKS[:] = tasks
    _AGAINST[:] = [(state, today)]

    context = multiprocessing.get_context("fork")
    # Objects made so far are left out of the collector's passes (gc.freeze): a worker's
    # collections would walk, and so copy, every page it inherits.
    gc.freeze()
    results: list[Result] = []
    # One worker fewer than CPUs: this process takes chunks from the end of the queue (those no
    # worker has started) while the workers take them from the front.
    try:
        with ProcessPoolExecutor(max_workers=workers - 1, mp_context=context) as pool:
            futures = [pool.submit(_task, i) for i in range(len(tasks))]
            mine: dict[int, Result] = {}
            for i in reversed(range(len(tasks))):
                if not futures[i].cancel():
                    break
                mine[i] = _task(i)
                done += len(tasks[i][0]) + len(tasks[i][1])
                if said:
                    notices.progress(f"checked {done:,} of {total:,} files")
            for i, future in enumerate(futures):
                if i in mine:
                    results.append(mine[i])
                    continue
                results.append(future.result())
                done += len(tasks[i][0]) + len(tasks[i][1])
                if said:
                    notices.progress(f"checked {done:,} of {total:,} files")
    finally:
        _TASKS.clear()
        _AGAINST.clear()
    gc.unfreeze()
    for part_findings, part_ids, part_profiles in results:
        findings += part_findings
        ids += part_ids
        profiles += part_profiles
    across = rules.duplicate_ids(ids) + rules.conflict_findings(profiles)
    return refused + findings + across, checked
