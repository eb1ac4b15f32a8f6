"""Raw-text facts, invisible characters, line breaks and the detection copy (docs/design/guard.md §Guard).

Invisible characters and line breaks are checked on the raw text. Structure, exfiltration and
instructions are checked on a *detection copy* (invisible characters removed, NFKC, casefold,
accents removed, Latin look-alikes mapped to Latin); :func:`_raw_span` maps its spans back.
:class:`_Raw` holds the cheap facts that let the other modules skip regex passes."""

from __future__ import annotations

import unicodedata
from collections import Counter
from functools import lru_cache

from agentmem.guard.base import Finding
from agentmem.lazyre import lazy_compile


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

    __slots__ = (
        "_tokens",
        "_words",
        "foldable",
        "latin1",
        "longest",
        "plain",
        "text",
        "visible",
        "visible_known",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        try:
            self.latin1: bytes | None = text.encode("latin-1")
        except UnicodeEncodeError:
            self.latin1 = None
        #: only tab, line feed and printable ASCII: the detection form is ``lower()`` (what the
        #: byte table gives those bytes), and the table is not needed
        self.plain = self.latin1 is not None and not self.latin1.translate(None, _PLAIN)
        self.foldable = self.latin1 is not None and (
            self.plain or len(self.latin1.translate(None, _latin1_tables()[1])) == len(self.latin1)
        )
        self._tokens: tuple[str, str] | None = None
        self._words: tuple[frozenset[str], frozenset[str]] | None = None
        self.longest = -1
        self.visible: list[int] | None = None  # _visible_positions, once computed
        self.visible_known = False

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

    def words(self) -> tuple[frozenset[str], frozenset[str]]:
        """The text's distinct words (runs of letters) as written, and in lower case."""
        if self._words is None:
            caps = frozenset(letter_runs(self.tokens))
            self._words = (caps, frozenset(w.lower() for w in caps))
        return self._words

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
        if self.plain:
            return self.tokens_lower
        return self.tokens.encode("latin-1").translate(_latin1_tables()[0]).decode("latin-1")


_LETTERS = lazy_compile(r"[^\W\d_]+")


def letter_runs(text: str) -> set[str]:
    r"""The distinct runs of letters of ``text``: the set of ``_LETTERS.findall(text)``, with
    the pattern run only on the tokens that need it. A run never holds white space (no white
    space character is alphanumeric), so it lies inside one white-space-separated token; a
    token that ``str.isalpha`` accepts is one run whole (a letter is alphanumeric, never a
    decimal digit, never "_": inside ``[^\W\d_]``). tests/guard/test_scanner.py compares the
    two on the guard's cases and on random text."""
    runs: set[str] = set()
    others = []
    for token in set(text.split()):
        if token.isalpha():
            runs.add(token)
        else:
            others.append(token)
    if others:
        runs.update(_LETTERS.findall("\n".join(others)))
    return runs


def _solid(needle: str) -> bool:
    """A needle that :attr:`_Raw.tokens` can answer for: no white space."""
    return not needle or needle.split() == [needle]  # split(): the white space of isspace()


# ----------------------------------------------------------------------------------------------
# Invisible characters and line breaks (raw text)
# ----------------------------------------------------------------------------------------------

_LINE_BREAKS = frozenset("\n\r\x85\u2028\u2029")
_ODD_BREAKS = lazy_compile(r"\r(?!\n)|[\x85\u2028\u2029]")  # refused even in a stored file
_ANY_BREAK = lazy_compile(r"[\n\r\x85\u2028\u2029]")
# Invisible although outside the C* categories: combining grapheme joiner, Hangul fillers, Khmer
# inherent vowels.
_EXTRA_INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0")
_EMOJI_EXTRA = frozenset("\u00a9\u00ae\u203c\u2049\u2122\u2139\u3030\u303d")
_VS16, _ZWJ, _KEYCAP = "\ufe0f", "\u200d", "\u20e3"
_SPECIAL = lazy_compile(r"[^\t\n\x20-\x7e]")  # what the ASCII fast paths cannot handle


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
    if 0x2800 <= o <= 0x28FF:
        return False  # Braille patterns are symbols, not emoji: no joiner between them
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
_PRINTABLE_INVISIBLE = lazy_compile(
    "[" + "".join(sorted(_EXTRA_INVISIBLE)) + "\ufe00-\ufe0f\U000e0100-\U000e01ef\u180b-\u180f]"
)


def _may_hold_invisible(raw: _Raw) -> bool:
    """False when no character can be invisible: all printable (no C* category: Cc, Cf, Cs, Co,
    Cn) once tabs and line feeds are set aside, and none of the printable invisibles."""
    if not raw.text.replace("\n", "").replace("\t", "").isprintable():
        return True
    return raw.latin1 is None and _PRINTABLE_INVISIBLE.search(raw.text) is not None


def _invisible_findings(text: str, raw: _Raw | None = None) -> list[Finding]:
    """Invisible characters, grouped so that each finding counts every one in its span: one
    code point alone is ``U+200B ×3 (ZERO WIDTH SPACE)``; several distinct ones whose spans
    meet (tag characters spelling a hidden text, in a row or spread between visible letters,
    variation selectors carrying bytes) are one finding that counts them all: ``×32 in a row``,
    ``×29 over 32 characters``."""
    if not _may_hold_invisible(raw or _Raw(text)):
        return []
    positions = [
        m.start()
        for m in _SPECIAL.finditer(text)
        if m.group() not in _LINE_BREAKS
        and _is_invisible_cp(m.group())
        and not _excused(text, m.start())
    ]
    out: list[Finding] = []
    for start, end in _clusters(text, positions):
        inside = [i for i in positions if start <= i < end]
        distinct = {text[i] for i in inside}
        if len(distinct) == 1:
            out += _per_codepoint(text, inside, "invisible-char", "invisible character")
            continue
        lo, hi = min(map(ord, distinct)), max(map(ord, distinct))
        tags = " (Unicode tag characters: hidden text)" if lo >= 0xE0000 and hi <= 0xE007F else ""
        where = "in a row" if len(inside) == end - start else f"over {end - start} characters"
        message = (
            f"invisible characters ×{len(inside)} {where}, {len(distinct)} distinct, "
            f"U+{lo:04X}..U+{hi:04X}{tags}"
        )
        out.append(Finding("invisible-char", message, start, end))
    return sorted(out, key=lambda f: f.start)


def _clusters(text: str, positions: list[int]) -> list[tuple[int, int]]:
    """Spans that hold every invisible character: each code point's span (first to last) and
    each run, joined where they overlap or touch."""
    spans: dict[str, tuple[int, int]] = {}
    for i in positions:
        first = spans.get(text[i], (i, i))[0]
        spans[text[i]] = (first, i + 1)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans.values()):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _visible_positions(text: str, raw: _Raw | None = None) -> list[int] | None:
    """Positions of the characters that are not invisible (line feeds and tabs kept; so is a
    joiner or variation selector inside an emoji sequence), or None when every character is:
    the *cleaned copy* that secrets, personal data and blobs are read
    on again, so that an invisible character inside a value cannot hide it. Cached on ``raw``."""
    if raw is not None and raw.visible_known:
        return raw.visible
    drop = set()
    if raw is None or not raw.foldable:
        drop = {
            m.start()
            for m in _SPECIAL.finditer(text)
            if _is_invisible_cp(m.group()) and not _excused(text, m.start())
        }
    keep = [i for i in range(len(text)) if i not in drop] if drop else None
    if raw is not None:
        raw.visible, raw.visible_known = keep, True
    return keep


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
        # lazy: a large JSON load, needed only when such characters occur
        from confusable_homoglyphs import confusables

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
    return _detection_form(ch)


def _decomposed(ch: str) -> str:
    """``ch`` in NFKC, case-folded, in NFD: the characters its detection form is made of."""
    return unicodedata.normalize("NFD", unicodedata.normalize("NFKC", ch).casefold())


def _detection_form(ch: str, decomposed: str | None = None) -> str:
    """:func:`_fold` uncached; ``decomposed``: ``_decomposed(ch)`` when the caller has it."""
    if ch in _LINE_BREAKS:
        return "\n"
    if _is_invisible_cp(ch):
        return ""
    out = []
    for c in _decomposed(ch) if decomposed is None else decomposed:
        if unicodedata.category(c) in ("Mn", "Me"):
            continue
        c = _APOSTROPHES.get(c, c)
        if ord(c) >= 0x250 and c.isalnum():  # beyond Latin Extended-B: maybe a look-alike
            c = _homoglyph_table().get(c, c)
        out.append(c)
    return "".join(out)


@lru_cache(maxsize=1)
def _latin1_tables() -> tuple[bytes, bytes]:
    """A byte table giving each Latin-1 character its detection form when that form is one
    Latin-1 character, and the bytes whose form is not (controls, soft hyphen, µ, ½, ß…).
    Built on first use (each byte's decomposition read once): a text of tab, line
    feed and printable ASCII only (:attr:`_Raw.plain`) needs none of it, its form being
    ``lower()``, which is what the table gives those bytes."""
    table = bytearray(range(256))
    unsafe = bytearray()
    for b in range(256):
        ch = chr(b)
        if b in (9, 10) or 0x20 <= b <= 0x7E:
            table[b] = ord(ch.lower())  # tab, line feed, printable ASCII: NFKC and NFD keep them
            continue
        near = _decomposed(ch)
        if any(ord(c) >= 0x250 and c.isalnum() for c in near):
            unsafe.append(b)  # µ: its form needs the look-alike table, which loads lazily
            continue
        folded = _detection_form(ch, near)  # every byte left is one _SPECIAL matches
        if len(folded) == 1 and ord(folded) < 256:
            table[b] = ord(folded)
        else:
            unsafe.append(b)
    return bytes(table), bytes(unsafe)


#: Tab, line feed and printable ASCII: the bytes the table gives their ``lower()``.
_PLAIN = bytes((9, 10, *range(0x20, 0x7F)))


def _detection_copy(text: str, raw: _Raw | None = None) -> tuple[str, list[int] | None]:
    """The detection copy and the raw index of each of its characters (None: identity)."""
    raw = raw or _Raw(text)
    if raw.plain:
        return text.lower(), None  # what the byte table gives each of its bytes
    if raw.foldable and raw.latin1 is not None:
        # One character for one: the same text as the loop below, in one C pass.
        return raw.latin1.translate(_latin1_tables()[0]).decode("latin-1"), None
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
