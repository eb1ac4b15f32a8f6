"""The search index: a derived SQLite FTS5 database at ``.agentmem/search.sqlite`` (docs/design/search.md
§Recall).

Never committed (``.agentmem/`` is local), rebuilt from scratch when it is missing, unreadable,
of another schema or from another history, and otherwise brought up to date from git: only the
files that the commits since the indexed one changed are read again, and only those commits are
added to the history.

Documents (one FTS5 row each; ``body`` is the only indexed column):

- ``memory``: the entries of ``memories/<person>.md`` (``lines``: their lines; each matching
  entry becomes a hit of its own; ``date``: each entry's record ``expires`` date or ``''``, so
  that a search leaves out the entries expired on the day it runs);
- ``doctrine``: one rule of ``doctrine/<id>.yaml`` at its current version (title, instruction,
  limits and justification, one body line each; ``lines``: their file lines);
- ``inbox``: one pending proposal ``inbox/<person>/<id>.yaml`` (text, target, justification);
- ``history``: one commit (subject and every ``Agentmem-Justification`` trailer), or one older
  version of a rule (a version number that is not the rule's current one, as the last commit
  holding that version left it).

``person`` holds `` alice `` (space-delimited owners) for what only its owner and the admins may
read — a memory entry, a proposal, a commit touching a memory file or an inbox — and ``''`` for
what everyone may read (doctrine, doctrine history). The index follows commits: a file edited on
disk and not committed shows once a commit touches it (agentmem commits every write it makes).

Tokenizer: ``porter unicode61 remove_diacritics 2`` — case and accents folded for every language
(``Préavis`` finds ``preavis``), English suffixes stemmed (``warranties`` finds ``warranty``);
SQLite ships no French, Spanish or German stemmer (docs/decisions/).
"""

from __future__ import annotations

import gc
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from agentmem import trailers
from agentmem.doctrine.model import DoctrineError
from agentmem.doctrine.parse import parse_rule_text
from agentmem.errors import AgentmemError, GitError, ProposalError
from agentmem.memory.records import MARKER_OPEN, split_entry
from agentmem.proposals.model import proposal_from_stored
from agentmem.search.committed import committed
from agentmem.store import gitio, regular
from agentmem.store.yamlio import load_yaml_text

INDEX_FILE = "search.sqlite"
SCHEMA = "3"
TOKENIZER = "porter unicode61 remove_diacritics 2"
COLUMNS = (
    "body",
    "kind",
    "key",
    "path",
    "lines",
    "person",
    "rule",
    "version",
    "status",
    "scope",
    "commit_id",
    "date",
    "label",
)
_ZERO = "0" * 40
_SEP = "\x1e"
_FIELD = "\x1f"
_LOG_FORMAT = _SEP + _FIELD.join(("%H", "%P", "%aI", "%s", "%(trailers:only,unfold)")) + _FIELD
_WATCHED = ("memories/", "doctrine/", "inbox/")


class Doc(NamedTuple):
    """One row of the index (see the module docstring); ``lines``: the file line of each body
    line, comma-separated (``''`` for a commit)."""

    body: str
    kind: str
    key: str
    path: str = ""
    lines: str = ""
    person: str = ""
    rule: str = ""
    version: str = ""
    status: str = ""
    scope: str = ""
    commit_id: str = ""
    date: str = ""
    label: str = ""

    def row(self) -> tuple[str, ...]:
        """The values in :data:`COLUMNS` order (a ``Doc`` is that tuple)."""
        return self


def index_path(root: Path) -> Path:
    """``<root>/.agentmem/search.sqlite`` (not created here)."""
    return root / ".agentmem" / INDEX_FILE


def purge(root: Path) -> list[str]:
    """Delete the index and its SQLite side files; returns the relative paths removed."""
    removed = []
    base = index_path(root)
    for path in (base, *(base.with_name(base.name + s) for s in ("-wal", "-shm", "-journal"))):
        if path.exists():
            path.unlink()
            removed.append(path.relative_to(root).as_posix())
    for tmp in base.parent.glob(f"{INDEX_FILE}.tmp-*") if base.parent.is_dir() else ():
        tmp.unlink(missing_ok=True)
        removed.append(tmp.relative_to(root).as_posix())
    return removed


# -- git, read without a process when it can be ---------------------------------------------
def _git_dir(root: Path) -> Path | None:
    for folder in (root, *root.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():
            text = dot.read_text(encoding="utf-8").strip()
            if text.startswith("gitdir:"):
                path = Path(text[len("gitdir:") :].strip())
                return path if path.is_absolute() else (folder / path).resolve()
            return None
    return None


def head_commit(root: Path) -> str | None:
    """The commit HEAD names, read from ``.git`` files (loose or packed ref) — no git process on
    the search path; falls back to ``git rev-parse`` for anything unusual (a reftable)."""
    gdir = _git_dir(root)
    try:
        if gdir is None or (gdir / "reftable").exists():
            raise OSError
        head = (gdir / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref:"):
            return head if len(head) in (40, 64) else None
        ref = head[4:].strip()
        common = gdir
        if (gdir / "commondir").is_file():
            common = (gdir / (gdir / "commondir").read_text(encoding="utf-8").strip()).resolve()
        for base in (gdir, common):
            loose = base / ref
            if loose.is_file():
                return loose.read_text(encoding="utf-8").strip()
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="utf-8").splitlines():
                if line.endswith(" " + ref) and not line.startswith(("#", "^")):
                    return line.split(" ", 1)[0]
        return None  # unborn branch
    except (OSError, UnicodeDecodeError):
        return gitio.head(root)


@dataclass
class _Commit:
    sha: str
    parents: list[str]
    date: str
    subject: str
    trailers: list[tuple[str, str]]
    raw: list[tuple[str, str, str]]  # (old blob, new blob, path)


def _log(root: Path, revs: list[str], *, raw: bool) -> list[_Commit]:
    """Commits of ``revs`` newest first, with their Agentmem trailers (and ``--raw`` changes
    when ``raw``: a tree diff per commit, which costs on a folder of 10,000 rules — a full
    build goes without), in ONE git process. Raises GitError when git refuses (an unknown
    commit)."""
    args: list[str] = ["log", f"--format={_LOG_FORMAT}"]
    if raw:
        args += ["--raw", "--no-abbrev", "--no-renames", "--relative", "--diff-merges=first-parent"]
    out = gitio.run_git_bytes(root, [*args, *revs, "--"]).decode("utf-8", "replace")
    commits = []
    for record in out.split(_SEP)[1:]:
        sha, parents, date, subject, trailer_text, changes = record.split(_FIELD)
        found: list[tuple[str, str]] = []
        for line in trailer_text.splitlines():
            key, sep, value = line.partition(":")
            if sep and key.startswith(trailers.PREFIX):
                found.append((key.strip(), value.strip()))
        changed: list[tuple[str, str, str]] = []
        for line in changes.splitlines() if raw else ():
            if not line.startswith(":"):
                continue
            meta, _tab, path = line.partition("\t")
            parts = meta.split(" ")
            if len(parts) >= 4:
                changed.append((parts[2], parts[3], path))
        commits.append(_Commit(sha, parents.split(), date, subject, found, changed))
    return commits


def _objects(root: Path, specs: list[str]) -> list[str | None]:
    """The UTF-8 text of each object ``specs`` names (``<commit>:<path>`` or a blob id), in
    ONE ``git cat-file --batch``; None for a missing object or one that is not UTF-8."""
    if not specs:
        return []

    data = gitio.run_git_bytes(
        root, ["cat-file", "--batch"], input_bytes="".join(f"{s}\n" for s in specs).encode()
    )
    found: list[str | None] = []
    pos = 0
    while pos < len(data) and len(found) < len(specs):
        end = data.index(b"\n", pos)
        header = data[pos:end].split(b" ")
        pos = end + 1
        if len(header) != 3 or not header[2].isdigit():  # "<spec> missing", "ambiguous"
            found.append(None)
            continue
        size = int(header[2])
        try:
            found.append(data[pos : pos + size].decode("utf-8") if header[1] == b"blob" else None)
        except UnicodeDecodeError:
            found.append(None)
        pos += size + 1
    return found + [None] * (len(specs) - len(found))


# -- documents from files ---------------------------------------------------------------------
_EXPIRES = re.compile(r"(?:^|\s)expires=(\d{4}-\d{2}-\d{2})(?:\s|$)")


def memory_docs(person: str, relpath: str, text: str) -> Iterator[Doc]:
    """One doc per memory file: its entry lines (``- …`` under a ``## `` section), read
    leniently (a file ``check`` would refuse still has its entries found); ``lines`` holds each
    entry's line, ``label`` its section and ``date`` its record's ``expires`` date (``''``
    when none), ``\x1f``-separated. The record marker is metadata, not words of the entry: it
    is not indexed. The query side shows each matching entry as a hit of its own, and leaves
    out those expired on the day of the search (docs/design/search.md §Recall).

    A marker is looked for only on a line holding one."""
    section = ""
    bodies: list[str] = []
    numbers: list[int] = []
    sections: list[str] = []
    expiries: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line[:3] == "## ":
            section = line[3:].strip()
        elif line[:2] == "- " and section:
            body = line[2:]
            expires = ""
            if MARKER_OPEN in body:
                body, marker = split_entry(line)
                dated = _EXPIRES.search(marker) if marker else None
                expires = dated.group(1) if dated else ""
            bodies.append(body)
            numbers.append(number)
            sections.append(section)
            expiries.append(expires)
    if bodies:
        yield Doc(
            "\n".join(bodies),
            "memory",
            relpath,
            relpath,
            ",".join(map(str, numbers)),
            f" {person} ",
            date="\x1f".join(expiries),
            label="\x1f".join(sections),
        )


_UNPLAIN = tuple("'\"|>&*!{[")


class RuleText(NamedTuple):
    """What the index keeps of a rule file: ``fields`` (title, instruction, justification, each
    limit) with their file line, and ``id``, ``status``, ``scope``, ``version``."""

    id: str
    status: str
    scope: str
    version: str
    fields: list[tuple[str, int]]


#: A value that does not start with one of :data:`_UNPLAIN` (quoted, folded, an anchor…).
_PLAIN = r"(?![" + re.escape("".join(_UNPLAIN)) + "])"
_CANONICAL = re.compile(
    rf"id: (?P<id>[^\n]*)\ntitle: {_PLAIN}(?P<title>[^\n]*)\nstatus: (?P<status>[^\n]*)\n"
    rf"scope: (?P<scope>[^\n]*)\ninstruction: {_PLAIN}(?P<instruction>[^\n]*)\n"
    rf"limits:(?: \[\]\n|\n(?P<limits>(?:  - {_PLAIN}[^\n]*\n)+))"
    rf"justification: {_PLAIN}(?P<justification>[^\n]*)\nversion: (?P<version>[0-9]+)\n"
)


def read_rule(text: str, relpath: str) -> RuleText | None:
    """The searchable parts of a rule file, None when it cannot be read. A file in the canonical
    layout (``doctrine.canonical_text``: one plain ``key: value`` line each, limits as
    ``  - item``) is read with one regular expression; anything else (quoted or folded values,
    another key order) goes through the strict parser
    (:func:`agentmem.doctrine.parse.parse_rule_text`)."""
    found = _CANONICAL.match(text)
    if found is None:
        return _strict_rule(text, relpath)
    rule_id, title, status, scope, instruction, block, justification, version = found.groups()
    limits = block.split("\n")[:-1] if block else []
    fields = [(title, 2), (instruction, 5)]
    fields += [(item[4:], 7 + n) for n, item in enumerate(limits)]
    fields.append((justification, 7 + len(limits)))
    return RuleText(
        rule_id,
        status,
        "" if scope in ("null", "~") else scope,
        version,
        [(v, n) for v, n in fields if v.strip()],
    )


def _strict_rule(text: str, relpath: str) -> RuleText | None:
    try:
        rule = parse_rule_text(text, relpath)
    except DoctrineError:
        return None
    at: dict[str, int] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        key = line.partition(":")[0]
        if key in ("title", "instruction", "limits", "justification") and key not in at:
            at[key] = number
    fields = [(rule.title, at.get("title", 1)), (rule.instruction, at.get("instruction", 1))]
    fields += [(lim, at.get("limits", 0) + i + 1) for i, lim in enumerate(rule.limits)]
    fields.append((rule.justification, at.get("justification", 1)))
    return RuleText(
        rule.id,
        rule.status,
        rule.scope or "",
        str(rule.version),
        [(v.replace("\n", " "), n) for v, n in fields if v.strip()],
    )


def rule_doc(text: str, relpath: str, kind: str, commit: str = "", date: str = "") -> Doc | None:
    """The doc of one rule file's text (``kind`` doctrine, or history for an older version).
    The common case — the canonical layout, every value plain (:data:`_CANONICAL` refuses the
    others) and not blank — is read here in one match; anything else through :func:`read_rule`."""
    found = _CANONICAL.match(text)
    if found is not None:
        rule_id, title, status, scope, instruction, block, justification, version = found.groups()
        if block:
            values = [title, instruction, *block[4:-1].split("\n  - "), justification]
        else:
            values = [title, instruction, justification]
        if all(map(str.strip, values)):
            count = len(values) - 3
            lines = _RULE_LINES.get(count) or ",".join(["2", "5", *map(str, range(7, 8 + count))])
            return Doc(
                "\n".join(values),
                kind,
                relpath if kind == "doctrine" else f"version:{rule_id}:{version}",
                relpath,
                lines,
                "",
                rule_id,
                version,
                status,
                "" if scope in ("null", "~") else scope,
                commit,
                date,
                title,
            )
    rule = read_rule(text, relpath)
    if rule is None:
        return None
    key = relpath if kind == "doctrine" else f"version:{rule.id}:{rule.version}"
    return Doc(
        "\n".join(v for v, _ in rule.fields),
        kind,
        key,
        relpath,
        ",".join(str(n) for _, n in rule.fields),
        "",
        rule.id,
        rule.version,
        rule.status,
        rule.scope,
        commit,
        date,
        rule.fields[0][0],
    )


#: The ``lines`` of a canonical rule file with 0–7 limits (title 2, instruction 5, the limits
#: from 7, the justification after them).
_RULE_LINES = {n: ",".join(["2", "5", *map(str, range(7, 8 + n))]) for n in range(8)}


def inbox_doc(relpath: str, text: str) -> Doc | None:
    try:
        proposal = proposal_from_stored(load_yaml_text(text, relpath, ProposalError), relpath)
    except AgentmemError:
        return None
    lines: list[tuple[str, int]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        for key in ("text:", "target:", "justification:"):
            value = getattr(proposal, key[:-1])
            if line.startswith(key) and value:
                lines.append((value.replace("\n", " "), number))
    return Doc(
        "\n".join(b for b, _ in lines),
        "inbox",
        relpath,
        relpath,
        ",".join(str(n) for _, n in lines),
        f" {proposal.person} ",
        "",
        "",
        "pending",
        proposal.scope or "",
        "",
        proposal.created_at,
        f"{proposal.id} {proposal.action} ({proposal.route})",
    )


_OWNED = re.compile(r"^(?:memory|inbox)\(([a-z0-9][a-z0-9-]*)\):")
_PUBLIC_ACTIONS = ("init",)


def _trailer(commit: _Commit, key: str) -> str:
    return next((v for k, v in commit.trailers if k == key), "")


def _firsts(commit: _Commit) -> dict[str, str]:
    """Each trailer's first value (what :func:`_trailer` returns), in one pass."""
    found: dict[str, str] = {}
    for key, value in commit.trailers:
        found.setdefault(key, value)
    return found


def commit_owner(commit: _Commit, firsts: dict[str, str] | None = None) -> str:
    """Who may read a decision commit: `` alice `` for one on a person's memory or inbox
    (subject ``memory(alice): …`` / ``inbox(alice): …``, as agentmem writes them), ``''``
    (everyone) for doctrine and ``init``, `` @admin `` (admins only) for anything else."""
    owned = _OWNED.match(commit.subject)
    if owned:
        return f" {owned.group(1)} "
    first = _firsts(commit) if firsts is None else firsts
    if (
        first.get(trailers.ROUTE, "") == "doctrine"
        or first.get(trailers.RULE, "")
        or commit.subject.startswith("doctrine")
    ):
        return ""
    return "" if first.get(trailers.ACTION, "") in _PUBLIC_ACTIONS else " @admin "


def commit_doc(commit: _Commit) -> Doc | None:
    """The doc of a decision commit (one carrying ``Agentmem-Action``); None for a plain one."""
    first = _firsts(commit)
    action = first.get(trailers.ACTION, "")
    if not action:
        return None
    why = [v for k, v in commit.trailers if k == trailers.JUSTIFICATION]
    return Doc(
        "\n".join([commit.subject, *why]),
        "history",
        f"commit:{commit.sha}",
        "",
        "",
        commit_owner(commit, first),
        first.get(trailers.RULE, ""),
        first.get(trailers.VERSION, ""),
        action,
        "",
        commit.sha,
        commit.date,
        commit.subject,
    )


def commit_docs(commits: Iterable[_Commit]) -> Iterator[Doc]:
    for commit in commits:
        doc = commit_doc(commit)
        if doc is not None:
            yield doc


def _read(root: Path, relpath: str) -> str | None:
    try:
        read = regular.read_capped(root, relpath)
        return None if read is None else read.data.decode("utf-8")
    except (AgentmemError, UnicodeDecodeError):
        return None


def file_docs(root: Path, relpath: str, text: str | None = None) -> list[Doc]:
    """The docs of one watched work-tree file (none when it is gone, unreadable or not ours)."""
    if text is None:
        text = _read(root, relpath)
    if text is None:
        return []
    parts = relpath.split("/")
    if parts[0] == "memories" and len(parts) == 2 and parts[1].endswith(".md"):
        return list(memory_docs(parts[1][:-3], relpath, text))
    if parts[0] == "doctrine" and len(parts) == 2 and parts[1].endswith(".yaml"):
        doc = rule_doc(text, relpath, "doctrine")
        return [doc] if doc else []
    if parts[0] == "inbox" and len(parts) == 3 and parts[2].endswith(".yaml"):
        doc = inbox_doc(relpath, text)
        return [doc] if doc else []
    return []


def work_tree_files(root: Path) -> list[str]:
    """Every watched file of the work tree: ``memories/*.md``, ``doctrine/*.yaml``,
    ``inbox/*/*.yaml`` (regular files only: links and folders are ``check``'s to report)."""
    names = [f"memories/{n}" for n in regular.listing(root, "memories", ".md", stem=True)[0]]
    names += [f"doctrine/{n}" for n in regular.listing(root, "doctrine", ".yaml", stem=True)[0]]
    for owner in regular.subfolders(root, "inbox")[0]:
        found = regular.listing(root, f"inbox/{owner}", ".yaml", stem=True)[0]
        names += [f"inbox/{owner}/{n}" for n in found]
    return names


def read_files(root: Path, relpaths: list[str]) -> dict[str, str]:
    """The UTF-8 text of each readable file (folders are known real: :func:`work_tree_files`)."""
    texts = {}
    for rel in relpaths:
        try:
            read = regular.read_listed(root / rel, rel)
            if read is not None:
                texts[rel] = read.data.decode("utf-8")
        except (AgentmemError, UnicodeDecodeError):
            continue
    return texts


def version_docs(
    root: Path,
    commits: list[_Commit],
    current: dict[str, str],
    known: frozenset[str] | set[str] = frozenset(),
) -> list[Doc]:
    """Docs of the older versions of rules that ``commits`` (newest first) made: each commit
    naming a rule (``Agentmem-Rule``) holds a version of ``doctrine/<rule>.yaml``; one doc per
    (rule, version) — the newest commit of it —, skipping each rule's current version
    (``current``: path → version) and the doc keys in ``known``. The files are read in ONE
    ``cat-file`` batch, only for versions the trailers do not already rule out."""
    seen: set[str] = set(known)
    wanted: list[tuple[str, _Commit]] = []
    for commit in commits:
        rule = _trailer(commit, trailers.RULE)
        if not rule or "/" in rule:
            continue
        path = f"doctrine/{rule}.yaml"
        version = _trailer(commit, trailers.VERSION)
        if version:
            key = f"version:{rule}:{version}"
            if key in seen or current.get(path) == version:
                continue
            seen.add(key)
        wanted.append((path, commit))
    texts = _objects(root, [f"{c.sha}:{path}" for path, c in wanted])
    docs: dict[str, Doc] = {}
    for (path, commit), text in zip(wanted, texts, strict=True):
        doc = None if text is None else rule_doc(text, path, "history", commit.sha, commit.date)
        if doc is None or current.get(path) == doc.version or doc.key in known:
            continue
        docs.setdefault(doc.key, doc)  # newest first: the first commit of a version wins
    return list(docs.values())


# -- the database ------------------------------------------------------------------------------
class IndexUnusable(Exception):
    """The index file is missing, corrupt, of another schema or from another history."""


def _create(conn: sqlite3.Connection) -> None:
    cols = ", ".join(COLUMNS[:1] + tuple(f"{c} UNINDEXED" for c in COLUMNS[1:]))
    conn.executescript(
        f"""
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE VIRTUAL TABLE docs USING fts5({cols}, tokenize = '{TOKENIZER}');
        CREATE TABLE keys(docid INTEGER PRIMARY KEY, key TEXT NOT NULL);
        CREATE INDEX keys_key ON keys(key);
        """
    )


def _insert(conn: sqlite3.Connection, docs: Iterable[Doc]) -> None:
    rows = [doc.row() for doc in docs]
    if not rows:
        return
    first = conn.execute("SELECT coalesce(max(docid), 0) FROM keys").fetchone()[0] + 1
    marks = ", ".join("?" * (len(COLUMNS) + 1))
    conn.executemany(
        f"INSERT INTO docs(rowid, {', '.join(COLUMNS)}) VALUES ({marks})",
        [(first + n, *row) for n, row in enumerate(rows)],
    )
    conn.executemany(
        "INSERT INTO keys(key, docid) VALUES (?, ?)",
        [(row[2], first + n) for n, row in enumerate(rows)],
    )


def _delete(conn: sqlite3.Connection, keys: Iterable[str]) -> None:
    for key in keys:
        conn.execute(
            "DELETE FROM docs WHERE rowid IN (SELECT docid FROM keys WHERE key = ?)", (key,)
        )
        conn.execute("DELETE FROM keys WHERE key = ?", (key,))


def _set_meta(conn: sqlite3.Connection, **values: str) -> None:
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        sorted(values.items()),
    )


def read_meta(conn: sqlite3.Connection) -> dict[str, str]:
    try:
        return dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError as exc:
        raise IndexUnusable(f"unreadable ({exc})") from None


#: Files read and turned into documents per batch of a full build: each batch is indexed by
#: SQLite (tokenising releases the GIL) while the next one is read.
BATCH = 2000


def build(root: Path, head: str | None) -> None:
    """Build the index from nothing into a temporary file, then move it into place (a reader
    never sees half an index): every watched work-tree file, every decision commit (ONE
    ``git log``, no tree diff) and the older rule versions (ONE ``cat-file`` batch).

    Two threads share the work (docs/decisions/): git reads the history, then SQLite indexes
    each batch of documents while this thread reads and parses the next batch of files; the
    derived file is written with no journal and no fsync. The cyclic garbage collector is off
    meanwhile: the build makes tens of thousands of tuples and no cycle, and each collection
    would walk every object the process holds."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        _build(root, head)
    finally:
        if collecting:
            gc.enable()


def _build(root: Path, head: str | None) -> None:
    target = index_path(root)
    target.parent.mkdir(exist_ok=True)
    tmp = target.with_name(f"{INDEX_FILE}.tmp-{os.getpid()}")
    tmp.unlink(missing_ok=True)
    conn = sqlite3.connect(tmp, isolation_level=None, check_same_thread=False)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        _create(conn)
        conn.execute("BEGIN")
        current: dict[str, str] = {}
        with ThreadPoolExecutor(1) as git, ThreadPoolExecutor(1) as writer:
            pending = None if head is None else git.submit(_log, root, [head], raw=False)
            inserted: list[Future[None]] = []
            names = work_tree_files(root)
            for start in range(0, len(names), BATCH):
                texts = read_files(root, names[start : start + BATCH])
                docs = [doc for rel, text in texts.items() for doc in file_docs(root, rel, text)]
                current.update((d.path, d.version) for d in docs if d.kind == "doctrine")
                inserted.append(writer.submit(_insert, conn, docs))
            if pending is not None:
                commits = pending.result()
                inserted.append(writer.submit(_insert, conn, list(commit_docs(commits))))
                inserted.append(writer.submit(_insert, conn, version_docs(root, commits, current)))
            for done in inserted:
                done.result()
        _set_meta(conn, schema=SCHEMA, tokenizer=TOKENIZER, commit=head or "")
        conn.execute("COMMIT")
    finally:
        conn.close()
    os.replace(tmp, target)


def update(conn: sqlite3.Connection, root: Path, old: str, head: str) -> int:
    """Bring an index at commit ``old`` to ``head`` in ONE ``git log --raw old..head``: the
    decision commits between are added to the history, the watched files they changed are read
    again (a rule whose version moved keeps the replaced version as history). Returns the
    number of new commits. Raises :class:`IndexUnusable` when ``old`` is not an ancestor of
    ``head``."""
    conn.execute("BEGIN IMMEDIATE")  # another search updating meanwhile: wait, then look again
    try:
        old = read_meta(conn).get("commit", old)
        if old == head:
            conn.execute("COMMIT")
            return 0
        try:
            commits = _log(root, [f"{old}..{head}"], raw=True)
        except GitError:
            raise IndexUnusable("from another history (its commit is unknown here)") from None
        # Some new commit has ``old`` as a parent exactly when ``old`` is an ancestor of HEAD.
        if not any(old in c.parents for c in commits):
            raise IndexUnusable("from another history (its commit is not an ancestor of HEAD)")
        changed = sorted({path for c in commits for _o, _n, path in c.raw})
        watched = [p for p in changed if p.startswith(_WATCHED)]
        before = {}
        for rel in watched:
            if rel.startswith("doctrine/"):
                row = conn.execute(
                    "SELECT rowid, version FROM docs WHERE rowid IN "
                    "(SELECT docid FROM keys WHERE key = ?)",
                    (rel,),
                ).fetchone()
                if row:
                    before[rel] = row
        docs = [doc for rel in watched for doc in file_docs(root, rel)]
        current = {d.path: d.version for d in docs if d.kind == "doctrine"}
        touched = {_trailer(c, trailers.RULE) for c in commits} - {""}
        touched |= {rel[len("doctrine/") : -len(".yaml")] for rel in watched if rel in before}
        known: set[str] = set()
        for rule in touched:  # the versions already indexed, through the key index
            rows = conn.execute(
                "SELECT key FROM keys WHERE key >= ? AND key < ?",
                (f"version:{rule}:", f"version:{rule};"),
            )
            known.update(key for (key,) in rows)
        versions = version_docs(root, commits, current, known)
        # A version replaced by a plain edit (no trailer) is kept from the index itself.
        for rel, (rowid, version) in before.items():
            key = f"version:{rel[len('doctrine/') : -len('.yaml')]}:{version}"
            if current.get(rel) != version and key not in known | {d.key for d in versions}:
                toucher = next(c for c in commits if any(p == rel for _o, _n, p in c.raw))
                row = conn.execute(
                    f"SELECT {', '.join(COLUMNS)} FROM docs WHERE rowid = ?", (rowid,)
                ).fetchone()
                fields = dict(zip(COLUMNS, row, strict=True))
                fields.update(kind="history", key=key, commit_id=toucher.sha, date=toucher.date)
                versions.append(Doc(**fields))
        stale = [
            f"version:{rel[len('doctrine/') : -len('.yaml')]}:{v}" for rel, v in current.items()
        ]
        _delete(conn, [*watched, *stale])
        _insert(conn, [*docs, *commit_docs(commits), *versions])
        _set_meta(conn, commit=head)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return len(commits)


@dataclass(frozen=True)
class Opened:
    """An index ready to query: ``conn`` and the one-line ``notes`` of what happened to it."""

    conn: sqlite3.Connection
    notes: list[str]
    #: the commit the index reflects (None: an unborn branch)
    head: str | None = None


def open_index(root: Path) -> Opened:
    """The index at HEAD: opened as it is when current, updated from git when behind, rebuilt
    (with a one-line note) when missing, corrupt, of another schema or from another history."""
    head = head_commit(root)
    path = index_path(root)
    notes: list[str] = []
    if path.exists():
        conn = sqlite3.connect(path, isolation_level=None, timeout=15)
        try:
            meta = read_meta(conn)
            if meta.get("schema") != SCHEMA or meta.get("tokenizer") != TOKENIZER:
                raise IndexUnusable("of another version")
            indexed = meta.get("commit", "")
            if indexed == (head or ""):
                return Opened(conn, notes, head)
            if head is None:
                raise IndexUnusable("from another history (HEAD has no commit)")
            if not indexed:  # built before the first commit: nothing to say
                conn.close()
                build(root, head)
                return Opened(sqlite3.connect(path, isolation_level=None, timeout=15), notes, head)
            # Derived data: no fsync, journal in memory (a crash mid-update leaves a file that
            # the next search finds corrupt and rebuilds).
            conn.execute("PRAGMA synchronous = OFF")
            conn.execute("PRAGMA journal_mode = MEMORY")
            update(conn, root, indexed, head)
            return Opened(conn, notes, head)
        except (IndexUnusable, sqlite3.DatabaseError) as exc:
            conn.close()
            why = str(exc) if isinstance(exc, IndexUnusable) else f"corrupt ({exc})"
            notes.append(f"search index {why}: rebuilt")
    build(root, head)
    return Opened(sqlite3.connect(path, isolation_level=None, timeout=15), notes, head)


# -- a hit checked against its source before it is printed -------------------------------------
_WATCHED_PATH = re.compile(
    r"^(?:memories/[^/\n]+\.md|doctrine/[^/\n]+\.yaml|inbox/[^/\n]+/[^/\n]+\.yaml)$"
)
_COMMIT_ID = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
_FILE_KINDS = ("memory", "doctrine", "inbox")


class Checked(NamedTuple):
    """What :func:`check_rows` made of a query's rows: ``kept`` (each the very document its
    source gives now), ``uncommitted`` (path → rows left out: the document of the work tree's
    file, which differs from ``HEAD``'s), ``stale`` (the paths or commits of rows that no
    source gives: the index is wrong and is rebuilt)."""

    kept: list[tuple[object, ...]]
    uncommitted: dict[str, int]
    stale: list[str]


def check_rows(root: Path, head: str | None, rows: list[tuple[object, ...]]) -> Checked:
    """Each row (its first values the :data:`COLUMNS`) checked against the source behind it
    (docs/design/search.md §Recall: a cache's answer is checked before it is printed): a
    memory entry, rule or proposal must be the document the file's blob at ``head`` gives
    (its text, lines, owner, status, version and scope as that blob says), an older rule
    version the document of the file in its commit, a decision the document of a commit
    that ``head`` contains. A work-tree file provably at its ``HEAD`` blob is read without git
    (:mod:`agentmem.search.committed`: the common case); anything else in at most three git
    processes (one ``cat-file --batch``, one ``log --no-walk``, one ``merge-base
    --independent``), and only for the rows that need them."""
    width = len(COLUMNS)
    docs = [tuple(str(v) for v in row[:width]) for row in rows]
    files = sorted({d[3] for d in docs if d[1] in _FILE_KINDS and _WATCHED_PATH.match(d[3])})
    history = [d for d in docs if d[1] == "history" and _COMMIT_ID.match(d[10])]
    versions = sorted({(d[10], d[3]) for d in history if _WATCHED_PATH.match(d[3])})
    truth: set[tuple[str, ...]] = set()
    for path, data in committed(root, _git_dir(root), head, files).items():
        text = _utf8(data)
        if text is not None:
            truth.update(doc.row() for doc in file_docs(root, path, text))
            files.remove(path)
    specs = [f"{head}:{p}" for p in files] if head else []
    specs += [f"{c}:{p}" for c, p in versions]
    try:
        texts = _objects(root, specs)
    except GitError:
        texts = [None] * len(specs)
    commits: dict[str, _Commit] = {}
    shas = sorted({d[10] for d in history})
    try:
        if shas:
            logged = _log(root, ["--no-walk", "--ignore-missing", *shas], raw=False)
            if _contained(root, head, [c.sha for c in logged]):
                commits = {c.sha: c for c in logged}
    except GitError:
        pass  # a commit id that names no commit: its rows are stale
    for spec, text in zip(specs, texts, strict=True):
        rev, _colon, path = spec.partition(":")
        if text is None:
            continue
        if rev == head and path in files:
            truth.update(doc.row() for doc in file_docs(root, path, text))
        made = commits.get(rev)
        version = None if made is None else rule_doc(text, path, "history", rev, made.date)
        if version is not None and (rev, path) in versions:
            truth.add(version.row())
    truth.update(doc.row() for c in commits.values() for doc in commit_docs([c]))
    kept: list[tuple[object, ...]] = []
    uncommitted: dict[str, int] = {}
    stale: list[str] = []
    work: dict[str, set[tuple[str, ...]]] = {}
    for row, doc in zip(rows, docs, strict=True):
        if doc in truth:
            kept.append(row)
            continue
        path = doc[3]
        if doc[1] in _FILE_KINDS and _WATCHED_PATH.match(path):
            if path not in work:
                work[path] = {d.row() for d in file_docs(root, path)}
            if doc in work[path]:
                uncommitted[path] = uncommitted.get(path, 0) + 1
                continue
        stale.append(path or f"commit {doc[10][:10]}")
    return Checked(kept, uncommitted, stale)


def _utf8(data: bytes | None) -> str | None:
    try:
        return None if data is None else data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _contained(root: Path, head: str | None, shas: list[str]) -> bool:
    """True when ``head`` contains every commit of ``shas`` (one ``merge-base --independent``:
    it prints exactly ``head`` when none of them is outside its history)."""
    if not shas:
        return True
    if head is None:
        return False
    out = gitio.run_git_bytes(root, ["merge-base", "--independent", head, *shas])
    return out.decode("ascii", "replace").split() == [head]
