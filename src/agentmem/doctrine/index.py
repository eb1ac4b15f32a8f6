"""The rule index (docs/design.md §Rule index): what audits and the duplicate guard need of every
rule file, kept in ``.agentmem/rules-index.json`` so that a command reads again only the files
that changed.

Derived and local: never committed, deleted by ``erase``, rebuilt when missing, unreadable or of
another format. One row per ``doctrine/<id>.yaml``, keyed by the file's ``lstat``
(size, mtime, ctime, inode — git's own test of a changed work-tree file; ``ctime`` cannot be set
back by a program), holding a :class:`Brief`: id, version, status, scope, whether the approval
still matches the content, review date, ``distinct_from``, the duplicate guard's normalised
title and instruction (:func:`agentmem.doctrine.similar.normalise`, once per file version) and
the title as written (what ``doctrine list`` prints).

The file holds the keys, the rules grouped by scope and the rows on lines of their own, under
a checksum: an audit (:func:`scope_groups`) that finds every key unchanged reads only the
groups. A file whose key differs (or that has no row) is read and parsed — the fast reader
(:func:`agentmem.doctrine.fastread.fast_parse`) when it proves the file canonical, else the strict
parser — and its row replaced. A file changed within :data:`RACY_NS` of the index being written
is not stored (a second change within the same timestamp tick could keep its key): it is parsed
again next time. A broken file is never stored, so every command that needs all rules still
fails on it, as the strict reader does. The rules that a command shows or acts on (an audit's
rules in scope, a duplicate's text) are always parsed from the file itself: the index only
decides which ones those are.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from stat import S_ISREG
from typing import Any, NamedTuple

from agentmem.doctrine.model import (
    DOCTRINE_DIR,
    DoctrineError,
    Rule,
    content_sha256,
)
from agentmem.store import regular

INDEX_FILE = ".agentmem/rules-index.json"
#: Bump when :class:`Brief` or :func:`agentmem.doctrine.similar.normalise` changes: an index of
#: another format is rebuilt.
FORMAT = 3
#: A file changed less than this before the index is written is not stored (see the module
#: docstring): 2 s covers the coarsest common file-system clocks.
RACY_NS = 2_000_000_000


class Brief(NamedTuple):
    """What the index keeps of one rule file. ``approved``: an approval whose
    ``content_sha256`` matches the content; ``title``/``instruction``: normalised
    (:func:`agentmem.doctrine.similar.normalise`); ``label``: the title as written."""

    id: str
    version: int
    status: str
    scope: str | None
    approved: bool
    review_due: str | None
    distinct_from: Sequence[str]
    title: str
    instruction: str
    label: str


def brief_of(rule: Rule) -> Brief:
    """The :class:`Brief` of a parsed rule."""
    # lazy: a listing from an index that is up to date normalises nothing
    from agentmem.doctrine.similar import normalise

    approval = rule.approval
    return Brief(
        rule.id,
        rule.version,
        rule.status,
        rule.scope,
        approval is not None and approval.content_sha256 == content_sha256(rule),
        rule.review_due,
        list(rule.distinct_from),  # as the index stores it
        normalise(rule.title) if rule.title.strip() else "",
        normalise(rule.instruction) if rule.instruction.strip() else "",
        rule.title,
    )


@dataclass
class Briefs:
    """Every rule file as the index sees it: ``briefs`` sorted by id, ``errors`` one per file
    that cannot be read (as :func:`agentmem.doctrine.parse.load_rules_and_errors` gives them),
    ``parsed`` the rules read from their file during this call (by id)."""

    briefs: list[Brief]
    errors: list[DoctrineError]
    parsed: dict[str, Rule] = field(default_factory=dict)

    def raise_first(self) -> None:
        """Raise the first error (what :func:`agentmem.doctrine.parse.load_rules` raises)."""
        if self.errors:
            raise self.errors[0]


def index_path(root: Path) -> Path:
    return root / INDEX_FILE


def purge(root: Path) -> list[str]:
    """Delete the index; returns the relative paths removed (``erase``)."""
    path = index_path(root)
    if path.exists():
        path.unlink()
        return [INDEX_FILE]
    return []


def read_rule(root: Path, rule_id: str) -> Rule:
    """``doctrine/<rule_id>.yaml`` read from the file
    (:func:`agentmem.doctrine.parse.load_rule`: the fast reader when it proves the file
    canonical, else the strict parser). Raises :class:`DoctrineError`."""
    # lazy: a listing from an index that is up to date parses nothing (no YAML reader)
    from agentmem.doctrine.parse import load_rule

    return load_rule(root, rule_id)


def _read(path: Path) -> list[bytes]:
    """The index's three parts (keys, groups, rows: see :func:`_save`) as stored, or ``[]`` when
    it is missing, of another format or damaged. The first line holds the format and the
    SHA-256 of the rest: what passes it is what :func:`_save` wrote, taken without a check of
    each row."""
    try:
        head, _nl, body = path.read_bytes().partition(b"\n")
        meta = json.loads(head)
    except (OSError, ValueError):
        return []
    if (
        not isinstance(meta, dict)
        or meta.get("format") != FORMAT
        or meta.get("sha256") != hashlib.sha256(body).hexdigest()
    ):
        return []
    parts = body.split(b"\n")
    return parts if len(parts) == 3 else []


def _load(path: Path) -> dict[str, list[Any]]:
    """The stored rows ``name → [key, brief]`` (empty: see :func:`_read`)."""
    parts = _read(path)
    if not parts:
        return {}
    try:
        keys, rows = json.loads(parts[0]), json.loads(parts[2])
        return {name: [keys[name], row] for name, row in rows.items()}
    except (ValueError, KeyError, AttributeError, TypeError):
        return {}


def _keys(root: Path) -> tuple[dict[str, list[int]], bool]:
    """Every ``doctrine/*.yaml``'s key, and False when an entry is anything but a regular file
    (the caller then takes the long way, which reports it)."""
    keys: dict[str, list[int]] = {}
    with os.scandir(os.path.join(root, DOCTRINE_DIR)) as entries:
        for entry in entries:
            name = entry.name
            if not name.endswith(".yaml"):
                continue
            st = entry.stat(follow_symlinks=False)
            if not S_ISREG(st.st_mode):
                return keys, False
            keys[name] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
    return keys, True


Group = tuple[str, str, bool]  # (id, status, approved)


def scope_groups(
    root: Path,
) -> tuple[dict[str | None, list[Group]], list[DoctrineError], dict[str, Rule]]:
    """Every rule as ``(id, status, approved)`` grouped by scope, the errors of
    :func:`read_briefs`, and the rules it parsed on the way (by id) — what an audit needs to
    choose the rules it reads, without reading one twice. When no rule file changed since the
    index was written (same names, same keys), the groups stored with it are used as they are,
    without reading a row (nothing parsed); otherwise through :func:`read_briefs`."""
    if regular.problem(root, DOCTRINE_DIR, folder=True) is None:
        parts = _read(index_path(root))
        try:
            keys, regular_only = _keys(root)
            if parts and regular_only and json.loads(parts[0]) == keys:
                groups = json.loads(parts[1])
                return (
                    {
                        (scope or None): [(g[0], g[1], g[2]) for g in found]
                        for scope, found in groups.items()
                    },
                    [],
                    {},
                )
        except (OSError, ValueError, AttributeError, TypeError, IndexError):
            pass
    briefs = read_briefs(root)
    grouped: dict[str | None, list[Group]] = {}
    for b in briefs.briefs:
        grouped.setdefault(b.scope, []).append((b.id, b.status, b.approved))
    return grouped, briefs.errors, briefs.parsed


def read_briefs(root: Path) -> Briefs:
    """Every ``doctrine/*.yaml`` as a :class:`Brief`, from the index where the file has not
    changed, else parsed (and the index updated). Never raises for a bad file: its error is in
    :attr:`Briefs.errors` (the errors of :func:`agentmem.doctrine.parse.load_rules_and_errors`:
    ``doctrine/`` a symlink, an entry that is not a regular file, a name that is not a rule id,
    a file the strict reader refuses); an index that cannot be written is left as it was."""
    found = regular.problem(root, DOCTRINE_DIR, folder=True)
    if found is not None:
        return Briefs([], [DoctrineError(regular.message(found), hint=regular.HINT)])
    path = index_path(root)
    unchanged = _unchanged(root, path)
    if unchanged is not None:
        return Briefs(unchanged, [])
    try:
        entries = os.scandir(os.path.join(root, DOCTRINE_DIR))
    except (FileNotFoundError, NotADirectoryError):
        return Briefs([], [])
    stored = _load(path)
    rows: dict[str, list[Any]] = {}
    briefs: list[Brief] = []
    errors: list[DoctrineError] = []
    parsed: dict[str, Rule] = {}
    changed = False
    racy_after = time.time_ns() - RACY_NS
    make = Brief._make
    with entries:
        for entry in entries:
            name = entry.name
            if not name.endswith(".yaml"):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue  # gone since the listing
            if not S_ISREG(st.st_mode):
                where = f"{DOCTRINE_DIR}/{name}"
                refused = (where, regular.reason(regular.kind(st.st_mode)))
                errors.append(DoctrineError(regular.message(refused), hint=regular.HINT))
                continue
            key = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
            row = stored.get(name)
            if row is not None and row[0] == key:
                rows[name] = row
                briefs.append(make(row[1]))
                continue
            rule_id = name[: -len(".yaml")]
            # lazy: only a file the index does not hold is parsed
            from agentmem.doctrine.parse import is_rule_name

            if not is_rule_name(rule_id):
                errors.append(
                    DoctrineError(
                        f"{DOCTRINE_DIR}/{name}:1: (file): the file name is not a rule id"
                    )
                )
                continue
            try:
                rule = read_rule(root, rule_id)
            except DoctrineError as exc:
                errors.append(exc)
                continue
            parsed[rule_id] = rule
            brief = brief_of(rule)
            briefs.append(brief)
            if max(st.st_mtime_ns, st.st_ctime_ns) < racy_after:
                rows[name] = [key, list(brief)]
                changed = True
    if changed or len(rows) != len(stored):
        _save(path, rows)
    briefs.sort(key=itemgetter(0))  # by id
    errors.sort(key=lambda e: e.message)
    return Briefs(briefs, errors, parsed)


def _unchanged(root: Path, path: Path) -> list[Brief] | None:
    """Every brief, sorted by id, when every ``doctrine/*.yaml`` is a regular file whose key is
    the one stored (what the loop of :func:`read_briefs` would find row by row: every row taken
    as stored, nothing parsed, no error, nothing to save); None otherwise."""
    parts = _read(path)
    if not parts:
        return None
    try:
        keys, regular_only = _keys(root)
        if not regular_only or json.loads(parts[0]) != keys:
            return None
        rows = json.loads(parts[2])
        if len(rows) != len(keys):
            return None  # a row without a key: _load drops them all (every file parsed)
        make = Brief._make
        briefs = [make(rows[name]) for name in keys]
    except (OSError, ValueError, KeyError, AttributeError, TypeError):
        return None
    briefs.sort(key=itemgetter(0))  # by id
    return briefs


def _save(path: Path, rows: dict[str, list[Any]]) -> None:
    """Write the index (temporary file, then ``os.replace``: a reader sees the old or the new
    one); no fsync: a lost index is rebuilt. Failures are ignored: the index is a speed-up.

    Four lines: the format and SHA-256 of the rest; every file's key (``name → key``); the
    rules grouped by scope (``scope → [[id, status, approved], …]``, ``""`` for none: what an
    audit reads when nothing changed); every file's brief (``name → brief``)."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(exist_ok=True)
        groups: dict[str, list[list[Any]]] = {}
        for _key, brief in rows.values():
            groups.setdefault(brief[3] or "", []).append([brief[0], brief[2], brief[4]])

        def dump(data: Any) -> bytes:
            return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

        keys = {name: row[0] for name, row in rows.items()}
        body = b"\n".join([dump(keys), dump(groups), dump({n: r[1] for n, r in rows.items()})])
        head = json.dumps({"format": FORMAT, "sha256": hashlib.sha256(body).hexdigest()})
        tmp.write_bytes(head.encode("ascii") + b"\n" + body)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def rules_of(root: Path, briefs: Briefs, ids: Iterable[str]) -> list[Rule]:
    """The rules ``ids`` read from their files (those read by :func:`read_briefs` already are not
    read twice). Raises :class:`DoctrineError` when one cannot be read any more."""
    return [briefs.parsed.get(i) or read_rule(root, i) for i in ids]
