"""The guard: the filter every text passes before it can enter memory or doctrine (SPEC §8).

Memory and doctrine text is pasted into future prompts, so it is an injection surface. The guard
*refuses*; it never strips or rewrites, so the person approving sees exactly what was refused and
why (issue 4). Pure functions, called by every write path and by ``check``:

- :func:`scan` returns every :class:`Finding` (reason code, message, character span, severity);
- :func:`check` raises :class:`~agentmem.errors.GuardError` when a finding is an error;
- :func:`mask` replaces secrets and personal data by typed placeholders before a transcript is
  sent to a model (SPEC §7);
- :func:`describe` summarises findings on one line; :func:`locate` turns an offset into
  ``(line, column)``.

Reason codes: ``invisible-char``, ``structure``, ``instruction``, ``exfiltration``,
``encoded-blob``, ``secret:<provider>`` (``secret:entropy`` is the only warning), ``pii:<kind>``
and ``too-long``. Messages name the class and the position, never the matched value (issue 4,
item 3); invisible characters are named by code point and count (``U+E0049 ×37``).

Invisible characters, line breaks, secrets, personal data and encoded blobs are checked on the
raw text. Structure, exfiltration and instructions are checked on a *detection copy* (invisible
characters removed, NFKC, casefold, accents removed, Latin look-alikes mapped to Latin), so
``ign\\u200bore``, fullwidth and Cyrillic disguises are caught; spans map back to the raw text.

Speed (issue 4: an 8,000-character file well under 50 ms, see ``benchmarks/bench_guard.py``):
regexes are compiled at import; each instruction and secret pattern runs only when one of its
literal "needles" occurs in the text, and number patterns only in windows around long runs of
digits. Costly modules load lazily: ``phonenumbers`` when a run of at least nine digits (eight
after "+", separators allowed) appears, ``stdnum`` when a candidate number needs its checksum,
``confusable_homoglyphs`` when a letter beyond the Latin blocks appears.

Accepted false positives are pinned in ``tests/data/guard/cases.yaml`` (notes "accepted false
positive"): England/Scotland/Wales flags (tag characters), "you are now …" whatever follows, a
10-digit number that is a valid US or French phone number, the checksum-valid example SSN.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import parse_qsl, urlsplit

from agentmem.errors import GuardError

__all__ = [
    "ERROR",
    "KINDS",
    "PLACEHOLDERS",
    "PROMPT_DELIMITERS",
    "WARNING",
    "Finding",
    "check",
    "describe",
    "locate",
    "mask",
    "placeholder",
    "scan",
]

ERROR = "error"
WARNING = "warning"
KINDS = ("entry", "rule", "file")

#: Markers agentmem's context renderer puts around memory and doctrine in a prompt (SPEC §10).
#: Text containing one could close the block it sits in, so the guard refuses it.
PROMPT_DELIMITERS: tuple[str, ...] = (
    "<agentmem-memory",
    "</agentmem-memory",
    "<agentmem-doctrine",
    "</agentmem-doctrine",
    "<<<",
    ">>>",
)

#: Placeholders :func:`mask` puts for personal data; secrets become ``[SECRET:<provider>]``.
PLACEHOLDERS = {
    "pii:email": "[EMAIL]",
    "pii:phone": "[PHONE]",
    "pii:iban": "[IBAN]",
    "pii:card": "[CARD]",
    "pii:national-id": "[NATIONAL-ID]",
}


@dataclass(frozen=True)
class Finding:
    """One reason to refuse (or warn about) a text.

    ``start``/``end`` are 0-based character offsets (code points) in the scanned text;
    ``message`` never contains the matched secret or personal value (SPEC §8, issue 4 item 3).
    ``severity`` is ``"error"`` (refused) or ``"warning"``.
    """

    code: str
    message: str
    start: int
    end: int
    severity: str = ERROR


class _Raw:
    """Facts about a raw text that let :func:`scan` skip regex passes that cannot match.

    Python's regex engine reads some 20-50 ns a character; these facts come from C string
    methods at about 1 ns a character. Each skip is exact (the findings never change):

    - ``latin1``: the text's Latin-1 bytes (None beyond Latin-1), for byte-table translations;
    - ``tokens``: the distinct white-space-separated tokens, one a line. A match that holds no
      white space (a needle, a digit run, a token) lies inside one token, so it occurs in the
      text exactly when it occurs here, and natural language repeats its words: this string is
      a fraction of the text;
    - ``foldable``: Latin-1, each character's detection form one Latin-1 character (then the
      detection copy is a byte translation, and the tokens' translation holds its tokens).
    """

    __slots__ = ("_tokens", "foldable", "latin1", "longest", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        try:
            self.latin1: bytes | None = text.encode("latin-1")
        except UnicodeEncodeError:
            self.latin1 = None
        self.foldable = self.latin1 is not None and len(
            self.latin1.translate(None, _LATIN1_UNSAFE)
        ) == len(self.latin1)
        self._tokens: tuple[str, str] | None = None
        self.longest = -1

    def _split(self) -> tuple[str, str]:
        if self._tokens is None:
            distinct = set(self.text.split())
            self.longest = max(map(len, distinct), default=0)
            joined = "\n".join(distinct)
            self._tokens = (joined, joined.lower())
        return self._tokens

    @property
    def tokens(self) -> str:
        return self._split()[0]

    @property
    def tokens_lower(self) -> str:
        """``tokens`` in lower case: a needle occurs in ``text.lower()`` exactly when it occurs
        here (lower() works character by character, final sigma aside, which never crosses
        white space)."""
        return self._split()[1]

    def longest_token(self) -> int:
        self._split()
        return self.longest

    def folded_tokens(self) -> str | None:
        """When ``foldable``: the tokens of the detection copy, as ``tokens`` holds the text's
        (a character and its detection form are both white space or both not, but for a few
        spacing accents that fold to a space: those only split a folded token in two, which
        keeps every needle and every word that contains no white space)."""
        if not self.foldable:
            return None
        return self.tokens.encode("latin-1").translate(_LATIN1_FOLD).decode("latin-1")


def _solid(needle: str) -> bool:
    """A needle that :attr:`_Raw.tokens` can answer for: no white space."""
    return not any(c.isspace() for c in needle)


# ----------------------------------------------------------------------------------------------
# Invisible characters and line breaks (raw text)
# ----------------------------------------------------------------------------------------------

_LINE_BREAKS = frozenset("\n\r\x85\u2028\u2029")
_ODD_BREAKS = re.compile(r"\r(?!\n)|[\x85\u2028\u2029]")  # refused even in a stored file
_ANY_BREAK = re.compile(r"[\n\r\x85\u2028\u2029]")
# Invisible although outside the C* categories: combining grapheme joiner, Hangul fillers, Khmer
# inherent vowels.
_EXTRA_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0")
_EMOJI_EXTRA = frozenset("\u00a9\u00ae\u203c\u2049\u2122\u2139\u3030\u303d")
_VS16, _ZWJ, _KEYCAP = "\ufe0f", "\u200d", "\u20e3"
_SPECIAL = re.compile(r"[^\t\n\x20-\x7e]")  # what the ASCII fast paths cannot handle


@lru_cache(maxsize=8192)
def _is_invisible_cp(ch: str) -> bool:
    """True for a code point invisible or format-changing by itself (Cf, Co, Cn, Cs, Cc but tab,
    variation selectors, tags U+E0000-E007F, bidi controls); line breaks are handled apart."""
    if ch in _EXTRA_INVISIBLE:
        return True
    o = ord(ch)
    if 0xFE00 <= o <= 0xFE0F or 0xE0100 <= o <= 0xE01EF or 0x180B <= o <= 0x180F:
        return True  # variation selectors; VS16 after an emoji is excused by _excused
    cat = unicodedata.category(ch)
    if cat == "Cn":  # emoji newer than Python's Unicode data are unassigned here, yet visible
        return not 0x1F000 <= o <= 0x1FAFF
    return cat in ("Cf", "Co", "Cs") or (cat == "Cc" and ch != "\t")


@lru_cache(maxsize=4096)
def _is_emoji(ch: str) -> bool:
    o = ord(ch)
    if 0x1F000 <= o <= 0x1FAFF or ch in _EMOJI_EXTRA:
        return True
    return o >= 0x2000 and unicodedata.category(ch) in ("So", "Sm")


def _excused(text: str, i: int) -> bool:
    """VS16 right after an emoji (or a keycap base) and ZWJ between two emoji stay allowed."""
    ch, prev = text[i], text[i - 1] if i else ""
    nxt = text[i + 1] if i + 1 < len(text) else ""
    if ch == _VS16:
        return bool(prev) and (_is_emoji(prev) or (prev in "0123456789#*" and nxt == _KEYCAP))
    if ch == _ZWJ:
        if prev == _VS16 and i >= 2:
            prev = text[i - 2]
        return bool(prev and nxt) and _is_emoji(prev) and _is_emoji(nxt)
    return False


def _per_codepoint(text: str, positions: list[int], code: str, what: str) -> list[Finding]:
    """One finding per distinct code point, ``U+200B ×3 (ZERO WIDTH SPACE)``, first..last."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for i in positions:
        first.setdefault(text[i], i)
        last[text[i]] = i
    out = []
    for ch, n in Counter(text[i] for i in positions).items():
        cat = unicodedata.category(ch)
        name = unicodedata.name(ch, "") or {"Cn": "unassigned", "Co": "private use"}.get(cat, cat)
        out.append(Finding(code, f"{what} U+{ord(ch):04X} ×{n} ({name})", first[ch], last[ch] + 1))
    return out


# Invisible yet printable (str.isprintable): the extras and the variation selectors; none of them
# is in Latin-1.
_PRINTABLE_INVISIBLE = re.compile(
    "[" + "".join(sorted(_EXTRA_INVISIBLE)) + "\ufe00-\ufe0f\U000e0100-\U000e01ef\u180b-\u180f]"
)


def _may_hold_invisible(raw: _Raw) -> bool:
    """False when no character can be invisible: all printable (no C* category: Cc, Cf, Cs, Co,
    Cn) once tabs and line feeds are set aside, and none of the printable invisibles."""
    if not raw.text.replace("\n", "").replace("\t", "").isprintable():
        return True
    return raw.latin1 is None and _PRINTABLE_INVISIBLE.search(raw.text) is not None


def _invisible_findings(text: str, raw: _Raw | None = None) -> list[Finding]:
    if not _may_hold_invisible(raw or _Raw(text)):
        return []
    positions = [
        m.start()
        for m in _SPECIAL.finditer(text)
        if m.group() not in _LINE_BREAKS
        and _is_invisible_cp(m.group())
        and not _excused(text, m.start())
    ]
    return _per_codepoint(text, positions, "invisible-char", "invisible character")


def _line_break_findings(text: str, kind: str) -> list[Finding]:
    breaks = ("\r", "\x85", "\u2028", "\u2029") if kind == "file" else _LINE_BREAKS
    if not any(b in text for b in breaks):
        return []
    if kind == "file":  # LF (or CRLF) separates lines; other separators are refused
        found = _per_codepoint(
            text, [m.start() for m in _ODD_BREAKS.finditer(text)], "structure", "line break"
        )
        return [
            Finding(f.code, f"{f.message}: stored files use \\n line ends", f.start, f.end)
            for f in found
        ]
    where = "an entry" if kind == "entry" else "a doctrine field"
    found = _per_codepoint(
        text, [m.start() for m in _ANY_BREAK.finditer(text)], "structure", "line break"
    )
    return [
        Finding(f.code, f"{f.message} inside {where}: it must be one line", f.start, f.end)
        for f in found
    ]


# ----------------------------------------------------------------------------------------------
# Detection copy: no invisible characters, NFKC, casefold, no accents, Latin look-alikes
# ----------------------------------------------------------------------------------------------

_APOSTROPHES = {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'", "\u00b4": "'"}
_homoglyphs: dict[str, str] | None = None


def _homoglyph_table() -> dict[str, str]:
    """Non-Latin letter -> the ASCII letter (or digit) it looks like (confusable-homoglyphs)."""
    global _homoglyphs
    if _homoglyphs is None:
        from confusable_homoglyphs import confusables  # lazy: a 70 ms JSON load

        table: dict[str, str] = {}
        for ch, glyphs in confusables.confusables_data.items():
            if len(ch) == 1 and not ch.isascii():
                alike = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii()]
                alike = sorted((c for c in alike if c.isalnum()), key=lambda c: not c.isalpha())
                if alike:
                    table[ch] = alike[0].lower()
        _homoglyphs = table
    return _homoglyphs


@lru_cache(maxsize=16384)
def _fold(ch: str) -> str:
    """Detection form of one non-ASCII (or control) code point; '' for an invisible one."""
    if ch in _LINE_BREAKS:
        return "\n"
    if _is_invisible_cp(ch):
        return ""
    out = []
    for c in unicodedata.normalize("NFD", unicodedata.normalize("NFKC", ch).casefold()):
        if unicodedata.category(c) in ("Mn", "Me"):
            continue
        c = _APOSTROPHES.get(c, c)
        if ord(c) >= 0x250 and c.isalnum():  # beyond Latin Extended-B: maybe a look-alike
            c = _homoglyph_table().get(c, c)
        out.append(c)
    return "".join(out)


def _latin1_fold_table() -> tuple[bytes, bytes]:
    """A byte table giving each Latin-1 character its detection form when that form is one
    Latin-1 character, and the bytes whose form is not (controls, soft hyphen, µ, ½, ß…)."""
    table = bytearray(range(256))
    unsafe = bytearray()
    for b in range(256):
        ch = chr(b)
        near = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", ch).casefold())
        if any(ord(c) >= 0x250 and c.isalnum() for c in near):
            unsafe.append(b)  # µ: its form needs the look-alike table, which loads lazily
            continue
        folded = ch.lower() if _SPECIAL.match(ch) is None else _fold(ch)
        if len(folded) == 1 and ord(folded) < 256:
            table[b] = ord(folded)
        else:
            unsafe.append(b)
    return bytes(table), bytes(unsafe)


_LATIN1_FOLD, _LATIN1_UNSAFE = _latin1_fold_table()


def _detection_copy(text: str, raw: _Raw | None = None) -> tuple[str, list[int] | None]:
    """The detection copy and the raw index of each of its characters (None: identity)."""
    raw = raw or _Raw(text)
    if raw.foldable and raw.latin1 is not None:
        # One character for one: the same text as the loop below, in one C pass.
        return raw.latin1.translate(_LATIN1_FOLD).decode("latin-1"), None
    if _SPECIAL.search(text) is None:
        return text.lower(), None
    chars: list[str] = []
    index: list[int] = []
    pos = 0
    for m in _SPECIAL.finditer(text):
        i = m.start()
        if i > pos:  # printable ASCII run: lower() keeps its length
            chars.append(text[pos:i].lower())
            index.extend(range(pos, i))
        folded = _fold(m.group())
        chars.append(folded)
        index.extend([i] * len(folded))
        pos = i + 1
    chars.append(text[pos:].lower())
    index.extend(range(pos, len(text)))
    return "".join(chars), index


def _raw_span(index: list[int] | None, start: int, end: int) -> tuple[int, int]:
    if index is None:
        return start, end
    if end <= start:
        return index[start], index[start]
    return index[start], index[end - 1] + 1


# ----------------------------------------------------------------------------------------------
# Instructions aimed at the assistant (detection copy: lower case, no accents, ' apostrophes)
# ----------------------------------------------------------------------------------------------


class _Lazy:
    """A pattern compiled on first use: most instruction patterns never run (their needles are
    absent), and compiling them all costs some 50 ms at each start of the command."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        if self._compiled is None:
            self._compiled = re.compile(self.source, re.MULTILINE)
        return self._compiled.finditer(text)


def _w(pattern: str) -> _Lazy:
    """Compile (on first use) with every literal space meaning "horizontal whitespace" (never a
    new line) and every " ?" meaning "maybe some". ``$`` ends a line (MULTILINE), so
    ``kind="file"`` scans see the end of every entry, not only of the last one."""
    return _Lazy(pattern.replace(" ?", r"[^\S\n]*").replace(" ", r"[^\S\n]+"))


# fmt: off
_EN_VERB = r"(?:ignore|disregard|forget|neglect|override|bypass|set aside)"
_EN_FILL = (r"(?:(?:all|any|every|each|of|the|your|my|our|these|those|its|this|that|previous|prior"
            r"|above|earlier|preceding|foregoing|former|initial|original|old|system|developer"
            r"|safety|current|existing|other|given|aforementioned|and|or|entire|whole) )")
_EN_PTR = (r"(?:all|every|your|my|these|those|previous|prior|above|earlier|preceding|foregoing"
           r"|former|initial|original|system|developer|safety)")
_EN_STRONG = r"(?:instructions?|prompts?|directives?|guardrails?|programming|conditioning)"
_EN_WEAK = (r"(?:rules?|guidelines?|constraints?|restrictions?|polic(?:y|ies)|orders?|commands?"
            r"|context|messages?|directions?|safeguards?|filters?|limitations?|limits|settings"
            r"|training)")
# "Ignore instructions found in documents" is a defensive team rule, not an injection.
_EN_DOCS = (r"(?! (?:(?:found|contained|embedded|included|written|appearing|that appear) )?"
            r"(?:in|inside|within|from) (?:(?:the|any|an?|uploaded|attached|third-party|external"
            r"|incoming|received|supplier|their|other) )*(?:documents?|files?|e-?mails?"
            r"|web ?pages?|pages?|attachments?|uploads?|contracts?|pdfs?|tool (?:results?"
            r"|outputs?)|search results?|websites?|sites?|drafts?|templates?)\b)")
_FR_VERB = (r"(?:ignor(?:e|es|ez|er)|oubli(?:e|es|ez|er)|neglig(?:e|es|ez|er)"
            r"|outrepass(?:e|es|ez|er)|contourn(?:e|es|ez|er)|(?:passe|passez|passer) outre"
            r"|(?:fais|faites|faire) abstraction|ne (?:tiens|tenez) (?:plus |pas |aucun )?compte"
            r"|ne pas tenir compte|ne (?:respecte|respectez|suis|suivez) plus"
            r"|(?:n'|ne )(?:obeis|obeissez) plus)")
_FR_FILL = (r"(?:(?:toutes|tous|tout|les|tes|vos|ces|mes|nos|des|de|du|la|le|ta|ton|votre|aux|au"
            r"|a|precedentes?|precedents?|anterieures?|initiales?|originales?|anciennes?"
            r"|dernieres?|autres) |d'|l')")
_FR_STRONG = r"(?:consignes?|instructions?|directives?|prompts?|message systeme)"
_FR_WEAK = (r"(?:regles?|ordres?|indications?|contraintes?|restrictions?|limites?|garde-fous"
            r"|politiques?|filtres?|parametres?)")
_FR_PTR = r"(?:toutes|tous|tes|vos|ces|mes)"
_FR_POST = (r" (?:precedentes?|precedents?|anterieures?|initiales?|originales?|d'origine"
            r"|du systeme|systeme|de securite|ci-dessus|recues?|donnees?|actuelles?)")
# French patterns also skip the English defensive form: "ignore instructions" is both languages.
_FR_DOCS = _EN_DOCS + (r"(?! (?:(?:figurant|contenues?|presentes?|trouvees?|incluses?|ecrites?) )?"
            r"(?:dans|des|de|du) (?:(?:les|des|un|une|le|la|tout|toute|tous) |l')*(?:documents?"
            r"|fichiers?|e-?mails?|courriels?|mails?|pieces? jointes?|pages?|contrats?|sites?"
            r"|pdfs?|modeles?|brouillons?|fournisseurs?)\b)")
_WHO_EN = r"(?:the )?(?:users?|human|operator|person|customer)\b"
_WHO_FR = r"(?:a |au |aux )?(?:l'utilisat(?:eur|rice)|(?:les )?utilisat(?:eur|rice)s?|l'humain)\b"
# "Do not tell the user [about this | that … | .]" hides something; "Never tell the user a
# clause is fine" or "Don't let the user sign" is an ordinary rule.
_HIDDEN_EN = (r"(?= ?(?:[.,;:!?)]|$| (?:about|that|of|regarding|anything|this|it|what|why|how"
              r"|know|see|find out|notice|learn)\b))")
_HIDDEN_FR = (r"(?= ?(?:[.,;:!?)]|$| (?:de (?:ca|cela|ceci|rien)|qu|que|ce|cela|ceci|rien|quoi"
              r"|pourquoi|comment)\b))")
_REVEAL_EN = (r"(?:system (?:prompt|message|instructions)|hidden (?:prompt|instructions|rules)"
              r"|(?:initial|original) (?:prompt|instructions)|instructions above|your (?:prompt"
              r"|instructions|rules)|(?:api|secret|access|private|ssh) keys?|api tokens?"
              r"|access tokens?|credentials|passwords?|secrets|environment variables|env vars?)\b"
              r"(?! (?:policy|policies|rules?|manager|requirements?|reset|field|format|strength"
              r"|length|guidelines?|complexity|rotation|hygiene|templates?))")
_REVEAL_FR = (r"(?:prompt systeme|prompt|message systeme|(?:instructions|consignes) (?:systeme"
              r"|initiales|cachees|secretes|d'origine)|tes (?:instructions|consignes)"
              r"|vos (?:instructions|consignes)|cles? (?:d')?api|mots de passe|identifiants"
              r"|secrets|jetons? d'acces|variables d'environnement)\b")
_SEND_OBJ = (r"(?:conversation|chat history|chat log|system prompt|secrets?|credentials"
             r"|api keys?|access tokens?|passwords|environment variables|env vars|\.env|ssh keys?"
             r"|private keys?|historique (?:de (?:la )?conversation|du chat)|prompt systeme"
             r"|identifiants|cles? (?:d')?api|mots de passe|variables d'environnement)\b"
             r"(?! (?:summary|summaries|notes|minutes|recap|resume|compte rendu))")

_OVERRIDE = "asks the assistant to ignore its instructions"
_ROLE = "tries to change the assistant's role"
_REVEAL = "asks to reveal hidden instructions or secrets"
_CONCEAL = "asks to hide something from the user"
_SPOOF = "poses as system or new instructions"
_SEND = "asks to send data out"

_EN_VERBS = ("ignor", "disregard", "forget", "neglect", "overrid", "bypass", "aside")
_FR_VERBS = ("ignor", "oubli", "neglig", "outrepass", "contourn", "outre", "abstraction",
             "compte", "respect", "suis", "suivez", "obei")
_SEND_NEEDLES = ("conversation", "=chat", "prompt", "secret", "credential", "=key", "=keys",
                 "=token", "=tokens", "password", "=env", "environ", "historique", "identifiant",
                 "=cle", "=cles", "passe")

# (needles, label, negatable, pattern). A pattern runs only when one of its needles occurs in
# the detection copy ("=word": as a whole word); every match of the pattern contains a needle.
# A negatable match right after "never", "do not", "ne", "n'"… is a defensive rule ("Never
# reveal the system prompt") and passes.
_INSTRUCTIONS: list[tuple[tuple[str, ...], str, bool, _Lazy]] = [
    (_EN_VERBS, _OVERRIDE, True, _w(rf"\b{_EN_VERB} {_EN_FILL}{{0,4}}{_EN_STRONG}\b{_EN_DOCS}")),
    (_EN_VERBS, _OVERRIDE, True, _w(
        rf"\b{_EN_VERB} {_EN_FILL}{{0,3}}{_EN_PTR} {_EN_FILL}{{0,3}}{_EN_WEAK}\b{_EN_DOCS}")),
    (_EN_VERBS, _OVERRIDE, True, _w(
        rf"\b{_EN_VERB} (?:(?:all|everything|anything) (?:(?:that|which) (?:came|comes|was said"
        r"|was written) )?|(?:all )?(?:of )?the )(?:above|foregoing|preceding|before|earlier"
        r"|previously|so far|until now|up to now)\b(?! (?:the|a|an|this|that|these|each|any|it"
        r"|its|their|your|our)\b)")),
    (_EN_VERBS, _OVERRIDE, True, _w(
        rf"\b{_EN_VERB} (?:all|everything|anything|what) (?:you (?:were|have been|'ve been|are"
        r"|know|learned|have learned)|(?:i|we) (?:said|told you|wrote))\b")),
    (("=you", "=your", "pretend"), _ROLE, False, _w(
        r"\b(?:you are|you're|you will be) (?:now|no longer)\b|\bfrom now on,? you (?:are"
        r"|will be|shall be|will act|must act|act)\b|\bpretend (?:to be|you are|that you are)\b"
        r"|\bact as if you (?:have|had) no\b|\byou have no (?:rules|restrictions|limits"
        r"|limitations|guidelines|filters)\b|\byour new (?:role|identity|name|persona"
        r"|instructions|task|goal) is\b")),
    (("=role", "roleplay", "=mode", "jailbreak", "anything"), _ROLE, False, _w(
        r"\brole-?play as\b|\b(?:enable|enter|activate|switch to|turn on|unlock) (?:the )?"
        r"(?:developer|dan|god|jailbreak|unrestricted) mode\b|\b(?:dan|god|jailbreak"
        r"|unrestricted) mode\b|\bjailbreak|\bdo anything now\b")),
    (("prompt", "message", "instruction", "rules", "=key", "=keys", "=token", "=tokens",
      "credential", "password", "secret", "=env", "environ"), _REVEAL, True, _w(
        r"\b(?:reveal|show|print|output|display|repeat|leak|disclose|dump|expose|recite"
        r"|write out|tell me|give me|send me|share|print out|spell out)(?: me)? (?:(?:your|the"
        rf"|all|any|full|entire|complete|hidden|secret|exact|verbatim) ){{0,4}}{_REVEAL_EN}")),
    (("user", "human", "operator", "=person", "customer"), _CONCEAL, False, _w(
        r"\b(?:do not|don'?t|never|without) (?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?"
        r"|alert(?:ing)?|let(?:ting)?|show(?:ing)?|mention(?:ing)?|reveal(?:ing)?)(?: (?:this"
        rf"|that|it|anything))?(?: to)? {_WHO_EN}{_HIDDEN_EN}"
        r"|\b(?:keep|hide) (?:this|that|it) (?:hidden |secret )?from (?:the )?users?\b"
        r"|\bthe user (?:must|should|may) (?:not|never) (?:know|find out|see|learn)\b")),
    (("secretly", "silently", "covertly"), _CONCEAL, False, _w(
        r"\b(?:secretly|silently|covertly) (?:add|send|include|insert|run|execute|copy|forward"
        r"|append|exfiltrate|email|upload|post)\b")),
    (("instruction",), _SPOOF, False, _w(
        r"\b(?:new|updated|real|actual|true|hidden|secret|additional|important) (?:system )?"
        r"instructions? ?:")),
    (("system",), _SPOOF, False, _w(
        r"\bsystem (?:prompt|message|instructions?|override|note) ?:")),
    (("=ai", "assistant", "llm", "model", "agent", "=bot", "chatbot", "claude", "gpt"),
     _SPOOF, False, _w(
        r"\b(?:note|message|instructions?) (?:to|for) (?:the )?(?:ai|assistant|llm|model|agent"
        r"|chatbot|claude|chatgpt|gpt|bot)\b ?[:,\u2014-]|\b(?:attention|hey|dear) (?:ai|assistant|llm"
        r"|claude|chatgpt|gpt|model|agent)\b|\bif you are an? (?:ai|llm|language model"
        r"|assistant|bot|chatbot)\b|\b(?:the )?(?:ai|assistant|llm|model|agent|claude|chatgpt)"
        r" (?:must|should|shall|will) (?:now )?(?:ignore|forget|disregard|obey|comply|reveal"
        r"|bypass)\b")),
    (_SEND_NEEDLES, _SEND, True, _w(
        r"\b(?:send|post|upload|forward|transmit|exfiltrate|email|e-mail|leak|copy|paste)"
        rf"(?: (?:the|all|this|your|our|entire|full|whole|complete|current))* {_SEND_OBJ}")),
    # French
    (_FR_VERBS, _OVERRIDE, True, _w(rf"\b{_FR_VERB} {_FR_FILL}{{0,4}}{_FR_STRONG}\b{_FR_DOCS}")),
    (_FR_VERBS, _OVERRIDE, True, _w(
        rf"\b{_FR_VERB} {_FR_FILL}{{0,3}}{_FR_PTR} {_FR_FILL}{{0,2}}{_FR_WEAK}\b{_FR_DOCS}")),
    (_FR_VERBS, _OVERRIDE, True, _w(rf"\b{_FR_VERB} {_FR_FILL}{{0,4}}{_FR_WEAK}{_FR_POST}\b")),
    (_FR_VERBS, _OVERRIDE, True, _w(
        rf"\b{_FR_VERB} (?:tout )?(?:ce qui (?:precede|est (?:au-dessus|ci-dessus|plus haut))"
        r"|ce qu'on t'a dit|ce que (?:l'on|je|on) t'a dit|tout ce que tu sais)\b"
        r"|\boubli(?:e|ez) tout(?= ?[.,;:!]|$)")),
    (("=tu", "=vous", "t'es", "semblant", "=role", "=mode"), _ROLE, False, _w(
        r"\b(?:tu es|vous etes|t'es) (?:desormais|maintenant|a present|dorenavant"
        r"|a partir de maintenant)\b|\b(?:desormais|dorenavant|a partir de maintenant"
        r"|a present),? (?:tu es|vous etes|tu seras|vous serez|tu agiras|vous agirez"
        r"|ton role est|votre role est)\b|\b(?:tu n'es plus|vous n'etes plus)\b"
        r"|\b(?:fais|faites) semblant d'etre\b|\b(?:ton|votre) nouveau role est\b"
        r"|\b(?:tu n'as|vous n'avez) (?:plus )?(?:aucune?|pas de) (?:regle|restriction|limite"
        r"|consigne)s?\b|\b(?:active|activez|activer|passe|passez|passer) (?:en |le )?mode"
        r" (?:developpeur|dan|sans (?:restriction|limite|filtre)s?)\b|\bmode (?:dan|sans"
        r" (?:restriction|limite|filtre)s?)\b")),
    (("prompt", "message", "instruction", "consigne", "=cle", "=cles", "passe", "identifiant",
      "secret", "jeton", "variable"), _REVEAL, True, _w(
        r"\b(?:revel|affich|montr|donn|divulgu|repet|imprim|recit|copi|communiqu|envoi|partag)"
        r"(?:e|es|ez|er)(?:-moi| moi)? (?:(?:ton|ta|tes|votre|vos|le|la|les|tout|toutes|tous"
        rf"|mot pour mot|integralement|exactement) |l'){{0,3}}{_REVEAL_FR}")),
    (("utilisat", "humain"), _CONCEAL, False, _w(
        r"\b(?:ne |n')(?:le |la |les |lui |leur |l'|en |rien )?(?:dis|dites|dire|mentionnez?"
        r"|mentionner|signalez?|signaler|revelez?|reveler|montrez?|montrer|indiquez?|indiquer"
        r"|parlez?|parler|previens|prevenez|prevenir|informez?|informer)(?: (?:pas|rien|jamais"
        rf"|surtout|en aucun cas))+\b[^.\n]{{0,40}}?{_WHO_FR}{_HIDDEN_FR}"
        r"|\bne (?:pas|jamais|rien) (?:le |la |les |lui |l'|en )?(?:dire|mentionner|signaler"
        rf"|reveler|montrer|indiquer|preciser|avouer|communiquer)\b[^.\n]{{0,40}}?{_WHO_FR}"
        rf"{_HIDDEN_FR}"
        r"|\bsans (?:le |en |lui )?(?:dire|informer|prevenir|avertir|mentionner|signaler)"
        rf"(?: a| au)? ?{_WHO_FR}|\ba l'insu de l'utilisat(?:eur|rice)\b"
        r"|\b(?:cache|cachez|cacher|dissimule|dissimulez|dissimuler) (?:le |la |les |ceci "
        r"|cela |ca )?a l'utilisat(?:eur|rice)\b|\bl'utilisat(?:eur|rice) ne doit (?:pas"
        r"|jamais) (?:le )?(?:savoir|voir|apprendre)\b")),
    (("secretement", "discretement", "cachette"), _CONCEAL, False, _w(
        r"\b(?:secretement|discretement|en cachette) (?:ajoute|envoie|inclus|insere|copie"
        r"|transmets|execute)")),
    (("instruction", "consigne", "directive", "prompt", "message"), _SPOOF, False, _w(
        r"\b(?:nouvelles?|vraies?|veritables?) (?:instructions|consignes|directives)"
        r"(?: systeme)? ?:|\b(?:instructions?|consignes?|prompt|message) systeme ?:")),
    (("=ia", "assistant", "agent", "modele", "llm", "=bot", "chatbot", "claude", "gpt",
      "intelligence"),
     _SPOOF, False, _w(
        r"\b(?:note|message|instructions?) (?:pour|a|a l'attention de) (?:l'|le |la )?(?:ia"
        r"|assistant|agent|modele|llm|chatbot|claude|chatgpt|bot)\b ?[:,\u2014-]|\bsi tu es une? (?:ia"
        r"|intelligence artificielle|assistant|modele|llm|agent|chatbot|bot)\b|\b(?:l'ia"
        r"|l'assistant|l'agent|le modele|claude) (?:doit|devra|va) (?:desormais |maintenant )?"
        r"(?:ignorer|oublier|obeir|reveler|contourner)\b")),
    (_SEND_NEEDLES, _SEND, True, _w(
        r"\b(?:envoi|transmet|transmett|copi|publi|post|exfiltr|expedi)(?:e|es|ez|er|s|re)?"
        rf" (?:(?:la|le|les|toute|tout|toutes|tous|ta|ton|tes|cette|ce) |l')*{_SEND_OBJ}")),
]
# fmt: on
# Per pattern: whole-word needles, and the other needles split by whether tokens can answer.
_INSTRUCTION_NEEDLES = [
    (
        frozenset(n[1:] for n in needles if n[0] == "="),
        frozenset(n for n in needles if n[0] != "=" and _solid(n)),
        tuple(n for n in needles if n[0] != "=" and not _solid(n)),
    )
    for needles, _, _, _ in _INSTRUCTIONS
]
_SOLID_NEEDLES = tuple(sorted(frozenset().union(*(solid for _, solid, _ in _INSTRUCTION_NEEDLES))))
_WORD = re.compile(r"[a-z0-9]+")
_SPACED = re.compile(r"(?<![\w'])\w(?:[ .*_-]\w){3,}(?![\w'])")  # one separator between letters
# In every _SPACED match: its last three letters, each after a separator (a fast search: it
# starts with a set of characters, so the engine skips to them).
_SPACED_HINT = re.compile(r"[ .*_-]\w[ .*_-]\w[ .*_-]\w(?![\w'])")
_NEGATED = re.compile(
    r"(?:\b(?:never|not|no longer|ne|jamais|pas)|n't|\bn')(?:[^\S\n]+\w+)?[^\S\n]*$"
)


def _instruction_hits(det: str, tokens: str | None = None) -> Iterator[tuple[int, int, str]]:
    """Instructions in ``det``; ``tokens``: its distinct tokens when known (see _Raw)."""
    yield from _instruction_hits_in(det, tokens)
    # "i g n o r e previous instructions": read letter-spaced runs again, glued together.
    if _SPACED_HINT.search(det) is not None and _SPACED.search(det) is not None:
        glued: list[str] = []
        index: list[int] = []
        pos = 0
        for m in _SPACED.finditer(det):
            glued.append(det[pos : m.start()])
            index.extend(range(pos, m.start()))
            letters = range(m.start(), m.end(), 2)
            glued.extend(det[i] for i in letters)
            index.extend(letters)
            pos = m.end()
        glued.append(det[pos:])
        index.extend(range(pos, len(det)))
        for s, e, label in _instruction_hits_in("".join(glued)):
            yield (*_raw_span(index, s, e), label)


def _instruction_hits_in(det: str, tokens: str | None = None) -> Iterator[tuple[int, int, str]]:
    if tokens is None:
        tokens = "\n".join(set(det.split()))  # det's words are its tokens' words (see _Raw)
    words = set(_WORD.findall(tokens))
    present = {n for n in _SOLID_NEEDLES if n in tokens}  # each needle looked up once
    for (whole, solid, spaced), (_, label, negatable, rx) in zip(
        _INSTRUCTION_NEEDLES, _INSTRUCTIONS, strict=True
    ):
        if words.isdisjoint(whole) and present.isdisjoint(solid) and not any(n in det for n in spaced):
            continue
        for m in rx.finditer(det):
            if negatable and _NEGATED.search(det, max(0, m.start() - 40), m.start()):
                continue
            yield m.start(), m.end(), f"instruction aimed at the assistant: {label}"


# ----------------------------------------------------------------------------------------------
# Structure and exfiltration (detection copy)
# ----------------------------------------------------------------------------------------------

_LEADING = re.compile(
    r"(?:#{1,6}(?:\s|$)|>|[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|([-*_])(?:\s*\1){2,}\s*$"
    r"|(?:system|assistant|user|human|ai|model)\s*:)"
)
_REF_DEF = re.compile(r"\[[^\]\n]+\]:[^\S\n]*\S")
_TAG = re.compile(
    r"<(/?)([a-z][a-z0-9:_.-]*)(\s[^<>\n]*)?/?>|<!--|<!\[cdata\[|<\?[a-z]|<!doctype|<\|[a-z_]+\|>"
)
_CODE_SPAN = re.compile(r"`[^`\n]+`")
_ROLE_TAGS = frozenset(
    "system user assistant human ai model instructions instruction prompt context memory "
    "doctrine tool tools function admin developer important note".split()
)
_CHAT_TOKENS = re.compile(r"\[/?inst\]|<</?sys>>")
_FENCE = re.compile(r"```|~~~")
# fmt: off
_EXFIL: list[tuple[str, str, re.Pattern[str]]] = [
    ("![", "Markdown image (fetched when displayed)", re.compile(r"!\[[^\]\n]*\]\s*[(\[]")),
    ("]:", "reference-style link definition",
     re.compile(r"\[[^\]\n]+\]:[^\S\n]*<?[a-z][a-z0-9+.-]*:")),
    ("<", "HTML element that loads a resource",
     re.compile(r"<(?:img|image|iframe|frame|object|embed|video|audio|source|link|meta|base"
                r"|form|svg|picture|script|style)\b")),
    ("data:", "data: URI", re.compile(r"\bdata:(?:[a-z]+/[a-z0-9.+-]+)?(?:;[a-z0-9=.-]+)*[;,]")),
    ("script:", "script URI", re.compile(r"\b(?:java|vb)script:(?=\S)")),
    ("file:", "file: URI", re.compile(r"\bfile:/")),
]
# fmt: on
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>\"'`)\]]+")
_QUERY_VALUE_MAX = 32  # characters in one query value
_QUERY_MAX = 100  # characters of query plus fragment
_TEMPLATE = re.compile(r"[{}$<>]|%7b|%24|%3c")


# A "- " line (not the first) whose content, white space aside, starts with a character that
# _LEADING or _REF_DEF can start with; the content of other lines cannot match either.
_ENTRY_HINT = re.compile(r"\n- [^\S\n]*(?:[#>*+_\[\d-]|system|assistant|user|human|ai|model)")


def _lines(det: str, kind: str) -> Iterator[tuple[int, str]]:
    """(offset, content) of each text whose leading Markdown matters: the whole entry or field,
    or in a file the content of every ``- `` entry line (headings are the file's own) that may
    start with Markdown structure (see ``_ENTRY_HINT``)."""
    if kind != "file":
        yield 0, det
        return
    if det.startswith("- "):
        end = det.find("\n")
        yield 2, det[2 : end if end >= 0 else len(det)]
    for m in _ENTRY_HINT.finditer(det):
        start = m.start() + 3
        end = det.find("\n", start)
        yield start, det[start : end if end >= 0 else len(det)]


def _structure_hits(det: str, kind: str) -> Iterator[tuple[int, int, str]]:
    for delim in PROMPT_DELIMITERS:
        i = det.find(delim)
        while i >= 0:
            yield i, i + len(delim), "matches one of agentmem's prompt delimiters"
            i = det.find(delim, i + 1)
    for off, content in _lines(det, kind):
        stripped = content.lstrip()
        s = off + len(content) - len(stripped)
        m = _LEADING.match(stripped)
        if m:
            yield s, s + max(1, m.end()), "starts with Markdown structure or a role marker"
        elif _REF_DEF.match(stripped):
            yield s, s + len(stripped), "starts with a reference-style link definition"
    if "<" in det:
        code = [m.span() for m in _CODE_SPAN.finditer(det)] if "`" in det else []
        for m in _TAG.finditer(det):
            closing, name, attrs = m.group(1), m.group(2), m.group(3)
            if name and not attrs and name not in _ROLE_TAGS:
                if not closing and m.start() and det[m.start() - 1].isalnum():
                    continue  # a generic type such as Vec<String>, not markup
                if any(s < m.start() and m.end() < e for s, e in code):
                    continue  # `<T>` inside inline code
            yield m.start(), m.end(), "HTML/XML-like tag"
    if "[" in det or "<<" in det:
        for m in _CHAT_TOKENS.finditer(det):
            yield m.start(), m.end(), "chat-template token"
    if "```" in det or "~~~" in det:
        for m in _FENCE.finditer(det):
            yield m.start(), m.end(), "code fence"


def _exfiltration_hits(det: str) -> Iterator[tuple[int, int, str]]:
    for needle, label, rx in _EXFIL:
        if needle in det:
            for m in rx.finditer(det):
                yield m.start(), m.end(), label
    if "://" not in det:
        return
    for m in _URL.finditer(det):
        try:
            parts = urlsplit(m.group())
            values = [v for _, v in parse_qsl(parts.query, keep_blank_values=True)]
        except ValueError:
            yield m.start(), m.end(), "malformed link"
            continue
        data = parts.query + parts.fragment
        if _TEMPLATE.search(data):
            yield m.start(), m.end(), "link with a template to fill in its query"
        elif len(data) > _QUERY_MAX or any(len(v) >= _QUERY_VALUE_MAX for v in values):
            yield m.start(), m.end(), f"link with long query data ({len(data)} characters)"


# ----------------------------------------------------------------------------------------------
# Secrets and encoded blobs (raw text)
# ----------------------------------------------------------------------------------------------

# fmt: off
# (needles, code, label, value groups, pattern). Needles are tested on the raw text, or on its
# lower-case form when they are lower case and the pattern ignores case. Value groups: the first
# group that matched is the secret's span (masking keeps "password=" readable); () = whole match.
_SECRETS: list[tuple[tuple[str, ...], str, str, tuple[int, ...], re.Pattern[str]]] = [
    (("sk-ant-",), "anthropic", "Anthropic API key", (),
     re.compile(r"(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}")),
    # The look-behind keeps "task-master-ai__…" (an MCP tool name) from reading as "sk-…".
    (("sk-",), "openai", "OpenAI API key", (),
     re.compile(r"(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}"
                r"|(?<![A-Za-z0-9_-])sk-[A-Za-z0-9]{32,}(?![A-Za-z0-9_-])")),
    (("AKIA", "ASIA", "ABIA", "ACCA"), "aws", "AWS access key id", (),
     re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])")),
    (("aws",), "aws", "AWS secret access key", (1,),
     re.compile(r"(?i)aws[^\n]{0,24}?(?:secret|private)[^\n]{0,24}?[:=]\s*[\"']?"
                r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])")),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), "github", "GitHub token", (),
     re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"
                r"|\bgithub_pat_[A-Za-z0-9_]{22,255}")),
    (("glpat-",), "gitlab", "GitLab token", (), re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    (("xox", "hooks.slack.com"), "slack", "Slack token", (),
     re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"
                r"|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}")),
    (("AIza",), "google", "Google API key", (), re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    (("eyJ",), "jwt", "JSON Web Token", (),
     re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
    (("PRIVATE KEY",), "private-key", "private key block", (),
     re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END"
                r" [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)?")),
    (("sk_live_", "sk_test_", "rk_live_", "rk_test_"), "stripe", "Stripe key", (),
     re.compile(r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}")),
    (("hf_",), "huggingface", "Hugging Face token", (), re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    (("npm_",), "npm", "npm token", (), re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    (("passw", "passe", "passphrase", "mdp"), "password", "password", (1,),
     re.compile(r"(?i)(?<![a-z])(?:password|passwd|passphrase|mot[ _-]de[ _-]passe|mdp)\s*[:=]"
                r"\s*(\"[^\"\n]{4,}\"|'[^'\n]{4,}'|[^\s\"',;]{4,})")),
    (("key", "token", "secret", "bearer"), "generic", "credential in a key=value pair", (1, 2),
     re.compile(r"(?i)(?<![a-z0-9])(?:api[_-]?key|apikey|api[_-]?token|access[_-]?token|auth[_-]?token"
                r"|secret[_-]?key|client[_-]?secret|private[_-]?token|secret|token)[\"']?\s*[:=]"
                r"\s*[\"']?([A-Za-z0-9_\-./+=~]{16,})|\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)")),
]
# fmt: on
_PLACEHOLDER_VALUE = re.compile(
    r"[\"']?(?:[$%{<\[]|[x*.•#_-]+[\"']?$|.*(?:example|your|changeme|redacted|dummy|placeholder"
    r"|environ|getenv|process\.env|secrets?\.|vault))",
    re.IGNORECASE,
)
_DOC_PLACEHOLDER = re.compile(r"[\w-]*?[_-][xX*.]{8,}")  # sk-ant-xxxxxxxx, ghp_********
_PROSE_PASSWORD = re.compile(r"[a-z]+")  # "mot de passe : voir le coffre" is prose
_LONG_RUN = re.compile(r"[0-9A-Za-z+/=_-]{40,}")
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/=_.-])[A-Za-z0-9+/_.=-]{20,}")
_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{40,}={0,2}")
_HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]{65,}(?![0-9A-Fa-f])")
_LOWER_RUN = re.compile(r"[a-z]+")
# Object ids in model and tool transcripts (msg_01…, toolu_01…, req_011…): not secrets.
_API_OBJECT_ID = re.compile(
    r"(?:msg|toolu|srvtoolu|req|call|resp|fc|rs|chatcmpl|run|thread|asst|file|batch|evt)[_-]"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")


def _entropy(s: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _mean_lower_run(s: str) -> float:
    """Mean length of lower-case runs: under 2.5 for random base64 (1 in 20 above, none above
    3.6 in 2,000 draws), over 3.6 for CamelCase identifiers and paths made of words."""
    runs = _LOWER_RUN.findall(s)
    return sum(map(len, runs)) / len(runs) if runs else 0.0


def _looks_random(s: str, min_entropy: float) -> bool:
    return (
        any(c.isdigit() for c in s)
        and any(c.isupper() for c in s)
        and any(c.islower() for c in s)
        and _mean_lower_run(s) <= 3.2
        and _entropy(s) >= min_entropy
    )


_SECRET_NEEDLES = [
    (bool(rx.flags & re.IGNORECASE), tuple(filter(_solid, needles)), tuple(n for n in needles if not _solid(n)))
    for needles, _, _, _, rx in _SECRETS
]


def _secret_findings(text: str, raw: _Raw | None = None) -> list[Finding]:
    raw = raw or _Raw(text)
    out: list[Finding] = []
    for (icase, solid, spaced), (_, name, label, groups, rx) in zip(_SECRET_NEEDLES, _SECRETS, strict=True):
        tokens = raw.tokens_lower if icase else raw.tokens
        if not any(n in tokens for n in solid) and not any(
            n in (text.lower() if icase else text) for n in spaced
        ):
            continue
        for m in rx.finditer(text):
            g = next((i for i in groups if m.group(i) is not None), 0)
            value = m.group(g)
            if name == "aws" and value.endswith(("EXAMPLE", "EXAMPLEKEY")):
                continue  # AWS's documented example keys
            if name in ("password", "generic"):
                bare = value.strip("\"'")
                if _PLACEHOLDER_VALUE.match(value) or (
                    name == "password" and _PROSE_PASSWORD.fullmatch(bare)
                ):
                    continue
                if name == "generic" and not (
                    any(c.isdigit() for c in bare) and any(c.isalpha() for c in bare)
                ):
                    continue
            elif _DOC_PLACEHOLDER.fullmatch(value):
                continue
            message = f"{label}: remove it (and revoke it if it is real)"
            out.append(Finding(f"secret:{name}", message, m.start(g), m.end(g)))
    return out


def _blob_findings(text: str, url_spans: list[tuple[int, int]], raw: _Raw | None = None) -> list[Finding]:
    if (raw or _Raw(text)).longest_token() < 20:
        return []  # every run below holds no white space and is at least 20 characters long
    out: list[Finding] = []
    for run in _LONG_RUN.finditer(text):  # blobs and tokens live inside these runs only
        lo, hi = run.span()
        for m in _HEX_RUN.finditer(text, lo, hi):
            message = f"hex run of {len(m.group())} characters"
            out.append(Finding("encoded-blob", message, m.start(), m.end()))
        for m in _B64_RUN.finditer(text, lo, hi):
            if any(s <= m.start() and m.end() <= e for s, e in url_spans):
                continue  # an id in a link's path; query data is the link check's business
            if _looks_random(m.group().rstrip("="), 4.0):
                message = f"base64-like run of {len(m.group())} characters"
                out.append(Finding("encoded-blob", message, m.start(), m.end()))
    for m in _TOKEN.finditer(text):
        tok = m.group().rstrip(".=")
        if len(tok) < 20 or _UUID.fullmatch(tok) or _API_OBJECT_ID.match(tok):
            continue
        if any(s <= m.start() < e for s, e in url_spans):
            continue
        if _looks_random(tok, 3.7):
            message = f"random-looking token of {len(tok)} characters: remove it if it is a secret"
            out.append(Finding("secret:entropy", message, m.start(), m.start() + len(tok), WARNING))
    return out


# ----------------------------------------------------------------------------------------------
# Personal data (raw text)
# ----------------------------------------------------------------------------------------------

_EMAIL = re.compile(
    r"(?<![\w.+-])[\w.+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b(?!:)"
)  # "(?!:)": git@github.com:org/repo is an SSH remote, not an address
# At least eight digits after "+", nine otherwise: "2024-01-15" is no phone number.
_PHONE_HINT = re.compile(
    r"\+\(?\d(?:[ .\-()/\u00a0\u202f]{0,2}\d){7,}|\(?\d(?:[ .\-()/\u00a0\u202f]{0,2}\d){8,}"
)
_NOT_DIGIT = re.compile(r"\D")
_DIGIT_GROUP = re.compile(r"\d+")
_SEVEN_DIGITS = re.compile(r"\d{7,8}")
_NINE_DIGITS = re.compile(r"\d(?:[ .\-()/\u00a0\u202f]{0,2}[\dAB]){8,}")  # AB: Corsican NIR
_CF_HINT = re.compile(r"\d\d[A-EHLMPR-T]\d\d[A-Z]")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?:[ \u00a0]?[A-Z0-9]{4}){2,7}(?:[ \u00a0]?[A-Z0-9]{1,4})?\b")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_NIR = re.compile(
    r"(?<![\dA-Za-z])[12][ .]?\d{2}[ .]?\d{2}[ .]?(?:\d{2}|2[AB])[ .]?\d{3}[ .]?\d{3}[ .]?\d{2}"
    r"(?![\dA-Za-z])"
)
_SSN = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
_SSN_KEYWORD = re.compile(r"(?i)\bssn\b\W{0,3}(\d{9})\b")
_DNI = re.compile(r"(?<![\dA-Za-z])(?:\d{8}-?[A-Za-z]|[XYZxyz]-?\d{7}-?[A-Za-z])(?![\dA-Za-z])")
_CODICE_FISCALE = re.compile(r"\b[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]\b")
_NUMBER_SEPARATORS = re.compile(r"[\s.\-]")
_PII_RANK = {"pii:national-id": 0, "pii:card": 1, "pii:iban": 2, "pii:email": 3, "pii:phone": 4}


def _valid_id(kind: str, value: str) -> bool:
    """Checksum of a national id candidate (python-stdnum, imported on first use)."""
    value = _NUMBER_SEPARATORS.sub("", value)
    if kind == "nir":
        from stdnum.fr import nir

        return bool(nir.is_valid(value))
    if kind == "ssn":
        from stdnum.us import ssn

        return bool(ssn.is_valid(value))
    if kind == "dni":
        from stdnum.es import dni, nie

        return bool(dni.is_valid(value) or nie.is_valid(value))
    from stdnum.it import codicefiscale

    return bool(codicefiscale.is_valid(value))


def _national_ids(
    text: str, rx: re.Pattern[str], kind: str, label: str, windows: list[tuple[int, int]]
) -> list[Finding]:
    out = []
    for m in (m for lo, hi in windows for m in rx.finditer(text, lo, hi)):
        g = 1 if rx.groups else 0
        if _valid_id(kind, m.group(g)):
            out.append(Finding("pii:national-id", label, m.start(g), m.end(g)))
    return out


def _card_ok(raw: str) -> bool:
    """Grouped like a card (none, 4-4-4-4…, 4-6-5, 4-6-4), a known brand prefix and length,
    and the Luhn checksum (python-stdnum)."""
    groups = [len(g) for g in re.split(r"[ -]", raw)]
    if len(groups) > 1 and groups not in ([4, 6, 5], [4, 6, 4]):
        if not (all(n == 4 for n in groups[:-1]) and 1 <= groups[-1] <= 4):
            return False
    d = raw.replace(" ", "").replace("-", "")
    n = len(d)
    brand = (
        (d[0] == "4" and n in (13, 16, 19))
        or ("51" <= d[:2] <= "55" and n == 16)
        or ("2221" <= d[:4] <= "2720" and n == 16)
        or (d[:2] in ("34", "37") and n == 15)
        or ((d[:4] == "6011" or d[:2] == "65" or "644" <= d[:3] <= "649") and 16 <= n <= 19)
        or ((d[:2] in ("36", "38") or "300" <= d[:3] <= "305") and 14 <= n <= 16)
        or ("3528" <= d[:4] <= "3589" and 16 <= n <= 19)
        or (d[:2] == "62" and 16 <= n <= 19)
    )
    if not brand:
        return False
    from stdnum import luhn  # lazy: importing stdnum costs 50 ms

    return bool(luhn.is_valid(d))


def _iban_findings(text: str, windows: list[tuple[int, int]]) -> list[Finding]:
    out = []
    for m in (m for lo, hi in windows for m in _IBAN.finditer(text, lo, hi)):
        from stdnum import iban  # lazy

        parts = re.split(r"[ \u00a0]", m.group())
        # The pattern may swallow a following upper-case word: try shorter candidates too.
        for k in range(len(parts), 0, -1):
            if iban.is_valid("".join(parts[:k])):
                end = m.start() + len(" ".join(parts[:k]))
                out.append(Finding("pii:iban", "IBAN (bank account)", m.start(), end))
                break
    return out


def _phone_regions(hint: str) -> tuple[str, ...]:
    """Regions worth asking phonenumbers about (each call costs 0.1-0.2 ms): one when the digits
    already say it (international, French 0X…, North American 10 or 1+10 digits), both otherwise."""
    d = _NOT_DIGIT.sub("", hint)
    if hint.startswith("+") or d.startswith("00"):
        return ("FR",)  # an international number parses the same from any region
    if (len(d) == 10 and d[0] == "0") or len(d) == 9:
        return ("FR",)
    if (len(d) == 10 and d[0] in "23456789") or (len(d) == 11 and d[0] == "1"):
        return ("US",)
    return ("FR", "US")


def _phone_candidates(text: str, h: re.Match[str]) -> tuple[list[tuple[int, int]], bool]:
    """Spans to try for one hint, and whether to stop at the first that matches. A hint may hold
    more than one number's digits ("06 12 34 56 78 24h/24"): an international one (+…, 00…) is
    tried on its digit groups from the longest prefix down (E.164: at most 15 digits), a national
    one on every run of groups that adds up to 10 digits (11 after a leading 1)."""
    hint = h.group()
    digits = _NOT_DIGIT.sub("", hint)
    groups = [m.span() for m in _DIGIT_GROUP.finditer(text, *h.span())]
    sizes = [e - s for s, e in groups]
    if hint.startswith("+") or digits.startswith("00"):
        country = digits if hint.startswith("+") else digits[2:]
        if country[:1] in ("", "0"):
            return [], True  # no country code starts with 0: "0002469134" is an invoice number
        ends = [groups[j][1] for j in range(len(groups)) if 8 <= sum(sizes[: j + 1]) <= 15]
        return [(h.start(), end) for end in reversed(ends)], True
    if len(digits) in (9, 10) or (len(digits) == 11 and digits[0] == "1"):
        return [h.span()], True
    spans = []
    for i in range(len(groups)):
        for j in range(i, len(groups)):
            count = sum(sizes[i : j + 1])
            if count == 10 or (count == 11 and text[groups[i][0]] == "1"):
                spans.append((groups[i][0], groups[j][1]))
            if count >= 11:
                break
    return spans, False


def _phone_findings(text: str, windows: list[tuple[int, int]]) -> list[Finding]:
    """Phone numbers valid in France or the US, or international (+…), grouped as they are
    written in that country (phonenumbers' STRICT_GROUPING: "2 345 678 901 €" is not a number).
    A number glued to letters or digits (inside a hash, an id) does not count."""
    hints = [
        h
        for lo, hi in windows
        for h in _PHONE_HINT.finditer(text, lo, hi)
        if not text[h.start() - 1 : h.start()].isalnum()
    ]
    if not hints:
        return []
    import phonenumbers  # lazy: 40 ms to import, and needed only when digits abound

    out: list[Finding] = []
    for h in hints:
        line_start = text.rfind("\n", 0, h.start()) + 1
        line_end = len(text) if text.find("\n", h.end()) < 0 else text.find("\n", h.end())
        candidates, first_only = _phone_candidates(text, h)
        for cs, ce in candidates:
            # The window keeps the neighbouring digit groups out, so they cannot spoil the match.
            lo = max(line_start, cs - 4) if cs == h.start() else cs - 1
            hi = min(line_end, ce + 4) if ce == h.end() else ce + 1
            found = [
                (lo + pm.start, lo + pm.end)
                for region in _phone_regions(text[cs:ce])
                for pm in phonenumbers.PhoneNumberMatcher(
                    text[lo:hi], region, leniency=phonenumbers.Leniency.STRICT_GROUPING
                )
            ]
            for s, e in found:
                glued = text[s - 1 : s].isalnum() or text[e : e + 1].isalnum()
                if not glued and not any(f.start < e and s < f.end for f in out):
                    out.append(Finding("pii:phone", "phone number", s, e))
            if found and first_only:
                break
    return out


# Latin-1 has no decimal digits but 0-9. Digits (and A, B) become "0", the rest "x"; the second
# table deletes _NINE_DIGITS' separators, so each of its matches leaves nine "0" in a row.
_DIGITS_TABLE = bytes(b"0"[0] if chr(b).isdigit() else b"x"[0] for b in range(256))
_NINE_TABLE = bytes(b"0"[0] if chr(b) in "0123456789AB" else b"x"[0] for b in range(256))
_NINE_SEPARATORS = " .-()/\u00a0".encode("latin-1")


def _digit_runs(raw: _Raw) -> tuple[bool, bool]:
    """Whether ``_SEVEN_DIGITS`` and ``_NINE_DIGITS`` may match (False: they certainly do not)."""
    if raw.latin1 is None:
        return _SEVEN_DIGITS.search(raw.tokens) is not None, True
    seven = b"0000000" in raw.latin1.translate(_DIGITS_TABLE)
    return seven, b"000000000" in raw.latin1.translate(_NINE_TABLE, _NINE_SEPARATORS)


def _pii_findings(text: str, raw: _Raw | None = None) -> list[Finding]:
    raw = raw or _Raw(text)
    out: list[Finding] = []
    if "@" in text:
        out += [
            Finding("pii:email", "email address", m.start(), m.end()) for m in _EMAIL.finditer(text)
        ]
    everywhere = [(0, len(text))]
    if "ssn" in raw.tokens_lower:
        out += _national_ids(text, _SSN_KEYWORD, "ssn", "US social security number", everywhere)
    if _CF_HINT.search(raw.tokens):
        out += _national_ids(text, _CODICE_FISCALE, "cf", "Italian codice fiscale", everywhere)
    # Spanish ids hold 7 or 8 digits; every other number at least nine. The patterns run only
    # in windows around such runs of digits, which keeps long texts fast.
    seven, nine = _digit_runs(raw)
    short = _windows(text, _SEVEN_DIGITS) if seven else []
    if short:
        out += _national_ids(text, _DNI, "dni", "Spanish DNI/NIE", short)
    near = _windows(text, _NINE_DIGITS) if nine else []
    if not near:
        return out
    out += _national_ids(text, _NIR, "nir", "French social security number (NIR)", near)
    out += _national_ids(text, _SSN, "ssn", "US social security number", near)
    out += [
        Finding("pii:card", "payment card number", m.start(), m.end())
        for lo, hi in near
        for m in _CARD.finditer(text, lo, hi)
        if _card_ok(m.group())
    ]
    out += _iban_findings(text, near)
    out += _phone_findings(text, near)
    return out


def _windows(text: str, rx: re.Pattern[str], margin: int = 24) -> list[tuple[int, int]]:
    """Disjoint spans around the matches of ``rx``, ``margin`` characters wider on each side
    (room for an IBAN's country code and letters, a DNI's letter)."""
    spans: list[tuple[int, int]] = []
    for m in rx.finditer(text):
        lo, hi = max(0, m.start() - margin), min(len(text), m.end() + margin)
        if spans and lo <= spans[-1][1]:
            spans[-1] = (spans[-1][0], hi)
        else:
            spans.append((lo, hi))
    return spans


# ----------------------------------------------------------------------------------------------
# Putting it together
# ----------------------------------------------------------------------------------------------


def _overlaps(a: Finding, b: Finding) -> bool:
    return a.start < b.end and b.start < a.end


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """Drop weaker findings on the same characters as stronger ones, and repeats of a code."""
    strong = [
        f
        for f in findings
        if f.code.startswith(("secret:", "pii:"))
        and f.code not in ("secret:entropy", "secret:generic")
    ]
    generic = [f for f in findings if f.code in ("encoded-blob", "secret:generic")]
    kept: list[Finding] = []
    for f in findings:
        if f.code in ("encoded-blob", "secret:entropy", "secret:generic") and any(
            _overlaps(f, s) for s in strong
        ):
            continue
        if f.code == "secret:entropy" and any(_overlaps(f, g) for g in generic):
            continue
        rank = _PII_RANK.get(f.code)
        if rank is not None and any(
            _PII_RANK.get(g.code, 9) < rank and _overlaps(f, g) for g in findings
        ):
            continue
        if any(k.code == f.code and _overlaps(k, f) for k in kept):
            continue
        kept.append(f)
    return sorted(kept, key=lambda f: (f.start, f.end, f.code))


def scan(text: str, *, max_chars: int | None = None, kind: str = "entry") -> list[Finding]:
    """Every reason to refuse or warn about ``text`` (SPEC §8), sorted by position.

    ``kind``: ``"entry"`` (one memory line: any line break is refused), ``"rule"`` (a doctrine
    text field: one line too) or ``"file"`` (a stored memory file: ``\\n`` separates lines and
    leading Markdown is checked on the content of each ``- `` entry line). ``max_chars`` counts
    code points (``entry_max_chars`` or ``budget_chars``, SPEC §3-4); ``None`` means no limit.
    Raises ``ValueError`` for an unknown kind; never raises because of the text.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown guard kind {kind!r} (expected one of: {', '.join(KINDS)})")
    findings: list[Finding] = []
    if max_chars is not None and len(text) > max_chars:
        what = {"entry": "entry", "rule": "field", "file": "file"}[kind]
        message = f"{what} is {len(text)}/{max_chars} characters: shorten it (nothing is truncated)"
        findings.append(Finding("too-long", message, max_chars, len(text)))
    raw = _Raw(text)
    findings += _invisible_findings(text, raw)
    findings += _line_break_findings(text, kind)
    det, index = _detection_copy(text, raw)
    for code, hits in (
        ("structure", _structure_hits(det, kind)),
        ("exfiltration", _exfiltration_hits(det)),
        ("instruction", _instruction_hits(det, raw.folded_tokens())),
    ):
        for s, e, message in hits:
            findings.append(Finding(code, message, *_raw_span(index, s, e)))
    url_spans = [_raw_span(index, m.start(), m.end()) for m in _URL.finditer(det)] if "://" in det else []
    findings += _secret_findings(text, raw)
    findings += _pii_findings(text, raw)
    findings += _blob_findings(text, url_spans, raw)
    return _dedupe(findings)


def check(
    text: str, *, where: str, max_chars: int | None = None, kind: str = "entry"
) -> list[Finding]:
    """Refuse ``text`` when :func:`scan` finds an error; return the warnings otherwise.

    Raises :class:`~agentmem.errors.GuardError` whose message is
    ``"{where}: refused: <code> at <offset>: <message>; …"`` (SPEC §8): classes and positions,
    never a matched value.
    """
    findings = scan(text, max_chars=max_chars, kind=kind)
    errors = [f for f in findings if f.severity == ERROR]
    if errors:
        shown = "; ".join(f"{f.code} at {f.start}: {f.message}" for f in errors[:8])
        more = f"; … and {len(errors) - 8} more" if len(errors) > 8 else ""
        raise GuardError(
            f"{where}: refused: {shown}{more}",
            hint="the guard refuses and never rewrites: change the text and try again",
        )
    return findings


def placeholder(code: str) -> str:
    """Typed placeholder for a secret or personal-data code: ``[EMAIL]``, ``[SECRET:github]``."""
    if code.startswith("secret:"):
        return f"[SECRET:{code.split(':', 1)[1]}]"
    return PLACEHOLDERS.get(code, "[REDACTED]")


def mask(text: str) -> str:
    """``text`` with secrets and personal data replaced by typed placeholders (SPEC §7).

    For a transcript about to be sent to a model: ``[EMAIL]``, ``[PHONE]``, ``[IBAN]``,
    ``[CARD]``, ``[NATIONAL-ID]``, ``[SECRET:<provider>]``. Random-looking tokens (the
    ``secret:entropy`` warning) become ``[SECRET:entropy]``. Nothing else changes; a password
    keeps its ``password=`` key. Does not refuse anything: use :func:`scan` for that.
    """
    raw = _Raw(text)
    url_spans = [m.span() for m in _URL.finditer(text)] if "://" in text else []
    found = _dedupe(
        _secret_findings(text, raw) + _pii_findings(text, raw) + _blob_findings(text, url_spans, raw)
    )
    spans = sorted(
        (f for f in found if f.code.startswith(("secret:", "pii:"))),
        key=lambda f: (f.start, -f.end),
    )
    parts: list[str] = []
    pos = 0
    for f in spans:
        if f.start >= pos:
            parts += [text[pos : f.start], placeholder(f.code)]
            pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def describe(findings: list[Finding]) -> str:
    """One-line human summary: ``2 refused, 1 warning: code at offset (message); …``.

    Built from codes, offsets and messages only, so it never shows a matched value.
    """
    if not findings:
        return "clean"
    errors = sum(f.severity == ERROR for f in findings)
    warnings = len(findings) - errors
    head = ", ".join(
        part
        for part in (
            f"{errors} refused" if errors else "",
            f"{warnings} warning{'s' if warnings > 1 else ''}" if warnings else "",
        )
        if part
    )
    return f"{head}: " + "; ".join(f"{f.code} at {f.start} ({f.message})" for f in findings)


def locate(text: str, offset: int) -> tuple[int, int]:
    """1-based ``(line, column)`` of a character offset, for ``path:line`` messages."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1
