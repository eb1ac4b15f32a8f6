"""The ``offline`` provider (docs/design.md §Harvest): deterministic, no network, no key.

It reads only the person's own words (:mod:`agentmem.harvest.own`: no injected block, no
quotation, no pasted document), sentence by sentence, with the markers of
:mod:`agentmem.harvest.markers` (one data file per language: English, French, Spanish, German):

- an explicit request ("remember that", "from now on", "retiens que", "recuerda que",
  "merk dir", "don't suggest", …) becomes an ``add``;
- a statement of what the team accepts, without a trigger word ("the team never agrees to…",
  "l'équipe a tranché", "es aceptable", "wir akzeptieren nie…") becomes a doctrine draft;
- a change of mind about an entry of the current memory ("5 bullets, not 3", "instead of",
  "forget the rule about…", "oublie", "deja de", "vergiss") becomes ``modify`` or ``remove``
  with that entry as target (a ``modify`` stays in the entry's section);
- routing follows who is concerned: the person (I, me, je, yo, ich …) → memory; the team or
  what is acceptable in the work product → doctrine;
- questions, one-off instructions ("yet", "pour l'instant", "por ahora", "noch nicht"), facts
  about the document ("the contract says"), repeats of an entry or of an active rule in scope
  are not proposed.

Plus repeated outcome signals. Same input, same proposals.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from agentmem.harvest import markers
from agentmem.harvest.markers import Language, any_match, fold
from agentmem.harvest.providers import HarvestRequest, Outcome, RawAnswer
from agentmem.memory.records import split_entry

_FALLBACK_SECTION = "Recurring patterns"
_SCOPE_SECTION = "Priorities & scope"
# A sentence ends at . ! ? or a line end, except after an abbreviation or an initial.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_ABBREVIATIONS = frozenset(
    "dr mr mrs ms m mme mlle me sr sra srta dra st e.g i.e etc cf p nr z.b vs no art prof".split()
)
_WORDS = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
#: Shares of content words (0–1) that make a candidate a repeat of an entry or a rule.
REPEAT_SHARE = 0.8


@dataclass(frozen=True)
class _Entry:
    section: str
    text: str


def _sentences(text: str) -> list[str]:
    """Sentences of the person's own text (an abbreviation's dot does not end one)."""
    out: list[str] = []
    pending = ""
    for piece in _SENTENCE_END.split(text):
        piece = piece.strip()
        if not piece:
            continue
        pending = f"{pending} {piece}".strip() if pending else piece
        last = pending.rsplit(None, 1)[-1].rstrip(".").casefold()
        if pending.endswith(".") and (
            last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha())
        ):
            continue
        out.append(pending)
        pending = ""
    if pending:
        out.append(pending)
    return out


def _content_words(text: str) -> set[str]:
    stop: set[str] = set()
    for language in markers.languages():
        stop |= language.detect
    folded, _ = fold(text)
    return {w for w in _WORDS.findall(folded) if (len(w) >= 3 or w.isdigit()) and w not in stop}


def _same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    if a.isdigit() or b.isdigit():
        return False
    short = min(len(a), len(b))
    return short >= 5 and a[:short] == b[:short]


def _shared(a: set[str], b: set[str]) -> set[str]:
    """Words of ``a`` that ``b`` holds too (plural and inflection aside: a common start of at
    least five letters)."""
    return {w for w in a if any(_same_word(w, x) for x in b)}


def _entries(memory_text: str, sections: tuple[str, ...]) -> list[_Entry]:
    out: list[_Entry] = []
    section: str | None = None
    for line in memory_text.splitlines():
        if line.startswith("## "):
            name = line[3:].strip()
            section = name if name in sections else None
        elif line.startswith("- ") and section is not None:
            out.append(_Entry(section, split_entry(line)[0].strip()))
    return out


def _clean(text: str, language: Language | None) -> str:
    text = " ".join(text.split()).strip(" \t,;:-—\"'«»“”")
    langs = [language] if language else markers.languages()
    lead_ins = sorted({w for lang in langs for w in lang.lead_ins}, key=len, reverse=True)
    changed = True
    while changed and text:
        changed = False
        folded, index = fold(text)
        for lead in lead_ins:
            if re.match(rf"{re.escape(lead)}\b[\s,.:;!]*", folded):
                cut = re.match(rf"{re.escape(lead)}\b[\s,.:;!]*", folded)
                assert cut is not None
                text = text[index[cut.end()] :].strip()
                changed = bool(text)
                break
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    if text[-1] not in ".!?…":
        text += "."
    return text


def _section_for(text: str, sections: tuple[str, ...], langs: list[Language]) -> str:
    folded, _ = fold(text)
    for name in ("Rule dependencies", "Writing style", _SCOPE_SECTION):
        if name not in sections:
            continue
        for lang in langs:
            patterns = dict(lang.sections).get(name, ())
            if any(p.search(folded) for p in patterns):
                return name
    if _FALLBACK_SECTION in sections:
        return _FALLBACK_SECTION
    return sections[0]


def _substitute_number(sentence: str, entry: str) -> str | None:
    """``entry`` with its figure replaced by the new one the sentence gives ("5 bullets, not 3"
    on "Summaries in 3 bullets." → "Summaries in 5 bullets."); None when it does not apply."""
    said = _NUMBER.findall(sentence)
    old = [n for n in _NUMBER.findall(entry) if n in said]
    new = [n for n in said if n not in _NUMBER.findall(entry)]
    if len(old) != 1 or len(new) != 1:
        return None
    return re.sub(rf"\b{re.escape(old[0])}\b", new[0], entry, count=1)


def section_for(text: str, sections: tuple[str, ...]) -> str:
    """The configured section a request goes to, by the section keywords of the languages of
    ``text`` (first match wins), else ``Recurring patterns`` (or the first section)."""
    return _section_for(text, sections, markers.detect(fold(text)[0]))


def route_for(text: str) -> str:
    """``doctrine`` when the text states what the team accepts ("the team accepts", "notre
    politique", "el equipo no acepta", "wir akzeptieren") and no person is its subject, else
    ``memory``."""
    folded, _ = fold(text)
    langs = markers.detect(folded)
    person = any(any_match(lang.person, folded) for lang in langs)
    team = any(any_match(lang.doctrine_statements, folded) for lang in langs)
    return "doctrine" if team and not person else "memory"


@dataclass
class _Candidate:
    action: str
    route: str
    section: str | None
    target: str | None
    text: str | None
    justification: str


class _Extractor:
    def __init__(self, request: HarvestRequest) -> None:
        self.sections = request.sections
        self.entries = _entries(request.memory_text, request.sections)
        self.rules = [_content_words(r) for r in request.doctrine_rules]

    def _best_entry(self, words: set[str]) -> tuple[_Entry | None, set[str]]:
        best, shared = None, set[str]()
        for entry in self.entries:
            common = {w for w in _shared(words, _content_words(entry.text)) if not w.isdigit()}
            if len(common) > len(shared):
                best, shared = entry, common
        return best, shared

    def _repeats(self, text: str) -> bool:
        """True when ``text`` says what an entry or an active rule in scope already says."""
        words = _content_words(text)
        if not words:
            return True
        for known in [_content_words(e.text) for e in self.entries] + self.rules:
            if known and len(_shared(known, words)) >= REPEAT_SHARE * len(known):
                if len(_shared(words, known)) >= REPEAT_SHARE * len(words):
                    return True
                if len(known) >= 3 and len(_shared(known, words)) == len(known):
                    return True
        return False

    def sentence(self, sentence: str, where: str) -> _Candidate | None:
        folded, index = fold(sentence)
        if "?" in sentence or "¿" in sentence:
            return None  # a question, not a request
        langs = markers.detect(folded)
        language = langs[0] if len(langs) == 1 else None
        for lang in langs:
            if any_match(lang.not_standing, folded) or any_match(lang.document_facts, folded):
                return None
        change = self._change(sentence, folded, langs, language, where)
        if change is not None:
            return change if change.action != "skip" else None
        every = markers.languages()
        scope = any_match(tuple(p for lang in every for p in lang.scope_triggers), folded)
        trigger = any_match(tuple(p for lang in every for p in lang.triggers), folded)
        if scope is not None:
            request = sentence[index[scope.start()] :]
            route, section = "memory", _SCOPE_SECTION if _SCOPE_SECTION in self.sections else None
            why = f"asked explicitly in {where}"
        elif trigger is not None:
            request = sentence[index[trigger.end()] :]
            route, section, why = "memory", None, f"asked explicitly in {where}"
        elif any(any_match(lang.doctrine_statements, folded) for lang in langs):
            if len(_WORDS.findall(folded)) < 6:
                return None
            request = sentence
            route, section, why = "doctrine", None, f"said in {where}"
        else:
            return None
        text = _clean(request, language)
        if len(text) < 8 or self._repeats(text):
            return None
        text_folded, _ = fold(text)
        person = any(any_match(lang.person, text_folded) for lang in langs)
        team_rule = any(any_match(lang.doctrine_statements, text_folded) for lang in langs)
        if scope is None:
            route = "doctrine" if team_rule and not person else "memory"
        if route == "doctrine":
            return _Candidate("add", "doctrine", None, None, text, why + " (what the team accepts)")
        return _Candidate(
            "add", "memory", section or _section_for(text, self.sections, langs), None, text, why
        )

    def _change(
        self,
        sentence: str,
        folded: str,
        langs: list[Language],
        language: Language | None,
        where: str,
    ) -> _Candidate | None:
        """A change of mind about an entry: modify or remove it (``skip`` action: nothing to
        propose); None when the sentence is no change of mind."""
        if not self.entries:
            return None
        replace = any(any_match(lang.replace, folded) for lang in langs)
        remove = any(any_match(lang.remove, folded) for lang in langs)
        if not (replace or remove):
            return None
        entry, shared = self._best_entry(_content_words(sentence))
        if entry is None or not shared:
            return None
        why = f"changed their mind in {where} about an entry of the memory"
        if replace:
            every = markers.languages()
            trigger = any_match(tuple(p for lang in every for p in lang.triggers), folded)
            _, index = fold(sentence)
            request = sentence[index[trigger.end()] :] if trigger else sentence
            text = _substitute_number(sentence, entry.text) or _clean(request, language)
            if text == entry.text:
                return _Candidate("skip", "memory", None, None, None, why)
            return _Candidate("modify", "memory", entry.section, entry.text, text, why)
        return _Candidate("remove", "memory", entry.section, entry.text, None, why)


def _proposal(candidate: _Candidate) -> dict[str, object]:
    return {
        "action": candidate.action,
        "route": candidate.route,
        "section": candidate.section,
        "target": candidate.target,
        "text": candidate.text,
        "justification": candidate.justification,
        "basis": "declared",
    }


def _outcome_proposals(
    outcomes: tuple[Outcome, ...], sections: tuple[str, ...]
) -> list[dict[str, object]]:
    """Repeated outcome signals (docs/design.md §Harvest): ignored → scope, reworked → style, accepted → priorities.

    One signal is noise; a decision seen at least twice in a session becomes one ``inferred``
    proposal describing the habit, not the document.
    """
    counts = Counter(o.decision for o in outcomes)
    texts = {
        "ignored": (
            "Priorities & scope",
            "Keep suggestions to what was asked; unrequested changes are often left aside.",
        ),
        "reworked": (
            "Writing style",
            "Offer wording as a draft to adapt; suggested wording is often rewritten.",
        ),
        "accepted": (
            "Priorities & scope",
            "Suggestions within the requested clauses are usually accepted as proposed.",
        ),
    }
    proposals: list[dict[str, object]] = []
    for decision in ("ignored", "reworked", "accepted"):
        if counts[decision] >= 2:
            section, text = texts[decision]
            if section not in sections:
                section = sections[0]
            proposals.append(
                {
                    "action": "add",
                    "route": "memory",
                    "section": section,
                    "target": None,
                    "text": text,
                    "justification": f"{counts[decision]} suggestions were {decision} in this session",
                    "basis": "inferred",
                }
            )
    return proposals


def harvest(request: HarvestRequest) -> RawAnswer:
    """Deterministic proposals from the person's own words and the outcomes (never a model)."""
    extractor = _Extractor(request)
    proposals: list[dict[str, object]] = []
    seen: set[tuple[str, str]] = set()
    for turn, own in request.transcript.own_turns():
        where = f"line {turn.line} of the session" if turn.line else "the session"
        for sentence in _sentences(own.own):
            candidate = extractor.sentence(sentence, where)
            if candidate is None:
                continue
            key = (candidate.action, fold(candidate.text or candidate.target or "")[0])
            if key in seen:
                continue
            seen.add(key)
            proposals.append(_proposal(candidate))
    proposals.extend(_outcome_proposals(request.outcomes, request.sections))
    return RawAnswer(provider="offline", proposals=proposals)
