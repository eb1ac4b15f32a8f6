"""Personal data (docs/design.md §Harvest, §Guard): e-mail addresses, phone numbers (France, US,
international), IBANs, payment cards and national ids (FR NIR, US SSN, ES DNI/NIE, IT codice
fiscale), read on the raw text; checksums through python-stdnum and numbers through phonenumbers,
both loaded on first use."""

from __future__ import annotations

import functools
import re
from importlib import resources

from agentmem.guard.base import Finding
from agentmem.guard.unicode import _Raw

# ----------------------------------------------------------------------------------------------
# Personal data (raw text)
# ----------------------------------------------------------------------------------------------

# The host is taken whole ("(?!…)": no shorter host inside git@gitlab.example.com), and neither
# an SSH remote (git@host:org/repo, a colon then no space) nor the user of a link
# (ssh://git@host/…) is an address.
_EMAIL = re.compile(
    r"(?<![\w.+-])(?<!://)[\w.+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.[A-Za-z]{2,24}"
    r"(?![\w-]|\.[A-Za-z0-9]|:\S)"
)
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
# Sex digit 1-4 or 7-8 (temporary numbers), groups apart by a space, a no-break space, a dot or
# a hyphen, the key maybe set further apart ("… 084 - 91", "… 084/91").
_NIR_SEP = "[ .\\-\u00a0\u202f]?"
_NIR = re.compile(
    rf"(?<![\dA-Za-z])[1-478]{_NIR_SEP}\d{{2}}{_NIR_SEP}\d{{2}}{_NIR_SEP}(?:\d{{2}}|2[AB])"
    rf"{_NIR_SEP}\d{{3}}{_NIR_SEP}\d{{3}}[ .\-/\u00a0\u202f]{{0,3}}\d{{2}}(?![\dA-Za-z])"
)
_SSN = re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])")
_SSN_KEYWORD = re.compile(r"(?i)\bssn\b\W{0,3}(\d{9})\b")
_DNI = re.compile(r"(?<![\dA-Za-z])(?:\d{8}-?[A-Za-z]|[XYZxyz]-?\d{7}-?[A-Za-z])(?![\dA-Za-z])")
_CODICE_FISCALE = re.compile(r"\b[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]\b")
_NUMBER_SEPARATORS = re.compile(r"[\s./\-]")
_PII_RANK = {"pii:national-id": 0, "pii:card": 1, "pii:iban": 2, "pii:email": 3, "pii:phone": 4}


def _valid_id(kind: str, value: str) -> bool:
    """Checksum of a national id candidate (python-stdnum, imported on first use)."""
    value = _NUMBER_SEPARATORS.sub("", value)
    if kind == "nir":
        # lazy: stdnum costs 50 ms to import
        from stdnum.fr import nir

        return bool(nir.is_valid(value))
    if kind == "ssn":
        # lazy: stdnum costs 50 ms to import
        from stdnum.us import ssn

        return bool(ssn.is_valid(value))
    if kind == "dni":
        # lazy: stdnum costs 50 ms to import
        from stdnum.es import dni, nie

        return bool(dni.is_valid(value) or nie.is_valid(value))
    # lazy: stdnum costs 50 ms to import
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
    # lazy: importing stdnum costs 50 ms
    from stdnum import luhn

    return bool(luhn.is_valid(d))


def _iban_findings(text: str, windows: list[tuple[int, int]]) -> list[Finding]:
    out = []
    for m in (m for lo, hi in windows for m in _IBAN.finditer(text, lo, hi)):
        # lazy: stdnum costs 50 ms to import
        from stdnum import iban

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
    # lazy: 40 ms to import, and needed only when digits abound
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
_DIGITS_TABLE = bytes(b"0"[0] if chr(b).isdecimal() else b"x"[0] for b in range(256))
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
# Facts about a person (proposal level: harvest validation and the model request's masking)
# ----------------------------------------------------------------------------------------------

_UPPER = r"[A-ZÀ-ÖØ-Þ]"
_LOWER = r"[a-zß-öø-ÿ]"
_CAPITALISED = rf"{_UPPER}{_LOWER}+(?:-{_UPPER}{_LOWER}+)?"
# A title, then a capitalised name: "Dr. Schneider", "Maître Lefebvre", "el Sr. García".
_TITLED = re.compile(
    rf"(?<![\w.])(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof|Mme|Mlle|Sr|Sra|Srta|Dra)\.?|(?:M|Me|Hr|Fr)\."
    rf"|Ma[iî]tre|Madame|Monsieur|Miss|Herr|Frau|Do[nñ]a?)\s+{_CAPITALISED}"
)
# A first name from the bundled list, then a capitalised surname: "Tom Becker".
_NAME_PAIR = re.compile(rf"(?<![\w.-])({_UPPER}{_LOWER}+)\s+({_CAPITALISED})(?![\w-])")
# First names that are also ordinary capitalised words at a sentence start.
_NOT_NAMES = frozenset(
    "the will may mark bill grace rose june april august summer hope joy faith art jean "
    "dan don page sterling chase major case lane grant frank earl rich stone young lord "
    "clause article section annex rule summary review please remember keep note".split()
)
_FAMILY = re.compile(
    r"(?i)\b(?:(?:my|his|her|our|their)\s+(?:daughters?|sons?|wife|husband|kids?|children|child"
    r"|partner|mother|father|mom|mum|dad|brother|sister|girlfriend|boyfriend|baby|fianc[ée]e?)"
    r"|(?:ma|mon|mes|sa|son|ses)\s+(?:filles?|fils|femme|mari|enfants?|compagne|compagnon|conjointe?"
    r"|m[èe]re|p[èe]re|fr[èe]re|s(?:œ|oe)ur|b[ée]b[ée])"
    r"|(?:mi|mis|su|sus)\s+(?:hijas?|hijos?|esposa|esposo|marido|mujer|pareja|madre|padre"
    r"|herman[oa]s?|beb[ée]|novi[oa])"
    r"|(?:meine?|seine?|ihre?|unsere?)\s+(?:t[öo]chter|tochter|s[öo]hne|sohn|frau|mann|kinder?"
    r"|partner(?:in)?|mutter|vater|bruder|schwester|baby|freundin|freund))\b"
    rf"(?:\s+{_UPPER}{_LOWER}+)?"
)
_HEALTH = re.compile(
    r"(?i)\b(?:adhd|tdah|adhs|autis(?:m|me|mo|mus|tic|te|ta|tisch)|asperger|dyslexi[ac]\w*"
    r"|dyslexie|legasthenie|depress(?:ion|ed|iv\w*)|d[ée]pression|depresi[oó]n|anxiety|anxi[ée]t[ée]"
    r"|ansiedad|angstst[öo]rung|burn-?out|bipolar\w*|diabet\w*|cancer|krebs|c[áa]ncer|chemo\w*"
    r"|pregnan\w*|enceinte|embarazada|schwanger\w*|sick\s+leave|arr[êe]t\s+maladie|baja\s+m[ée]dica"
    r"|krankgeschrieben|therapy|th[ée]rapie|terapia|therapie|psychiatr\w*|psycholog\w*"
    r"|sertralin\w*|fluoxetin\w*|ritalin|methylphenidat\w*|adderall|antidepress\w*|insulin\w*"
    r"|medication|m[ée]dicament\w*|medicaci[oó]n|medikament\w*|disabilit\w*|handicap\w*"
    r"|malade|maladie|enferm[oa]|enfermedad|krank|krankheit|fever|fi[èe]vre|fiebre|fieber"
    r"|illness|ill\b|migraines?|hospital\w*|h[ôo]pital|krankenhaus)\b"
)
_LEGAL = re.compile(
    r"(?i)\b(?:divorc\w*|scheidung|geschieden|custody|garde\s+des\s+enfants|custodia|sorgerecht"
    r"|criminal\s+record|casier\s+judiciaire|antecedentes\s+penales|vorstrafe\w*|arrested"
    r"|arr[êe]t[ée]e?\s+par|detenid[oa]|verhaftet|convicted|condamn[ée]e?|condenad[oa]|verurteilt"
    r"|probation|sued\s+me|my\s+lawsuit|mon\s+proc[èe]s)\b"
)
_FINANCIAL = re.compile(
    r"(?i)\b(?:salary|salaries|salaire|salario|sueldo|gehalt|geh[äa]lter|earns?|gagne|gana|verdien\w*"
    r"|my\s+(?:debts?|mortgage|loan|bank\s+account|credit\s+score|pay\s+rise|raise|bonus)"
    r"|mes\s+dettes|ma\s+dette|mon\s+pr[êe]t|mi\s+deuda|mis\s+deudas|mi\s+hipoteca"
    r"|meine\s+schulden|mein\s+kredit|hypoth[èe]que|hipoteca|hypothek)\b"
)
# "the password is X", "le mot de passe est X", "la contraseña es X", "das Passwort ist X".
_PASSWORD_PROSE = re.compile(
    r"(?i)\b(?:password|passwd|passphrase|pass\s*code|mot\s+de\s+passe|mdp|contrase[ñn]a|clave"
    r"|passwort|kennwort)\b[^.\n]{0,40}?\b(?:is|was|est|[ée]tait|es|era|ist|war|lautet)\s*:?\s+"
    r"([^\s\"',;]{4,}|\"[^\"\n]{4,}\"|'[^'\n]{4,}')"
)
_URL_CREDENTIALS = re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://[^/\s:@]{1,64}:([^/\s@]{3,128})@")


@functools.cache
def _first_names() -> frozenset[str]:
    """First names from gender-guesser's maintained list (about 45,000, many countries),
    casefolded; loaded on first use (about 0.4 s)."""
    names: set[str] = set()
    path = resources.files("gender_guesser") / "data" / "nam_dict.txt"
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line[:1] in ("#", "="):
                continue
            name = line[3:29].strip()
            if name and " " not in name and "+" not in name:
                names.add(name.casefold())
    return frozenset(names)


def _name_findings(text: str) -> list[Finding]:
    out = [
        Finding("pii:name", "a person's name (title and name)", m.start(), m.end())
        for m in _TITLED.finditer(text)
    ]
    pairs = list(_NAME_PAIR.finditer(text))
    if pairs:
        names = _first_names()
        for m in pairs:
            first = m.group(1).casefold()
            if (
                first in names
                and first not in _NOT_NAMES
                and m.group(2).casefold() not in _NOT_NAMES
            ):
                out.append(
                    Finding(
                        "pii:name", "a person's name (first name and surname)", m.start(), m.end()
                    )
                )
    return out


def person_findings(text: str) -> list[Finding]:
    """Facts about a person that no proposal may carry (docs/design.md §Guard): names (a title
    and a name, or a listed first name and a capitalised surname), family, health, legal and
    financial facts, a password said in words ("the password is …", "le mot de passe est …"),
    credentials inside a URL. Every finding is an error; messages never hold the value."""
    out = _name_findings(text)
    for code, what, rx in (
        ("pii:family", "a fact about a person's family", _FAMILY),
        ("pii:health", "a fact about a person's health", _HEALTH),
        ("pii:legal", "a legal fact about a person", _LEGAL),
        ("pii:financial", "a financial fact about a person", _FINANCIAL),
    ):
        out += [Finding(code, what, m.start(), m.end()) for m in rx.finditer(text)]
    out += [
        Finding("secret:password", "password", m.start(1), m.end(1))
        for m in _PASSWORD_PROSE.finditer(text)
    ]
    out += [
        Finding("secret:url-credentials", "password in a URL", m.start(1), m.end(1))
        for m in _URL_CREDENTIALS.finditer(text)
    ]
    return sorted(out, key=lambda f: (f.start, f.end, f.code))
