"""The duplicate guard (docs/design/doctrine.md §Rule file): a new or edited rule against the live rules of
its scope.

Rules are compared after a light normalisation that makes paraphrases meet: case, accents and
punctuation dropped; negations (``never``, ``do not``, ``don't``, ``ne … jamais``) become ``not``;
comparisons (``under``, ``shorter than``, ``less than``, ``moins de``) become one token each;
plurals are cut to their singular; small number words become digits; filler words go.
"Never accept a warranty under 24 months" and "Do not accept warranties shorter than 24 months"
both become ``not accept warranty lt 24 month``.

The score (0–100) is rapidfuzz's ``token_set_ratio`` times the square root of the length ratio
(shorter / longer, in words): ``token_set_ratio`` alone gives 100 whenever one rule's words are a
subset of the other's ("use uv" vs "use uv never pip"), and the length ratio
pulls such pairs down by how much the longer rule adds (an exception, a condition). Texts that do
not hold the same figures are capped at 50: "under 12 months" is not "under 24 months". A pair
at or above ``doctrine.duplicate_threshold`` blocks.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from agentmem.doctrine.model import LIVE_STATUSES, Rule, scopes_overlap

_REPLACEMENTS: tuple[tuple[str, str], ...] = (
    # Bounds first: "no less than" is a lower bound, not a negation followed by "less than".
    (
        r"\b(?:no|not) (?:less|fewer|shorter|lower) than\b|\bat least\b|\b(?:a )?minimum(?: of)?\b"
        r"|\bau moins\b|\bminimum\b",
        " ge ",
    ),
    (
        r"\b(?:no|not) (?:more|greater|longer|higher) than\b|\bat most\b|\b(?:a )?maximum(?: of)?\b"
        r"|\bup to\b|\bau plus\b|\bau maximum\b",
        " le ",
    ),
    (
        r"\b(?:less|fewer|shorter|lower|smaller) than\b|\bunder\b|\bbelow\b|\bbeneath\b"
        r"|\bmoins de\b|\binferieure? (?:a|de)\b|\ben dessous de\b|\bsous\b",
        " lt ",
    ),
    (
        r"\b(?:more|greater|longer|higher|larger) than\b|\bover\b|\babove\b|\bexceeding\b"
        r"|\bbeyond\b|\bplus de\b|\bsuperieure? (?:a|de)\b|\bau dela de\b",
        " gt ",
    ),
    (
        r"\b(?:do|does|did|must|should|shall|will|can|may|could|would) not\b|\bdon't\b"
        r"|\bdoesn't\b|\bmustn't\b|\bshouldn't\b|\bwon't\b|\bcan't\b|\bcannot\b|\bnever\b"
        r"|\bno\b|\bjamais\b|\bne pas\b|\bn'\b|\bne\b|\bpas\b",
        " not ",
    ),
)
STOPWORDS = frozenset(
    "a an the of for on in to with by at as is are be been any all this that these those it its "
    "our we us you your from than which who when where le la les l de des du d un une et en au "
    "aux pour par sur dans avec ce cette ces nous vous qui que".split()
)
_NUMBERS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "deux": 2,
    "trois": 3,
    "quatre": 4,
    "cinq": 5,
    "douze": 12,
    "trente": 30,
    "soixante": 60,
}
_COMPILED = tuple((re.compile(pattern), token) for pattern, token in _REPLACEMENTS)


def singular(word: str) -> str:
    """An English plural's singular (``policies`` → ``policy``, ``terms`` → ``term``)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _numbers(words: list[str]) -> list[str]:
    out: list[str] = []
    for word in words:
        value = _NUMBERS.get(word)
        if value is not None and 0 < value < 10 and out and out[-1].isdigit():
            tens = int(out[-1])
            if tens % 10 == 0 and 20 <= tens <= 90:
                out[-1] = str(tens + value)  # "twenty four" → 24
                continue
        out.append(str(value) if value is not None else word)
    return out


def normalise(text: str) -> str:
    """The comparison form of a rule text (see the module docstring); pure, never raises."""
    folded = unicodedata.normalize("NFKD", text.casefold())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    folded = folded.replace("\u2019", "'")
    folded = re.sub(r"[^a-z0-9']+", " ", folded)
    folded = re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1", folded)
    folded = " ".join(folded.split())
    for pattern, token in _COMPILED:
        folded = pattern.sub(token, folded)
    words = [w.strip("'") for w in folded.split()]
    words = [singular(w) for w in words if w and w not in STOPWORDS]
    out: list[str] = []
    for word in _numbers(words):
        if not out or out[-1] != word:  # "ne … pas" gives "not not"
            out.append(word)
    return " ".join(out)


NUMBER_MISMATCH_CAP = 50.0  # rules that differ by a figure (12 vs 24 months) are different rules


def similarity(a: str, b: str) -> float:
    """0–100: ``token_set_ratio`` × √(shorter/longer word count) on the normalised texts,
    capped at :data:`NUMBER_MISMATCH_CAP` when the two texts do not hold the same figures."""
    return score_normalised(normalise(a), normalise(b))


def score_normalised(na: str, nb: str) -> float:
    """:func:`similarity` of two texts already through :func:`normalise` (callers comparing many
    pairs normalise each text once)."""
    # lazy: rapidfuzz loads only to compare texts
    from rapidfuzz import fuzz

    if not na or not nb:
        return 0.0
    words_a, words_b = len(na.split()), len(nb.split())
    length_ratio = min(words_a, words_b) / max(words_a, words_b)
    score = fuzz.token_set_ratio(na, nb) * math.sqrt(length_ratio)
    if {w for w in na.split() if w.isdigit()} != {w for w in nb.split() if w.isdigit()}:
        score = min(score, NUMBER_MISMATCH_CAP)
    return float(score)


@dataclass(frozen=True)
class Similar:
    """A live rule close to the candidate: ``score`` 0–100 and the text that matched."""

    rule_id: str
    status: str
    scope: str | None
    score: float
    text: str

    def describe(self) -> str:
        return f"{self.rule_id} ({self.status}, {self.score:.0f} %): {self.text}"


def _texts(title: str, instruction: str) -> list[str]:
    return [t for t in (title, instruction) if t.strip()]


@dataclass(frozen=True)
class Form:
    """A normalised text and what the prefilter needs of it: its word count and its figures."""

    text: str
    words: int
    figures: frozenset[str]


def form(normalised: str) -> Form:
    """The :class:`Form` of a text already through :func:`normalise`."""
    words = normalised.split()
    return Form(normalised, len(words), frozenset(w for w in words if w.isdigit()))


def _may_reach(a: Form, b: Form, threshold: float) -> bool:
    """False only when the pair provably scores below ``threshold`` (then it could change no
    verdict): an empty text scores 0; the score is at most 100 × √(shorter/longer); texts with
    other figures are capped at :data:`NUMBER_MISMATCH_CAP`."""
    if not a.words or not b.words:
        return False
    shorter, longer = (a.words, b.words) if a.words <= b.words else (b.words, a.words)
    if 100.0 * math.sqrt(shorter / longer) < threshold:
        return False
    return not (threshold > NUMBER_MISMATCH_CAP and a.figures != b.figures)


def best_match(mine: list[Form], theirs: tuple[Form, Form], threshold: float) -> tuple[float, int]:
    """The best score of a rule's (title, instruction) ``theirs`` against the candidate's texts
    ``mine``, and which of the two gave it (0 title, 1 instruction; -1 none above 0): the pair
    loop of :func:`find_similar` — their texts outer, mine inner, the first strictly better
    score wins — leaving out the pairs that provably score below ``threshold`` (they cannot be
    the best of a rule that is reported, so every verdict, score and text stays the same)."""
    best, at = 0.0, -1
    for number, other in enumerate(theirs):
        for candidate in mine:
            if threshold > 0 and not _may_reach(candidate, other, threshold):
                continue
            score = score_normalised(candidate.text, other.text)
            if score > best:
                best, at = score, number
    return best, at


def candidate_forms(title: str, instruction: str) -> list[Form]:
    """The candidate rule's texts (the non-blank ones), normalised once."""
    return [form(normalise(t)) for t in _texts(title, instruction)]


def rule_forms(title: str, instruction: str) -> tuple[Form, Form]:
    """A rule's (title, instruction) normalised (a blank text as ``""``: it scores 0)."""
    return (
        form(normalise(title) if title.strip() else ""),
        form(normalise(instruction) if instruction.strip() else ""),
    )


def find_similar(
    title: str,
    instruction: str,
    scope: str | None,
    rules: Iterable[Rule],
    threshold: float,
    *,
    exclude: Iterable[str] = (),
) -> list[Similar]:
    """Live rules (draft, active, suspended) whose scope meets ``scope`` (equal, above or below;
    ``None`` meets ``None``) and whose title or instruction scores ≥ ``threshold`` against the
    candidate's title or instruction. Best first; ``exclude`` holds ids to skip (the rule itself,
    rules already declared distinct). Each text is normalised once; the rule index's
    :func:`agentmem.doctrine.drafts.similar_rules` gives the same answer from stored forms."""
    skip = set(exclude)
    mine = candidate_forms(title, instruction)
    found: list[Similar] = []
    for rule in rules:
        if rule.id in skip or rule.status not in LIVE_STATUSES:
            continue
        if not scopes_overlap(scope, rule.scope):
            continue
        best, at = best_match(mine, rule_forms(rule.title, rule.instruction), threshold)
        if best >= threshold:
            text = (rule.title, rule.instruction)[at] if at >= 0 else ""
            found.append(Similar(rule.id, rule.status, rule.scope, round(best, 1), text))
    return sorted(found, key=lambda s: (-s.score, s.rule_id))
