"""The ``offline`` provider (docs/design.md §Providers): deterministic, no network, no key.

It reads only the person's own turns and keeps the explicit requests to remember something, in
English and French ("remember that", "from now on", "don't suggest", "retiens que", "à l'avenir",
"ne me propose plus", …), plus repeated outcome signals. Same input, same proposals.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

from agentmem.harvest.providers import HarvestRequest, Outcome, RawAnswer

# (pattern, keep_trigger): the request is the text after the trigger, up to the end of the
# sentence. When keep_trigger is set, the trigger is part of the meaning ("don't suggest …").
_TRIGGERS: list[tuple[str, bool]] = [
    # English
    (r"(?:please\s+)?remember\s+(?:that\s+|this\s*:\s*|:\s*)", False),
    (r"(?:please\s+)?keep\s+in\s+mind\s+(?:that\s+)?", False),
    (r"(?:please\s+)?note\s+for\s+(?:the\s+)?future\s*(?:that\s+|:\s*)?", False),
    (r"from\s+now\s+on\s*,?\s*", False),
    (r"going\s+forward\s*,?\s*", False),
    (r"in\s+(?:the\s+)?future\s*,\s*", False),
    (r"(?:don't|do\s+not|never)\s+(?:suggest|propose)\b", True),
    (r"stop\s+(?:suggesting|proposing)\b", True),
    # French
    (
        r"(?:s'il\s+te\s+pla[iî]t\s*,?\s*)?retiens\s+(?:bien\s+)?(?:que\s+|qu'|ceci\s*:\s*|:\s*)",
        False,
    ),
    (r"souviens[- ]toi\s+(?:que\s+|qu')", False),
    (r"rappelle[- ]toi\s+(?:que\s+|qu')", False),
    (r"garde\s+en\s+t[eê]te\s+(?:que\s+|qu')", False),
    (r"(?:à|a)\s+l'avenir\s*,?\s*", False),
    (r"d[ée]sormais\s*,?\s*", False),
    (r"dor[ée]navant\s*,?\s*", False),
    (r"ne\s+(?:me\s+)?propose\s+plus\b", True),
    (r"arr[eê]te\s+de\s+(?:me\s+)?proposer\b", True),
]
_TRIGGER_RE = re.compile(
    "|".join(f"(?P<t{i}>{pattern})" for i, (pattern, _) in enumerate(_TRIGGERS)), re.IGNORECASE
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s|\n")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})

# Section by keywords (first match wins), the default sections of docs/design.md §Settings.
_SECTION_KEYWORDS: list[tuple[str, tuple[str, ...]]] = [
    (
        "Rule dependencies",
        (
            "depends on",
            "before applying",
            "when the rule",
            "rule ",
            "règle",
            "dépend",
            "avant d'appliquer",
        ),
    ),
    (
        "Priorities & scope",
        (
            "suggest",
            "propose",
            "focus",
            "priorit",
            "scope",
            "skip",
            "ignore",
            "handled separately",
            "not my",
            "périmètre",
            "perimetre",
            "ne me propose",
            "traité",
            "traite",
            "hors",
        ),
    ),
    (
        "Writing style",
        (
            "tone",
            "wording",
            "style",
            "phras",
            "concise",
            "short",
            "formal",
            "word",
            "sentence",
            "bullet",
            "ton ",
            "ton.",
            "formul",
            "rédig",
            "redig",
            "phrase",
            "vouvoie",
            "tutoie",
            "passive",
            "passif",
            "language",
            "langue",
            "english",
            "français",
            "francais",
        ),
    ),
]
_FALLBACK_SECTION = "Recurring patterns"
_DOCTRINE_MARKERS = (
    "the team accepts",
    "we accept",
    "is acceptable",
    "are acceptable",
    "our policy",
    "team rule",
    "l'équipe accepte",
    "nous acceptons",
    "est acceptable",
    "sont acceptables",
    "notre politique",
    "règle d'équipe",
)
_MAX_TEXT = 300


def _clean(text: str) -> str:
    text = " ".join(text.split()).strip(" \t,;:-—\"'«»“”")
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    if len(text) > _MAX_TEXT:
        cut = text[:_MAX_TEXT].rsplit(" ", 1)[0]
        text = cut.rstrip(",;:") + "…"
    if text[-1] not in ".!?…":
        text += "."
    return text


def _section_for(text: str, sections: tuple[str, ...]) -> str:
    low = f" {text.lower()} "
    for section, words in _SECTION_KEYWORDS:
        if section in sections and any(w in low for w in words):
            return section
    if _FALLBACK_SECTION in sections:
        return _FALLBACK_SECTION
    return sections[0]


def section_for(text: str, sections: tuple[str, ...]) -> str:
    """The configured section a request goes to, by keywords (first match wins), else
    ``Recurring patterns`` (or the first section)."""
    return _section_for(text, sections)


def route_for(text: str) -> str:
    """``doctrine`` when the text speaks for the team ("the team accepts", "notre politique"),
    else ``memory``."""
    low = text.lower()
    return "doctrine" if any(m in low for m in _DOCTRINE_MARKERS) else "memory"


def _requests_in(turn_text: str) -> list[str]:
    """The explicit requests in one user turn, each as the sentence part after its trigger."""
    text = unicodedata.normalize("NFC", turn_text).translate(_APOSTROPHES)
    found: list[str] = []
    for match in _TRIGGER_RE.finditer(text):
        index = int(next(k for k, v in match.groupdict().items() if v is not None)[1:])
        keep = _TRIGGERS[index][1]
        start = match.start() if keep else match.end()
        rest = text[start:]
        end = _SENTENCE_END.search(rest)
        clause = rest[: end.start()] if end else rest
        cleaned = _clean(clause)
        if len(cleaned) >= 8:
            found.append(cleaned)
    return found


def _outcome_proposals(
    outcomes: tuple[Outcome, ...], sections: tuple[str, ...]
) -> list[dict[str, object]]:
    """Repeated outcome signals (docs/design.md §Harvest): ignored → scope, reworked → style,
    accepted → priorities.

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
    """Deterministic proposals from the person's own turns and the outcomes (never the model)."""
    proposals: list[dict[str, object]] = []
    seen: set[str] = set()
    for turn in request.transcript.user_turns():
        for text in _requests_in(turn.text):
            key = text.casefold()
            if key in seen:
                continue
            seen.add(key)
            route = route_for(text)
            where = f"line {turn.line}" if turn.line else "the session"
            proposals.append(
                {
                    "action": "add",
                    "route": route,
                    "section": _section_for(text, request.sections) if route == "memory" else None,
                    "target": None,
                    "text": text,
                    "justification": f"asked explicitly in {where} of the session",
                    "basis": "declared",
                }
            )
    proposals.extend(_outcome_proposals(request.outcomes, request.sections))
    return RawAnswer(provider="offline", proposals=proposals)
