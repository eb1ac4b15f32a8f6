"""Rules that contradict each other (docs/design/doctrine.md §Lifecycle, §Check): ``doctrine approve``
warns, ``check`` gives a ``doctrine-conflict`` warning. A heuristic: it never refuses and never
fails a build.

Two live rules (draft, active, suspended) whose scopes overlap (equal, or one below the other)
conflict when their instructions (the title when a rule has none), compared word by word
(:func:`_tokens`: case and accents folded, plurals singular, stop words out, negations — never,
do not, don't, ne … pas — as ``not``, comparisons — under, shorter than, at least, up to… — as
one token each, ``%``, ``€``, ``$`` and ``£`` as words, and verbs that negate — reject, refuse,
forbid, exclude, avoid, refuser, interdire… — as ``not`` and their positive twin):

- **opposite**: the same words and figures, one with a negation the other lacks ("Never accept
  a warranty under 24 months" / "Accept warranties under 24 months");
- **value**: the same words (at least three) with other figures ("Cap penalties at 10 %" /
  "Cap penalties at 20 %"), unless one sets a floor (at least, minimum…) and the other a
  ceiling (at most, up to, cap…).

"The same words" is rapidfuzz's ``token_sort_ratio`` at or above :data:`SAME_WORDS_SCORE` on the
forms without negations, modal words and figures: every word counts ("accept" is not "check"),
their order does not. Deterministic and cheap on 10,000 rules: each text is read once
(:func:`profile`, in check's workers), rules are grouped by their form without figures, forms
are paired only when they share one of their two rarest words, the scorer runs in rapidfuzz's C
loop, each group is split by polarity, and each rule reports one partner (the smallest id).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from agentmem.doctrine.model import LIVE_STATUSES, Rule, scopes_overlap
from agentmem.doctrine.similar import STOPWORDS, singular

SAME_WORDS_SCORE = 90.0
_SCAN_CAP = 400  # (figures, bound) tried per group of equal forms before giving up there
_UNITS = (("%", " percent "), ("‰", " permille "), ("€", " eur "), ("$", " usd "), ("£", " gbp "))
# -- The negation vocabulary of both conflict detectors: this one (rules) and
# proposals/conflicts.py (memory entries), which imports it from here. Words as people write
# them, lower case, accents folded.
#: Words that negate what follows ("ne … pas" is :data:`FRENCH_CLOSERS` after ``ne``).
NEGATIONS = frozenset("not never no cannot nunca nie nicht kein".split())
#: The second half of a French "ne … pas"; alone, a negation too.
FRENCH_CLOSERS = frozenset(("pas", "jamais", "aucun", "aucune"))
#: Words that insist without changing what an instruction is about (the opposite of a negation).
ALWAYS = frozenset(("always", "toujours", "siempre", "immer"))
#: Verbs that say "not <twin>": a rule's "reject" is "not accept"; a memory entry's "avoid"
#: and "use" are two values of one setting (``stance``).
NEGATING_VERBS = {
    "reject": "accept",
    "refuse": "accept",
    "decline": "accept",
    "deny": "allow",
    "forbid": "allow",
    "prohibit": "allow",
    "disallow": "allow",
    "ban": "allow",
    "exclude": "include",
    "omit": "include",
    "disable": "enable",
    "avoid": "use",
    "refuser": "accepter",
    "rejeter": "accepter",
    "rejette": "accepte",
    "interdire": "autoriser",
    "interdis": "autorise",
    "interdit": "autorise",
    "exclure": "inclure",
    "omettre": "inclure",
    "eviter": "utiliser",
    "evite": "utilise",
    "evitez": "utilisez",
    "desactiver": "activer",
    "desactive": "activer",
}
#: Words that say what a twin of :data:`NEGATING_VERBS` says.
SYNONYMS = {
    "permit": "allow",
    "authorise": "allow",
    "authorize": "allow",
    "permets": "autorise",
    "prefer": "use",
    "favour": "use",
    "favor": "use",
    "preferer": "utiliser",
    "prefere": "utilise",
    "privilegier": "utiliser",
    "privilegie": "utilise",
    "inclus": "inclure",
}
# --
#: Verbs that say "not <verb>" and synonyms, as :func:`_tokens` gives them (plurals cut).
_VERBS = {
    **{singular(word): singular(twin) for word, twin in SYNONYMS.items()},
    **{singular(word): f"not {singular(twin)}" for word, twin in NEGATING_VERBS.items()},
}
#: Words that mark an instruction without changing what it is about.
_MARKERS = frozenset(
    {"not", *map(singular, ALWAYS)}
    | set("must should shall please do doe il faut devez doit".split())  # noqa: SIM905
)
_FLOOR = re.compile(
    r"\b(?:at least|minimum|min|no less than|not less than|floor|au moins|au minimum|plancher)\b"
)
_CEILING = re.compile(
    r"\b(?:at most|up to|maximum|max|no more than|not more than|caps?|capped|ceiling|au plus"
    r"|au maximum|plafonn\w*|plafond)\b"
)
_WORD = re.compile(r"\w+")


class Profile(NamedTuple):
    """A live rule in the form conflicts are judged on (a tuple: check's workers build ten
    thousand and pickle them).

    ``negative``: an odd number of negations; ``numbers``: the figures, sorted; ``subject``: the
    words without negations, modal words and figures; ``bound``: ``floor``, ``ceiling`` or
    empty; ``line``: where the compared text is in the rule file."""

    rule_id: str
    status: str
    scope: str | None
    text: str
    negative: bool
    numbers: tuple[str, ...]
    subject: str
    bound: str = ""
    line: int = 1

    @property
    def bare(self) -> str:
        return f"{self.subject} {' '.join(self.numbers)}".strip()


@dataclass(frozen=True)
class Conflict:
    """``rule_id`` (of the other rule) conflicts with the rule in question: ``kind`` is
    ``opposite`` or ``value``; ``text`` is the other rule's compared text."""

    rule_id: str
    status: str
    scope: str | None
    kind: str
    text: str

    def describe(self) -> str:
        what = "says the opposite" if self.kind == "opposite" else "sets another value"
        scope = self.scope or "(no scope)"
        return f"{self.rule_id} ({self.status}, scope {scope}) {what}: {self.text}"


def _compared(rule: Rule) -> tuple[str, str]:
    if rule.instruction.strip():
        return "instruction", rule.instruction
    return "title", rule.title


def _bound(text: str) -> str:
    folded = text.casefold()
    floor, ceiling = bool(_FLOOR.search(folded)), bool(_CEILING.search(folded))
    return "floor" if floor and not ceiling else "ceiling" if ceiling and not floor else ""


_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_CONTRACTIONS = frozenset(
    "don't doesn't didn't mustn't shouldn't won't can't isn't aren't wasn't couldn't "
    "wouldn't".split()
)
#: Comparison phrases, longest first (word tuples → one token; "no less than" is a floor).
_PHRASES: tuple[tuple[tuple[str, ...], str], ...] = tuple(
    (tuple(phrase.split()), token)
    for token, phrases in (
        ("_ge", "no less than|not less than|no fewer than|no shorter than|at least|minimum of"
         "|a minimum of|minimum|au moins"),
        ("_le", "no more than|not more than|no longer than|no greater than|at most|maximum of"
         "|a maximum of|maximum|up to|au plus|au maximum"),
        ("_lt", "less than|fewer than|shorter than|lower than|smaller than|under|below|beneath"
         "|moins de|en dessous de|inferieur a|inferieure a|inferieur de|sous"),
        ("_gt", "more than|greater than|longer than|higher than|larger than|over|above"
         "|exceeding|beyond|plus de|superieur a|superieure a|au dela de"),
    )
    for phrase in phrases.split("|")
)  # fmt: skip
_BY_FIRST: dict[str, list[tuple[tuple[str, ...], str]]] = defaultdict(list)
for _words, _token in sorted(_PHRASES, key=lambda item: -len(item[0])):
    _BY_FIRST[_words[0]].append((_words, _token))


def _tokens(text: str) -> list[str]:
    """The words of ``text`` as conflicts compare them: case and accents folded, negations as
    ``not``, comparisons as ``_lt``/``_le``/``_gt``/``_ge``, stop words out, plurals singular.
    Word by word (a few microseconds a rule: ``check`` profiles every live rule)."""
    for sign, word in _UNITS:
        if sign in text:
            text = text.replace(sign, word)
    folded = text.casefold()
    if not folded.isascii():
        folded = _COMBINING.sub("", unicodedata.normalize("NFKD", folded.replace("\u2019", "'")))
    raw: list[str] = _TOKEN.findall(folded)
    if "'" in folded:
        raw = _apostrophes(raw)
    return _forms(raw)


def _apostrophes(words: list[str]) -> list[str]:
    """Words with an apostrophe as :func:`_tokens` reads them: a contraction is ``not``,
    French ``n'`` is ``ne``, an elided article is dropped."""
    raw: list[str] = []
    for word in words:
        if "'" in word:
            if word in _CONTRACTIONS:
                raw.append("not")
                continue
            head, _, tail = word.partition("'")
            if head == "n":  # French n'accepte
                raw += ["ne", tail]
            elif head in ("l", "d", "qu", "j", "s", "c"):
                raw.append(tail)
            else:
                raw.append(head)
            continue
        raw.append(word)
    return raw


def _forms(raw: list[str]) -> list[str]:
    """The second step of :func:`_tokens`: phrases, negations and stop words, plurals."""
    out: list[str] = []
    french = -9  # where the last "ne" was: "ne … pas" is one negation
    i = 0
    plain = _PLAIN_FORMS
    if len(plain) > _PLAIN_FORMS_MAX:
        plain.clear()
    while i < len(raw):
        word = raw[i]
        known = plain.get(word)
        if known is not None:  # a word no branch below treats apart: its form, "" if a stop word
            if known:
                out.append(known)
            i += 1
            continue
        if word in _BY_FIRST:
            for phrase, token in _BY_FIRST[word]:
                if tuple(raw[i : i + len(phrase)]) == phrase:
                    out.append(token)
                    i += len(phrase)
                    break
            else:
                out.append(singular(word))
                i += 1
            continue
        i += 1
        if word == "ne":
            french = i
            out.append("not")
        elif word in FRENCH_CLOSERS and i - french <= 4:
            french = -9
        elif word in NEGATIONS or word in FRENCH_CLOSERS:
            if not out or out[-1] != "not":
                out.append("not")
        else:
            known = (
                ""
                if word in STOPWORDS
                else singular(word.rstrip("stndrh") if word[:1].isdigit() else word)
            )
            plain[word] = known
            if known:
                out.append(known)
    return out


#: Word → what the last branch of :func:`_tokens` makes of it (its singular, "" for a stop
#: word), for the words no other branch treats apart: rule texts share most of their words.
_PLAIN_FORMS: dict[str, str] = {}
_PLAIN_FORMS_MAX = 100_000


@lru_cache(maxsize=8192)
def form(text: str) -> tuple[bool, tuple[str, ...], str]:
    """``(negative, numbers, subject)`` of ``text`` (see :class:`Profile`); a text read again
    (rules that share an instruction) is not read twice."""
    words: list[str] = []
    for word in _tokens(text):
        verb = _VERBS.get(word)
        if verb is None:
            words.append(word)
        else:
            words += verb.split()
    negative = words.count("not") % 2 == 1
    numbers = tuple(sorted({w for w in words if w.isdigit()}))
    subject = " ".join(w for w in words if w not in _MARKERS and not w.isdigit())
    return negative, numbers, subject


def profile(rule: Rule, file_text: str = "") -> Profile | None:
    """The rule's :class:`Profile`, or None when it is not live or has nothing to compare.
    ``file_text`` (the rule file) gives the line of the compared field."""
    if rule.status not in LIVE_STATUSES:
        return None
    key, text = _compared(rule)
    negative, numbers, subject = form(text)
    if not subject:
        return None
    bound = _bound(text) if numbers else ""
    at = file_text.find(f"\n{key}:")
    line = file_text.count("\n", 0, at) + 2 if at >= 0 else 1
    return Profile(rule.id, rule.status, rule.scope, text, negative, numbers, subject, bound, line)


def _words_match(a: str, b: str) -> tuple[bool, bool]:
    """Whether two subjects are the same words for an opposite (two words at least) and for a
    value (three at least)."""
    # lazy: rapidfuzz loads only to compare texts
    from rapidfuzz import fuzz

    shortest = min(len(a.split()), len(b.split()))
    if shortest < 2 or fuzz.token_sort_ratio(a, b) < SAME_WORDS_SCORE:
        return False, False
    return True, shortest >= 3


def _kind(a: Profile, b: Profile, opposite: bool, value: bool) -> str | None:
    """The conflict between two profiles whose subjects match as ``opposite``/``value`` say."""
    if a.negative != b.negative:
        return "opposite" if opposite and a.numbers == b.numbers else None
    if not value or not a.numbers or not b.numbers or a.numbers == b.numbers:
        return None
    if {a.bound, b.bound} == {"floor", "ceiling"}:
        return None  # a floor and a ceiling of the same thing hold together
    return "value"


def judge(a: Profile, b: Profile) -> str | None:
    """``opposite``, ``value`` or None for two profiles (scopes are the caller's business)."""
    return _kind(a, b, *_words_match(a.subject, b.subject))


def _conflict(other: Profile, kind: str) -> Conflict:
    return Conflict(other.rule_id, other.status, other.scope, kind, other.text)


def find_conflicts(rule: Rule, rules: Iterable[Rule]) -> list[Conflict]:
    """The live rules of an overlapping scope that conflict with ``rule`` (``doctrine
    approve``), by id. Rules sharing fewer than two words with ``rule`` are never profiled."""
    mine = profile(rule.with_changes(status="draft"))
    if mine is None:
        return []
    words = set(_WORD.findall(_compared(rule)[1].casefold()))
    found: list[Conflict] = []
    for other in rules:
        if other.id == rule.id or other.status not in LIVE_STATUSES:
            continue
        if not scopes_overlap(rule.scope, other.scope):
            continue
        if len(words & set(_WORD.findall(_compared(other)[1].casefold()))) < 2:
            continue
        theirs = profile(other)
        kind = judge(mine, theirs) if theirs is not None else None
        if kind is not None and theirs is not None:
            found.append(_conflict(theirs, kind))
    return sorted(found, key=lambda c: c.rule_id)


def _neighbours(subjects: list[str]) -> list[list[tuple[int, bool, bool]]]:
    """For each subject, the subjects (itself included) that match it as an opposite or as a
    value (:func:`_words_match`), with those two flags. Candidates share one of its two rarest
    words and reach :data:`SAME_WORDS_SCORE` with rapidfuzz's ``token_set_ratio`` (in its C loop;
    never below ``token_sort_ratio``)."""
    # lazy: rapidfuzz loads only to compare texts
    from rapidfuzz import fuzz, process

    postings: dict[str, list[int]] = defaultdict(list)
    split = [sorted(set(s.split())) for s in subjects]
    for index, words in enumerate(split):
        for word in words:
            postings[word].append(index)
    near: list[dict[int, tuple[bool, bool]]] = [
        {i: _words_match(s, s)} for i, s in enumerate(subjects)
    ]
    for index, words in enumerate(split):
        rarest = sorted(words, key=lambda w: (len(postings[w]), w))[:2]
        candidates = sorted({j for w in rarest for j in postings[w] if j > index})
        if not candidates:
            continue
        choices = [subjects[j] for j in candidates]
        for _choice, _score, k in process.extract(
            subjects[index],
            choices,
            scorer=fuzz.token_set_ratio,
            score_cutoff=SAME_WORDS_SCORE,
            limit=None,
        ):
            other = candidates[k]
            flags = _words_match(subjects[index], subjects[other])
            if any(flags):
                near[index][other] = near[other][index] = flags
    return [[(j, *flags) for j, flags in sorted(n.items()) if any(flags)] for n in near]


def _overlapping(scopes: set[str | None]) -> dict[str | None, list[str | None]]:
    """For each scope, the scopes among ``scopes`` it overlaps (itself, those above it, those
    below it: :func:`~agentmem.doctrine.model.scopes_overlap`), without comparing every pair."""
    named = sorted(s for s in scopes if s is not None)
    out: dict[str | None, list[str | None]] = {None: [None]} if None in scopes else {}
    for scope in named:
        parts = scope.split("/")
        above = ["/".join(parts[:n]) for n in range(1, len(parts))]
        start = bisect.bisect_left(named, scope + "/")
        end = bisect.bisect_left(named, scope + "0")  # "0" sorts right after "/"
        found: list[str | None] = [s for s in above if s in scopes]
        out[scope] = [*found, scope, *named[start:end]]
    return out


def conflicts_among(profiles: list[Profile]) -> dict[str, tuple[Profile, Conflict]]:
    """Every rule (by id) that conflicts with another of an overlapping scope: its profile and
    the conflict with the smallest other id (``check``)."""
    ordered = sorted(profiles, key=lambda p: p.rule_id)
    members: dict[tuple[str, bool, str | None], list[Profile]] = defaultdict(list)
    for p in ordered:
        members[(p.subject, p.negative, p.scope)].append(p)
    groups = {key: _representatives(group) for key, group in members.items()}
    subjects = sorted({subject for subject, _negative, _scope in groups})
    index = {s: i for i, s in enumerate(subjects)}
    near = _neighbours(subjects)
    overlapping = _overlapping({p.scope for p in ordered})
    found: dict[str, tuple[Profile, Conflict]] = {}
    for p in ordered:
        best: tuple[Profile, str] | None = None
        scopes = overlapping[p.scope]
        for j, opposite, value in near[index[p.subject]]:
            subject = subjects[j]
            if opposite:
                for scope in scopes:
                    group = groups.get((subject, not p.negative, scope))
                    if group:
                        best = _first(p, group, best, "opposite")
            if value and p.numbers:
                for scope in scopes:
                    group = groups.get((subject, p.negative, scope))
                    if group:
                        best = _first(p, group, best, "value")
        if best is not None:
            found[p.rule_id] = (p, _conflict(*best))
    return found


def _representatives(group: list[Profile]) -> list[Profile]:
    """The first rule (smallest id) of ``group`` for each of its ``(numbers, bound)``: whether a
    rule conflicts with another of the group depends on those two alone, so the first rule that
    does is one of these (a consistent doctrine has thousands of rules on one subject with one
    figure: each is tried once, not once per rule)."""
    seen: set[tuple[tuple[str, ...], str]] = set()
    out = []
    for p in group:
        key = (p.numbers, p.bound)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def _first(
    p: Profile, group: list[Profile], best: tuple[Profile, str] | None, kind: str
) -> tuple[Profile, str] | None:
    """The rule of ``group`` (same subject, polarity and scope; its :func:`_representatives`)
    with the smallest id that conflicts with ``p`` as ``kind`` says, if it is smaller than
    ``best``; else ``best``. At most :data:`_SCAN_CAP` rules are tried. ``p`` itself needs no
    skipping: it is never in a group of the other polarity, and in its own its figures are its
    own (no value conflict)."""
    limit = best[0].rule_id if best is not None else None
    for n, other in enumerate(group):
        if n >= _SCAN_CAP or (limit is not None and other.rule_id >= limit):
            break
        if kind == "opposite":
            if other.numbers == p.numbers:
                return other, kind
        elif (
            other.numbers
            and other.numbers != p.numbers
            and not (p.bound and other.bound and p.bound != other.bound)
        ):
            return other, kind  # a floor and a ceiling of the same thing hold together
    return best
