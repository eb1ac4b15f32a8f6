"""The rule index (docs/design/search.md §Rule index): what audits and the duplicate guard need of every
rule file, kept in ``.agentmem/rules-index.json`` so that a command reads again only the files
that changed.

Derived and local: never committed, deleted by ``erase``, rebuilt when missing, unreadable or of
another format. One row per ``doctrine/<id>.yaml``, keyed by the file's ``lstat``
(size, mtime, ctime, inode — git's own test of a changed work-tree file; ``ctime`` cannot be set
back by a program), holding a :class:`Brief`: id, version, status, scope, whether the approval
still matches the content, review date, ``distinct_from``, the duplicate guard's normalised
title and instruction (:func:`agentmem.doctrine.similar.normalise`, once per file version) and
the title as written (what ``doctrine list`` prints).

The file holds the keys, the rules grouped by scope (per scope, counts by status and approval,
and ids) and the rows on lines of their own, under two checksums (keys and groups; rows): an
audit (:func:`scope_groups`) that finds every key unchanged reads only the groups, and counts
the rules outside its scope without a step per rule. A file whose key differs (or that has no row) is read and parsed — the fast reader
(:func:`agentmem.doctrine.fastread.fast_parse`) when it proves the file canonical, else the strict
parser — and its row replaced. A file changed within :data:`RACY_NS` of the index being written
is not stored (a second change within the same timestamp tick could keep its key): it is parsed
again next time. A broken file is never stored, so every command that needs all rules still
fails on it, as the strict reader does. The rules that a command shows or acts on (an audit's
rules in scope, a duplicate's text) are always parsed from the file itself: the index only
decides which ones those are.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from stat import S_ISREG
from typing import Any, NamedTuple, Protocol

from agentmem import notices
from agentmem.doctrine.model import (
    DOCTRINE_DIR,
    DoctrineError,
    Rule,
    content_sha256,
)
from agentmem.store import regular

INDEX_FILE = ".agentmem/rules-index.json"
#: The index of the SERVED rules (what audits read): rows keyed by the blob id served, under the
#: served view's signature (:attr:`agentmem.delivery.served.ServedDoctrine.signature`).
SERVED_INDEX_FILE = ".agentmem/rules-served.json"
#: The served view's state of ``doctrine/`` (``agentmem.delivery.served.DOCTRINE_STATE``).
SERVED_STATE_FILE = ".agentmem/served-doctrine.json"
#: Bump when :class:`Brief`, the file's layout (:func:`_save`) or
#: :func:`agentmem.doctrine.similar.normalise` changes: an index of another format is rebuilt.
FORMAT = 4
#: A file changed less than this before the index is written is not stored (see the module
#: docstring): 2 s covers the coarsest common file-system clocks.
RACY_NS = 2_000_000_000
#: Rule files to read from which a command says its progress (every tenth of them) on stderr.
PROGRESS_FROM = 2000


class Brief(NamedTuple):
    """What the index keeps of one rule file. ``approved``: an approval whose
    ``content_sha256`` matches the content; ``title``/``instruction``: normalised
    (:func:`agentmem.doctrine.similar.normalise`), None when not computed (the index of the
    served rules: an audit compares no texts, see :func:`forms_of`); ``label``: the title as
    written."""

    id: str
    version: int
    status: str
    scope: str | None
    approved: bool
    review_due: str | None
    distinct_from: Sequence[str]
    title: str | None
    instruction: str | None
    label: str


def brief_of(rule: Rule, forms: bool = True) -> Brief:
    """The :class:`Brief` of a parsed rule; without ``forms``, its normalised title and
    instruction are left None (normalising every text of a big doctrine is most of the time
    of a first audit, which needs none of them)."""
    title: str | None = None
    instruction: str | None = None
    if forms:
        # lazy: a listing from an index that is up to date normalises nothing
        from agentmem.doctrine.similar import normalise

        title = normalise(rule.title) if rule.title.strip() else ""
        instruction = normalise(rule.instruction) if rule.instruction.strip() else ""
    approval = rule.approval
    return Brief(
        rule.id,
        rule.version,
        rule.status,
        rule.scope,
        approval is not None and approval.content_sha256 == content_sha256(rule),
        rule.review_due,
        list(rule.distinct_from),  # as the index stores it
        title,
        instruction,
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
    """Delete the index, the index of the served rules and the served view's state of
    ``doctrine/``; returns the relative paths removed (``erase``)."""
    removed = []
    for relpath in (INDEX_FILE, SERVED_INDEX_FILE, SERVED_STATE_FILE):
        path = root / relpath
        if path.exists():
            path.unlink()
            removed.append(relpath)
    return removed


def read_rule(root: Path, rule_id: str) -> Rule:
    """``doctrine/<rule_id>.yaml`` read from the file
    (:func:`agentmem.doctrine.parse.load_rule`: the fast reader when it proves the file
    canonical, else the strict parser). Raises :class:`DoctrineError`."""
    # lazy: a listing from an index that is up to date parses nothing (no YAML reader)
    from agentmem.doctrine.parse import load_rule

    return load_rule(root, rule_id)


def _read(path: Path, rows: bool = True) -> list[bytes]:
    """The index's parts (keys, groups and, with ``rows``, rows: see :func:`_save`) as stored, or
    ``[]`` when it is missing, of another format or damaged. The first line holds the format, the
    SHA-256 of the keys and groups lines and the SHA-256 of the rows line: what passes is what
    :func:`_save` wrote, taken without a check of each row; the rows line is neither copied nor
    hashed when it is not asked for (an audit that finds every key unchanged)."""
    try:
        data = path.read_bytes()
        n0 = data.index(b"\n")
        n1 = data.index(b"\n", n0 + 1)
        n2 = data.index(b"\n", n1 + 1)
        meta = json.loads(data[:n0])
    except (OSError, ValueError):
        return []
    view = memoryview(data)
    if (
        not isinstance(meta, dict)
        or meta.get("format") != FORMAT
        or meta.get("sha256") != hashlib.sha256(view[n0 + 1 : n2]).hexdigest()
    ):
        return []
    parts = [data[n0 + 1 : n1], data[n1 + 1 : n2]]
    if rows:
        if meta.get("rows_sha256") != hashlib.sha256(view[n2 + 1 :]).hexdigest():
            return []
        parts.append(data[n2 + 1 :])
    return parts


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


def _same_keys(root: Path, keys: dict[str, Any]) -> bool:
    """Whether every ``doctrine/*.yaml`` is a regular file whose key is the one in ``keys`` and
    ``keys`` names no other file. Compared entry by entry as the directory is listed (no dict
    built; False at the first difference, and for anything but a regular file: the caller then
    takes the long way, which reports it). Raises OSError or AttributeError (``keys`` not a
    mapping) for the caller to take the long way too."""
    found = 0
    get = keys.get
    with os.scandir(os.path.join(root, DOCTRINE_DIR)) as entries:
        for entry in entries:
            name = entry.name
            if not name.endswith(".yaml"):
                continue
            st = entry.stat(follow_symlinks=False)
            if not S_ISREG(st.st_mode) or get(name) != [
                st.st_size,
                st.st_mtime_ns,
                st.st_ctime_ns,
                st.st_ino,
            ]:
                return False
            found += 1
    return found == len(keys)


class Group(NamedTuple):
    """The rules of one scope: ``counts`` how many there are by status and approval
    (``(status, approved, n)``, what an audit needs of the rules it does not read), ``ids``
    their ids (unsorted)."""

    counts: Sequence[Sequence[Any]]
    ids: Sequence[str]


def _groups(briefs: Iterable[Sequence[Any]]) -> dict[str | None, list[Any]]:
    """``scope → [counts, ids]`` (see :class:`Group`) of briefs (or stored rows)."""
    counted: dict[str | None, dict[tuple[str, bool], int]] = {}
    ids: dict[str | None, list[str]] = {}
    for brief in briefs:
        scope = brief[3]
        memo = (brief[2], brief[4])
        tally = counted.get(scope)
        if tally is None:
            tally = counted[scope] = {}
            ids[scope] = []
        tally[memo] = tally.get(memo, 0) + 1
        ids[scope].append(brief[0])
    return {
        scope: [[[s, a, n] for (s, a), n in sorted(tally.items())], ids[scope]]
        for scope, tally in counted.items()
    }


def scope_groups(
    root: Path,
) -> tuple[dict[str | None, Group], list[DoctrineError], dict[str, Rule]]:
    """Every rule's scope as a :class:`Group` (counts by status and approval, ids), the errors of
    :func:`read_briefs`, and the rules it parsed on the way (by id) — what an audit needs to
    choose the rules it reads, without reading one twice. When no rule file changed since the
    index was written (same names, same keys), the groups stored with it are used as they are,
    without reading a row (nothing parsed); otherwise through :func:`read_briefs`."""
    if regular.problem(root, DOCTRINE_DIR, folder=True) is None:
        parts = _read(index_path(root), rows=False)
        try:
            if parts and _same_keys(root, json.loads(parts[0])):
                groups = json.loads(parts[1])
                return (
                    {(scope or None): Group(g[0], g[1]) for scope, g in groups.items()},
                    [],
                    {},
                )
        except (OSError, ValueError, AttributeError, TypeError, IndexError):
            pass
    briefs = read_briefs(root)
    grouped = {scope: Group(g[0], g[1]) for scope, g in _groups(briefs.briefs).items()}
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
        listed = [entry for entry in entries if entry.name.endswith(".yaml")]
    todo = len(listed) - len(stored)
    step = max(PROGRESS_FROM, (todo // 10) or 1)
    reading = 0
    if todo >= PROGRESS_FROM:
        notices.progress(f"reading {len(listed):,} rule files ({todo:,} not in the rule index)…")
    for entry in listed:
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
                DoctrineError(f"{DOCTRINE_DIR}/{name}:1: (file): the file name is not a rule id")
            )
            continue
        reading += 1
        if todo >= PROGRESS_FROM and reading % step == 0:
            notices.progress(f"read {reading:,} of about {todo:,} rule files")
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
        keys = json.loads(parts[0])
        if not _same_keys(root, keys):
            return None
        rows = json.loads(parts[2])
        if rows.keys() != keys.keys():
            return None  # a key without a row: _load drops them all (every file parsed)
        make = Brief._make
        briefs = [make(row) for row in rows.values()]
    except (OSError, ValueError, KeyError, AttributeError, TypeError):
        return None
    briefs.sort(key=itemgetter(0))  # by id
    return briefs


def _save(path: Path, rows: dict[str, list[Any]]) -> None:
    """Write the index (temporary file, then ``os.replace``: a reader sees the old or the new
    one); no fsync: a lost index is rebuilt. Failures are ignored: the index is a speed-up.

    Four lines: the format, the SHA-256 of the next two lines and that of the last; every
    file's key (``name → key``); the rules grouped by scope (``scope → [[[status, approved,
    n], …], [id, …]]``, ``""`` for none: what an audit reads when nothing changed); every
    file's brief (``name → brief``)."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(exist_ok=True)
        groups = {
            scope or "": group for scope, group in _groups(r[1] for r in rows.values()).items()
        }

        def dump(data: Any) -> bytes:
            return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")

        keys = {name: row[0] for name, row in rows.items()}
        used = dump(keys) + b"\n" + dump(groups)
        briefs = dump({n: r[1] for n, r in rows.items()})
        head = json.dumps(
            {
                "format": FORMAT,
                "sha256": hashlib.sha256(used).hexdigest(),
                "rows_sha256": hashlib.sha256(briefs).hexdigest(),
            }
        )
        tmp.write_bytes(head.encode("ascii") + b"\n" + used + b"\n" + briefs)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def forms_of(root: Path, briefs: Briefs, brief: Brief) -> tuple[str, str]:
    """The normalised title and instruction of ``brief``: as stored, else (a brief without
    them) from its rule read again (:func:`rules_of`)."""
    if brief.title is not None and brief.instruction is not None:
        return brief.title, brief.instruction
    (rule,) = rules_of(root, briefs, [brief.id])
    full = brief_of(rule)
    return full.title or "", full.instruction or ""


def rules_of(root: Path, briefs: Briefs, ids: Iterable[str]) -> list[Rule]:
    """The rules ``ids`` read from their files (those read by :func:`read_briefs` already are not
    read twice). Raises :class:`DoctrineError` when one cannot be read any more."""
    return [briefs.parsed.get(i) or read_rule(root, i) for i in ids]


# -- the served rules (docs/design/served.md §Served doctrine) ------------------------------------
class ServedDoctrine(Protocol):
    """What the index needs of the served view of ``doctrine/``
    (:class:`agentmem.delivery.served.ServedDoctrine`)."""

    signature: str
    refused: list[tuple[str, str]]
    parsed: dict[str, Rule]

    def blobs(self) -> dict[str, str]: ...

    def texts(self, paths: list[str]) -> dict[str, bytes]: ...

    def objects(self, names: list[tuple[str, str]]) -> dict[str, bytes]: ...

    def erased(self, texts: dict[str, str]) -> set[str]: ...


#: 2: rows without the normalised title and instruction (:func:`brief_of` without forms).
SERVED_FORMAT = 2


def served_groups(
    root: Path, view: ServedDoctrine
) -> tuple[dict[str | None, Group], list[DoctrineError], dict[str, Rule]]:
    """:func:`scope_groups` of the rules the served view gives (``view``), never the work
    tree: when the index was written for the same served state (its signature), its groups are
    used as they are; otherwise each row whose blob id is not the one served is parsed from
    that blob (ONE ``git cat-file --batch`` for them all) and the index rewritten."""
    # The rows (and the rules parsed) live until the audit ends and make no reference cycle:
    # with 100,000 rules held, the cyclic collector's passes re-scanned them for about a
    # sixth of a first audit's CPU. Reference counting still frees what is dropped.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _served_groups(root, view)
    finally:
        if collecting:
            gc.enable()


def _served_groups(
    root: Path, view: ServedDoctrine
) -> tuple[dict[str | None, Group], list[DoctrineError], dict[str, Rule]]:
    path = root / SERVED_INDEX_FILE
    try:
        data = path.read_bytes()
        n0 = data.index(b"\n")
        n1 = data.index(b"\n", n0 + 1)
        meta = json.loads(data[:n0])
        if (
            isinstance(meta, dict)
            and meta.get("format") == SERVED_FORMAT
            and meta.get("signature") == view.signature
            and meta.get("sha256") == hashlib.sha256(data[n0 + 1 :]).hexdigest()
        ):
            groups = json.loads(data[n0 + 1 : n1])
            return (
                {(scope or None): Group(g[0], g[1]) for scope, g in groups.items()},
                [],
                {},
            )
        stored = json.loads(data[n1 + 1 :]) if meta.get("format") == SERVED_FORMAT else {}
        if not isinstance(stored, dict):
            stored = {}
    except (OSError, ValueError, AttributeError, TypeError, IndexError):
        stored = {}
    # lazy: only the rule files whose served blob the index does not hold are parsed
    from agentmem.doctrine.parse import _named_rule, _rule_text, is_rule_name

    blobs = view.blobs()
    rows: dict[str, list[Any]] = {}
    errors = [DoctrineError(regular.message(r), hint=regular.HINT) for r in view.refused]
    parsed: dict[str, Rule] = {}
    todo: list[tuple[str, str]] = []
    for where, blob in blobs.items():
        row = stored.get(where)
        if isinstance(row, list) and len(row) == 2 and row[0] == blob:
            rows[where] = row
        else:
            todo.append((where, blob))
    many = len(todo) >= PROGRESS_FROM
    step = max(PROGRESS_FROM, (len(todo) // 10) or 1)
    if many:
        notices.progress(
            f"reading {len(blobs):,} served rule files ({len(todo):,} not in the rule index)…"
        )
    shared = view.parsed  # the rules the judge's walk parsed this run are not parsed again
    texts = view.objects([(w, b) for w, b in todo if (r := shared.get(b)) is None or r.path != w])
    for done, (where, blob) in enumerate(todo, start=1):
        if many and done % step == 0:
            notices.progress(f"read {done:,} of about {len(todo):,} rule files")
        known = shared.get(blob)
        if known is not None and known.path == where:  # its id is its file name
            parsed[known.id] = known
            rows[where] = [blob, list(brief_of(known, forms=False))]
            continue
        rule_id = where[len(DOCTRINE_DIR) + 1 : -len(".yaml")]
        if not is_rule_name(rule_id):
            errors.append(DoctrineError(f"{where}:1: (file): the file name is not a rule id"))
            continue
        raw = texts.get(where)
        read = regular.Read(raw, len(raw)) if raw is not None else None
        try:
            rule = _named_rule(_rule_text(read, where), where, rule_id)
        except DoctrineError as exc:
            errors.append(exc)
            continue
        parsed[rule_id] = rule
        rows[where] = [blob, list(brief_of(rule, forms=False))]  # an audit compares no texts
    counted = _groups(r[1] for r in rows.values())  # once: stored and returned
    if not errors:
        _save_served(path, view.signature, rows, counted)
    errors.sort(key=lambda e: e.message)
    grouped = {scope: Group(g[0], g[1]) for scope, g in counted.items()}
    return grouped, errors, parsed


def _save_served(
    path: Path,
    signature: str,
    rows: dict[str, list[Any]],
    counted: dict[str | None, list[Any]],
) -> None:
    """Three lines: the format, the signature and the SHA-256 of the rest; the groups
    (``counted``, :func:`_groups` of the rows); the rows (``path → [blob, brief]``). Temporary
    file, then ``os.replace``; failures are ignored."""
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(exist_ok=True)
        groups = {scope or "": group for scope, group in counted.items()}
        body = (
            json.dumps(groups, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            + b"\n"
            + json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        )
        head = {
            "format": SERVED_FORMAT,
            "signature": signature,
            "sha256": hashlib.sha256(body).hexdigest(),
        }
        tmp.write_bytes(json.dumps(head).encode("ascii") + b"\n" + body)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


def served_rules(
    root: Path, view: ServedDoctrine, ids: Iterable[str], parsed: dict[str, Rule]
) -> list[Rule]:
    """The rules ``ids`` parsed from their SERVED bytes (those parsed already are not read
    again; the others in ONE ``git cat-file --batch``). A rule the view does not serve is left
    out. Raises :class:`DoctrineError` when one cannot be read."""
    # lazy: the parser loads only when a rule is read (an audit's rules in scope)
    from agentmem.doctrine.parse import _named_rule, _rule_text

    wanted = [i for i in ids if i not in parsed]
    texts = view.texts([f"{DOCTRINE_DIR}/{i}.yaml" for i in wanted])
    found = dict(parsed)
    for rule_id in wanted:
        where = f"{DOCTRINE_DIR}/{rule_id}.yaml"
        raw = texts.get(where)
        if raw is None:
            continue
        found[rule_id] = _named_rule(_rule_text(regular.Read(raw, len(raw)), where), where, rule_id)
    fields = {
        f"{DOCTRINE_DIR}/{i}.yaml": "\n".join([r.title, r.instruction, *r.limits, r.justification])
        for i in ids
        if (r := found.get(i)) is not None
    }
    withheld = view.erased(fields)  # erased stays erased (docs/design/served.md §Served view)
    return [found[i] for i in ids if i in found and f"{DOCTRINE_DIR}/{i}.yaml" not in withheld]


def served_briefs(root: Path, view: ServedDoctrine) -> tuple[list[Brief], list[DoctrineError]]:
    """Every served rule as a :class:`Brief`, sorted by id, and the errors of
    :func:`served_groups` (a listing of the doctrine an audit is given: ``agentmem mcp --for
    audit``'s ``list_rules``)."""
    groups, errors, parsed = served_groups(root, view)
    if errors:
        return [], errors
    rows: dict[str, Any] = {}
    try:
        data = (root / SERVED_INDEX_FILE).read_bytes()
        n0 = data.index(b"\n")
        n1 = data.index(b"\n", n0 + 1)
        meta = json.loads(data[:n0])
        if meta.get("signature") == view.signature and meta.get("sha256") == (
            hashlib.sha256(data[n0 + 1 :]).hexdigest()
        ):
            rows = json.loads(data[n1 + 1 :])
    except (OSError, ValueError, AttributeError, TypeError):
        rows = {}
    ids = sorted(i for group in groups.values() for i in group.ids)
    found = {row[1][0]: Brief._make(row[1]) for row in rows.values()} if rows else {}
    missing = [i for i in ids if i not in found]
    for rule in served_rules(root, view, missing, parsed):
        found[rule.id] = brief_of(rule, forms=False)
    return [found[i] for i in ids if i in found], []
