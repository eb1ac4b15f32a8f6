"""The guard: the filter every text passes before it can enter memory or doctrine
(docs/design/guard.md §Guard).

Memory and doctrine text is pasted into future prompts, so it is an injection surface. The guard
*refuses*; it never strips or rewrites, so the person approving sees exactly what was refused and
why. Pure functions, called by every write path and by ``check``:

- :func:`scan` returns every :class:`Finding` (reason code, message, character span, severity);
- :func:`check` raises :class:`~agentmem.errors.GuardError` when a finding is an error;
- :func:`mask` replaces secrets and personal data by typed placeholders before a transcript is
  sent to a model (docs/design/harvest.md §Harvest);
- :func:`describe` summarises findings on one line; :func:`locate` turns an offset into
  ``(line, column)``.

Reason codes: ``invisible-char``, ``structure``, ``instruction``, ``exfiltration``,
``encoded-blob``, ``secret:<provider>`` (every one an error: no secret only warns),
``pii:<kind>`` and ``too-long``. Messages name the class and the position, never the matched
value; invisible characters are named by code point and count (``U+E0049 ×37``).

Invisible characters, line breaks, secrets, personal data and encoded blobs are checked on the
raw text. Structure, exfiltration and instructions are checked on a *detection copy* (invisible
characters removed, NFKC, casefold, accents removed, Latin look-alikes mapped to Latin), so
``ign\\u200bore``, fullwidth and Cyrillic disguises are caught; spans map back to the raw text.

Speed (the figures: ``benchmarks/bench_guard.py``;
``agentmem check`` over thousands of files, see ``benchmarks/bench_check.py``): each
instruction and secret pattern runs only when one of its literal "needles" occurs in the text
(looked up in the text's distinct tokens), every pattern compiles on first use, and
number patterns run only in windows around long runs of digits. Regex passes that cannot match
are skipped on facts that C string methods give (``unicode._Raw``); a Latin-1 text's detection
copy is one byte translation. Costly modules load lazily: ``phonenumbers`` when a run of at
least nine digits (eight after "+", separators allowed) appears, ``stdnum`` when a candidate
number needs its checksum, ``confusable_homoglyphs`` when a letter beyond the Latin blocks
appears; the word and name lists are read from their packages' folders
without importing the packages or ``importlib.resources``.

Modules: :mod:`.base` (severities, kinds, :class:`Finding`), :mod:`.unicode` (raw-text facts,
invisible characters, line breaks, the detection copy), :mod:`.structure` (structure and
exfiltration), :mod:`.injection` (instructions aimed at the assistant), :mod:`.secrets`
(secrets and encoded blobs), :mod:`.personal` (personal data); this module puts them together
(:mod:`agentmem.guard` re-exports its names).

Accepted false positives are pinned in ``tests/data/guard/cases.yaml`` (notes "accepted false
positive"): England/Scotland/Wales flags (tag characters), "you are now …" whatever follows, a
10-digit number that is a valid US or French phone number, the checksum-valid example SSN.
"""

from __future__ import annotations

from agentmem.errors import GuardError
from agentmem.guard.base import ERROR, KINDS, PLACEHOLDERS, Finding
from agentmem.guard.injection import _instruction_hits
from agentmem.guard.personal import _PII_RANK, personal_findings
from agentmem.guard.secrets import _blob_findings, _braille_findings, _secret_findings
from agentmem.guard.structure import _URL, _exfiltration_hits, _link_data_hits, _structure_hits
from agentmem.guard.unicode import (
    _detection_copy,
    _invisible_findings,
    _line_break_findings,
    _Raw,
    _raw_span,
    _visible_positions,
)
from agentmem.lazyre import lazy_compile

__all__ = [
    "check",
    "check_personal",
    "describe",
    "locate",
    "mask",
    "placeholder",
    "scan",
]


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


#: Code points an entry or rule text is read at most without a ``max_chars`` (a ``file`` has its
#: budget): beyond it, ``too-long`` alone, before any pattern runs (docs/design/write-path.md §Write path,
#: *Bounded work*).
SCAN_MAX_CHARS = 100_000


def scan(text: str, *, max_chars: int | None = None, kind: str = "entry") -> list[Finding]:
    """Every reason to refuse or warn about ``text`` (docs/design/guard.md §Guard), sorted by position.

    ``kind``: ``"entry"`` (one memory line: any line break is refused), ``"rule"`` (a doctrine
    text field: one line too) or ``"file"`` (a stored memory file: ``\\n`` separates lines and
    leading Markdown is checked on the content of each ``- `` entry line). ``max_chars`` counts
    code points (``entry_max_chars`` or ``budget_chars``, docs/design/settings.md §Settings); ``None`` means
    :data:`SCAN_MAX_CHARS` for an entry or rule text, no limit for a file. A text over its limit
    gets the ``too-long`` finding alone: nothing else is scanned. Raises ``ValueError`` for an unknown kind; never raises because of the text.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown guard kind {kind!r} (expected one of: {', '.join(KINDS)})")
    findings: list[Finding] = []
    limit = max_chars if max_chars is not None else (None if kind == "file" else SCAN_MAX_CHARS)
    if limit is not None and len(text) > limit:
        # the length first, and nothing else: a 10 MB line is refused at once, never scanned
        what = {"entry": "entry", "rule": "field", "file": "file"}[kind]
        message = f"{what} is {len(text)}/{limit} characters: shorten it (nothing is truncated)"
        return [Finding("too-long", message, limit, len(text))]
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
    url_spans = (
        [_raw_span(index, m.start(), m.end()) for m in _URL.finditer(det)] if "://" in det else []
    )
    for s, e, message in _link_data_hits(text, url_spans):
        findings.append(Finding("exfiltration", message, s, e))
    if "rot" in det:
        findings += _rot13_findings(det, index)
    findings += _secret_findings(text, raw)
    findings += personal_findings(text, raw)
    findings += _blob_findings(text, url_spans, raw)
    findings += _cleaned_copy_findings(text, raw)
    if raw.latin1 is None:
        findings += _braille_findings(text)
    return _dedupe(findings)


_ROT13_MARKER = lazy_compile(r"\brot[- ]?13\b")
_ROT13 = str.maketrans(
    "abcdefghijklmnopqrstuvwxyz", "nopqrstuvwxyzabcdefghijklm"
)  # the detection copy is lower case


def _rot13_findings(det: str, index: list[int] | None) -> list[Finding]:
    """A ROT13 marker ("ROT13:", "(rot-13)") announces text to decode: refused, and the decoded
    text is read for instructions too (docs/design/guard.md §Guard)."""
    out: list[Finding] = []
    for m in _ROT13_MARKER.finditer(det):
        message = "ROT13 marker: text meant to be decoded"
        out.append(Finding("encoded-blob", message, *_raw_span(index, m.start(), m.end())))
    if out:
        for s, e, message in _instruction_hits(det.translate(_ROT13)):
            out.append(Finding("instruction", f"{message} (in ROT13)", *_raw_span(index, s, e)))
    return out


def _cleaned_copy_findings(text: str, raw: _Raw) -> list[Finding]:
    """Personal data, encoded blobs and Braille runs read again on the text without its invisible characters
    (secrets do this themselves): an invisible character inside a value must not hide it from a
    rule. Spans point into ``text``."""
    keep = _visible_positions(text, raw)
    if keep is None:
        return []
    copy = "".join(text[i] for i in keep)
    copy_raw = _Raw(copy)
    spans = [m.span() for m in _URL.finditer(copy)] if "://" in copy else []
    out = []
    found = personal_findings(copy, copy_raw) + _blob_findings(copy, spans, copy_raw)
    for f in found + _braille_findings(copy):
        start, end = keep[f.start], keep[f.end - 1] + 1 if f.end > f.start else keep[f.start]
        out.append(Finding(f.code, f.message, start, end, f.severity))
    return out


def check(
    text: str, *, where: str, max_chars: int | None = None, kind: str = "entry"
) -> list[Finding]:
    """Refuse ``text`` when :func:`scan` finds an error; return the warnings otherwise.

    Raises :class:`~agentmem.errors.GuardError` whose message is
    ``"{where}: refused: <code> at <offset>: <message>; …"`` (docs/design/guard.md §Guard): classes and
    positions, never a matched value.
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


def check_personal(text: str, *, where: str) -> None:
    """Refuse personal data and secrets in a proposal's text or justification: the same
    personal-data check as :func:`scan` and :func:`mask`
    (:func:`agentmem.guard.personal.personal_findings`: numbers, names, dates of birth,
    addresses, health, family, legal and financial facts, passwords in words or on a command
    line) and the secrets. Raises :class:`~agentmem.errors.GuardError` with codes and
    positions only (docs/design/guard.md §Guard). Harvest validation calls it first, before the inbox.
    """
    if len(text) > SCAN_MAX_CHARS:
        raise GuardError(
            f"{where}: refused: too-long at {SCAN_MAX_CHARS}: text is {len(text)}/"
            f"{SCAN_MAX_CHARS} characters, refused before it is read",
            hint="a proposal is one preference of a line or two: shorten it",
        )
    raw = _Raw(text)
    personal = _dedupe(
        _secret_findings(text, raw)
        + personal_findings(text, raw)
        + _cleaned_copy_findings(text, raw)
    )
    personal = [f for f in personal if f.code.startswith(("secret:", "pii:"))]
    if personal:
        shown = "; ".join(f"{f.code} at {f.start}: {f.message}" for f in personal[:8])
        raise GuardError(
            f"{where}: refused: {shown}",
            hint="a proposal never keeps personal data or secrets: say the preference without them",
        )


def placeholder(code: str) -> str:
    """Typed placeholder for a secret or personal-data code: ``[EMAIL]``, ``[SECRET:github]``."""
    if code.startswith("secret:"):
        return f"[SECRET:{code.split(':', 1)[1]}]"
    return PLACEHOLDERS.get(code, "[REDACTED]")


def mask(text: str) -> str:
    """``text`` with secrets and personal data replaced by typed placeholders
    (docs/design/harvest.md §Harvest).

    For a transcript about to be sent to a model: ``[EMAIL]``, ``[PHONE]``, ``[IBAN]``,
    ``[CARD]``, ``[NATIONAL-ID]``, ``[SECRET:<provider>]``, and the same facts about a person
    that :func:`check_proposal` refuses: ``[NAME]``, ``[FAMILY]``, ``[HEALTH]``, ``[LEGAL]``,
    ``[FINANCIAL]``, ``[SECRET:password]``, ``[SECRET:url-credentials]``. Random-looking tokens (the
    ``secret:entropy`` code) become ``[SECRET:entropy]``. Nothing else changes; a password
    keeps its ``password=`` key. Does not refuse anything: use :func:`scan` for that.
    """
    raw = _Raw(text)
    url_spans = [m.span() for m in _URL.finditer(text)] if "://" in text else []
    found = _dedupe(
        _secret_findings(text, raw)
        + personal_findings(text, raw)
        + _blob_findings(text, url_spans, raw)
        + _cleaned_copy_findings(text, raw)
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
