"""Contradictions between memory entries (docs/design/memory.md §Memory file, "Contradictions"): the
one detector that harvest validation, review, ``check`` and ``agentmem tidy`` share.

Deterministic and cheap — no model. Texts are compared in the duplicate guard's normalised form
(:func:`agentmem.doctrine.similar.normalise`: case, accents, punctuation and filler words
dropped; ``never``/``do not``/``ne … jamais`` become ``not``; plurals cut). Two entries
contradict each other when they say:

- ``negation``: the same thing, one with a negation the other lacks ("Write short answers" /
  "Never write short answers"; "Écris des réponses courtes" / "N'écris jamais de réponses
  courtes") — their forms without the negation and ``always``-words score at least
  :data:`SAME_SCORE`;
- ``value``: the same thing with another value of one setting ("Use British English" / "Use
  American English"; "Réponds en français" / "Réponds en anglais") or the opposite word
  ("Write short answers" / "Write long answers"; "Tutoie-moi" / "Vouvoie-moi"): the words
  only one of them holds pair off into values of the same setting of :data:`SETTINGS`, with at
  most one other word of difference, at least one word in common, and both negated or neither;
- ``figures``: the same words with other figures ("Refuse payment terms over 60 days" / "… 90
  days"), at least three words besides them (a reference number such as ``#123`` is not a
  figure).

The settings table is small and explicit (EN and FR first, a few ES and DE words): a value it
does not know is not flagged — a contradiction is a flag for the person, never a guess the
model makes. Nothing here decides which entry holds: review offers the new text as a
``modify`` of the entry it contradicts, ``check`` warns, ``tidy`` flags.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from agentmem.doctrine.conflicts import (
    ALWAYS,
    FRENCH_CLOSERS,
    NEGATING_VERBS,
    NEGATIONS,
    SYNONYMS,
)
from agentmem.doctrine.similar import normalise, score_normalised

SAME_SCORE = 90.0
"""Similarity (0–100) from which two texts say the same thing (the harvest's duplicate level)."""

KINDS = ("negation", "value", "figures")

#: Negations (the normaliser turns never, do not, jamais… into "not") and their opposites
#: (always, toujours, siempre, immer), dropped to compare what two entries are about — the
#: vocabulary of doctrine/conflicts.py, as the normaliser gives it.
_NOT = re.compile(r"\b(?:" + "|".join(sorted({normalise(w) for w in NEGATIONS | ALWAYS})) + r")\b")

#: setting → value → words (as a person writes them; normalised when first used). Two entries
#: that differ by words of two different values of one setting set it differently.
SETTINGS: dict[str, dict[str, str]] = {
    "spelling": {
        "british": "british uk britannique britannico britisch",
        "american": "american americain americaine estadounidense amerikanisch",
        "canadian": "canadian canadien canadienne",
        "australian": "australian australien australienne",
    },
    "language": {
        "english": "english anglais anglaise ingles englisch",
        "french": "french francais francaise frances franzosisch",
        "german": "german allemand allemande aleman deutsch",
        "spanish": "spanish espagnol espagnole espanol spanisch",
        "italian": "italian italien italienne italiano italienisch",
        "portuguese": "portuguese portugais portugaise portugues",
        "dutch": "dutch neerlandais hollandais",
    },
    "length": {
        "short": "short shorter brief concise terse succinct court courte courts courtes bref "
        "breve brefs breves concis concise concises succinct succincte kurz corto corta breve",
        "long": "long longer lengthy verbose detailed thorough exhaustive longue longues longs "
        "detaille detaillee detailles detaillees developpe exhaustif exhaustive lang ausfuhrlich "
        "largo larga detallado",
    },
    "address": {
        "tu": "tutoie tutoyer tutoiement tutoyez tutoies duzen",
        "vous": "vouvoie vouvoyer vouvoiement vouvoyez vouvoies siezen",
    },
    "register": {
        "formal": "formal formel formelle soutenu formell",
        "informal": "informal casual informel informelle familier decontracte locker",
    },
    "indentation": {
        "tabs": "tab tabs tabulation tabulations",
        "spaces": "space spaces espace espaces",
    },
    "quotes": {"single": "single", "double": "double"},
    "case": {
        "upper": "uppercase upper majuscule majuscules capitals",
        "lower": "lowercase lower minuscule minuscules",
    },
    "theme": {"dark": "dark sombre", "light": "light clair claire"},
    "voice": {"active": "active actif", "passive": "passive passif"},
    "units": {
        "metric": "metric metrique kilometre kilometres kilogram celsius",
        "imperial": "imperial imperiale mile miles pound fahrenheit",
    },
    "currency": {
        "euro": "euro euros eur",
        "dollar": "dollar dollars usd",
        "sterling": "sterling gbp",
    },
    "form": {
        "bullets": "bullet bullets puce puces",
        "prose": "prose paragraph paragraphs paragraphe paragraphes",
    },
    "order": {
        "ascending": "ascending croissant croissante",
        "descending": "descending decroissant decroissante",
    },
    "position": {
        "before": "before first top avant debut premier premiere haut antes vor",
        "after": "after last bottom apres fin dernier derniere bas despues nach",
        "above": "above gt",  # the normaliser's "over", "above", "plus de"
        "below": "below lt",  # … "under", "below", "moins de", "sous"
    },
    "stance": {  # the verbs doctrine/conflicts.py reads as "not <twin>", and their twins
        "use": " ".join(sorted({*NEGATING_VERBS.values(), *SYNONYMS, *SYNONYMS.values()})),
        "avoid": " ".join(sorted(NEGATING_VERBS)),
    },
}


@lru_cache(maxsize=1)
def _lexicon() -> dict[str, tuple[str, str]]:
    """normalised word → (setting, value); a word that normalises to several or none is left
    out, and so is a word two settings claim (it would be a guess)."""
    found: dict[str, tuple[str, str]] = {}
    clashes: set[str] = set()
    for setting, values in SETTINGS.items():
        for value, words in values.items():
            for word in words.split():
                form = normalise(word)
                if not form or " " in form:
                    continue
                if form in found and found[form][0] != setting:
                    clashes.add(form)
                found.setdefault(form, (setting, value))
    return {w: v for w, v in found.items() if w not in clashes}


def _words(form: str) -> list[str]:
    """A normalised text's words, with an elided article split off (``l'anglais`` → ``anglais``)."""
    return [w.rsplit("'", 1)[-1] for w in form.split() if w.rsplit("'", 1)[-1]]


@dataclass(frozen=True)
class Form:
    """A text as the detector compares it: ``full`` (normalised), ``bare`` (without negations
    and ``always``-words), ``plain`` (``bare`` without figures), ``negated`` and ``words``
    (``bare``'s words, articles split off)."""

    full: str
    bare: str
    plain: str
    negated: bool
    words: frozenset[str]
    figures: frozenset[str]


#: ``#123``: a reference number (an issue, a ticket, a clause id), not a figure the text sets.
_REFERENCE = re.compile(r"#\d+\b")


def form(text: str) -> Form:
    """The comparison form of ``text`` (pure, never raises). Reference numbers (``#123``)
    are left out."""
    return _form(_REFERENCE.sub(" ", text) if "#" in text else text)


@lru_cache(maxsize=4096)
def _form(text: str) -> Form:
    # cached: check meets the same entries in many files
    full = normalise(text)
    bare = " ".join(_NOT.sub(" ", full).split())
    plain = " ".join(w for w in bare.split() if not w.isdigit())
    words = _words(bare)
    return Form(
        full,
        bare,
        plain,
        "not" in full.split(),
        frozenset(w for w in words if not w.isdigit()),
        frozenset(w for w in words if w.isdigit()),
    )


@dataclass(frozen=True)
class Contradiction:
    """Why two texts contradict each other: ``kind`` (one of :data:`KINDS`) and, for
    ``value``, the two values of the setting (first text's, second's: ``british``,
    ``american``)."""

    kind: str
    words: tuple[str, ...] = ()

    def describe(self) -> str:
        """In words: ``the same with and without a negation``, ``another value for the same
        thing (british / american)``, ``the same with other figures``."""
        if self.kind == "negation":
            return "the same with and without a negation"
        if self.kind == "figures":
            return "the same with other figures"
        return f"another value for the same thing ({' / '.join(self.words)})"

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "words": list(self.words)}


def contradiction(a: Form, b: Form) -> Contradiction | None:
    """Whether ``a`` and ``b`` contradict each other (see the module docstring), else None."""
    if a.negated != b.negated:
        if a.bare and b.bare and score_normalised(a.bare, b.bare) >= SAME_SCORE:
            return Contradiction("negation")
        return None
    value = _value(a, b)
    if value is not None:
        return value
    if (
        a.figures != b.figures
        and len(a.plain.split()) >= 3
        and a.plain
        and score_normalised(a.plain, b.plain) >= SAME_SCORE
    ):
        return Contradiction("figures")
    return None


def _value(a: Form, b: Form) -> Contradiction | None:
    only_a, only_b = a.words - b.words, b.words - a.words
    if not only_a or not only_b or not (a.words & b.words) or len(only_a | only_b) > 6:
        return None
    lexicon = _lexicon()
    pairs = [
        (x, y)
        for x in sorted(only_a)
        for y in sorted(only_b)
        if x in lexicon
        and y in lexicon
        and lexicon[x][0] == lexicon[y][0]
        and lexicon[x][1] != lexicon[y][1]
    ]
    if not pairs:
        return None
    involved = {x for x, _ in pairs} | {y for _, y in pairs}
    if len((only_a | only_b) - involved) > 1:
        return None
    x, y = pairs[0]
    return Contradiction("value", (lexicon[x][1], lexicon[y][1]))


def contradicted(text: str, others: Sequence[str]) -> list[tuple[int, Contradiction]]:
    """``(index, why)`` for each of ``others`` that ``text`` contradicts, in order (``why``'s
    values: the other's first, then ``text``'s)."""
    mine = form(text)
    found = []
    for index, other in enumerate(others):
        why = contradiction(form(other), mine)
        if why is not None:
            found.append((index, why))
    return found


@dataclass(frozen=True)
class Pair:
    """Two related texts ``i < j`` of a list: contradicting (``why``), or saying the same
    (``why`` None, ``score`` ≥ :data:`SAME_SCORE`: a near-duplicate)."""

    i: int
    j: int
    why: Contradiction | None
    score: float


def related_pairs(texts: Sequence[str], *, duplicates: bool = True) -> list[Pair]:
    """Every contradicting pair of ``texts`` and, with ``duplicates``, every near-duplicate
    pair, in index order. Cheap on a full memory file: texts that are the same once reference
    numbers are left out are compared once; candidate pairs come first from the raw words
    (:func:`_raw_candidates`: no normalisation), then each text of a candidate pair is
    normalised once (cached) and only those pairs are compared."""
    masked = [_REFERENCE.sub(" ", t) if "#" in t else t for t in texts]
    places: dict[str, list[int]] = {}
    for n, text in enumerate(masked):
        places.setdefault(text, []).append(n)
    distinct = list(places)
    found = []
    if duplicates:  # the same text twice: a duplicate, never a contradiction
        for text, where in places.items():
            if len(where) > 1 and _form(text).full:
                found += [
                    Pair(i, j, None, 100.0) for x, i in enumerate(where) for j in where[x + 1 :]
                ]
    for di, dj in _raw_candidates(distinct, not duplicates):
        a, b = _form(distinct[di]), _form(distinct[dj])
        why = contradiction(a, b)
        score = 0.0
        if why is None:
            if not duplicates or not (a.full and b.full):
                continue
            score = score_normalised(a.full, b.full)
            if score < SAME_SCORE:
                continue
        for i in places[distinct[di]]:
            for j in places[distinct[dj]]:
                found.append(Pair(min(i, j), max(i, j), why, score))
    return sorted(found, key=lambda p: (p.i, p.j))


#: Raw words that are never a reason to compare two texts: the normaliser's filler words,
#: negations and ``always``-words (one side of a contradiction has them, the other not).
_RAW_SKIP = (
    frozenset(
        "the and for with from that this these those your you our any all are been its who when "
        "where than which les des une pour par sur dans avec ces nous vous qui que est "
        "don doesn didn won can must should shall plus".split()
    )
    | NEGATIONS
    | ALWAYS
    | FRENCH_CLOSERS
)
_RAW_WORD = re.compile(r"[a-z]{3,}")
#: A negation as a person writes it (a superset of what the normaliser turns into ``not``).
_RAW_NOT = re.compile(
    r"\b(?:" + "|".join(sorted(NEGATIONS | FRENCH_CLOSERS | {"ne"})) + r"|kein\w*)\b|n't\b|\bn'"
)
#: A figure: digits, or a number word the normaliser turns into digits.
_RAW_FIGURE = re.compile(
    r"\d|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|hundred|deux|trois|quatre|cinq|douze|trente|soixante)\b"
)
#: Words the normaliser turns into the position values ``lt``/``gt``/``le``/``ge``.
_RAW_COMPARISONS = (
    "under below beneath over above exceeding beyond less fewer shorter lower smaller more "
    "greater longer higher larger least most minimum maximum sous moins inferieur inferieure "
    "superieur superieure dela dessous"
)


@dataclass(frozen=True)
class _Raw:
    """What a text's raw words say before any normalisation: ``keys`` (the first four letters
    of each word of three letters or more, accents and case folded, filler words, negations
    and figures left out), whether it may hold a negation (``negated``) or a figure
    (``figures``)."""

    keys: frozenset[str]
    negated: bool
    figures: bool


@lru_cache(maxsize=1)
def _value_keys() -> dict[str, frozenset[tuple[str, str]]]:
    """Raw key → the (setting, value) pairs of :data:`SETTINGS` whose words have that key;
    the comparison words count as the position values above and below."""
    found: dict[str, set[tuple[str, str]]] = {}
    groups = [(s, v, words) for s, values in SETTINGS.items() for v, words in values.items()]
    groups.append(("position", "compared", _RAW_COMPARISONS))
    for setting, value, words in groups:
        for key in _raw(words).keys:
            found.setdefault(key, set()).add((setting, value))
    return {key: frozenset(pairs) for key, pairs in found.items()}


def _other_value(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether the raw keys only ``a`` holds and those only ``b`` holds may name two values of
    one setting (a comparison word may be either position value)."""
    table = _value_keys()
    mine = {pair for key in a - b for pair in table.get(key, ())}
    if not mine:
        return False
    theirs = {pair for key in b - a for pair in table.get(key, ())}
    return any(s == t and (v != w or v == "compared") for s, v in mine for t, w in theirs)


def _raw(text: str) -> _Raw:
    folded = unicodedata.normalize("NFKD", text.casefold()).encode("ascii", "ignore").decode()
    keys = frozenset(w[:4] for w in _RAW_WORD.findall(folded) if w not in _RAW_SKIP)
    return _Raw(keys, bool(_RAW_NOT.search(folded)), bool(_RAW_FIGURE.search(folded)))


def _raw_candidates(texts: Sequence[str], contradictions: bool) -> list[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i < j``, that may be related, from raw words only: sharing at least
    one key and at least a third of the smaller text's keys (every relation needs the two
    texts to say mostly the same words); for ``contradictions`` only, also — unless one of
    them may hold a negation or a figure — each holding a word of the settings table that the
    other lacks (another value)."""
    raws = [_raw(t) for t in texts]
    holders: dict[str, list[int]] = {}
    for n, mine in enumerate(raws):
        for key in mine.keys:
            holders.setdefault(key, []).append(n)
    shared: dict[tuple[int, int], int] = {}
    for members in holders.values():
        for x, i in enumerate(members):
            for j in members[x + 1 :]:
                shared[(i, j)] = shared.get((i, j), 0) + 1
    found = []
    for (i, j), count in shared.items():
        a, b = raws[i], raws[j]
        if 3 * count < min(len(a.keys), len(b.keys)):
            continue
        if (
            not contradictions
            or a.negated
            or b.negated
            or a.figures
            or b.figures
            or _other_value(a.keys, b.keys)
        ):
            found.append((i, j))
    return sorted(found)
