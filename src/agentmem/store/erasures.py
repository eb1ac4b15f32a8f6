"""The erasure record ``erasures.yaml`` (docs/design/sync.md §Sync, "The erasure record").

``agentmem erase`` rewrites history, but a clone made before it still holds the old commits: a
plain ``git pull && git push`` (or a ``-s ours`` merge) would publish them again. So each erase
commits, through the store, one more entry to this tracked file: salted hashes of what it
erased (never the values) and the ids of the first commits it rewrote (every old commit holding
the data is one of them or descends from one). ``check --history`` and the check before
``agentmem sync`` read it and refuse a commit that brings either back.

A value is compared as its **tokens**: NFKC, case-folded, the runs of letters and digits, so
``Dave Chen``, ``dave chen``, ``DAVE-CHEN`` and ``dave_chen`` are the same value; digits
separated only by spaces, dots, dashes or slashes are one token (an identifier typed with or
without its separators is the same value). An entry keeps
``sha256(salt NUL tokens joined by one space)``, the number of tokens, and the hash of the first
token alone (to look for a value in a text with one hash per distinct word). A hash does not hide
a value from someone who guesses it (a name can be confirmed by hashing it); it keeps the value
out of the repository's text, which is what the record must never hold.

This module parses, renders and matches, and answers the readers that must not serve what an
erase removed (:func:`committed_record`, :func:`holds_erased`, :func:`erased_history`: the
served view, ``sync``, the server gate); ``erase.run`` writes the file and
``check.history.erasures`` judges commits with it.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from agentmem.errors import ConfigError
from agentmem.store.gitio import run_git
from agentmem.store.root import ERASURES_FILE as ERASURES_FILE
from agentmem.store.yamlio import dump_yaml, load_yaml_text

if TYPE_CHECKING:
    import subprocess

    from agentmem.store.root import StrPath

HEADER = (
    "# Written by agentmem erase (docs/design/sync.md §Sync): hashes of erased values and the first\n"
    "# commits each erase rewrote, never the values. Only agentmem erase adds to it; check\n"
    "# --history and agentmem sync refuse a commit that brings any of it back.\n"
)
_TOKEN = re.compile(r"[^\W_]+")
_HEX = re.compile(r"^[0-9a-f]{64}$")
_OID = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
MAX_VALUE_TOKENS = 64


_DIGIT_GAP = re.compile(r"[\s./-]*")


def tokens(text: str) -> list[str]:
    """The words of ``text`` as the record compares them: NFKC, case-folded, letters and
    digits; runs of digits with only separators between them (white space, ``.``, ``-``,
    ``/``) are one token, so an identifier is the same value with or without its separators
    (``1 85 05 78 006 084 36``, ``185057800608436``)."""
    norm = unicodedata.normalize("NFKC", text).casefold()
    found: list[str] = []
    end = -1
    for match in _TOKEN.finditer(norm):
        word = match.group()
        if (
            found
            and word.isdigit()
            and found[-1].isdigit()
            and _DIGIT_GAP.fullmatch(norm, end, match.start())
        ):
            found[-1] += word
        else:
            found.append(word)
        end = match.end()
    return found


@dataclass(frozen=True)
class ValueHash:
    """One erased value: the hash of its tokens, their number, and the hash of the first one."""

    sha256: str
    tokens: int
    first: str


@dataclass(frozen=True)
class Erasure:
    """One erase: when (``at``, a day), who (``by``), what class of data (``erased``, as in the
    ``Agentmem-Erased`` trailer), the values' hashes and the first rewritten commits."""

    at: str
    by: str
    erased: str
    values: tuple[ValueHash, ...] = ()
    commits: tuple[str, ...] = ()


@dataclass
class Record:
    """The whole file: one salt for every entry, and the erasures in order."""

    salt: str
    erasures: list[Erasure] = field(default_factory=list)

    def digest(self, words: Iterable[str]) -> str:
        return hashlib.sha256(f"{self.salt}\0{' '.join(words)}".encode()).hexdigest()

    def value(self, text: str) -> ValueHash | None:
        """The hash of ``text`` (None: it has no letter or digit, or too many words)."""
        words = tokens(text)
        if not words or len(words) > MAX_VALUE_TOKENS:
            return None
        return ValueHash(self.digest(words), len(words), self.digest(words[:1]))

    def commits(self) -> dict[str, Erasure]:
        return {c: e for e in self.erasures for c in e.commits}

    def matcher(self) -> Matcher:
        return Matcher(self, [(v, e) for e in self.erasures for v in e.values])


def new_record() -> Record:
    return Record(secrets.token_hex(16))


class Matcher:
    """Finds erased values in texts: one hash per distinct word, then the values that start with
    a matching word are hashed over their length."""

    def __init__(self, record: Record, values: list[tuple[ValueHash, Erasure]]) -> None:
        self.record = record
        self.by_first: dict[str, list[tuple[ValueHash, Erasure]]] = {}
        for value, erasure in values:
            self.by_first.setdefault(value.first, []).append((value, erasure))
        self._word: dict[str, str] = {}

    def __bool__(self) -> bool:
        return bool(self.by_first)

    def find_all(self, text: str) -> list[tuple[ValueHash, Erasure]]:
        """The values (with their erasure) that ``text`` holds, each once."""
        if not self.by_first:
            return []
        words = tokens(text)
        found: dict[str, tuple[ValueHash, Erasure]] = {}
        for i, word in enumerate(words):
            digest = self._word.get(word)
            if digest is None:
                digest = self._word[word] = self.record.digest([word])
            for value, erasure in self.by_first.get(digest, ()):
                if value.sha256 in found:
                    continue
                if value.tokens == 1 or (
                    i + value.tokens <= len(words)
                    and self.record.digest(words[i : i + value.tokens]) == value.sha256
                ):
                    found[value.sha256] = (value, erasure)
        return list(found.values())


def parse_record(text: str, where: str = ERASURES_FILE) -> Record:
    """Read the file's text. Raises :class:`ConfigError` naming what is wrong."""
    data = load_yaml_text(text, where)
    if not isinstance(data, dict) or set(data) != {"salt", "erasures"}:
        raise ConfigError(f"{where}: expected the keys salt and erasures")
    salt, items = data["salt"], data["erasures"]
    if not isinstance(salt, str) or not re.fullmatch(r"[0-9a-f]{32}", salt):
        raise ConfigError(f"{where}: salt must be 32 hexadecimal digits")
    if not isinstance(items, list):
        raise ConfigError(f"{where}: erasures must be a list")
    record = Record(salt)
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict) or not {"at", "by", "erased"} <= set(item):
            raise ConfigError(f"{where}: erasure {n} needs at, by and erased")
        values = []
        for raw in item.get("values") or []:
            ok = isinstance(raw, dict) and isinstance(raw.get("tokens"), int)
            if not ok or not all(_HEX.match(str(raw.get(k, ""))) for k in ("sha256", "first")):
                raise ConfigError(f"{where}: erasure {n}: a value is not {{sha256, tokens, first}}")
            values.append(ValueHash(str(raw["sha256"]), int(raw["tokens"]), str(raw["first"])))
        commits = [str(c) for c in item.get("commits") or []]
        if not all(_OID.match(c) for c in commits):
            raise ConfigError(f"{where}: erasure {n}: commits must be full commit ids")
        record.erasures.append(
            Erasure(
                str(item["at"]), str(item["by"]), str(item["erased"]), tuple(values), tuple(commits)
            )
        )
    return record


def render_record(record: Record) -> str:
    """The file's text (a header comment, then canonical YAML)."""
    data = {
        "salt": record.salt,
        "erasures": [
            {
                "at": e.at,
                "by": e.by,
                "erased": e.erased,
                "values": [
                    {"sha256": v.sha256, "tokens": v.tokens, "first": v.first} for v in e.values
                ],
                "commits": list(e.commits),
            }
            for e in record.erasures
        ],
    }
    return HEADER + dump_yaml(data)


def lost(before: Record, after: Record) -> list[str]:
    """What ``after`` no longer holds of ``before`` (the record only grows): a list of what is
    missing, empty when nothing is."""
    if before.salt != after.salt:
        return ["its salt changed"]
    kept_values = {v.sha256 for e in after.erasures for v in e.values}
    kept_commits = set(after.commits())
    missing = []
    for n, erasure in enumerate(before.erasures, start=1):
        if any(v.sha256 not in kept_values for v in erasure.values):
            missing.append(f"a value of erasure {n}")
        if any(c not in kept_commits for c in erasure.commits):
            missing.append(f"a commit of erasure {n}")
    return missing


# -- for the readers ------------------------------------------------------------------------------
def _git(
    root: StrPath, args: list[str], data: str | None = None
) -> subprocess.CompletedProcess[str]:
    return run_git(root, args, input_text=data, check=False)


def committed_record(root: Path, rev: str = "HEAD") -> Record | None:
    """The erasure record as ``rev`` holds it (committed bytes, never the work tree), or None:
    none there, or unreadable (``check`` reports that as ``erasures-invalid``)."""
    proc = _git(root, ["show", f"{rev}:{ERASURES_FILE}"])
    if proc.returncode != 0 or not proc.stdout:
        return None
    try:
        return parse_record(proc.stdout)
    except ConfigError:
        return None


def holds_erased(record: Record | None, text: str) -> bool:
    """Whether ``text`` holds a value an erase removed (in any case, any separators), so a
    reader withholds it rather than serve it."""
    return record is not None and bool(record.matcher().find_all(text))


def erased_history(root: StrPath, record: Record | None, rev: str = "HEAD") -> list[str]:
    """The commits the record lists (the first ones an erase rewrote) that ``rev`` reaches: a
    history that holds them brought erased data back (a stale clone's merge). ONE
    ``cat-file --batch-check``, then one ancestry test per listed commit this clone holds."""
    listed = list(record.commits()) if record is not None else []
    if not listed:
        return []
    proc = _git(
        root, ["cat-file", "--batch-check=%(objectname) %(objecttype)"], "\n".join(listed) + "\n"
    )
    present = [ln.split()[0] for ln in proc.stdout.splitlines() if ln.endswith(" commit")]
    return [
        c for c in present if _git(root, ["merge-base", "--is-ancestor", c, rev]).returncode == 0
    ]
