"""Personal data (docs/design/guard.md §Guard), the ONE check (:func:`personal_findings`) that the guard
refuses in entries, rules and files, harvest validation refuses in proposals and
:func:`agentmem.guard.mask` hides from a model: e-mail addresses, phone numbers (France, US,
international), IBANs, payment cards, national ids (FR NIR, US SSN, ES DNI/NIE, DE Steuer-ID
and Steuernummer, UK NINO, IT codice fiscale), and facts about a person: names, dates of birth,
street addresses, health, family, legal and financial facts, passwords said in words or typed
on a command line (English, French, Spanish, German). Checksums through python-stdnum,
numbers through phonenumbers, first names from gender-guesser's list, common words from
pyspellchecker's frequency lists, all loaded on first use; the vocabulary in
``guard/data/personal.json``."""

from __future__ import annotations

import functools
import json
import mmap
import os
import re
import unicodedata

from agentmem.guard.base import Finding, package_folder
from agentmem.guard.secrets import _PLACEHOLDER_VALUE
from agentmem.guard.unicode import _Raw, letter_runs
from agentmem.lazyre import lazy_compile

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any

# ----------------------------------------------------------------------------------------------
# Personal data (raw text)
# ----------------------------------------------------------------------------------------------

# The host is taken whole ("(?!…)": no shorter host inside git@gitlab.example.com), and neither
# an SSH remote (git@host:org/repo, a colon then no space) nor the user of a link
# (ssh://git@host/…) is an address.
_EMAIL = lazy_compile(
    r"(?<![\w.+-])(?<!://)[\w.+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}"
    r"(?![\w-]|\.[A-Za-z0-9]|:\S)"
)
# At least eight digits after "+", nine otherwise: "2024-01-15" is no phone number.
_PHONE_HINT = lazy_compile(
    r"\+\(?\d(?:[ .\-()/\u00a0\u202f]{0,2}\d){7,}|\(?\d(?:[ .\-()/\u00a0\u202f]{0,2}\d){8,}"
)
_NOT_DIGIT = lazy_compile(r"\D")
_DIGIT_GROUP = lazy_compile(r"\d+")
_SEVEN_DIGITS = lazy_compile(r"\d{7,8}")
_NINE_DIGITS = lazy_compile(r"\d(?:[ .\-()/\u00a0\u202f]{0,2}[\dAB]){8,}")  # AB: Corsican NIR
_CF_HINT = lazy_compile(r"\d\d[A-EHLMPR-T]\d\d[A-Z]")
_NINO_HINT = lazy_compile(r"^[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z](?:\d\d|$)", re.MULTILINE)
_IBAN = lazy_compile(r"\b[A-Z]{2}\d{2}(?:[ \u00a0]?[A-Z0-9]{4}){2,7}(?:[ \u00a0]?[A-Z0-9]{1,4})?\b")
_CARD = lazy_compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
# Sex digit 1-4 or 7-8 (temporary numbers), groups apart by a space, a no-break space, a dot or
# a hyphen, the key maybe set further apart ("… 084 - 91", "… 084/91").
_NIR_SEP = "[ .\\-\u00a0\u202f]?"
_NIR = lazy_compile(
    rf"(?<![\dA-Za-z])[1-478]{_NIR_SEP}\d{{2}}{_NIR_SEP}\d{{2}}{_NIR_SEP}(?:\d{{2}}|2[AB])"
    rf"{_NIR_SEP}\d{{3}}{_NIR_SEP}\d{{3}}[ .\-/\u00a0\u202f]{{0,3}}\d{{2}}(?![\dA-Za-z])"
)
_SSN = lazy_compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
_SSN_KEYWORD = lazy_compile(r"(?i)\bssn\b\W{0,3}(\d{9})\b")
_DNI = lazy_compile(r"(?<![\dA-Za-z])(?:\d{8}-?[A-Za-z]|[XYZxyz]-?\d{7}-?[A-Za-z])(?![\dA-Za-z])")
_CODICE_FISCALE = lazy_compile(r"\b[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]\b")
# German tax id (Steuer-ID, IdNr): 11 digits, grouped "86 095 742 719" or not; its checksum and
# digit rules (python-stdnum) keep ordinary numbers out. The older tax number (Steuernummer)
# has no checksum: only when named.
_IDNR = lazy_compile(r"(?<![\d.,/-])[1-9]\d(?:[ \u00a0]?\d{3}){3}(?![\d.,/-]|[ \u00a0]\d)")
_STNR_NAMED = lazy_compile(
    r"(?i)\b(?:steuernummer|steuer-nr\.?|st\.?-?nr\.?)\b\W{0,3}(\d{2,3}/\d{3,4}/\d{4,5}|\d{10,13})"
)
# UK National Insurance number: two letters (HMRC's rules: no D, F, I, Q, U, V; no O second;
# not BG, GB, KN, NK, NT, TN, ZZ), six digits, A-D. python-stdnum has no module for it.
_NINO = lazy_compile(
    r"(?<![A-Za-z0-9])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z](?:[ \u00a0]?\d\d){3}[ \u00a0]?[A-D])"
    r"(?![A-Za-z0-9])"
)
_NINO_INVALID = frozenset(("BG", "GB", "KN", "NK", "NT", "TN", "ZZ"))
# A number named as a social security number: "numéro de sécurité sociale : 1 85 05 78 …",
# "social security number 123 45 6789".
_NIR_NAMED = lazy_compile(
    r"(?i)\b(?:s[ée]curit[ée] sociale|s[ée]cu|nir|num[ée]ro insee|social security|seguridad social"
    r"|sozialversicherungsnummer)\b[^\d\n]{0,24}([1-478](?:[ .\-\u00a0\u202f]?\d){12}"
    r"(?:[ .\-/\u00a0\u202f]{0,3}\d\d))(?!\d)"
)
_SSN_NAMED = lazy_compile(
    r"(?i)\b(?:ssn|social security)\b[^\d\n]{0,24}(\d{3}[ ]\d{2}[ ]\d{4})(?!\d)"
)


_NAMED_ID_WORDS = frozenset(
    "sécurité securite sécu secu nir insee security ssn seguridad sozialversicherungsnummer".split()
)


def _nino_ok(value: str) -> bool:
    value = value.replace(" ", "").replace("\u00a0", "").upper()
    return len(value) == 9 and value[:2] not in _NINO_INVALID


_NUMBER_SEPARATORS = lazy_compile(r"[\s./\-]")
_PII_RANK = {
    "pii:national-id": 0,
    "pii:card": 1,
    "pii:iban": 2,
    "pii:email": 3,
    "pii:birth-date": 4,
    "pii:phone": 5,
}


def _valid_id(kind: str, value: str) -> bool:
    """Checksum of a national id candidate (python-stdnum, imported on first use)."""
    value = _NUMBER_SEPARATORS.sub("", value)
    if kind == "nir":
        # lazy: stdnum is slow to import, needed only for digits
        from stdnum.fr import nir

        return bool(nir.is_valid(value))
    if kind == "ssn":
        # lazy: stdnum is slow to import, needed only for digits
        from stdnum.us import ssn

        return bool(ssn.is_valid(value))
    if kind == "dni":
        # lazy: stdnum is slow to import, needed only for digits
        from stdnum.es import dni, nie

        return bool(dni.is_valid(value) or nie.is_valid(value))
    if kind == "idnr":
        # lazy: stdnum is slow to import, needed only for digits
        from stdnum.de import idnr

        return bool(idnr.is_valid(value))
    if kind == "stnr":
        # lazy: stdnum is slow to import, needed only for digits
        from stdnum.de import stnr

        return bool(stnr.is_valid(value))
    if kind == "nino":
        return _nino_ok(value)
    if kind == "nir-named":
        # lazy: stdnum is slow to import, needed only for digits
        from stdnum.fr import nir

        # Named as a social security number: the key is not checked (a mistyped key is still
        # the person's number), the rest is (sex, month, department: stdnum's own checks).
        return bool(nir.is_valid(value[:13] + nir.calc_check_digits(value[:13])))
    # lazy: stdnum is slow to import, needed only for digits
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
    if (
        len(groups) > 1
        and groups not in ([4, 6, 5], [4, 6, 4])
        and not (all(n == 4 for n in groups[:-1]) and 1 <= groups[-1] <= 4)
    ):
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
    # lazy: stdnum is slow to import, needed only for digits
    from stdnum import luhn

    return bool(luhn.is_valid(d))


# A text that says it holds an account number: an IBAN-shaped value there is one even when its
# checksum fails (a typo, or one made up for a test, is still somebody's account to a reader).
_ACCOUNT_NAMED = lazy_compile(
    r"(?i)\b(?:iban|rib|bic|kontonummer|bankverbindung|compte bancaire|num[ée]ro de compte"
    r"|cuenta bancaria|n[úu]mero de cuenta|bank account|account number)\b"
)


def _iban_findings(text: str, windows: list[tuple[int, int]]) -> list[Finding]:
    out = []
    named: bool | None = None
    for m in (m for lo, hi in windows for m in _IBAN.finditer(text, lo, hi)):
        # lazy: stdnum is slow to import, needed only for digits
        from stdnum import iban

        parts = re.split(r"[ \u00a0]", m.group())
        # The pattern may swallow a following upper-case word: try shorter candidates too.
        for k in range(len(parts), 0, -1):
            if iban.is_valid("".join(parts[:k])):
                end = m.start() + len(" ".join(parts[:k]))
                out.append(Finding("pii:iban", "IBAN (bank account)", m.start(), end))
                break
        else:
            if named is None:
                named = _ACCOUNT_NAMED.search(text) is not None
            if named and 15 <= len("".join(parts)) <= 34 and any(c.isdigit() for c in parts[-1]):
                out.append(Finding("pii:iban", "IBAN (bank account)", m.start(), m.end()))
    return out


def _phone_regions(hint: str) -> tuple[str, ...]:
    """Regions worth asking phonenumbers about, in order (each call is costly; the first that
    finds a number ends the asking): one when the digits already say it (international, North
    American 10 or 1+10 digits), else those whose national numbers have that shape — a trunk 0
    and 10 digits: France, Germany, the UK; 11: the UK, Germany; 12: Germany (whose numbers
    run from 6 to 13 digits); 9 digits: France, Spain."""
    d = _NOT_DIGIT.sub("", hint)
    if hint.startswith("+") or d.startswith("00"):
        return ("FR",)  # an international number parses the same from any region
    if d[:1] == "0" and len(d) == 10:
        return ("FR", "DE", "GB")
    if d[:1] == "0" and len(d) == 11:
        return ("GB", "DE")
    if d[:1] == "0" and len(d) == 12:
        return ("DE",)
    if len(d) == 9:
        return ("FR", "ES")
    if (len(d) == 10 and d[0] in "23456789") or (len(d) == 11 and d[0] == "1"):
        return ("US",)
    return ("FR", "US")


def _phone_candidates(text: str, h: re.Match[str]) -> tuple[list[tuple[int, int]], bool]:
    """Spans to try for one hint, and whether to stop at the first that matches. A hint may hold
    more than one number's digits ("06 12 34 56 78 24h/24"): an international one (+…, 00…) is
    tried on its digit groups from the longest prefix down (E.164: at most 15 digits), a national
    one on every run of groups that adds up to 10 digits (11 after a leading 1 or 0, 12 after a
    leading 0)."""
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
    if len(digits) in (9, 10) or (len(digits) == 11 and digits[0] in "01"):
        return [h.span()], True
    spans = []
    for i in range(len(groups)):
        first = text[groups[i][0]]
        for j in range(i, len(groups)):
            count = sum(sizes[i : j + 1])
            if count == 10 or (count == 11 and first in "01") or (count == 12 and first == "0"):
                spans.append((groups[i][0], groups[j][1]))  # (12: a German mobile number)
            if count >= 12:
                break
    return spans, False


def _phone_findings(text: str, windows: list[tuple[int, int]]) -> list[Finding]:
    """Phone numbers valid in France, Germany, Spain, the UK or the US, or international (+…), grouped as they are
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
    # lazy: slow to import, and needed only when digits abound
    import phonenumbers

    out: list[Finding] = []
    for h in hints:
        line_start = text.rfind("\n", 0, h.start()) + 1
        line_end = len(text) if text.find("\n", h.end()) < 0 else text.find("\n", h.end())
        candidates, first_only = _phone_candidates(text, h)
        for cs, ce in candidates:
            # The window keeps the neighbouring digit groups out, so they cannot spoil the match.
            lo = max(line_start, cs - 4) if cs == h.start() else cs - 1
            hi = min(line_end, ce + 4) if ce == h.end() else ce + 1
            found: list[tuple[int, int]] = []
            for region in _phone_regions(text[cs:ce]):
                found = [
                    (lo + pm.start, lo + pm.end)
                    for pm in phonenumbers.PhoneNumberMatcher(
                        text[lo:hi], region, leniency=phonenumbers.Leniency.STRICT_GROUPING
                    )
                ]
                if found:
                    break
            for s, e in found:
                glued = text[s - 1 : s].isalnum() or text[e : e + 1].isalnum()
                if not glued and not any(f.start < e and s < f.end for f in out):
                    out.append(Finding("pii:phone", "phone number", s, e))
            if found and first_only:
                break
    return out


# Latin-1 has no decimal digits but 0-9. Digits (and A, B) become "0", the rest "x"; the second
# table deletes _NINE_DIGITS' separators, so each of its matches leaves nine "0" in a row.
_DIGITS_TABLE = bytes(b"0"[0] if chr(b).isdecimal() else b"x"[0] for b in range(256))
_NINE_TABLE = bytes(b"0"[0] if chr(b) in "0123456789AB" else b"x"[0] for b in range(256))
_NINE_SEPARATORS = " .-()/\u00a0".encode("latin-1")


def _digit_runs(raw: _Raw) -> tuple[bool, bool]:
    """Whether ``_SEVEN_DIGITS`` and ``_NINE_DIGITS`` may match (False: they certainly do not)."""
    if raw.latin1 is None:
        return _SEVEN_DIGITS.search(raw.tokens) is not None, True
    seven = b"0000000" in raw.latin1.translate(_DIGITS_TABLE)
    return seven, b"000000000" in raw.latin1.translate(_NINE_TABLE, _NINE_SEPARATORS)


def _may_hold_cf(raw: _Raw) -> bool:
    """False when ``_CF_HINT`` certainly does not match: in a Latin-1 text, its digits are 0-9
    only, so a match is "00x00x" once digits are "0" and the rest "x" (``_DIGITS_TABLE``)."""
    return raw.latin1 is None or b"00x00x" in raw.latin1.translate(_DIGITS_TABLE)


def _may_hold_nino(tokens: str) -> bool:
    """False when ``_NINO_HINT`` certainly does not match ``tokens`` (one a line): its match
    starts a line with two ASCII capitals, then ends it or goes on with two digits."""
    return any(
        t[:2].isupper() and t[:2].isascii() and (len(t) == 2 or t[2:4].isdecimal())
        for t in tokens.split("\n")
    )


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
    if _may_hold_cf(raw) and _CF_HINT.search(raw.tokens):
        out += _national_ids(text, _CODICE_FISCALE, "cf", "Italian codice fiscale", everywhere)
    if _may_hold_nino(raw.tokens) and _NINO_HINT.search(raw.tokens):
        out += _national_ids(text, _NINO, "nino", "UK National Insurance number", everywhere)
    lower = raw.words()[1]
    if not lower.isdisjoint(("steuernummer", "steuer", "st", "stnr", "nr")):
        out += _national_ids(text, _STNR_NAMED, "stnr", "German tax number", everywhere)
    if not lower.isdisjoint(_NAMED_ID_WORDS):
        out += _national_ids(
            text, _NIR_NAMED, "nir-named", "French social security number (NIR)", everywhere
        )
        out += _national_ids(text, _SSN_NAMED, "ssn", "US social security number", everywhere)
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
    out += _national_ids(text, _IDNR, "idnr", "German tax id (Steuer-ID)", near)
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
# Facts about a person: names, dates of birth, addresses, health, family, legal and financial
# facts, passwords said in words or typed on a command line (raw text)
# ----------------------------------------------------------------------------------------------

LANGUAGES = ("en", "fr", "es", "de")
_HERE = os.path.dirname(__file__)


def _name_list_file() -> str:
    """gender-guesser's ``nam_dict.txt``."""
    return os.path.join(package_folder("gender_guesser"), "data", "nam_dict.txt")


@functools.cache
def _vocabulary() -> dict[str, Any]:
    """``guard/data/personal.json``: health conditions and states, medications, person nouns
    (EN/FR/ES/DE), first names that are products, product words. Loaded on first use."""
    with open(os.path.join(_HERE, "data", "personal.json"), encoding="utf-8") as file:
        data = file.read()
    loaded: dict[str, Any] = json.loads(data)
    return loaded


def _bare(word: str) -> str:
    """``word`` without its accents (NFD, combining marks dropped): "diabète" → "diabete"."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


_ARTICLES = lazy_compile(
    r"^(?:a|an|the|un|une|le|la|les|l'|du|de la|de l'|des|de|d'|el|los|las|una|unos|unas"
    r"|ein|eine|einen|einem|einer|das|die|der|den) "
)


def _alternation(words: list[str], *, articles: bool = False) -> str:
    """A regex alternation of ``words`` and their accent-free forms, longest first; spaces
    match any horizontal white space, apostrophes both ' and ’. With ``articles``, a leading
    article is dropped (the patterns allow one before every word)."""
    forms: set[str] = set()
    for word in words:
        word = _ARTICLES.sub("", word) if articles else word
        forms |= {word, _bare(word)}
    escaped = [
        re.escape(w).replace(r"\ ", r"[^\S\n]+").replace("'", "['’]")
        for w in sorted(forms, key=len, reverse=True)
    ]
    return "(?:" + "|".join(escaped) + ")"


# --- words: common in a language, first names ----------------------------------------------

#: A word seen at least this often in pyspellchecker's frequency list of the language is a
#: common word there (about the list's 10,000 most frequent words, 6,000 for the German list,
#: which is smaller); ``_FUNCTION_COUNT``: among its 1,000 most frequent. The lists come from
#: subtitles, so frequent surnames rank high too (García, Martin): a lower rank would hide them.
#: tests/guard/test_personal.py pins known words on each side.
_COMMON_COUNT = {"en": 3211, "fr": 1007, "es": 998, "de": 300}
_FUNCTION_COUNT = {"en": 101_934, "fr": 23_421, "es": 49_906, "de": 5_411}


@functools.cache
def _word_list(lang: str) -> bytes:
    """pyspellchecker's word-frequency list of ``lang`` (JSON ``{"word": count}``), decompressed
    once and searched as bytes: parsing it would cost ten times more."""
    # lazy: slow to decompress the four lists, needed only when a name is in question
    import gzip

    words = os.path.join(package_folder("spellchecker"), "resources", f"{lang}.json.gz")
    with open(words, "rb") as file:
        return gzip.decompress(file.read())


@functools.lru_cache(maxsize=8192)
def _word_count(word: str, lang: str) -> int:
    """How often ``word`` (any case) occurs in the language's frequency list; 0 when absent."""
    data = _word_list(lang)
    key = b'\n"' + word.casefold().encode("utf-8") + b'": '
    i = data.find(key)
    if i < 0:
        return 0
    start = i + len(key)
    end = start
    while end < len(data) and data[end : end + 1].isdigit():
        end += 1
    return int(data[start:end] or b"0")


def _common(word: str, counts: dict[str, int]) -> bool:
    """``word`` is a common word in one of the four languages (``counts``: the threshold)."""
    return any(_word_count(word, lang) >= counts[lang] for lang in LANGUAGES)


@functools.cache
def _name_bytes() -> bytes:
    """gender-guesser's maintained list of first names (48,000 lines, many countries) as the
    bytes of its file, read once and searched as they are (decoding them would cost more than
    the searches): a name line is ``G  Name`` padded to column 30, then one frequency digit
    (1-D) per country."""
    with open(_name_list_file(), "rb") as file:
        return file.read()


@functools.cache
def _name_file() -> bytes | mmap.mmap:
    """The list's file mapped into memory, for :func:`_search_name`: a look-up touches only the
    pages of one initial's lines instead of reading the whole file (its bytes when the file
    cannot be mapped)."""
    try:
        with open(_name_list_file(), "rb") as file:
            return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return _name_bytes()


@functools.cache
def _name_list() -> str:
    """:func:`_name_bytes` decoded (for :func:`_name_index` only)."""
    return _name_bytes().decode("utf-8")


#: How many names :func:`_name_frequency` looks up by searching the list before it indexes
#: it: a search reads the lines of one initial; the index parses the whole list, which pays
#: only for a scan of many texts (``check --history``; docs/decisions/0108).
_SEARCHES_BEFORE_INDEX = 1000
_searches: list[int] = [0]


@functools.cache
def _name_index() -> dict[str, int]:
    """:func:`_name_frequency` of every name of the list at once: the best frequency of each
    ``Name`` field (a line ``G  Name`` padded to column 30, then one digit per country)."""
    best: dict[str, int] = {}
    for line in _name_list().split("\n")[1:]:  # a search never matches the first line
        field = line[3:29]
        name = field.rstrip(" ")
        if len(line) < 29 or line[2] != " " or not name or field != name.ljust(26):
            continue
        # the frequency digits sort as their values (1-9 before A-D): the largest is max()
        digits = line[30:].translate(_NOT_FREQUENCY)
        if not digits.isascii():
            digits = "".join(c for c in digits if c in "123456789ABCD")
        value = int(max(digits), 16) if digits else 1
        if value > best.get(name, 0):
            best[name] = value
    return best


_NOT_FREQUENCY = {c: None for c in range(128) if chr(c) not in "123456789ABCD"}


@functools.lru_cache(maxsize=8192)
def _name_frequency(name: str) -> int:
    """The highest frequency (1 rare … 13 very common, over all countries) of ``name`` as a
    first name in gender-guesser's list; 0 when it is not there. The first few are searched
    in the list, the others read from :func:`_name_index`."""
    key = name[:1].upper() + name[1:].lower()
    if len(key) <= 26 and " " not in key and "\n" not in key:
        if _searches[0] >= _SEARCHES_BEFORE_INDEX:
            return _name_index().get(key, 0)
        _searches[0] += 1
    return _search_name(name)


def _search_name(name: str) -> int:
    """:func:`_name_frequency` by searching the file's bytes for the name, each hit checked for
    the line's layout (the name at column 3 of its line, padded with spaces to column 29). A
    name that starts with A-Z is searched only among the lines that start so
    (:func:`_initial_lines`); the needle has no space (a search skips fast over the file's
    padding only for a needle that holds none)."""
    data = _name_file()
    word = name[:1].upper() + name[1:].lower()
    key = (" " + word.ljust(26)).encode("utf-8")  # columns are characters, the file UTF-8
    needle = word.encode("utf-8")
    start, end = _initial_lines(needle[0]) if needle else (0, len(data))
    best = 0
    i = data.find(needle, start, end)
    while i >= 0:
        if i >= 4 and data[i - 4] == 0x0A and data[i - 1 : i - 1 + len(key)] == key:
            line_end = data.find(b"\n", i)
            digits = [int(chr(c), 16) for c in data[i + len(key) : line_end] if c in _DIGITS]
            best = max(best, *digits, 1)
        i = data.find(needle, i + 1, end)
    return best


_DIGITS = frozenset(b"123456789ABCD")


@functools.cache
def _initial_lines(initial: int) -> tuple[int, int]:
    """Where the lines whose name starts with ``initial`` (a byte) lie in the list: ``(start,
    end)`` byte offsets, found by bisection. The list is sorted by name with its own folding of
    accents, under which the names that start with an ASCII capital still come in the order of
    that capital (tests/guard/test_personal.py checks it of the installed list); for any other
    initial, the whole list."""
    data = _name_file()
    if not 0x41 <= initial <= 0x5A:
        return 0, len(data)
    return _first_line_from(data, initial), _first_line_from(data, initial + 1)


def _first_line_from(data: bytes | mmap.mmap, initial: int) -> int:
    """The offset of the first line whose name starts with an ASCII capital ``initial`` or a
    later one (``len(data)`` when none does)."""
    lo, hi = 0, len(data)
    while lo < hi:
        mid = (lo + hi) // 2
        if _next_capital(data, mid)[1] >= initial:
            hi = mid
        else:
            lo = mid + 1
    return _next_capital(data, lo)[0]


def _next_capital(data: bytes | mmap.mmap, pos: int) -> tuple[int, int]:
    """``(offset, capital)`` of the first line starting at or after ``pos`` whose name (column
    3) starts with an ASCII capital; ``(len(data), 256)`` when there is none."""
    if pos > 0 and data[pos - 1] != 0x0A:
        pos = data.find(b"\n", pos) + 1 or len(data)
    while pos + 3 < len(data):
        if data[pos] != 0x23 and 0x41 <= data[pos + 3] <= 0x5A:  # not a "#" comment line
            return pos, data[pos + 3]
        pos = data.find(b"\n", pos) + 1 or len(data)
    return len(data), 256


def _common_german(word: str) -> bool:
    """A common German word (German writes every noun capitalised: "Tage", "Monate")."""
    return _word_count(word, "de") >= _COMMON_COUNT["de"]


def _first_name(word: str) -> bool:
    """A first name: in the list with some frequency (2+ in one country), not a product or an
    assistant that bears one (``not_names``), not one of a language's most frequent words."""
    folded = word.casefold()
    if folded in _not_names():
        return False
    parts = word.split("-")
    if _name_frequency(word) < 2 and not all(_name_frequency(p) >= 2 for p in parts):
        return False
    return not _common(word, _FUNCTION_COUNT)


@functools.cache
def _not_names() -> frozenset[str]:
    return frozenset(_vocabulary()["not_names"])


@functools.cache
def _product_words() -> frozenset[str]:
    return frozenset(_vocabulary()["product_words"])


def _surname(word: str) -> bool:
    """A capitalised word that can be a surname: not a common word of the four languages and not
    a word of product names ("Claude Code", "Phoenix Channels", "Kimi Proxy")."""
    folded = word.casefold()
    if folded in _product_words() or folded in _not_names():
        return False
    return not any(_common(part, _COMMON_COUNT) for part in word.split("-"))


# --- names ---------------------------------------------------------------------------------------

_UPPER = r"[A-ZÀ-ÖØ-Þ]"
_LOWER = r"[a-zß-öø-ÿ]"
_CAP = rf"{_UPPER}{_LOWER}+"
_CAPITALISED = rf"{_CAP}(?:-{_CAP})?"
# A title, then a capitalised name that is not a common word: "Dr. Schneider", "Maître
# Lefebvre", "el Sr. García" (not "Sr. Engineer", "M. Then", "la Sra. Presidenta").
_TITLED = lazy_compile(
    rf"(?<![\w.])((?:Dr|Mr|Mrs|Ms|Mx|Prof|Mme|Mlle|Sr|Sra|Srta|Dra)\.?|(?:M|Me|Hr|Fr)\."
    rf"|Ma[iî]tre|Madame|Monsieur|Miss|Sir|Herrn?|Frau|Se[ñn]ora?|Do[nñ]a?)[^\S\n]+({_CAPITALISED})"
    rf"(?![\w-])"
)
_PARTICLE = r"(?:(?:de|da|di|del|van|von|der|den|du|le|dos|das|ten|ter|zu) )"
# What a name may not touch, ’ apart: "(?<![\w.'-])(?<!’)" says what "(?<![\w.'’-])" says
# (the character before is in neither, so not in their union), and its class holds no
# character beyond Latin-1, for which the regex compiler builds a table of 65,536: that table
# doubled the cost of compiling _NAME_PAIR, which every session start pays.
_NOT_AFTER = r"(?<![\w.'-])(?<!’)"
_NOT_BEFORE = r"(?![\w'-])(?!’)"
# A first name, then a surname: "Jean Dupont", "Anna von Berg".
_NAME_PAIR = lazy_compile(
    rf"{_NOT_AFTER}({_CAPITALISED})[^\S\n]+{_PARTICLE}?({_CAPITALISED}){_NOT_BEFORE}"
)
# "my colleague Sarah", "ma collègue Léa", "mi jefa Carmen", "meine Kollegin Anna", "my name
# is Tom": the word after the cue is a name unless it is a common word.
_NAME_CUE = lazy_compile(
    r"(?i:(?:\b(?:my|our) (?:colleague|coworker|co-worker|manager|boss|lawyer|attorney|doctor"
    r"|accountant|assistant|client|friend|neighbou?r|landlord|teammate|intern|husband|wife"
    r"|son|daughter|brother|sister)|\b(?:mon|ma|notre) (?:coll[èe]gue|chef|cheffe|avocate?"
    r"|m[ée]decin|comptable|associ[ée]e?|amie?|voisine?|stagiaire|manager|mari|femme|fils|fille"
    r"|fr[èe]re|s(?:œ|oe)ur)|\b(?:mi|nuestr[oa]) (?:compa[ñn]er[oa]|colega|jef[ea]|abogad[oa]"
    r"|m[ée]dic[oa]|amig[oa]|vecin[oa]|contable|soci[oa]|marido|esposa|hij[oa]|herman[oa])"
    r"|\b(?:mein|meine|unser|unsere) (?:kollegin|kollege|chefin|chef|anw[äa]ltin|anwalt"
    r"|[äa]rztin|arzt|nachbarin|nachbar|praktikantin|praktikant|mann|frau|sohn|tochter|bruder"
    r"|schwester)|\bmy name is|\bje m['’]appelle|\bme llamo|\bmi nombre es|\bich hei(?:ß|ss)e"
    r"|\bmein name ist)(?:[^\S\n]+(?:is|called|named|est|s['’]appelle|es|se llama|ist|hei(?:ß|ss)t))?)"
    rf"[^\S\n]+({_CAPITALISED})(?![\w-])"
)
# "Sarah said", "Léa a dit", "Carmen dijo", "Anna sagte": a first name with a verb of speech
# (not "Bob prefers …": a team member named by the id the team uses is no disclosure).
_NAME_SAID = lazy_compile(
    rf"{_NOT_AFTER}({_CAPITALISED})[^\S\n]+(?:said|says|told (?:me|us)|wrote|asked|a dit"
    r"|m['’]a dit|a écrit|a demandé|dijo|me dijo|escribió|pidió|sagte|sagt|meinte|schrieb"
    r"|hat gesagt)\b"
)


# A number or a German determiner right before a capitalised pair: the pair is a noun phrase
# ("14 Tage Vorankündigung", "die Tage Frist"), never a first name and a surname.
_QUANTITY_BEFORE = lazy_compile(
    r"(?:\b\d+(?:[.,]\d+)?|\b(?i:der|die|das|den|dem|des|ein|eine|einen|einem|einer|eines"
    r"|kein|keine|keinen|jede|jeden|alle|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|zwölf))"
    r"[^\S\n]+\Z"
)

_NEXT_NAME = lazy_compile(rf"[^\S\n]+{_PARTICLE}?({_CAPITALISED}){_NOT_BEFORE}")


def _whole_name(text: str, end: int) -> int:
    """Where a name that ends at ``end`` really ends: with its other surnames ("Andrés Villalba
    Soto", "Dr. Katrin Vogelsang"), so that masking leaves none of it."""
    while (m := _NEXT_NAME.match(text, end)) is not None and _surname(m.group(1)):
        end = m.end()
    return end


_TITLE_WORDS = frozenset(
    "Dr Dra Mr Mrs Ms Mx Prof Mme Mlle Sr Sra Srta M Me Hr Fr Maître Maitre Madame Monsieur Miss "
    "Sir Herr Herrn Frau Señor Señora Senor Senora Don Doña Dona".split()
)
_CUE_WORDS = frozenset(
    "colleague coworker co manager boss lawyer attorney doctor accountant assistant client friend "
    "neighbour neighbor landlord teammate intern husband wife son daughter brother sister "
    "collègue collegue chef cheffe avocat avocate médecin medecin comptable associé associe "
    "associée associee ami amie voisin voisine stagiaire mari femme fils fille frère frere sœur "
    "soeur compañero compañera companero companera colega jefe jefa abogado abogada médico medico "
    "médica medica amigo amiga vecino vecina contable socio socia marido esposa hijo hija hermano "
    "hermana kollegin kollege chefin anwältin anwaltin anwalt ärztin arztin arzt nachbarin nachbar "
    "praktikantin praktikant mann frau sohn tochter bruder schwester name appelle llamo nombre "
    "heiße heisse".split()
)
# The word every _NAME_CUE match opens with ("my", "mon", "mi", "mein", "je m'appelle", "me
# llamo", "ich heiße"), in lower case: the pattern also needs one of these (its compilation costs
# more than the rest of a session start's scans). Letters the pattern's case-blind match takes
# for another (ı and İ for i, ſ for s, the Kelvin sign) make it run whatever the words.
_CUE_OPENERS = frozenset(
    "my our mon ma notre mi nuestro nuestra mein meine unser unsere je me ich".split()
)
_ODD_CASE = "\u0130\u0131\u017f\u212a"
_SAID_WORDS = frozenset(
    "said says told wrote asked dit écrit demandé dijo escribió escribio pidió pidio "
    "sagte sagt meinte schrieb gesagt".split()
)


def _name_findings(text: str, words: frozenset[str], caps: frozenset[str]) -> list[Finding]:
    """Names; ``words``: the text's words in lower case, ``caps``: its words as written (each
    pattern runs only when its words occur)."""
    out: list[Finding] = []

    def add(start: int, end: int, what: str) -> None:
        out.append(Finding("pii:name", f"a person's name ({what})", start, _whole_name(text, end)))

    if not caps.isdisjoint(_TITLE_WORDS):
        for m in _TITLED.finditer(text):
            name = m.group(2)
            if name.casefold() in _product_words() or _common(name, _COMMON_COUNT):
                continue  # "Sr. Engineer", "M. Then", "la Sra. Presidenta": not a name
            add(m.start(), m.end(), "title and name")
    pair = _NAME_PAIR.search(text)  # first: most texts have none (no name looked up)
    if pair and any(_first_name(w) for w in caps if w[:1].isupper() and w[1:].islower()):
        while pair is not None:
            if _QUANTITY_BEFORE.search(text, 0, pair.start()) and _common_german(pair.group(1)):
                pass  # "14 Tage Vorankündigung": a count and its (capitalised) German noun
            elif _first_name(pair.group(1)) and _surname(pair.group(2)):
                add(pair.start(), pair.end(), "first name and surname")
                pair = _NAME_PAIR.search(text, pair.end())
                continue
            # not a name: its second word may open one ("Ask Sophie Martin first")
            pair = _NAME_PAIR.search(text, pair.start(2))
    if not words.isdisjoint(_CUE_WORDS) and (
        not words.isdisjoint(_CUE_OPENERS) or any(c in text for c in _ODD_CASE)
    ):
        for m in _NAME_CUE.finditer(text):
            name = m.group(1)
            if name.casefold() in _not_names() or not (_first_name(name) or _surname(name)):
                continue
            add(*m.span(1), "named by a relation")
    if not words.isdisjoint(_SAID_WORDS):
        for m in _NAME_SAID.finditer(text):
            if _first_name(m.group(1)):
                add(*m.span(1), "with what they said")
    return out


# --- dates of birth ------------------------------------------------------------------------------

_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|janvier|f[ée]vrier|mars|avril|mai|juin"
    r"|juillet|ao[ûu]t|septembre|octobre|novembre|d[ée]cembre|enero|febrero|marzo|abril|mayo"
    r"|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre|januar|j[äa]nner"
    r"|februar|m[äa]rz|juni|juli|oktober|dezember)\.?"
)
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th|er|º|\.)?"
_YEAR = r"(?:19|20)\d\d"
_DATE = (
    rf"(?:{_DAY}[/.-](?:0?[1-9]|1[0-2])[/.-](?:{_YEAR}|\d\d)|{_YEAR}-(?:0[1-9]|1[0-2])-(?:0[1-9]"
    rf"|[12]\d|3[01])|{_DAY} (?:de )?{_MONTHS},? (?:de )?{_YEAR}|{_MONTHS} {_DAY},? {_YEAR})"
)
_BIRTH = lazy_compile(
    r"(?i)\b(?:born(?: on)?|b\.|date of birth|birth ?date|birthday(?: is)?|d\.?o\.?b\.?"
    r"|n[ée]e?(?:\(e\))? le|date de naissance|nacid[oa] el|nac[íi] el|naci[óo] el"
    r"|fecha de nacimiento|geboren am|geb\.(?: am)?|geburtsdatum|geburtstag)"
    rf"(?:[^\S\n]*[:=-]|[^\S\n]+(?:is|was|est|es|era|ist|war)(?:[^\S\n]+(?:the|le|el|der))?)?"
    rf"[^\S\n]*({_DATE})\b"
)
_BIRTH_WORDS = frozenset(
    "born birth birthdate birthday dob né née naissance nacido nacida nací naci nació nacio "
    "nacimiento geboren geb geburtsdatum geburtstag".split()
)

# --- street addresses ----------------------------------------------------------------------------

_EN_STREETS = (
    r"(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Boulevard|Blvd|Court|Ct|Place|Square|Terrace"
    r"|Crescent|Close|Way|Parkway|Highway|Row|Mews|Gardens|Grove|Hill|Walk)"
)
_ADDRESS = lazy_compile(
    # EN: "221B Baker Street", "10 Downing St."
    rf"\b\d{{1,5}}[A-Za-z]?,?[^\S\n]+(?:{_CAP}[^\S\n]+){{1,3}}{_EN_STREETS}\b\.?"
    # FR: "12 rue de la Paix", "3 bis avenue Foch"
    r"|(?i:\b\d{1,4}(?:[^\S\n]?(?:bis|ter|[ab]))?,?[^\S\n]+(?:rue|avenue|av\.|boulevard|bd"
    r"|place|all[ée]e|impasse|chemin|quai|cours|route|square|passage|faubourg|rond-point)"
    r"[^\S\n]+(?:de[^\S\n]+la[^\S\n]+|de[^\S\n]+l['’]|des[^\S\n]+|du[^\S\n]+|de[^\S\n]+|d['’]"
    rf"|la[^\S\n]+|le[^\S\n]+|l['’])?){_CAP}"
    # ES: "Calle Mayor 5", "Avenida de la Constitución, 12"
    r"|(?:\b(?:Calle|C/|Avenida|Avda\.?|Paseo|Plaza|Pza\.|Camino|Carretera|Ronda|Traves[íi]a"
    r"|Glorieta)[^\S\n]+(?:de[^\S\n]+la[^\S\n]+|del[^\S\n]+|de[^\S\n]+los[^\S\n]+"
    rf"|de[^\S\n]+las[^\S\n]+|de[^\S\n]+)?{_CAP}(?:[^\S\n]+{_CAP})*,?[^\S\n]+(?:n\.?[º°o][^\S\n]?)?"
    r"\d{1,4}[A-Za-z]?\b)"
    # DE: "Hauptstraße 12", "Bahnhofstr. 5", "Lindenweg 4a"
    rf"|\b{_UPPER}{_LOWER}+(?:straße|strasse|str\.|weg|gasse|platz|allee|damm|ufer"
    r"|chaussee|steig|pfad)[^\S\n]+\d{1,4}[a-z]?\b"
)
_ADDRESS_WORDS = frozenset(
    "street st road rd avenue ave lane ln drive boulevard blvd court ct place square terrace "
    "crescent close way parkway highway row mews gardens grove hill walk rue av bd allée allee "
    "impasse chemin quai cours route passage faubourg rond point calle avenida avda paseo plaza "
    "pza camino carretera ronda travesía travesia glorieta".split()
)
_STREET_SUFFIXES = (
    "straße", "strasse", "str", "weg", "gasse", "platz", "allee", "damm", "ufer", "chaussee",
    "steig", "pfad",
)  # fmt: skip

# --- health ---------------------------------------------------------------------------------------


@functools.cache
def _health_patterns() -> tuple[re.Pattern[str], ...]:
    """A health condition, a medication or a state with a person as subject (docs/design/guard.md
    §Guard), in English, French, Spanish and German. The finding spans the condition."""
    v = _vocabulary()
    h, nouns = v["health"], v["person_nouns"]
    meds = _alternation(v["medications"])

    def cond(lang: str) -> str:
        return "(?:" + _alternation(h[lang], articles=True) + "|" + meds + ")"

    def states(lang: str) -> str:
        return _alternation(h[f"{lang}_states"])

    def who(lang: str) -> str:
        return _alternation(nouns[lang])

    name = rf"(?-i:\b{_CAPITALISED})"
    gap = r"[^.;:!?\n]{0,40}?"
    en_subj = rf"(?:\b(?:i|he|she|they|we)\b|\b(?:the|my|our|his|her|their|your|a|an|this|that|one)[^\S\n]+{who('en')}\b|{name})"
    en_art = r"(?:(?:a|an|the|some|severe|mild|chronic|early|late|advanced|stage[^\S\n]+\w+|bad|terrible|recurring|early-stage)[^\S\n]+)*"
    fr_subj = rf"(?:\bje\b|\bj['’]|\b(?:il|elle|ils|elles)\b|\b(?:l['’]|le[^\S\n]+|la[^\S\n]+|les[^\S\n]+|mon[^\S\n]+|ma[^\S\n]+|mes[^\S\n]+|notre[^\S\n]+|nos[^\S\n]+|son[^\S\n]+|sa[^\S\n]+|ses[^\S\n]+|un[^\S\n]+|une[^\S\n]+){who('fr')}\b|{name})"
    fr_art = r"(?:(?:un|une|le|la|les|des|du|de[^\S\n]+la|de|d['’]|l['’])[^\S\n]*)?(?:(?:grave|s[ée]v[èe]re|l[ée]g[èe]re|chronique)[^\S\n]+)?"
    es_subj = rf"(?:\b(?:él|el|ella|ellos|ellas)\b|\b(?:el|la|los|las|mi|mis|su|sus|nuestro|nuestra|un|una)[^\S\n]+{who('es')}\b|{name})"
    es_art = r"(?:(?:de|un|una|el|la|los|las)[^\S\n]+)?"
    de_subj = rf"(?:\b(?:ich|er|sie|wir)\b|\b(?:der|die|das|mein|meine|unser|unsere|sein|seine|ihr|ihre)[^\S\n]+{who('de')}\b|{name})"
    de_art = r"(?:(?:ein|eine|einen|an|unter|starke|starken|schwere|schweren|chronische|chronischen|leichte|leichten)[^\S\n]+)*"
    sources = [
        # English: "the lawyer has breast cancer", "I was diagnosed with ADHD", "she's pregnant"
        rf"{en_subj}{gap}(?:['’]s|['’]ve|\b(?:has|have|had|got|gets|suffers?[^\S\n]+from|suffered[^\S\n]+from|diagnosed[^\S\n]+with|lives?[^\S\n]+with|treated[^\S\n]+for|recovering[^\S\n]+from|battling|takes?|took|on))[^\S\n]+{en_art}({cond('en')})\b",
        rf"{en_subj}{gap}(?:['’]m|['’]s|\b(?:am|is|are|was|were|been|became|become))(?:[^\S\n]+(?:now|still|currently|recently|also|very|quite|severely|clinically|temporarily))*[^\S\n]+({states('en')})\b",
        rf"\b(?:my|his|her|their)[^\S\n]+(?:(?:severe|mild|chronic|recent)[^\S\n]+)?({cond('en')})\b",
        # French: "j'ai un cancer", "elle souffre de dépression", "je suis enceinte", "mon diabète"
        rf"{fr_subj}{gap}(?:\b(?:ai|as|a|avons|ont|avait|avais|souffre|souffrent|souffrait|atteinte?s?|vis|vit|prends|prend|prenait|sous|diagnostiqu[ée]e?s?|trait[ée]e?s?[^\S\n]+pour))(?:[^\S\n]+(?:de|d['’]|avec|eu|aussi|toujours|encore))*[^\S\n]*{fr_art}({cond('fr')})\b",
        rf"{fr_subj}{gap}\b(?:suis|es|est|sommes|sont|[ée]tais|[ée]tait|devenue?)(?:[^\S\n]+(?:actuellement|toujours|encore|tr[èe]s|d[ée]sormais|maintenant|aussi))*[^\S\n]+({states('fr')})\b",
        rf"\b(?:mon|ma|mes|son|sa|ses)[^\S\n]+(?:(?:grave|chronique)[^\S\n]+)?({cond('fr')})\b",
        # Spanish: "tengo diabetes", "el abogado tiene cáncer", "estoy embarazada", "mi TDAH"
        rf"\b(?:tengo|ten[íi]a|tuve|padezco|padec[íi]a|sufro|sufr[íi]a|vivo[^\S\n]+con|tomo|estoy[^\S\n]+tomando|me[^\S\n]+(?:diagnosticaron|han[^\S\n]+diagnosticado))[^\S\n]+{es_art}({cond('es')})\b",
        rf"{es_subj}{gap}\b(?:tiene|ten[íi]a|tuvo|padece|padec[íi]a|sufre|sufr[íi]a|vive[^\S\n]+con|toma|le[^\S\n]+(?:diagnosticaron|han[^\S\n]+diagnosticado))[^\S\n]+{es_art}({cond('es')})\b",
        rf"(?:\b(?:estoy|soy|estaba|era)|{es_subj}{gap}\b(?:est[áa]|es|estaba|era))(?:[^\S\n]+(?:muy|ahora|todav[íi]a|tambi[ée]n))*[^\S\n]+({states('es')})\b",
        rf"\b(?:mi|mis|su|sus)[^\S\n]+({cond('es')})\b",
        # German: "ich habe Diabetes", "der Anwalt hat Brustkrebs", "ich bin schwanger"
        rf"{de_subj}{gap}\b(?:habe|hat|haben|hatte|hatten|leide|leidet|leiden|nehme|nimmt|nehmen)(?:[^\S\n]+(?:seit[^\S\n]+\w+|auch|schon|leider|jetzt|noch))*[^\S\n]+{de_art}({cond('de')})\b",
        rf"{de_subj}{gap}\b(?:bin|ist|sind|war|wurde)(?:[^\S\n]+(?:seit[^\S\n]+\w+|jetzt|gerade|leider|schon|sehr|auch))*[^\S\n]+({states('de')})\b",
        rf"\bbei[^\S\n]+(?:mir|ihm|ihr){gap}({cond('de')}){gap}diagnostiziert",
        rf"\b(?:mein|meine|meinen|meiner|seine?|seinen|ihre?|ihren)[^\S\n]+({cond('de')})\b",
        # Sick leave for a condition, whoever is off (leave is always a person's): "off sick
        # with depression", "en arrêt maladie pour un burn-out", "de baja por ansiedad",
        # "wegen einer Depression krankgeschrieben"
        rf"\b(?:off[^\S\n]+(?:sick|work)|on[^\S\n]+(?:sick|medical)[^\S\n]+leave|signed[^\S\n]+off)[^\S\n]+(?:with|for|because[^\S\n]+of|due[^\S\n]+to)[^\S\n]+{en_art}({cond('en')})\b",
        rf"\b(?:en[^\S\n]+arr[êe]t(?:[^\S\n]+(?:maladie|de[^\S\n]+travail))?|arr[êe]t[ée]e?s?|en[^\S\n]+cong[ée][^\S\n]+maladie)[^\S\n]+(?:pour|[àa][^\S\n]+cause[^\S\n]+(?:de|d['’]|du|des))[^\S\n]*{fr_art}({cond('fr')})\b",
        rf"\bde[^\S\n]+baja(?:[^\S\n]+(?:m[ée]dica|laboral))?[^\S\n]+(?:por|a[^\S\n]+causa[^\S\n]+de|debido[^\S\n]+a)[^\S\n]+{es_art}({cond('es')})\b",
        rf"\bwegen[^\S\n]+(?:(?:einer|einem|eines|seiner|ihrer|des|der)[^\S\n]+)?({cond('de')}){gap}\bkrank(?:geschrieben|gemeldet)\b",
        rf"\bkrank(?:geschrieben|gemeldet)[^\S\n]+(?:wegen|mit)[^\S\n]+(?:(?:einer|einem|eines|seiner|ihrer)[^\S\n]+)?({cond('de')})\b",
        # A medication taken: "and take sertraline", "sous antidépresseurs", "nimmt Ritalin"
        rf"\b(?:take|takes|taking|took|prescribed|on|prends|prend|prenait|sous|tomo|toma|tomando|nehme|nimmt|nehmen)(?:[^\S\n]+\w+)?[^\S\n]+({meds})\b",
    ]
    return tuple(re.compile(f"(?i){src}") for src in sources)


_STOP = frozenset(
    "the les des une los las del con mit ein eine einen einem der die das von and und for "
    "with sous"
    "type typ tipo long chronic chronique crónico chronische syndrome syndrom síndrome disease "
    "maladie enfermedad leave arrêt arret congé conge baja".split()
)


@functools.cache
def _health_words() -> frozenset[str]:
    """Words of the conditions, states and medications (stop words aside, with and without
    accents): the health patterns run only when one occurs in the text."""
    v = _vocabulary()
    phrases = [p for listed in v["health"].values() for p in listed] + v["medications"]
    # one pass over all the phrases (a line break is no letter: the same words as phrase by phrase)
    found = letter_runs("\n".join(phrases).lower())
    kept = {w for w in found if len(w) > 2 and w not in _STOP}
    return frozenset(kept.union(_bare(w) for w in kept if not w.isascii()))  # ASCII: its own


# --- family, legal and financial facts --------------------------------------------------------

_FAMILY = lazy_compile(
    r"(?i)\b(?:(?:my|his|her|our|their)\s+(?:daughters?|sons?|wife|husband|kids?|children|child"
    r"|mother|father|mom|mum|dad|brother|sister|girlfriend|boyfriend|baby|fianc[ée]e?)"
    r"|(?:ma|mon|mes|sa|son|ses)\s+(?:filles?|fils|femme|mari|enfants?|compagne|compagnon"
    r"|conjointe?|m[èe]re|p[èe]re|fr[èe]re|s(?:œ|oe)ur|b[ée]b[ée])"
    r"|(?:mi|mis|su|sus)\s+(?:hijas?|hijos?|esposa|esposo|marido|pareja|madre|padre"
    r"|herman[oa]s?|beb[ée]|novi[oa])"
    r"|(?:meine?|seine?|ihre?|unsere?)\s+(?:t[öo]chter|tochter|s[öo]hne|sohn|frau|mann|kinder?"
    r"|mutter|vater|bruder|schwester|baby))\b"
    rf"(?-i:[^\S\n]+{_CAPITALISED}(?![\w-]))?"
)
_FAMILY_WORDS = frozenset(
    "daughter daughters son sons wife husband kid kids children child mother father mom mum dad "
    "brother sister girlfriend boyfriend baby fiancé fiancée fiance fiancee fille filles fils "
    "femme mari enfant enfants compagne compagnon conjoint conjointe mère mere père pere frère "
    "frere sœur soeur bébé bebe hija hijas hijo hijos esposa esposo marido pareja madre padre "
    "hermano hermana hermanos hermanas novio novia töchter tochter söhne sohne sohn frau mann "
    "kind kinder mutter vater bruder schwester".split()
)
_LEGAL = lazy_compile(
    r"(?i)\b(?:(?:i|i'm|i am|he|she|he's|she's|he is|she is|we|they)\b[^.;\n]{0,30}?\b(?:divorced"
    r"|divorcing|separated|arrested|convicted|on probation|sued|in prison|jailed|charged with"
    r"|a criminal record)|(?:my|his|her|their)\s+(?:divorce|custody|lawsuit|trial|conviction"
    r"|criminal record|arrest|court case|probation)"
    r"|(?:je|j'|il|elle)\b[^.;\n]{0,30}?\b(?:divorc[ée]e?|en instance de divorce|arr[êe]t[ée]e?"
    r"|condamn[ée]e?|en prison|un casier judiciaire|poursuivie?)|(?:mon|ma|son|sa)\s+(?:divorce"
    r"|casier judiciaire|proc[èe]s|condamnation|garde des enfants)"
    r"|(?:estoy|est[áa]|estaba)\s+(?:divorciad[oa]|separad[oa]|detenid[oa]|en prisi[óo]n)"
    r"|(?:me|le)\s+(?:detuvieron|condenaron|demandaron)|tengo antecedentes penales"
    r"|(?:mi|su)\s+(?:divorcio|juicio|condena|custodia|demanda)"
    r"|(?:ich bin|er ist|sie ist|ich wurde|er wurde|sie wurde)(?:\s+\w+)?\s+(?:geschieden"
    r"|getrennt|verhaftet|verurteilt|vorbestraft|angeklagt)|(?:meine?|seine?|ihre?)\s+"
    r"(?:scheidung|vorstrafe|verurteilung|sorgerecht|prozess))\b"
)
_LEGAL_WORDS = frozenset(
    "divorced divorcing separated arrested convicted probation sued prison jailed charged "
    "criminal divorce custody lawsuit trial conviction arrest court divorcé divorcée divorcee "
    "séparé arrêté arrêtée arrete arretee condamné condamnée condamne condamnee casier "
    "poursuivi poursuivie procès proces condamnation garde divorciado divorciada separado "
    "separada detenido detenida prisión prision detuvieron condenaron demandaron antecedentes "
    "divorcio juicio condena custodia demanda geschieden getrennt verhaftet verurteilt "
    "vorbestraft angeklagt scheidung vorstrafe verurteilung sorgerecht prozess".split()
)
_FINANCIAL = lazy_compile(
    r"(?i)\b(?:(?:my|his|her|their)\s+(?:salary|pay|income|debts?|mortgage|loan|bank account"
    r"|credit score|pay rise|raise|bonus|savings)"
    r"|(?:i|he|she|they)\s+(?:earn|earns|earned|make|makes|made)\s+(?:about\s+|around\s+)?"
    r"(?:[$€£]\s?\d|\d[\d,. ]*\s?(?:k\b|[$€£]|eur|euros?|usd|dollars?|pounds?|a year|per year"
    r"|a month|per month))"
    r"|(?:mon|son)\s+(?:salaire|cr[ée]dit|pr[êe]t|d[ée]couvert|patrimoine)"
    r"|(?:ma|sa)\s+(?:dette|paie|prime)|(?:mes|ses)\s+(?:dettes|revenus|imp[ôo]ts)"
    r"|(?:je|il|elle)\s+gagne\s+\d|(?:mi|su)\s+(?:sueldo|salario|deuda|hipoteca|pr[ée]stamo"
    r"|n[óo]mina)|(?:mis|sus)\s+(?:deudas|ingresos)|(?:gano|gana)\s+\d"
    r"|(?:mein|sein|ihr)\s+(?:gehalt|kredit|einkommen|lohn|konto)"
    r"|(?:meine|seine|ihre)\s+(?:schulden|hypothek|rente)|(?:ich verdiene|er verdient"
    r"|sie verdient)\s+\d)\b"
)
_FINANCIAL_WORDS = frozenset(
    "salary pay income debt debts mortgage loan bank credit raise bonus savings earn earns earned "
    "make makes made salaire crédit prêt pret découvert decouvert patrimoine dette dettes "
    "paie prime revenus impôts impots gagne sueldo salario deuda deudas hipoteca préstamo "
    "prestamo nómina nomina ingresos gano gana gehalt kredit einkommen lohn konto schulden "
    "hypothek rente verdiene verdient".split()
)

# --- passwords said in words or typed on a command line ----------------------------------------

# "the password is X", "Mot de passe du serveur : X", "la contraseña es X", "Passwort lautet X".
_PASSWORD_PROSE = lazy_compile(
    r"(?i)\b(?:password|passwd|passphrase|pass\s*code|passcode|pwd|mot\s+de\s+passe|mdp"
    r"|contrase[ñn]a|clave|passwort|kennwort)\b"
    r"(?:[^.\n:=\"'{}()\[\]]|(?<=\w)'(?=\w)){0,40}?"  # "… de l'ordinateur est X"
    r"(?:\b(?:is|was|est|[ée]tait|c['’]est|es|era|ist|war|lautet|=)|[:=]|->|→)[^\S\n]*"
    r"(\"[^\"\n]{4,}\"|'[^'\n]{4,}'|«[^»\n]{4,}»|[^\s\"',;]{4,})"
)
# "The alarm code is 4821", "le code d'accès de l'alarme est 4821", "el PIN de la tarjeta es
# 4821", "der Türcode ist 4821": a code of 4 to 8 digits said in words ("PIN" in capitals only:
# "pin the version: 1.2.3" is no code).
_CODE_PROSE = lazy_compile(
    r"(?i)\b(?:(?-i:PIN)(?:[^\S\n]*-?code)?|code[^\S\n]+pin|pin[^\S\n]*-?code"
    r"|code[^\S\n]+d['’]acc[èe]s|digicode|(?:access|door|alarm|gate|entry)[^\S\n]+code"
    r"|c[óo]digo[^\S\n]+(?:de[^\S\n]+acceso|pin|de[^\S\n]+(?:la[^\S\n]+)?alarma)"
    r"|zugangscode|t[üu]rcode|alarmcode|geheimzahl)\b"
    r"(?:[^.\n:=\"'{}()\[\]\d]|(?<=\w)['’](?=\w)){0,40}?"
    r"(?:\b(?:is|was|est|[ée]tait|c['’]est|es|era|ist|war|lautet)|[:=])[^\S\n]*(?:der[^\S\n]+)?"
    r"(\d{4,8})\b"
)
# "mot de passe Brume!Quai2026", "password hunter2!": the value right after the word, no verb.
_PASSWORD_BARE = lazy_compile(
    r"(?i)\b(?:password|passwd|passphrase|passcode|pwd|mot\s+de\s+passe|mdp|contrase[ñn]a|clave"
    r"|passwort|kennwort)\b[^\S\n]+(\"[^\"\n]{4,}\"|'[^'\n]{4,}'|«[^»\n]{4,}»|[^\s\"',;]{4,})"
)
# mysql -pX / -p X, psql … -W X, sshpass -p X, redis-cli -a X, --password X / --password=X,
# curl -u user:X.
_PASSWORD_FLAG = lazy_compile(
    r"(?:\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|sshpass)\b[^\n|;&]{0,80}?[^\S\n]-p"
    r"[^\S\n]?|\b(?:psql|pg_dump|pg_restore|pg_dumpall|createdb)\b[^\n|;&]{0,80}?[^\S\n]-W[^\S\n]+"
    r"|\bredis-cli\b[^\n|;&]{0,80}?[^\S\n]-a[^\S\n]+|(?<![\w-])--(?:password|passwd|pass)"
    r"(?:=|[^\S\n]+)|\bcurl\b[^\n|;&]{0,80}?[^\S\n](?:-u|--user)[^\S\n]+[^\s:]+:)"
    r"(\"[^\"\n]{4,}\"|'[^'\n]{4,}'|[^\s\"'|;&]{4,})"
)
_PASSWORD_WORDS = frozenset(
    "password passwords passwd passphrase passcode pass pwd passe mdp contraseña contrasena clave "
    "passwort kennwort mysql mysqldump mysqladmin mariadb sshpass psql pg dump restore dumpall "
    "createdb redis cli curl".split()
)
#: The words :data:`_CODE_PROSE` cannot match without ("code" alone is too common a word to
#: wake it: every match holds one of these beside it).
_CODE_WORDS = frozenset(
    "pin digicode access door alarm gate entry accès acces acceso alarma zugangscode türcode "
    "turcode alarmcode geheimzahl".split()
)


def _password_value(value: str) -> bool:
    """A value that reads like a password: quoted, or holding a digit, a symbol or a capital
    after its first letter; not a placeholder, a variable or a word of prose."""
    bare = value.strip("\"'«» ")
    if len(bare) < 4 or _PLACEHOLDER_VALUE.match(bare) or not any(c.isalnum() for c in bare):
        return False
    if any(c in bare for c in "()[]{}$<>%`"):
        return False  # code or a variable: password=os.environ['DB_PASSWORD'], ${DB_PASS}
    if value[:1] in "\"'«":
        return True
    return any(not c.isalpha() for c in bare) or any(c.isupper() for c in bare[1:])


_A_DIGIT = lazy_compile(r"\d")


def person_findings(text: str, raw: _Raw | None = None) -> list[Finding]:
    """Facts about a person (docs/design/guard.md §Guard): names (a title and a name, a first name
    and a surname, a name after "my colleague" or before "said"), dates of birth, street
    addresses, health conditions with a person as subject, family, legal and financial facts,
    a password said in words or typed on a command line (credentials inside a URL are a
    secret: :mod:`agentmem.guard.secrets`). Every finding is an error; messages never hold the
    value. Each pattern runs only when its words occur among the text's words."""
    raw = raw or _Raw(text)
    caps, words = raw.words()
    out = _name_findings(text, words, caps)
    if not words.isdisjoint(_BIRTH_WORDS):
        out += [
            Finding("pii:birth-date", "a date of birth", *m.span(1)) for m in _BIRTH.finditer(text)
        ]
    if _A_DIGIT.search(raw.tokens) is not None and (
        not words.isdisjoint(_ADDRESS_WORDS)
        or "c/" in raw.tokens_lower
        or any(w[:1].isupper() and w.lower().endswith(_STREET_SUFFIXES) for w in caps)
    ):
        found = _ADDRESS.finditer(text)
        out += [Finding("pii:address", "a street address", *m.span()) for m in found]
    if not words.isdisjoint(_health_words()):
        for rx in _health_patterns():
            out += [
                Finding("pii:health", "a fact about a person's health", *m.span(1))
                for m in rx.finditer(text)
            ]
    for code, what, rx, needles in (
        ("pii:family", "a fact about a person's family", _FAMILY, _FAMILY_WORDS),
        ("pii:legal", "a legal fact about a person", _LEGAL, _LEGAL_WORDS),
        ("pii:financial", "a financial fact about a person", _FINANCIAL, _FINANCIAL_WORDS),
    ):
        if not words.isdisjoint(needles):
            out += [Finding(code, what, m.start(), m.end()) for m in rx.finditer(text)]
    password = not words.isdisjoint(_PASSWORD_WORDS)
    for rx, what, wake in (
        (_PASSWORD_PROSE, "password", password),
        (_PASSWORD_BARE, "password", password),
        (_PASSWORD_FLAG, "password on a command line", password),
        (_CODE_PROSE, "access code", not words.isdisjoint(_CODE_WORDS)),
    ):
        if wake:
            for m in rx.finditer(text):
                if _password_value(m.group(1)):
                    start, end = m.span(1)
                    if text[end - 1] in ".)" and end - start > 4:
                        end -= 1  # the sentence's full stop, not the password's
                    out.append(Finding("secret:password", what, start, end))
    return sorted(out, key=lambda f: (f.start, f.end, f.code))


def personal_findings(text: str, raw: _Raw | None = None) -> list[Finding]:
    """THE personal-data check (docs/design/guard.md §Guard): what :func:`agentmem.guard.scan`
    refuses in an entry, a rule or a file, what :func:`agentmem.guard.check_personal` refuses
    in a proposal and what :func:`agentmem.guard.mask` hides from a model. Numbers (e-mail,
    phone, IBAN, card, national ids) and facts about a person (:func:`person_findings`)."""
    raw = raw or _Raw(text)
    return _pii_findings(text, raw) + person_findings(text, raw)
