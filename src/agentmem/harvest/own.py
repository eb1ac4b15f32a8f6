"""The person's own text (docs/design/harvest.md §Harvest): what in a user turn the person wrote.

A user turn of any transcript format may carry text that is not the person's: blocks a hook
or the client injected (``<user-prompt-submit-hook>``, ``<system-reminder>``, any
``<tag>…</tag>`` element), fenced code, ``>`` quotations, long quotations between quote marks,
and pasted documents (the paragraph after an introduction ending with ":", a paragraph that
opens like a clause, an article, a section or an e-mail, or that holds an e-mail signature; an
e-mail's paragraphs from its greeting to its signature, a P.S. included).

:func:`split_own` separates them. The offline extractor reads only the own part, the model
request marks the rest as not the person's, and harvest validation refuses a proposal that
restates the rest (:func:`restates`). Pure functions; no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

INJECTED = re.compile(r"<([A-Za-z][\w-]*)\b[^>]*>.*?</\1\s*>", re.S)
_FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.S | re.M)
_QUOTED = re.compile(r"“[^”]{1,4000}”|«[^»]{1,4000}»|„[^“”]{1,4000}[“”]|\"[^\"\n]{1,4000}\"")
#: A quotation of at least this many words is someone else's text, not the person's.
QUOTE_WORDS = 8
_DOCUMENT_START = re.compile(
    r"^\s*(?:\(?\d+(?:\.\d+)+[.)]?\s+\S|\(?\d+[.)]\s+\S|§|art(?:icle|ículo|ikel)?\.?\s*\d|clause\s+\d|cl[aá]usula\s+\d"
    r"|section\s+\d|whereas\b|attendu\s+que|considerando|dear\s|hi\s+\w+,|hello\s+\w+,"
    r"|bonjour\b|cher\s|ch[eè]re\s|madame|monsieur|estimad[oa]s?\b|hola\s+\w+,"
    r"|sehr\s+geehrte|liebe[r]?\s+\w+,|hallo\s+\w+,)",
    re.I,
)
_SIGNATURE = re.compile(
    r"^\s*(?:best\s+regards|kind\s+regards|regards|sincerely|cheers|cordialement|bien\s+[àa]\s+vous"
    r"|salutations|saludos|atentamente|un\s+saludo|mit\s+freundlichen\s+gr[üu][ßs]en|viele\s+gr[üu][ßs]e"
    r"|beste\s+gr[üu][ßs]e)\b",
    re.I | re.M,
)


@dataclass(frozen=True)
class OwnText:
    """One user turn split: ``own`` is the person's text (other parts replaced by a line end),
    ``other`` the parts that are not theirs, each whole."""

    own: str
    other: list[str] = field(default_factory=list)
    injected: list[str] = field(default_factory=list)


def split_own(text: str) -> OwnText:
    """Split one user turn's text into the person's own words and the rest (see the module)."""
    injected: list[str] = []
    other: list[str] = []

    def drop_injected(m: re.Match[str]) -> str:
        injected.append(m.group(0))
        return "\n"

    def drop_other(m: re.Match[str]) -> str:
        other.append(m.group(0))
        return "\n"

    text = INJECTED.sub(drop_injected, text)
    text = _FENCE.sub(drop_other, text)
    kept_lines = []
    for line in text.split("\n"):
        if line.lstrip().startswith(">"):
            other.append(line)
            kept_lines.append("")
        else:
            kept_lines.append(line)
    text = "\n".join(kept_lines)

    def long_quote(m: re.Match[str]) -> str:
        # words, not blanks: "« … »" with its spaces inside (French typography) is no longer
        if len(_WORD.findall(m.group(0))) >= QUOTE_WORDS:
            other.append(m.group(0))
            return "\n"
        return m.group(0)

    text = _QUOTED.sub(long_quote, text)
    paragraphs = re.split(r"\n[ \t]*\n", text)
    letter = _letter(paragraphs)
    own: list[str] = []
    after_colon = False
    for i, para in enumerate(paragraphs):
        body = para.strip()
        if not body:
            continue
        pasted = (
            i in letter
            or after_colon
            or _DOCUMENT_START.match(body) is not None
            or _SIGNATURE.search(body) is not None
        )
        if pasted and sum(1 for p in paragraphs if p.strip()) > 1:
            other.append(body)
            after_colon = False
            continue
        own.append(body)
        after_colon = body.endswith(":") and len(body) < 200
    return OwnText("\n\n".join(own), other, injected)


_GREETING = re.compile(
    r"^\s*(?:dear\s|hi\s+\w+,|hello\s+\w+,|bonjour\b|cher\s|ch[eè]re\s|madame|monsieur"
    r"|estimad[oa]s?\b|hola\s+\w+,|sehr\s+geehrte|liebe[r]?\s+\w+,|hallo\s+\w+,)",
    re.I,
)


def _letter(paragraphs: list[str]) -> set[int]:
    """The paragraphs of a pasted e-mail: from one that opens with a greeting to the first that
    holds its signature ("Kind regards", "Cordialement" …), a P.S. between them included."""
    out: set[int] = set()
    start: int | None = None
    for i, para in enumerate(paragraphs):
        if start is None and _GREETING.match(para.strip()):
            start = i
        if start is not None and _SIGNATURE.search(para):
            out |= set(range(start, i + 1))
            start = None
    return out


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


_WORD = re.compile(r"\w+")


def _shingles(text: str, size: int) -> set[tuple[str, ...]]:
    words = _WORD.findall(_fold(text))
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


#: Share of a proposal's word 4-grams found in text that is not the person's at or above which
#: the proposal restates a document (0–1).
RESTATES_RATIO = 0.5


def restates(text: str, others: list[str]) -> bool:
    """True when ``text`` mostly repeats ``others`` (pasted documents, quotations): at least
    :data:`RESTATES_RATIO` of its word 4-grams (3-grams for texts under eight words) occur there."""
    if not others:
        return False
    size = 4 if len(_WORD.findall(text)) >= 8 else 3
    mine = _shingles(text, size)
    if not mine:
        return False
    pool: set[tuple[str, ...]] = set()
    for other in others:
        pool |= _shingles(other, size)
    return len(mine & pool) / len(mine) >= RESTATES_RATIO
