"""The ``offline`` provider (docs/design/offline.md §Offline extractor): deterministic, no network, no key.

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
- a request said without a trigger word, told by general cues rather than phrases: its mood
  (an imperative, a prohibition, an obligation, a wish, how "we" work) together with time or
  frequency ("always", "never", "anymore", "désormais", "ya no", "nicht mehr"), or stopping a
  habit or forbidding something general ("stop adding emojis", "deja de abrir el navegador",
  "no usamos emojis", "hör auf, …") unless the agent is doing it right now, or any request in
  a turn where the person says they asked before ("I told you", "te dije") unless it edits
  one thing; a demonstrative or a numbered place near the request ("that clause", "ese
  cart") makes it one-off;
- a complaint about tone or wording ("your wording is too aggressive") becomes a Writing
  style entry;
- cues of a whole turn: "stop X" joined to the next sentence that says what instead; a rule said to hold for the whole team ("not only me", "pour tout le
  monde", "para todo el equipo", "gilt für alle") is a doctrine draft; "nothing's decided",
  "solo para este contrato" make the requests beside them one-off; "same for anything you
  draft", "en todos los contratos" make the turn's requests standing; a remove and a request
  on what the removed entry settled are one ``modify``;
- what is never copied into an entry: "I told you", profanity, tool keywords, a closing
  question tag; shouting is written in sentence case;
- routing follows who is concerned: the person (I, me, je, yo, ich …) → memory; the team or
  what is acceptable in the work product → doctrine;
- questions, one-off instructions ("yet", "pour l'instant", "por ahora", "noch nicht"), facts
  about the document ("the contract says"), repeats of an entry or of an active rule in scope
  are not proposed; a request that contradicts an entry (``proposals.conflicts``) modifies it.

Plus outcome signals repeated on one topic (two suggestions on confidentiality ignored →
"leave suggestions on confidentiality aside"). A session in a language without markers is
read with what applies and the language is named in a note. Same input, same proposals.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

from agentmem.doctrine.conflicts import FRENCH_CLOSERS, NEGATIONS
from agentmem.harvest import markers
from agentmem.harvest.changes import content_words as _content_words
from agentmem.harvest.changes import figures, turn_changes
from agentmem.harvest.changes import same_word as _same_word
from agentmem.harvest.changes import shared as _shared
from agentmem.harvest.markers import Language, any_match, fold
from agentmem.harvest.own import split_own
from agentmem.harvest.providers.request import HarvestRequest, Outcome, RawAnswer
from agentmem.lazyre import lazy_compile
from agentmem.memory.records import split_entry
from agentmem.proposals.conflicts import contradicted


def _shape(shape: str) -> re.Pattern[str]:
    """A regular expression whose ``{word class}``es are the words of every language file's
    ``grammar`` (:func:`markers.word_class`), compiled on first use: the shape of a sentence is
    code, its words are data."""
    return lazy_compile(
        lambda: re.sub(r"\{([a-z_]+)\}", lambda m: markers.word_class(m.group(1)), shape)
    )


_FALLBACK_SECTION = "Recurring patterns"
_SCOPE_SECTION = "Priorities & scope"
# A sentence ends at . ! ? or a line end, except after an abbreviation or an initial.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")
_ABBREVIATIONS = _shape("{abbreviations}")
_LIST_NUMBER = re.compile(r"\d{1,2}[.)]")
#: Abbreviations that end no sentence only before a figure ("no. 5", "art. 3").
_NUMBERED = _shape("{numbered_abbreviations}")
#: A day's dot before its month ends no sentence ("Freitag, 18. Dezember 2026").
_MONTH = _shape(r"{months}\b")
_WORDS = re.compile(r"[a-z0-9]+")
_TOKEN = re.compile(r"[^\W_][\w.'/#-]*")
# Where a clause ends: punctuation, or a word that starts a reason.
_CLAUSE_END = _shape(r"[,;:.!?()—–]|\s-\s|\s(?:{clause_reasons}|{and_but})\b")
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
    pieces = [p.strip() for p in _SENTENCE_END.split(text) if p.strip()]
    for i, piece in enumerate(pieces):
        pending = f"{pending} {piece}".strip() if pending else piece
        last = pending.rsplit(None, 1)[-1].rstrip(".").casefold()
        following = pieces[i + 1] if i + 1 < len(pieces) else ""
        if _LIST_NUMBER.fullmatch(pending) and following:
            continue  # "1. read the changelog": a step's number opens its line
        if _NUMBERED.fullmatch(last) and not following[:1].isdigit():
            pass
        elif pending.endswith(".") and (
            _ABBREVIATIONS.fullmatch(last)
            or (len(last) == 1 and last.isalpha())
            or (last.isdigit() and len(last) <= 2 and _MONTH.match(fold(following)[0]))
        ):
            continue  # "Dr. Weiss", "a. b.", "Freitag, 18. Dezember"
        out.append(pending)
        pending = ""
    if pending:
        out.append(pending)
    return out


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
    text = " ".join(text.split()).strip(" \t,;:-—")
    if not _QUOTE.match(text):
        text = text.lstrip(" \t,;:-—\"'«»“”")
    if not _QUOTE_CLOSES.search(text):
        text = text.rstrip(" \t,;:-—\"'«»“”")  # a stray quote, not one closing a quoted span
    langs = [language] if language else markers.languages()
    lead_ins = sorted({w for lang in langs for w in lang.lead_ins}, key=len, reverse=True)
    changed = True
    while changed and text:
        changed = False
        folded, index = fold(text)
        for lead in lead_ins:
            cut = re.match(rf"{re.escape(lead)}\b[\s,.:;!—–-]*", folded)  # "ok — …"
            if cut is not None:
                text = text[index[cut.end()] :].strip()
                changed = bool(text)
                break
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    if text[-1] not in ".!?…":
        text += "."
    return text


def _joined(first: str, sep: str, then: str) -> str:
    """``first`` continued by ``then`` after ``sep``: its end mark dropped, ``then``'s first
    word lower-cased when a capital only opened its sentence ("…, always; except the admin
    pages …"), the whole cleaned."""
    then = then.strip()
    if then[:2].istitle():
        then = then[0].lower() + then[1:]
    return _clean(first.rstrip(".!") + sep + then, None)


def _patterns(langs: list[Language], key: str) -> tuple[re.Pattern[str], ...]:
    return tuple(p for lang in langs for p in getattr(lang, key))


def _common_words() -> frozenset[str]:
    return frozenset(w for lang in markers.languages() for w in lang.detect)


#: A quoted span (kept as typed when the words around it are shouted).
_QUOTED = (
    r"""(?<!\w)'[^']{1,80}'(?!\w)|"[^"]{1,80}"|«[^»]{1,80}»|“[^”]{1,80}”|„[^“”]{1,80}[“”]"""
    r"|‚[^‘’']{1,80}[‘’']"  # German single quotes (fold straightens the closing one)
)
_QUOTE = re.compile(f"({_QUOTED})")
#: A quoted span closing a text (then its closing quote is kept by :func:`_clean`).
_QUOTE_CLOSES = re.compile(f"(?:{_QUOTED})$")


def _unshout(text: str, english: bool) -> str:
    """A shouted sentence (most letters capitals) in lower case, except what looks like a name
    of a thing: a word with a digit, a dot, a slash or an underscore, or a short acronym."""
    pieces = _QUOTE.split(text)  # what is quoted ('Estimado/a Sr./Sra.') is not shouted
    letters = [c for piece in pieces[::2] for c in piece if c.isalpha()]
    if len(letters) < 6 or sum(c.isupper() for c in letters) < 0.6 * len(letters):
        return text
    return "".join(
        _lowered(piece, english) if i % 2 == 0 else piece for i, piece in enumerate(pieces)
    )


def _lowered(text: str, english: bool) -> str:
    """Shouted ``text`` in lower case, but for what looks like a name of a thing."""
    common = _common_words()

    def lower(m: re.Match[str]) -> str:
        word = m.group(0)
        if any(c.isdigit() or c in "./_#" for c in word.rstrip(".")):
            return word
        short = fold(word)[0]
        if len(word) <= 4 and short not in common and not set(short) & set("aeiouy"):
            return word  # an acronym: VPS, SQL, PRP
        if english and word == "I":
            return word
        return word.lower()

    return _TOKEN.sub(lower, text)


@dataclass(frozen=True)
class _Prepared:
    text: str
    rhetorical: bool  # its question mark is no question
    asked: bool  # a hedge or a polite question was dropped: what remains is a request
    wished: bool = False  # a wish about how the agent works was dropped ("I'd rather you")


def _prepare(sentence: str, langs: list[Language]) -> _Prepared:
    """The sentence without what is never copied into an entry — the
    person saying they asked before ("I told you", "te dije", "je t'ai dit"), tool keywords,
    profanity, a closing question tag ("…, ok?") — and in sentence case if it was shouted;
    ``rhetorical`` when it said it had been asked before or asked as a question ("could you
    …?"): its question mark is then no question; ``asked`` when a hedge ("maybe", "it would
    be great if you could") or the polite question was dropped. Idioms ("don't worry", "stop being …") are
    dropped too: they ask nothing. A question that asks for its answer ("…, ou pas ?") stays
    one, whatever said it had been asked before."""
    sentence = sentence.lstrip("¡ ")  # "¡NO PONGAS …!": the opening mark asks nothing
    sentence = _respell(sentence, tuple(w for lang in langs for w in lang.fuzzy))
    folded, index = fold(sentence)
    if any_match(_patterns(langs, "open_questions"), folded):
        return _Prepared(sentence, False, False)  # "je t'avais dit de …, ou pas ?": asked
    spans: list[tuple[int, int]] = []
    rhetorical = asked = False
    for pattern in _patterns(langs, "reproach"):
        for m in pattern.finditer(folded):
            if m.end() > m.start():
                rhetorical = True
                spans.append((index[m.start()], index[m.end()]))
    every = list(markers.languages())
    for pattern in _patterns(langs, "idioms"):
        spans += [(index[m.start()], index[m.end()]) for m in pattern.finditer(folded)]
    for pattern in _patterns(langs, "hedges"):
        for hedge in pattern.finditer(folded):
            asked = True
            spans.append((index[hedge.start()], index[hedge.end()]))
    wished = False
    for pattern in _patterns(langs, "wishes"):
        wish = pattern.search(folded)
        if wish is None:
            continue
        begin, finish = index[wish.start()], index[wish.end()]
        if not any(a < finish and begin < b for a, b in spans):
            asked = wished = True
            spans.append((begin, finish))
            break
    if any_match(_patterns(langs, "promises"), folded):
        asked = wished = True  # "versprich mir, dass du nie …": asked, and kept whole
    if "?" in sentence:
        opening = len(folded) - len(folded.lstrip("¿ "))  # "¿puedes dejar de …?"
        for pattern in _patterns(langs, "polite"):
            question = pattern.search(folded, opening) if opening else pattern.search(folded)
            if question is None and opening:
                question = pattern.match(folded[opening:])
                if question is not None:
                    rhetorical = asked = True
                    spans.append((index[0], index[opening + question.end()]))
                    break
            if question:
                rhetorical = asked = True  # a request asked as a question
                spans.append((index[question.start()], index[question.end()]))
                break
    for pattern in _patterns(every, "noise") + _patterns(every, "profanity"):
        spans += [(index[m.start()], index[m.end()]) for m in pattern.finditer(folded)]
    for pattern in _patterns(langs, "question_tags"):
        tag = pattern.search(folded)
        if tag and tag.start() > 0:
            spans.append((index[tag.start()], len(sentence)))
    text = sentence
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    if rhetorical or asked:
        text = text.replace("?", " ").replace("¿", " ")
    text = " ".join(text.split())
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    text = re.sub(r"([,.;:])(?:\s*[,.;:])+", r"\1", text)
    text = re.sub(r"[,;:]\s*([.!?])", r"\1", text)  # "títulos, COÑO!" → "títulos!"
    text = text.strip(" ,;:-+")
    english = any(lang.code == "en" for lang in langs)
    return _Prepared(_unshout(text, english), rhetorical, asked, wished)


def _respell(text: str, words: tuple[str, ...]) -> str:
    """``text`` with a cue word's typo spelt right ("SIEMRPE" → "SIEMPRE", "nnunca" →
    "nunca"; :func:`markers.repair`), in the case it was typed."""
    folded, index = fold(text)
    repaired, new_index = markers.repair(folded, index, words)
    if repaired is folded:
        return text
    out, last = [], 0
    for m in _WORDS.finditer(repaired):
        begin, end = new_index[m.start()], new_index[m.end()]
        said = text[begin:end]
        if fold(said)[0] == m.group(0) or not said.isalpha():
            continue
        word = m.group(0)
        word = word.upper() if said.isupper() else word.capitalize() if said[0].isupper() else word
        out += [text[last:begin], word]
        last = end
    out.append(text[last:])
    return "".join(out)


def _clause(folded: str, at: int) -> tuple[int, int]:
    """The clause of ``folded`` around offset ``at`` (punctuation and reason words bound it)."""
    start = 0
    for m in _CLAUSE_END.finditer(folded):
        if m.end() <= at:
            start = m.end()
        elif m.start() > at:
            return start, m.start()
    return start, len(folded)


def _section_for(text: str, sections: tuple[str, ...], langs: list[Language]) -> str:
    """The section whose keywords ``text`` holds most (a tie: dependencies, then style, then
    scope), else ``Recurring patterns`` (or the first section)."""
    folded, _ = fold(text)
    best, hits = None, 0
    for name in ("Rule dependencies", "Writing style", _SCOPE_SECTION):
        if name not in sections:
            continue
        patterns = [p for lang in langs for p in dict(lang.sections).get(name, ())]
        found = sum(1 for p in patterns if p.search(folded))
        if found > hits:
            best, hits = name, found
    if best is not None:
        return best
    if _FALLBACK_SECTION in sections:
        return _FALLBACK_SECTION
    return sections[0]


#: A dash (and "and") opening an aside in a longer sentence, and the dash closing it.
_DASH_OPENS = _shape(r"\s[–—]\s+(?:{and}\s+)?$")
_DASH = re.compile(r"\s[–—]\s")
#: A bargain: what the person will do, then what the agent is to ("moi j'arrête de …, et toi,
#: …", "ich kontrolliere nicht mehr …, und du …").
_BARGAIN = _shape(
    r"^(?:{bargain_me})\b(?:\s+(?:{bargain_me}))?[^.;:]*?(?:,\s*|\s+){and}\s+(?=(?:{bargain_you})\b)"
    r"(?:(?:{bargain_you})\s*,?\s*(?=(?:{bargain_you})\b)|(?:{bargain_you})\s*,\s*)?"
)
#: Each thing of one collection of this session's ("every invoice in the march folder",
#: "chaque contrat du dossier Rivel", "cada factura de la carpeta de febrero").
_OF_A_COLLECTION = _shape(r"\b(?:{quantifiers})\s+[\w-]+\s+(?:{definite_of})\s")
#: What another person is to be told ("write to Priya that …", "schreib Jonas, dass er …",
#: "schreib Tim eine Nachricht: …").
_REPORTED = _shape(r"\b{that_clause}(?:\s+[a-z]+)?\s*$|\b{that_clause}$|:\s*$")
#: Where a clause ends before a trigger (a mark, or "and", "but", "so"): what follows it is the
#: request alone.
_CLAUSE_MARK = re.compile(r"[,;:()—–]|\s-\s")
_OPEN_BEFORE = _shape(r"(?:[,;:.!?()—–-]|\b{and_but})\s*$")


def _around(sentence: str, trigger: re.Match[str]) -> str:
    """The request a trigger introduces: what follows it, or what precedes it when it closes
    the sentence ("Switch to British English from now on.")."""
    folded, index = fold(sentence)
    after = sentence[index[trigger.end()] :]
    before = sentence[: index[trigger.start()]]
    if _DASH_OPENS.search(folded[: trigger.start()]):
        # "setz die Abmahnung auf – und merk dir, Fristen … – und schick sie mir": the request
        # between the dashes, not the task around it
        return _DASH.split(after, maxsplit=1)[0]
    if (
        "," in folded[trigger.start() : trigger.end()]
        and len(markers.words(folded[: trigger.start()])) >= 3
    ):
        return before  # "put the clause numbers in bold from now on, I skim for them": why
    if (
        len(after.strip(" .!,;:")) >= 8
        and len(markers.words(folded[: trigger.start()])) >= 3
        and not _CLAUSE_MARK.search(folded[: trigger.start()])
        and not _OPEN_BEFORE.search(folded[: trigger.start()])
    ):
        # "Tippfehler in meinen Schriftsätzen darfst du ab jetzt ohne Rückfrage korrigieren":
        # the trigger inside the sentence's first clause; the request is it without the trigger
        return f"{before.rstrip()} {after.lstrip()}"
    if len(after.strip(" .!,;:")) >= 8:
        if not markers.words(folded[: trigger.start()]) and _verb_second(folded, trigger):
            return sentence  # "Ab jetzt kommt der Bericht …": its verb needs what opened it
        return after
    return before


def _verb_second(folded: str, trigger: re.Match[str]) -> bool:
    """True when the language of ``folded`` puts its verb right after an opening adverbial
    (``verb_second``, German: "ab jetzt kommt …"), so that a trigger of time opening it cannot
    be cut off; not when a comma or colon follows it ("Ab jetzt: keine Emojis"), nor for a
    trigger that is a verb itself ("merk dir, dass …")."""
    langs = markers.detect(folded)
    rest = folded[trigger.end() :].lstrip()
    said = folded[trigger.start() : trigger.end()]  # "ab jetzt", not "merk dir, dass …"
    return (
        bool(langs)
        and all(lang.verb_second for lang in langs)
        and not rest.startswith((",", ":"))
        and any_match(_patterns(langs, "change_cues"), said) is not None
        and _SUBJECT_SECOND.match(rest) is not None  # "kommt der …", "schreibst du …"
    )


#: A verb, then its subject ("kommt der Bericht", "schreibst du sie"): a statement whose verb
#: came second; an imperative has no subject after it ("prüfe immer …").
_SUBJECT_SECOND = _shape(r"[a-z]+\s+(?:{subjects})\b")


def _figures(text: str, langs: list[Language]) -> str:
    """``text`` with its number words as figures ("four bullets" → "4 bullets")."""
    numbers = {w: n for lang in langs for w, n in lang.numbers}
    if not numbers:
        return text
    folded, index = fold(text)
    out, last = [], 0
    for m in _WORDS.finditer(folded):
        if m.group(0) in numbers:
            out += [text[last : index[m.start()]], numbers[m.group(0)]]
            last = index[m.end()]
    return "".join(out) + text[last:]


def _substitute_number(
    sentence: str, entry: str, langs: list[Language] | None = None
) -> str | None:
    """``entry`` with its figure replaced by the new one the sentence gives ("5 bullets, not 3"
    or "five bullets instead of three" on "Summaries in 3 bullets." → "Summaries in 5
    bullets."); None when it does not apply."""
    said = _NUMBER.findall(_figures(sentence, langs or []))
    old = [n for n in _NUMBER.findall(entry) if n in said]
    new = [n for n in said if n not in _NUMBER.findall(entry)]
    if len(old) != 1 or len(new) != 1:
        return None
    return re.sub(rf"\b{re.escape(old[0])}\b", new[0], entry, count=1)


def _other_figure(text: str, entry: str, langs: list[Language]) -> str | None:
    """``entry`` with its one figure replaced by the one other figure of ``text``; None unless
    each holds exactly one figure."""
    said = _NUMBER.findall(_figures(text, langs))
    old = _NUMBER.findall(entry)
    if len(said) != 1 or len(old) != 1 or said == old:
        return None
    return re.sub(rf"\b{re.escape(old[0])}\b", said[0], entry, count=1)


def section_for(text: str, sections: tuple[str, ...]) -> str:
    """The configured section a request goes to, by the section keywords of the languages of
    ``text`` (the section with most of them wins), else ``Recurring patterns`` (or the first
    section)."""
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
    #: the complaint's subject ("tone", "wording") when the candidate is a complaint
    complaint: str | None = None


@dataclass(frozen=True)
class _TurnCues:
    """What one user turn says about all its requests: the person had asked before
    (``reproach``), or describes what the agent is doing right now (``current``); and its
    language, for a sentence whose own words do not tell."""

    reproach: bool = False
    current: bool = False
    language: Language | None = None  # the turn's language, when its words tell one
    #: the turn says its request holds beyond this piece of work ("same for anything you
    #: draft for me", "en todos los contratos")
    extends: bool = False


def _turn_cues(text: str) -> _TurnCues:
    folded, _ = fold(text)
    langs = markers.detect(folded)
    return _TurnCues(
        any_match(_patterns(langs, "reproach"), folded) is not None,
        any_match(_patterns(langs, "current"), folded) is not None,
        langs[0] if len(langs) == 1 else None,
        any_match(_patterns(langs, "extends"), folded) is not None,
    )


class _Extractor:
    def __init__(self, request: HarvestRequest) -> None:
        self.sections = request.sections
        self.entries = _entries(request.memory_text, request.sections)
        self.rules = [_content_words(r) for r in request.doctrine_rules]
        self.rule_texts = list(request.doctrine_rules)

    def _best_entry(self, words: set[str]) -> tuple[_Entry | None, set[str]]:
        best, shared = None, set[str]()
        for entry in self.entries:
            common = {w for w in _shared(words, _content_words(entry.text)) if not w.isdigit()}
            if len(common) > len(shared):
                best, shared = entry, common
        return best, shared

    def turn_changes(self, sentences: list[str], where: str) -> tuple[list[_Candidate], set[int]]:
        """The changes of mind a turn says by content (:mod:`agentmem.harvest.changes`: a new
        figure, another language, another quoted name for what an entry settles), as
        ``modify`` candidates, and the indices of the sentences that said them."""
        if not self.entries:
            return [], set()
        facts = tuple(p for lang in markers.languages() for p in lang.document_facts)
        found = turn_changes(sentences, [e.text for e in self.entries], facts)
        out, said = [], set[int]()
        why = f"changed their mind in {where} about an entry of the memory"
        for change in found:
            entry = self.entries[change.index]
            words = set().union(*(_content_words(sentences[i]) for i in change.sentences))
            best, shared = self._best_entry(words)
            mine = {w for w in _shared(words, _content_words(entry.text)) if not w.isdigit()}
            if best is not None and best is not entry and len(shared) >= 2 + len(mine):
                continue  # "la traducción al inglés … sobra" names the translation entry
            out.append(_Candidate("modify", "memory", entry.section, entry.text, change.text, why))
            said |= change.sentences
        return out, said

    def _one_off(self, lang: Language, folded: str) -> bool:
        """True when ``folded`` says the request is for now only ("yet", "this week",
        "vendredi"), unless those words are what an entry of the memory settles ("laisse
        tomber le récap du vendredi" on "Envoyer le récapitulatif … chaque vendredi")."""
        settled = False  # the sentence names when an entry's habit happens ("los lunes")
        moved = False
        folded = _CONCESSION.sub("", folded)  # "…, auch wenn wir gerade nichts preisgeben"
        folded = _QUOTE.sub(" ", folded)  # an example: „Freitag, 18. Dezember 2026“
        for pattern in lang.not_standing:
            for m in pattern.finditer(folded):
                said = _content_words(m.group(0))
                if not said or not any(
                    said <= _shared(said, _content_words(e.text)) for e in self.entries
                ):
                    moved = True
                else:
                    settled = True
        # "pásalo a los viernes, los lunes nadie lo lee" on "… los lunes": the entry's time
        # changed, not a request for this week
        return moved and not (settled and any_match(lang.replace, folded) is not None)

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
        # The same threshold on the same subject ("über 250k also erst zur Rechtsabteilung" on
        # "Verträge über 250.000 EUR gehen … an die Rechtsabteilung"): the rule said again.
        every = markers.languages()
        values = {f.value for f in figures(text, every) if f.value >= 100 or f.unit}
        if values:
            for known_text in [e.text for e in self.entries] + self.rule_texts:
                theirs = {f.value for f in figures(known_text, every)}
                said = {w for w in _shared(words, _content_words(known_text)) if not w.isdigit()}
                if values & theirs and said:
                    return True
        return False

    def _on_known_subject(self, text: str) -> bool:
        """True when ``text`` shares two content words with an entry or an active rule in
        scope: said "as always", it is that entry or rule said again."""
        words = {w for w in _content_words(text) if not w.isdigit()}
        known = [_content_words(e.text) for e in self.entries] + self.rules
        return any(len(_shared(words, k)) >= 2 for k in known)

    def sentence(self, sentence: str, where: str, cues: _TurnCues) -> _Candidate | None:
        langs = markers.detect(fold(sentence)[0])
        if len(langs) > 1 and cues.language in langs:
            langs = [cues.language]  # a sentence too short to tell: the turn's language
        language = langs[0] if len(langs) == 1 else None
        prepared = _prepare(sentence, langs)
        sentence, rhetorical = prepared.text, prepared.rhetorical
        if "?" in sentence or "¿" in sentence or not sentence:
            return None  # a question, not a request
        folded, index = fold(sentence)
        if any_match(_patterns(langs, "open_questions"), folded):
            return None  # "random question, ollie never rebases …": a question, said so
        if _OTHERWISE.match(folded):
            return None  # "Sonst stimmt die uv.lock nicht mehr.": why the request before holds
        if _only_quoted_says_always(folded, langs):
            return None  # "« et jamais je ne rentrerai », j'ai ce refrain dans la tête"
        for lang in langs:
            if self._one_off(lang, folded) or any_match(lang.document_facts, folded):
                return None
        change = self._change(sentence, folded, langs, language, where)
        if change is not None:
            return change if change.action != "skip" else None
        every = markers.languages()
        scope = any_match(tuple(p for lang in every for p in lang.scope_triggers), folded)
        trigger = any_match(tuple(p for lang in every for p in lang.triggers), folded)
        complaint: tuple[str, str] | None = None
        if scope is not None:
            request = sentence[index[scope.start()] :]
            route, section = "memory", _SCOPE_SECTION if _SCOPE_SECTION in self.sections else None
            why = f"asked explicitly in {where}"
        elif trigger is not None:
            before = folded[: trigger.start()]
            if any_match(_patterns(langs, "tasks"), before) and _REPORTED.search(before):
                return None  # "write to Priya that from now on she …": a message for another
            request = _around(sentence, trigger)
            route, section, why = "memory", None, f"asked explicitly in {where}"
        elif any(any_match(lang.doctrine_statements, folded) for lang in langs):
            if len(_WORDS.findall(folded)) < 6 or _one_thing(folded, langs):
                return None
            if _PLACE.search(folded):
                return None  # "we accept clause 5 but not clause 7": this document's places
            if _FETCH.match(folded):
                return None  # "find me our standard wording …": a task, not what is accepted
            if any_match(_patterns(langs, "tasks"), folded) and not any_match(
                _patterns(langs, "standing"), folded
            ):
                return None  # "go through the … MSA and list …", "contesta a … que aceptamos …"
            request = sentence
            route, section, why = "doctrine", None, f"said in {where}"
        elif (complaint := _complaint(sentence, folded, index, langs)) is not None:
            request, thing = complaint
            route = "memory"
            section = "Writing style" if "Writing style" in self.sections else None
            why = f"said in {where} what they want changed in the wording"
        elif (
            _FETCH.match(folded)
            and any_match(_patterns(langs, "tasks"), folded)
            and not _standing_beyond_object(folded, langs)
        ):
            return None  # "Schreib mir die Freigabeanfrage.": a piece of work for the person
        elif (
            directive := _directive(
                sentence, folded, index, langs, cues, prepared.asked, prepared.wished
            )
        ) is not None:
            request = directive
            route, section, why = "memory", None, f"asked in {where}"
            if rhetorical or cues.reproach:
                why += " (they had asked before)"
        else:
            return None
        bargain_folded, bargain_index = fold(request)
        bargain = _BARGAIN.match(bargain_folded)
        if bargain is not None and bargain.end() < len(bargain_index):
            # "i stop looking over your shoulder, and you never push …": the person's half of
            # a bargain is not the entry
            request = request[bargain_index[bargain.end()] :]
        text = _clean(request, language)
        if len(text) < 8 or self._repeats(text):
            return None
        short = fold(text)[0]
        said = markers.words(short)
        core = [w for w in said if not _negated(w)]
        if len(core) <= 2 and core and _PRONOUNS.fullmatch(core[-1]):
            return None  # "Add ours.", "Mach es.", "Don't make them.": to this thing
        if any(any_match(lang.known, folded) for lang in langs) and self._on_known_subject(text):
            return None  # "same as always", on what an entry or an active rule settles
        text_folded, _ = fold(text)
        person = any(any_match(lang.person, text_folded) for lang in langs)
        team_rule = any(any_match(lang.doctrine_statements, text_folded) for lang in langs)
        if scope is None:
            route = "doctrine" if team_rule and not person else "memory"
        if route == "doctrine":
            return _Candidate("add", "doctrine", None, None, text, why + " (what the team accepts)")
        changed = self._changed_entry(text, langs)
        if changed is not None:
            entry, new_text = changed
            why = f"changed their mind in {where} about an entry of the memory"
            return _Candidate("modify", "memory", entry.section, entry.text, new_text, why)
        return _Candidate(
            "add",
            "memory",
            section or _section_for(text, self.sections, langs),
            None,
            text,
            why,
            thing if complaint is not None else None,
        )

    def team_rules(
        self, sentences: list[str], found: list[_Candidate | None], where: str
    ) -> list[_Candidate | None]:
        """``found`` (one candidate or None per sentence) with the rule a sentence says holds
        for the whole team ("that's the rule for all of us on commercial, not only me", "ça
        vaut pour tout le monde dans l'équipe", "eso va para todo el equipo", "das gilt für
        alle im Einkauf") as a doctrine draft: the rule is the part of that sentence before
        the cue when it is a clause of its own (six words or more), what follows the cue's
        colon ("bei uns läuft das so: …"), else the sentence before it. The sentence of the cue is part of the rule, never an entry of its own."""
        out = list(found)
        for j, said in enumerate(sentences):
            folded, index = fold(said)
            langs = markers.detect(folded)
            cue = any_match(_patterns(langs, "team_scope"), folded)
            if cue is None or "?" in said or "¿" in said:
                continue
            if out[j] is not None and out[j].action in ("modify", "remove"):  # type: ignore[union-attr]
                continue  # "on arrête avec les copies papier : …": a change of mind, not a rule
            start, end = _clause(folded, cue.start())
            head = said[: index[start]].strip(" ,;:-—")
            colon = folded.find(":", cue.end())  # "une règle d'équipe, pas … à moi : on …"
            tail = said[index[colon] + 1 :].strip() if colon >= end else ""
            that = _THAT_IS.search(folded, cue.start())
            said_that = said[index[that.end()] :].strip() if that is not None else ""
            if len(markers.words(fold(said_that)[0])) >= 6:
                at, rule = j, said_that  # "la règle de la maison, …, c'est que tous nos …"
            elif len(markers.words(fold(tail)[0])) >= 6:
                at, rule = j, tail  # "Rappel de la règle de l'équipe : dès qu'un contrat …"
            elif len(markers.words(fold(head)[0])) >= 6:
                at, rule = j, head
            elif j > 0 and "?" not in sentences[j - 1]:
                at, rule = j - 1, sentences[j - 1]
                after = rule.rsplit(":", 1)[-1].strip()
                if ":" in rule and len(markers.words(fold(after)[0])) >= 6:
                    rule = after  # "Non, pas encore : tout contrat …": the answer dropped
            else:
                continue
            text = self._rule_text(rule)
            opening = " ".join(markers.words(fold(text or "")[0])[:3])
            if text is None or _deictic(opening, langs):
                continue  # "send it to all of us, not just me": one thing of this session
            why = f"said in {where} that the team holds to it (what the team accepts)"
            out[at] = _Candidate("add", "doctrine", None, None, text, why)
            for k in (at - 1, at + 1):  # "No narrow version.", "No exceptions for …": the rule's
                near = out[k] if 0 <= k < len(out) and k != j else None
                if (
                    near is not None
                    and near.action == "add"
                    and _BARE_NO_OPENING.match(fold(sentences[k])[0])
                ):
                    out[k] = None
            if at != j and out[j] is not None and out[j].action == "add":  # type: ignore[union-attr]
                out[j] = None
        return out

    def named_then_new(
        self, sentences: list[str], found: list[_Candidate | None], where: str
    ) -> list[_Candidate | None]:
        """``found`` with an entry named before a colon ("small adjustment to the partners'
        weekly list: they meet on Thursday mornings now, …", "petite correction sur le tableau
        des encaissements : …", "corrige lo de la revisión de poderes: …") and what holds now
        said after the colon or in one of the next two sentences, on a cue that says so ("from
        now on it goes out on Wednesday at noon", "Dorénavant tu l'envoies …", "A partir de
        ahora, una vez por trimestre …"), as one ``modify`` of that entry: the words that named
        it, a colon, the new request ("Partners' weekly list: it goes out on Wednesday at
        noon."). Nothing is changed in a turn that already changes an entry."""
        if not self.entries or any(c is not None and c.action != "add" for c in found):
            return found
        why = f"changed their mind in {where} about an entry of the memory"
        turn = markers.detect(fold(" ".join(sentences))[0])
        for i, said in enumerate(sentences):
            folded, index = fold(said)
            colon = folded.find(":")
            head_match = _TOPIC_HEAD.match(folded) if colon < 0 else None
            topic = head_match is not None
            if head_match is not None:
                colon = head_match.end(1)  # "lo del aviso de envio, a partir de ahora …"
            if colon < 0 or "?" in said or "¿" in said:
                continue
            colon_at = index[colon]
            head = said[:colon_at]
            entry, shared = self._best_entry(_content_words(head))
            if entry is None or _named_span(head, shared) is None:
                continue
            if len(shared) < 2 and not (topic and shared and self._names_only(entry, head)):
                continue
            after = said[colon_at + 1 :].strip()
            mine = found[i]
            if mine is not None and fold(mine.text or "")[0].rstrip(".!") not in fold(after)[0]:
                mine = None  # what the sentence asks is not (only) what follows its colon
            later = range(i + 1, min(i + 3, len(sentences)))
            if topic and _TOPIC_MARKER.match(folded) is None:
                later = range(0)  # "the summary, …": an article opens it; its own words only
            for j, then, candidate in [(i, after, mine)] + [
                (j, sentences[j], found[j]) for j in later
            ]:
                text = _what_holds_now(then, candidate, turn)
                if text is None:
                    continue
                other, theirs = self._best_entry(_content_words(text))
                if other is not None and other is not entry and len(theirs) >= 2:
                    break  # the new request is about another entry
                new = _with_name(head, entry.text, text) or (
                    _with_topic(head, text) if topic else text
                )
                out = list(found)
                out[j] = None
                out[i] = _Candidate("modify", "memory", entry.section, entry.text, new, why)
                return out
        return found

    def _names_only(self, entry: _Entry, head: str) -> bool:
        """True when ``entry`` is the one entry sharing a content word with ``head``."""
        words = {w for w in _content_words(head) if not w.isdigit()}
        return all(
            other is entry or not _shared(words, _content_words(other.text))
            for other in self.entries
        )

    def named_then_dropped(
        self, sentences: list[str], found: list[_Candidate | None], where: str
    ) -> list[_Candidate | None]:
        """``found`` with an entry named in one sentence ("the cover-sheet thing …", "lo de las
        copias en papel …") and dropped by a short sentence right after that names nothing
        else ("stop adding it.", "Quítalo.", "Lass das weg.", "Tu ne le fais plus.") as a
        ``remove`` of that entry. Nothing is changed in a turn that already changes an
        entry, nor where the naming sentence asks for something itself."""
        if not self.entries or any(c is not None and c.action != "add" for c in found):
            return found
        for i, said in enumerate(sentences[:-1]):
            if "?" in said or "¿" in said or found[i] is not None:
                continue
            entry, shared = self._best_entry(_content_words(said))
            if entry is None or len(shared) < 2:
                continue
            known = _content_words(entry.text)
            for j in range(i + 1, min(i + 3, len(sentences))):
                then = sentences[j]
                folded = fold(then)[0]
                langs = markers.detect(folded)
                said = folded  # the words of the drop itself name nothing ("pour de bon")
                for pattern in (p for lang in langs for p in lang.remove):
                    said = pattern.sub(" ", said)
                rest = {w for w in _content_words(said) if not _shared({w}, known)}
                stops = _stops(folded, langs) or any(
                    any_match(lang.remove, folded) for lang in langs
                )
                if "?" in then or "¿" in then or len(rest) > 2:
                    continue
                if not stops or any(any_match(lang.replace, folded) for lang in langs):
                    continue
                if _alternative(folded, langs):
                    break  # "stop adding it, use the stamp instead": a modify, not said here
                out = list(found)
                out[j] = None
                why = f"changed their mind in {where} about an entry of the memory"
                out[i] = _Candidate("remove", "memory", entry.section, entry.text, None, why)
                return out
        return found

    def _rule_text(self, rule: str) -> str | None:
        """A team rule as the text of a doctrine draft; None when it is a question, a one-off,
        a fact about the document, about one thing of this session or a repeat."""
        folded = fold(rule)[0]
        langs = markers.detect(folded)
        prepared = _prepare(rule, langs)
        if "?" in prepared.text or "¿" in prepared.text or not prepared.text:
            return None
        folded = fold(prepared.text)[0]
        for lang in langs:
            if any_match(lang.not_standing, folded) or any_match(lang.document_facts, folded):
                return None
        if len(markers.words(folded)) < 6 or _one_thing(folded, langs):
            return None
        text = _clean(prepared.text, langs[0] if len(langs) == 1 else None)
        return None if self._repeats(text) else text

    def confirmed(
        self, offered: str | None, said: str, where: str, cues: _TurnCues
    ) -> _Candidate | None:
        """What the agent offered to do from now on ("Shall I always use bullet points?"),
        when the person's whole answer confirms it ("Yes, please."); None otherwise."""
        if not offered or len(said.split()) > 8:
            return None
        folded_said = fold(said.strip())[0]
        every = list(markers.languages())
        if not any_match(_patterns(every, "confirm"), folded_said):
            return None
        for sentence in reversed(_sentences(offered)):
            if "?" not in sentence:
                continue
            folded, index = fold(sentence)
            langs = markers.detect(folded)
            offer = any_match(_patterns(langs, "offers"), folded)
            if offer is None:
                continue
            asked = sentence[index[offer.end()] :].split("?", 1)[0].strip()
            candidate = self.sentence(asked + ".", where, cues)
            if candidate is None:
                return None
            why = f"confirmed in {where} what the agent offered to do"
            return _Candidate(
                candidate.action,
                candidate.route,
                candidate.section,
                candidate.target,
                candidate.text,
                why,
            )
        return None

    def asked_always(
        self, previous: str | None, said: str, where: str, cues: _TurnCues
    ) -> _Candidate | None:
        """The person's previous request made standing by a short answer after the agent did
        it ("Give me the key dates of the lease." … "yes, always do that for leases" → "Give me
        the key dates of the lease; always do that for leases."); None otherwise."""
        if not previous or len(said.split()) > 10:
            return None
        folded = fold(said.strip())[0]
        langs = markers.detect(folded)
        if cues.language is not None and len(langs) > 1:
            langs = [cues.language] if cues.language in langs else langs
        assent = any_match(_patterns(langs, "assent"), folded)
        if assent is None or not any_match(_patterns(langs, "standing"), folded):
            return None
        if any_match(_patterns(langs, "idioms"), folded) or any(
            any_match(lang.not_standing, folded) for lang in langs
        ):
            return None
        asked = next((s for s in _sentences(previous) if s.strip()), "")
        asked = asked.strip().strip("¿?!. ")
        _, index = fold(said)
        rest = said[index[assent.end()] :].strip(" ,;:.!-")
        if len(asked) < 8 or not rest or len(asked) > 200:
            return None
        language = langs[0] if len(langs) == 1 else None
        text = _clean(f"{asked}; {rest}", language)
        if self._repeats(text):
            return None
        why = f"asked in {where} for what the agent had just done, always"
        return _Candidate(
            "add", "memory", _section_for(text, self.sections, langs), None, text, why
        )

    def _changed_entry(self, text: str, langs: list[Language]) -> tuple[_Entry, str] | None:
        """``(entry, new text)`` when a request says what one entry says otherwise: the one
        contradiction detector finds it (:func:`proposals.conflicts.contradicted`), or the same
        words with another figure ("keep summaries to five bullets" on "Summaries in 3
        bullets." → "Summaries in 5 bullets.")."""
        against = contradicted(_figures(text, langs), [e.text for e in self.entries])
        if len(against) == 1:
            return self.entries[against[0][0]], text
        entry, shared = self._best_entry(_content_words(text))
        if entry is None:
            return None
        known = {w for w in _content_words(entry.text) if not w.isdigit()}
        if len(shared) >= min(len(known), 2) and len(shared) * 2 >= len(known):
            new = _substitute_number(text, entry.text, langs) or _other_figure(
                text, entry.text, langs
            )
            if new is not None and new != entry.text:
                return entry, new
        return None

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
        fading = _negated(folded) and any_match(_patterns(langs, "no_longer"), folded)
        stop = (
            any_match(_patterns(langs, "cessation"), folded)
            or (_negated(folded) and any_match(_patterns(langs, "general"), folded))
            or fading
        )
        if not (replace or remove or stop):
            return None
        entry, shared = self._best_entry(_content_words(sentence))
        if (entry is None or not shared) and replace and len(_QUOTE.findall(sentence)) == 1:
            quoted = [e for e in self.entries if len(_QUOTE.findall(e.text)) == 1]
            if len(quoted) == 1:  # "La formule de fin, on la change : « … »": the quoted one
                entry, shared = quoted[0], {"quoted"}
        if entry is None or not shared:
            return None
        if not (replace or remove):
            # Only a general cue ("stop …", "don't … anymore"): the entry must be what stops —
            # half its words, or one long word (a name: "deja de usar Firecrawl"); said to hold
            # no longer ("not … anymore", "nicht mehr"), two of its words.
            known = {w for w in _content_words(entry.text) if not w.isdigit()}
            enough = min(len(known), max(2, (len(known) + 1) // 2))
            long_word = any(len(w) >= 8 for w in shared) or _names_shared(
                sentence, entry.text, shared, langs
            )
            if len(shared) < enough and not long_word and not (fading and len(shared) >= 2):
                return None
        why = f"changed their mind in {where} about an entry of the memory"
        if remove and not replace:
            said = _after_change_colon(sentence, folded, langs, "remove")
            then = fold(said or "")[0]
            if (
                said is not None
                and len(markers.words(then)) >= 3
                and any(
                    not _SINCE.fullmatch(m.group(0).strip())  # "… tout seul depuis novembre": why
                    for p in _patterns(langs, "change_cues")
                    for m in p.finditer(then)
                )
                and not _negated(then)
                # "… : il a son propre tableau de bord …": why it goes, not what holds now
                and not _THIRD_PERSON.match(then.lstrip())
            ):
                # "Les montants arrondis, c'est fini : je veux les centimes maintenant"
                return _Candidate(
                    "modify", "memory", entry.section, entry.text, _clean(said, language), why
                )
        if replace or (
            stop and not remove and (_alternative(folded, langs) or _now_instead(folded, langs))
        ):
            every = markers.languages()
            trigger = any_match(tuple(p for lang in every for p in lang.triggers), folded)
            request = _around(sentence, trigger) if trigger else sentence
            said = _after_change_colon(sentence, folded, langs)
            if said is not None:
                request = said  # "The date rule needs changing: ISO from now on, …"
            text = (
                _substitute_number(sentence, entry.text, langs)
                or _substitute_quote(sentence, entry.text)
                or _clean(request, language)
            )
            if text == entry.text:
                return _Candidate("skip", "memory", None, None, None, why)
            return _Candidate(
                "modify",
                "memory",
                entry.section,
                entry.text,
                _named_first(sentence, entry.text, text) if ":" in sentence else text,
                why,
            )
        return _Candidate("remove", "memory", entry.section, entry.text, None, why)


#: A clause about someone else ("il a son propre tableau de bord depuis octobre"): a reason.
_THIRD_PERSON = _shape(r"(?:{third_persons})\b")
#: "since" as a change cue: in what follows a remove, the reason it went ("… depuis novembre").
_SINCE = _shape(r"\b(?:{since})\b")
_CAPITALISED = re.compile(r"(?<=[\s(])[^\W\d_][\w-]*")


def _names_shared(sentence: str, entry: str, shared: set[str], langs: list[Language]) -> bool:
    """True when a word the sentence shares with the entry is a name: written with a capital
    inside both (not where a sentence starts: "stop cc'ing Helen on those" on "Copy Helen, the
    supervising partner, …"); never in a language that writes every noun with one."""
    if any(lang.nouns_capitalised for lang in langs):
        return False

    def names(text: str) -> set[str]:
        return {fold(w)[0] for w in _CAPITALISED.findall(text) if w[0].isupper()}

    return bool(shared & names(sentence) & names(entry))


def _substitute_quote(sentence: str, entry: str) -> str | None:
    """``entry`` with its one quoted wording replaced by the one the sentence quotes ("La
    formule de fin, on la change : « Bien à vous, … »" on "Terminer chaque courriel par
    « Cordialement, … »."); None unless each quotes exactly one wording, and they differ."""
    old, new = _QUOTE.findall(entry), _QUOTE.findall(sentence)
    if len(old) != 1 or len(new) != 1 or fold(old[0])[0] == fold(new[0])[0]:
        return None
    return entry.replace(old[0], new[0], 1)


def _after_change_colon(
    sentence: str, folded: str, langs: list[Language], key: str = "replace"
) -> str | None:
    """What follows the colon of a sentence that says, before it, that an entry changes ("The
    date rule needs changing: ISO from now on, …", "La formule de fin, on la change : « … »"),
    without the reason given for it; None when there is no such colon."""
    colon = folded.find(":")
    if colon < 0:
        return None
    cue = any(
        (m := any_match(getattr(lang, key), folded[:colon])) is not None and m.end() <= colon
        for lang in langs
    )
    if not cue:
        return None
    _, index = fold(sentence)
    rest = folded[colon + 1 :]
    reason = _REASON.search(rest)
    end = colon + 1 + reason.start() if reason is not None else len(folded)
    said = sentence[index[colon + 1] : index[end] if end < len(index) else len(sentence)]
    return said if len(markers.words(fold(said)[0])) >= 2 else None


_NEGATIONS = NEGATIONS | FRENCH_CLOSERS | {"jamas", "ne", "dont"}


def _negated(folded: str) -> bool:
    """True when a word of ``folded`` negates (the contradiction detector's negations, "n't",
    "ne"/"n'", "kein…")."""
    return any(
        w in _NEGATIONS or w.endswith("n't") or w.startswith(("n'", "kein"))
        for w in markers.words(folded)
    )


#: "Now" and a task for the person ("Now show me clause 9", "ahora pásame", "jetzt zeig mir").
_NOW_TASK = _shape(
    r"^(?:{and}\s+)?{now}\s*,?\s+(?:{me_enclitic}|{me_hyphenated}|[a-z]+\s+{me_after})\b"
)
#: "Always"/"never" opening a clause: whose habit it is, the clause before may tell.
_FREQUENCY = _shape(r"{always_never}\b")
#: A numbered place of the document ("clause 5", "art. 3", "§ 9").
_PLACE = _shape(r"\b{places}\.?\s+\d|§\s*\d")
#: A sentence whose subject is the agent ("Tu passes par le glossaire …", "du nimmst …").
_YOU = _shape(r"^{you}\s+[a-z]")
#: A sentence whose subject is the team ("we moved to …", "hemos dicho que …", "on passe par").
_WE = _shape(r"^{we}\s+[a-z]")
#: A sentence that asks for a thing for the person ("find me …", "trouve-moi", "gib mir").
_FETCH = _shape(r"^(?:{please}\s+)?(?:[a-z]+\s+{me_after}|{me_hyphenated})\b")
_KIND_OF = _shape(r"\w+\s+{kind}\b")


def _one_thing(folded: str, langs: list[Language]) -> bool:
    """True when a statement is about one thing of this session: it opens on a demonstrative
    ("that is fine", "c'est acceptable", "eso es aceptable"), not on a kind ("this type of
    contract")."""
    m = any_match(_patterns(langs, "deictic"), folded)
    return m is not None and m.start() == 0 and _KIND_OF.match(folded) is None


_OPENING_CONJUNCTION = _shape(r"^{and_but}\s+")


def _alternative(folded: str, langs: list[Language]) -> bool:
    """True when a later clause asks for something in place ("…, use Context7 instead")."""
    first_end = _clause(folded, 0)[1]
    rest = folded[first_end:].lstrip(" ,;:.")
    rest = _OPENING_CONJUNCTION.sub("", rest)
    if not rest:
        return False
    positive = any_match(_patterns(langs, "mood"), rest)
    negative = any_match(_patterns(langs, "general") + _patterns(langs, "cessation"), rest)
    return positive is not None and positive.start() == 0 and negative is None


def _now_instead(folded: str, langs: list[Language]) -> bool:
    """True when the sentence opens on what holds from now on and a later clause says what holds
    no longer ("ab jetzt kommt der Bericht in den Teams-Kanal, nicht mehr ins Postfach")."""
    if not _opens_on(_patterns(langs, "change_cues"), folded):
        return False
    first_end = _clause(folded, 0)[1]
    fading = any_match(_patterns(langs, "no_longer"), folded[first_end:])
    return fading is not None and not _negated(folded[:first_end])


def _complaint(
    sentence: str, folded: str, index: list[int], langs: list[Language]
) -> tuple[str, str] | None:
    """``(request, subject)``: a complaint about tone or wording as a Writing style request
    ("your wording is too aggressive, …" → "Avoid aggressive wording, …", "wording"); None
    when there is none."""
    for lang in langs:
        if not lang.complaint_entry:
            continue
        m = any_match(lang.complaint, folded)
        if m is None:
            continue

        def said(group: str, m: re.Match[str] = m) -> str:
            return sentence[index[m.start(group)] : index[m.end(group)]]

        thing, quality = said("thing").lower(), said("quality").lower()
        det = m.groupdict().get("det") or ""
        entry = lang.complaint_entry.format(
            thing=thing,
            Thing=thing[:1].upper() + thing[1:],
            quality=quality,
            article=dict(lang.complaint_articles).get(det, ""),
        )
        rest = sentence[index[m.end()] :].strip(" ,;:.!")
        return (f"{entry}, {rest}" if rest else entry), fold(thing)[0]
    return None


@dataclass(frozen=True)
class _Cue:
    begin: int
    finish: int

    def start(self) -> int:
        return self.begin

    def end(self) -> int:
        return self.finish


_AND_BUT = _shape("{and_but}")


def _clause_cue(patterns: tuple[re.Pattern[str], ...], folded: str) -> _Cue | None:
    """The earliest match of ``patterns`` in ``folded``, each clause read as if it opened the
    sentence ("Whenever you summarise, use bullets": "use" opens its clause) — but for a clause
    after "and" in a sentence whose subject is a thing or people named ("Die Senate lesen das
    ausgedruckt und blättern nicht nach unten"): that clause is theirs too."""
    third = _THING_SUBJECT.match(folded) is not None
    starts = [0] + [
        m.end()
        for m in _CLAUSE_END.finditer(folded)
        if not (third and _AND_BUT.fullmatch(m.group(0).strip()))
    ]
    found: list[_Cue] = []
    for s in sorted(set(starts)):
        s += len(folded[s:]) - len(folded[s:].lstrip())
        for pattern in patterns:
            m = pattern.search(folded, s) if not pattern.pattern.startswith("^") else None
            if m is None and pattern.pattern.startswith("^"):
                m = pattern.match(folded[s:])
                if m is not None:
                    found.append(_Cue(s + m.start(), s + m.end()))
                continue
            if m is not None:
                found.append(_Cue(m.start(), m.end()))
    return min(found, key=lambda c: c.begin) if found else None


#: Before a demonstrative, a word that makes it a kind ("exclusions like this one", "como esta").
_LIKE = _shape(r"\b{like}\s+$")
#: An indefinite pronoun: the "that" after it starts a relative clause ("anything that …").
_INDEFINITE = _shape(r"\b(?:{indefinite_pronouns}|{any_determiners}(?:\s+[a-z-]+){1,2})\s+$")


#: A pronoun that may point back to a noun named before it in the same sentence.
_BACK = _shape("{back_pronouns}")
_NAMED_BEFORE = _shape(r"\b{named_determiners}\s+[a-z-]{3,}")
#: "Here" as the place of the work: closing a sentence ("No npm here."), or after a passive
#: or a general subject ("Auf main wird hier nicht direkt gepusht", "on ne fait pas ça ici").
_HERE = _shape("{here}")
_PASSIVE_BEFORE = _shape(r"\b{general_subjects}\s+$")
#: After a team's rule is named, where the rule itself starts ("la règle de la maison,
#: décidée avec la direction, c'est que …", "our policy is that …", "la norma es que …").
_THAT_IS = _shape(r"\b{rule_starts}\s*")
#: A sentence opening on "otherwise": the reason for the request before it.
_OTHERWISE = _shape(r"{otherwise}\b")
#: Right before a pronoun, a word that makes it any thing of its kind ("si c'est un extrait").
_SUBORDINATE = _shape(r"\b{if_when}\s+$")
#: A wish whose subject is a thing, not the agent ("estaría bien que la carta se pudiera
#: imprimir", "it would be nice if the page kept the filters"): a feature request.
_THING_SUBJECT = _shape(r"{articles}\b")


#: After a demonstrative, where the work happens ("in this repo", "en este equipo"): the
#: place every session of it shares, not one thing of this one.
_CONTEXT = _shape(r"\s+{workplaces}\b")
#: A plural demonstrative that a relative clause defines names a kind ("diese Kommentare, die
#: nur nacherzählen", "those comments that only repeat the code", "ces phrases qui …").
_PLURAL_DEMONSTRATIVE = _shape("{plural_demonstratives}$")
_RELATIVE = _shape(r"^\s+(?:[\w'-]+\s+){0,2}?[\w'-]+\s*,?\s+{relative_pronouns}\b")
_IS_AFTER_IT = _shape(r"{is_after_it}\b")


def _deictic(folded: str, langs: list[Language], after: str = "") -> bool:
    """True when a demonstrative or a numbered place makes ``folded`` about one thing of this
    session; "like this one", "comme celle-ci", "como esta", "wie diese" name a kind, and so
    does a plural demonstrative a relative clause defines ("those comments that …"; ``after``:
    the rest of the sentence); "this repo", "este equipo" name where the work happens."""
    for pattern in _patterns(langs, "deictic"):
        for m in pattern.finditer(folded):
            if _LIKE.search(folded[: m.start()]):
                continue
            if m.group(0) == "that" and _INDEFINITE.search(folded[: m.start()]):
                continue  # "anything that leaves us …": a relative pronoun, no demonstrative
            following = folded[m.end() :] + after
            if _BACK.fullmatch(m.group(0)) and _NAMED_BEFORE.search(folded[: m.start()]):
                continue  # "edit the test to make it pass": "it" is the test just named
            if _HERE.fullmatch(m.group(0)) and (
                not following.strip(" .!,;:") or _PASSIVE_BEFORE.search(folded[: m.start()])
            ):
                continue  # "No npm here.", "Auf main wird hier nicht …": where the work is
            if _SUBORDINATE.search(folded[: m.start()]) and (
                m.group(0) == "c'est" or _IS_AFTER_IT.match(folded[m.end() :])
            ):
                continue  # "dis-moi si c'est un extrait", "tell me if it is complete": any one
            if _CONTEXT.match(following):
                continue
            if _PLURAL_DEMONSTRATIVE.search(m.group(0)) and _RELATIVE.match(following):
                continue
            return True
    return False


#: Where the reason for a request starts ("…, because …", "…, que se me han acabado …",
#: "…, car …", "…, weil …"): a circumstance of this session, never copied into the entry.
_REASON = _shape(r"(?:,\s*|\s+){reasons}\b|,\s*{reasons_after_comma}\s")


#: "and" right before a cue: the clause before it is part of the request.
_AND_BEFORE = _shape(r"\s{and}\s+$")


#: A condition that recurs ("whenever …,", "dès que …,", "sobald …,") or is said of any one
#: thing ("if a change touches …,", "wenn eine Änderung … betrifft,"): what follows holds each
#: time, a rule ("if it fails, …" is this session's one thing).
_GENERAL_CONDITION = _shape(
    r"^(?:{and_but}\s+)?(?:{every_time_conditions}|{if_when}\s+(?:{indefinite_subjects}))\b"
    r"[^,;:.!?]{3,}?,\s*"
)


#: The phrase a sentence opens on before its first comma, when a preposition opens it.
_SCOPED = _shape(r"^(?:{scope_prepositions})\s+[^,;:.!?]{2,60}?(?=,)")
#: Without a comma, its first three words ("En esta traducción pon siempre …").
_SCOPED_SHORT = _shape(r"^(?:{scope_prepositions})\s+[\w'-]+\s+[\w'-]+")
#: A sentence opening on what holds unless said otherwise ("by default", "par défaut", "por
#: defecto", "standardmäßig").
#: ``lead``: one word and a comma before it ("nein, standardmäßig …"), not copied.
_DEFAULT = _shape(r"^(?P<lead>[a-z]+\s*,\s*)?(?:{and_but}\s+)?(?:{defaults})\b\s*,?\s*")
#: What follows a scope phrase when a rule is said after its colon ("… : un accusé de réception
#: sous 48 h"): three words at least.
_RULE_AFTER_COLON = re.compile(r"[^,:;.!?]{0,40}:\s*(?:[\w'-]+\W+){2,}[\w'-]+")


def _directive(
    sentence: str,
    folded: str,
    index: list[int],
    langs: list[Language],
    cues: _TurnCues,
    asked: bool = False,
    wished: bool = False,
) -> str | None:
    """A request said without a trigger word (see the module), as the text of an entry; None
    when the sentence asks nothing that holds beyond this session. ``asked``: a hedge or a
    polite question was dropped, so the sentence is a request whatever its mood; ``wished``:
    what was dropped is a wish about how the agent works ("I'd rather you …"), a preference
    that holds beyond this session unless it is about one thing of it."""
    if wished and _THING_SUBJECT.match(folded):
        return None  # a feature of the product wished for, not how the agent works
    if (
        _QUOTE.search(folded)
        and _opens_on(_patterns(langs, "edit_verbs") + _patterns(langs, "tasks"), folded)
        and not any_match(_patterns(langs, "standing"), _QUOTE.sub(" ", folded))
    ):
        # "add a line to the handbook: 'staff must always lock their screen'": the words put
        # into this session's document, not a request
        return None
    scoped = _SCOPED.match(folded) or _SCOPED_SHORT.match(folded)
    if scoped is not None and _deictic(scoped.group(0), langs):
        # "Pour la clôture de ce trimestre, tu arrondis toujours …", "Dans ce dossier-là, tu
        # mets toujours …": an opening phrase that scopes the request to this one thing
        return None
    default = _DEFAULT.match(folded)
    after = markers.words(folded[default.end() :]) if default is not None else []
    if default is not None and len(after) >= 4 and not _deictic(" ".join(after[:3]), langs):
        # "by default you mark up the other side's draft in their own file, …": what holds
        # unless said otherwise, a rule by its very words (its "it", "those" are the kind's)
        return sentence[index[default.end("lead")] :] if default.group("lead") else sentence
    extends = any_match(_patterns(langs, "extends"), folded)
    if (
        extends is not None
        and extends.start() == 0
        and not _RULE_AFTER_COLON.match(folded, extends.end())
    ):
        # "Same for anything you draft for me.": what the request before holds for ("pour
        # tous les postes : un accusé de réception sous 48 h" says the rule after its colon)
        return None
    if extends is not None:
        rest = folded[: extends.start()] + folded[extends.end() :]
        if len(markers.words(rest)) <= 2:
            return None  # "Bitte immer so.", "en todos los contratos, eh": the turn's scope
    stop = _clause_cue(_patterns(langs, "cessation"), folded)
    general = _clause_cue(_patterns(langs, "general"), folded)
    cue = stop or general or _clause_cue(_patterns(langs, "mood"), folded)
    if cue is None and asked and folded.strip():
        cue = _Cue(0, 1)
    if cue is None:
        # A norm said without a verb ("Firm but friendly with suppliers, always.", "trois
        # phrases max"): standing as said, unless it is about one thing of this session; the
        # reason after it is not the norm ("…, always, so we can switch it off").
        reason = _REASON.search(folded)
        if reason is not None and len(markers.words(folded[: reason.start()])) >= 4:
            said, folded = sentence[: index[reason.start()]], folded[: reason.start()]
        else:
            said = sentence
        ruled = _universal_rule(said, folded, index, langs)
        if ruled is not None:
            return ruled
        exception = _EXCEPTION_AFTER.search(folded)
        condition = _GENERAL_CONDITION.match(folded)
        checked = folded[: exception.start()] if exception else folded
        if _deictic(checked, langs) and (
            condition is None or _deictic(checked[condition.end() :], langs)
        ):
            # (what an exception says is there: "…, sauf …, là c'est en anglais"; a recurring
            # condition's "ça" is any one thing: "dès que ça touche à …")
            return None
        if any_match(_patterns(langs, "edit_verbs") + _patterns(langs, "tasks"), folded):
            return None  # "traduis le contrat en anglais": a piece of work, not a norm
        if any_match(_patterns(langs, "norm"), folded):
            return said
        if any_match(_patterns(langs, "preferences"), folded) and len(markers.words(folded)) >= 5:
            return said  # "Mir ist lieber, wenn E-Mails an Mandanten mit … anfangen, …"
        opener = _general_opener(folded, langs)
        if opener is not None:
            return said[index[opener] :] if opener < len(index) else None
        colon = folded.find(":")
        if (
            colon > 0
            and any_match(_patterns(langs, "standing"), folded[:colon])
            and len(markers.words(folded[colon + 1 :])) >= 3
            and "," in folded[colon + 1 :]
        ):
            # what each of a kind of thing holds, listed after a colon ("für jede Kostennote,
            # die du erstellst: Zeitraum, Stunden, Stundensatz"), never one clause after it
            return said
        if condition is not None and len(markers.words(folded[condition.end() :])) >= 4:
            return said  # "dès que ça touche à la base clients, tu me montres la requête …"
        if (
            cues.extends
            and any_match(_patterns(langs, "standing"), folded)
            and len(markers.words(folded)) >= 4
        ):
            # how a thing is done as a rule, and the turn says "always like this": a request
            # ("Die Gegenseite wird in Mails grundsätzlich gesiezt. Bitte immer so.")
            return sentence
        return None
    start, end = _clause(folded, max(cue.start(), cue.end() - 1))
    if _deictic(folded[start:end], langs, folded[end:]):
        return None  # one thing of this session
    before = folded[:start]
    if (
        start > 0
        and _deictic(before, langs)
        and not _KIND_OF.search(before)
        and _FREQUENCY.match(folded[cue.start() :])
    ):
        return None  # "estoy harto de este cliente, siempre cambia todo": that one's habit
    if (
        _opens_on(_patterns(langs, "tasks"), folded)
        and _OF_A_COLLECTION.search(folded)
        and not _FREQUENCY.search(folded)
        and not cues.extends
    ):
        return None  # "Go through every invoice in the march folder and flag …": a piece of work
    if (
        any_match(_patterns(langs, "standing"), folded)
        or (
            any_match(_patterns(langs, "norm"), folded)
            and not any_match(_patterns(langs, "tasks") + _patterns(langs, "edit_verbs"), folded)
        )
        or cues.extends
        or _GENERAL_CONDITION.match(folded)
        or any_match(_patterns(langs, "preferences"), folded)
    ):
        pass  # a word, a norm ("… hat in Testdaten nichts verloren, nimm …"), a preference of
        # the person ("the way I like letters …") or a recurring condition ("dès que ça touche
        # à la base clients, tu me montres …") makes it hold
    elif any_match(_patterns(langs, "contrast"), folded) and not any_match(
        _patterns(langs, "tasks") + _patterns(langs, "edit_verbs"), folded[start:].lstrip()
    ):
        pass  # "usa la réplica de lectura, no la primaria": one preferred to the other
    elif any_match(_patterns(langs, "particular"), folded):
        return None  # "write integration tests for the new refund endpoint": this session's work
    elif stop or general or wished:
        if cues.current:
            return None  # about what the agent is doing right now
    elif cues.reproach:
        if any_match(_patterns(langs, "edit_verbs"), folded[start:].lstrip()):
            return None  # one change to the work, asked again
    else:
        return None
    reason = _REASON.search(folded, cue.end())
    if reason is not None and len(markers.words(folded[cue.start() : reason.start()])) >= 3:
        sentence = sentence[: index[reason.start()]]  # the request, not why it is asked
    if stop is not None and not _AND_BEFORE.search(folded[: stop.start()]):
        request = sentence[index[stop.start()] :]  # what comes before the stop is a lead-in
    else:
        request = sentence  # "Quita axios … y no lo vuelvas a añadir": the stop adds to it
    for lang in langs:
        for pattern, replacement in lang.rephrase:
            request = pattern.sub(replacement, request, count=1)
    return request


#: A rule whose subject is any one of a kind of thing, at the start of the sentence or after its
#: colon or dash ("any sentence over thirty words … gets split", "… : chaque fichier que tu crées
#: commence par …", "Alles über zehn Seiten bekommt ein Inhaltsverzeichnis").
_UNIVERSAL_SUBJECT = _shape(
    r"(?:^|:\s*|\s[–—-]\s+)(?:{and_but}\s+)?({universal_subjects})\s+(?!(?:{time_words})\b)[a-z-]+"
)
#: What the person refuses for any one of a kind of thing unless a condition holds ("I won't sign
#: off on any settlement figure unless …", "Je ne valide aucune facture sans …", "No acepto
#: ningún informe si no …", "Ich gebe keinen Vertrag frei, ohne dass …").
_REFUSED_UNLESS = _shape(
    r"\b(?:{universal_subjects})\s+[a-z-]+(?:[\s,]+[a-z-]+){0,3}?[\s,]+(?P<unless>{unless})\b"
)


def _universal_rule(
    sentence: str, folded: str, index: list[int], langs: list[Language]
) -> str | None:
    """A rule said of any one of a kind of thing, without a verb of request: its subject is
    "any"/"every"/"chaque"/"cualquier"/"jede" … (from there on, six words or more), or the
    person refuses any one of them unless a condition holds (the negation before it). A
    pronoun after the condition is the thing itself ("… unless it comes with the workings");
    one before it, or a demonstrative, is this session's. None otherwise."""
    subject = _UNIVERSAL_SUBJECT.search(folded)
    if subject is not None:
        start = subject.start(1)
        rest = folded[start:]
        if len(markers.words(rest)) >= 6 and not _deictic(rest, langs):
            return sentence[index[start] :]
    refused = _REFUSED_UNLESS.search(folded)
    if (
        refused is not None
        and _negated(folded[: refused.start("unless")])
        and not _deictic(folded[: refused.end()], langs)
    ):
        return sentence
    return None


def _general_opener(folded: str, langs: list[Language]) -> int | None:
    """Where the rule starts in a sentence that opens on a word making it general ("in
    general: nothing in a damages calculation gets rounded, ever, …", "De manière générale,
    le nom des parties ne se traduit jamais …") and says so again after it (a time or
    frequency cue, or a negation: "nothing", "jamais", "every line"), in six words or more; None
    otherwise ("In general, the contract looks fine.")."""
    for pattern in _patterns(langs, "standing"):
        m = pattern.match(folded)
        if m is None:
            continue
        rest = folded[m.end() :]
        start = m.end() + len(rest) - len(rest.lstrip(" ,:;-"))
        rest = folded[start:]
        if len(markers.words(rest)) < 6:
            return None
        again = any_match(_patterns(langs, "standing"), rest)
        return start if again is not None or _negated(rest) else None
    return None


def _what_holds_now(
    said: str, candidate: _Candidate | None, turn: list[Language] | None = None
) -> str | None:
    """What ``said`` asks from now on, on a cue that something changed ("from now on it goes
    out on Wednesday at noon", "Dorénavant tu l'envoies …", "Ab sofort am ersten Werktag …"):
    the memory ``add`` found in it, or, when none was (a pronoun for the thing: "it goes out
    …"), the sentence itself opening on that cue; None otherwise. "From now on" makes "on
    Wednesday" the new day of a habit, not this week's. ``turn``: the languages of the whole
    turn, read too (a short sentence is easily taken for another language)."""
    folded = fold(said)[0]
    langs = list(dict.fromkeys(markers.detect(folded) + (turn or [])))
    if "?" in said or "¿" in said or not any_match(_patterns(langs, "change_cues"), folded):
        return None
    if candidate is not None:
        if candidate.action != "add" or candidate.route != "memory":
            return None
        return (candidate.text or "").rstrip() or None
    if not _opens_on(_patterns(langs, "change_cues"), folded):
        return None
    if _negated(" ".join(markers.words(folded)[:8])):
        return None  # "from now on it doesn't …"; a negation later is a condition of its own
    if not any_match(_patterns(langs, "standing"), folded) and any(
        any_match(lang.not_standing, folded) for lang in langs
    ):
        return None
    text = _clean(_prepare(said, langs).text, langs[0] if len(langs) == 1 else None)
    return text if len(markers.words(fold(text)[0])) >= 3 else None


def _with_name(head: str, target: str, text: str) -> str | None:
    """``text``, the new wording of the entry ``target``, after the words of ``head`` that named
    it and a colon ("Partners' weekly list: it goes out on Wednesday at noon."; " : " when the
    head was written the French way); None when ``head`` names it by fewer than two words."""
    words = {w for w in _content_words(head) if not w.isdigit()}
    shared = _shared(words, _content_words(target))
    named = _named_span(head, shared) if len(shared) >= 2 else None
    if named is None:
        return None
    sep = " : " if head.endswith((" ", "\u00a0")) else ": "  # « … : … »
    return f"{named[0].upper()}{named[1:]}{sep}{text[:1].lower()}{text[1:]}"


#: A topic named first, then a comma ("lo del aviso de envio, a partir de ahora …", "pour les
#: fiches de paie, à partir de maintenant …"): a noun phrase opening on a topic marker or an
#: article, at most eight words.
_TOPIC_HEAD = _shape(r"^((?:{topic_markers}|{articles})\b(?:\s*[\w'’-]+){1,8}?)\s*,\s*\S")
_TOPIC_MARKER = _shape(r"^(?:{topic_markers})\s*")


def _with_topic(head: str, text: str) -> str:
    """``text``, the new wording of an entry, after the topic ``head`` that named it without its
    marker ("Aviso de envio: en cuanto salga el camion, …")."""
    folded, index = fold(head)
    m = _TOPIC_MARKER.match(folded)
    named = head[index[m.end()] :] if m and m.end() < len(index) else head
    named = named.strip()
    return f"{named[:1].upper()}{named[1:]}: {text[:1].lower()}{text[1:]}"


def _named_first(sentence: str, target: str, text: str) -> str:
    """``text``, a new wording that opens on a pronoun for the thing ("It goes out on Wednesday
    …"), after the words before the sentence's colon that named the entry ("Weekly status list
    for the partners: it goes out …"); ``text`` as it is otherwise. Without a colon the whole
    sentence is the head, so ``sentence`` must not hold ``text`` then."""
    if not _PRONOUN_OPENS.match(fold(text)[0]):
        return text
    folded, index = fold(sentence)
    colon = folded.find(":")
    head = sentence[: index[colon]] if colon > 0 else sentence
    return _with_name(head, target, text) or text


def _named_span(text: str, shared: set[str]) -> str | None:
    """The words of ``text`` from the first to the last that ``shared`` holds ("partners'
    weekly list" in "small adjustment to the partners' weekly list"), at most six words; None
    when they are further apart."""
    folded, index = fold(text)
    spans = [
        m.span() for m in _WORDS.finditer(folded) if any(_same_word(m.group(0), w) for w in shared)
    ]
    if not spans:
        return None
    start, end = spans[0][0], spans[-1][1]
    if len(_WORDS.findall(folded[start:end])) > 6:
        return None
    end_at = index[end] if end < len(index) else len(text)
    named = text[index[start] : end_at]
    if end_at < len(text) and text[end_at] == "'":
        named += "'"  # "the partners' list"
    return named.strip()


def _dropped_again(sentences: list[str], found: list[_Candidate | None]) -> list[_Candidate | None]:
    """``found`` without an ``add`` from a sentence that drops something ("Lass die künftig
    einfach weg.", "Tu ne le fais plus.") in a turn that removes an entry: it says that
    removal again."""
    if not any(c is not None and c.action in ("remove", "modify") for c in found):
        return found
    out = list(found)
    for i, said in enumerate(sentences):
        candidate = out[i]
        if candidate is None or candidate.action != "add":
            continue
        folded = fold(said)[0]
        langs = markers.detect(folded)
        if any_match(_patterns(langs, "remove") + _patterns(langs, "cessation"), folded):
            out[i] = None
        elif _stops(folded, langs) and len(_content_words(said)) <= 2:
            out[i] = None  # "Tu ne le fais plus.", "no la hagas más": that removal again
    return out


def _replaced(found: list[_Candidate | None], sentences: list[str]) -> list[_Candidate | None]:
    """``found`` with a removed entry and a new request on what it settled ("a partir de
    ahora lo primero que miras son las penalizaciones. La protección de datos ya la revisa la
    DPO" on "Revisar primero las cláusulas de protección de datos.": they share "primero") as
    one ``modify`` of that entry, in its section: a change of mind is never a remove and an
    add. The new request may also be the next sentence saying what holds now on the same
    subject, opening on what says so ("Lo de empezar por los pagos ya no. Ahora lo primero es
    la duración …"); "The annex was withdrawn, procurement negotiates per supplier now" says
    why, not what to do instead."""
    removes = [c for c in found if c is not None and c.action == "remove"]
    if len(removes) != 1 or removes[0].target is None:
        return found
    gone = removes[0]
    known = {w for w in _content_words(gone.target or "") if not w.isdigit()}
    out = list(found)
    for i, candidate in enumerate(out):
        if candidate is None or candidate.action != "add" or candidate.route != "memory":
            continue
        said = {w for w in _content_words(candidate.text or "") if not w.isdigit()}
        if not _shared(said, known):
            continue
        at = out.index(gone)
        out[at] = dataclasses.replace(gone, action="modify", text=candidate.text)
        out[i] = None
        return out
    at = next(i for i, c in enumerate(found) if c is gone)
    nxt = found[at + 1] if at + 1 < len(found) else None
    if at + 1 < len(sentences) and (nxt is None or (nxt.action == "add" and nxt.route == "memory")):
        then = sentences[at + 1].strip()
        folded, index = fold(then)
        langs = markers.detect(folded)
        if nxt is not None and _opens_on(_patterns(langs, "change_cues"), folded):
            out[at] = dataclasses.replace(gone, action="modify", text=nxt.text)
            out[at + 1] = None  # "… ist überholt. Ab jetzt K-2026-0418, …": what replaces it
            return out
        if nxt is None and (
            "?" not in then
            and "¿" not in then
            and _opens_on(_patterns(langs, "change_cues"), folded)
            and not any(any_match(lang.not_standing, folded) for lang in langs)
        ):
            reason = _REASON.search(folded)
            if reason is not None and len(markers.words(folded[: reason.start()])) >= 4:
                then = then[: index[reason.start()]]
            text = _clean(_prepare(then, langs).text, langs[0] if len(langs) == 1 else None)
            if len(markers.words(fold(text)[0])) >= 4:
                out[at] = dataclasses.replace(gone, action="modify", text=text)
    return out


def _then_what(found: list[_Candidate | None], sentences: list[str]) -> list[_Candidate | None]:
    """``found`` with a ``modify`` that only says an entry must change ("Die Vorfrist ist zu
    kurz, …", "the tracked-changes thing has to change.") given the new wording of the request
    after it, the next sentence or the one after a reason ("Mach zwei Wochen draus, bei allen
    Fristen.", "… needs updating. clients are tired of … from now on you only send …"), or,
    when the change is announced with its cue ("… machen wir ab jetzt anders: der Keller ist
    voll."), the next sentence on the entry's subject ("Abgeschlossene Akten werden eingescannt
    …"): one modify, never a modify and an add."""
    out = list(found)
    turn = markers.detect(fold(" ".join(sentences))[0])
    for i, candidate in enumerate(out[:-1]):
        if candidate is None or candidate.action != "modify":
            continue
        folded = fold(sentences[i])[0]
        if fold(candidate.text or "")[0].rstrip(".!") not in folded:
            continue  # the modify carries its own new wording (a figure, a quote, a colon's)
        for k in range(i + 1, min(i + 3, len(sentences))):
            nxt = out[k]
            if nxt is None:
                text = _what_holds_now(sentences[k], None, turn)
                if text is None and k == i + 1:
                    text = _same_subject(sentences[k], candidate.target or "", folded, turn)
                if text is None and k == i + 1:
                    # "… die kommen zu spät. PS: eine Woche vorher, nicht drei Tage."
                    text = _new_value(sentences[k], turn)
                if text is None:
                    continue  # a reason in between ("clients are tired of …")
                # "… that needs changing. From now on it goes out Wednesday at noon.": a pronoun
                # for the thing, what holds now said on the cue it opens with
                text = _named_first(sentences[i], candidate.target or "", text)
                nxt = _Candidate("add", "memory", None, None, text, "")
            if (
                nxt.action == "add"
                and nxt.route == "memory"
                and len(_content_words(nxt.text or "")) >= 2
            ):
                out[i] = dataclasses.replace(candidate, text=nxt.text)
                out[k] = None
            break
    return out


def _new_value(said: str, turn: list[Language]) -> str | None:
    """``said`` as the new value an announced change asks for, when it is one short phrase
    that puts it in place of the old ("a month before, not the current timing.", "Eine Woche
    vorher, nicht drei Tage."): eight words at most, a contrast or a replacement in it, no
    question. None otherwise."""
    folded = fold(said)[0]
    if "?" in said or "¿" in said or len(markers.words(folded)) > 8:
        return None
    if not any_match(_patterns(turn, "contrast") + _patterns(turn, "replace"), folded) and not (
        _NOT_THE_OLD.search(folded)
    ):
        return None
    return _clean(said, turn[0] if len(turn) == 1 else None)


#: A short phrase closing on what it replaces (", not three days", ", nicht drei Tage").
_NOT_THE_OLD = _shape(r",\s*(?:{negators})\s+[\w-]+(?:\s+[\w-]+){0,2}\s*[.!]*$")


#: A new request opening on a pronoun for the thing ("it goes out …", "from now on it …").
_PRONOUN_OPENS = _shape(r"^(?:[a-z]+\s+){0,3}?{back_pronouns}\b")


def _same_subject(said: str, target: str, announced: str, turn: list[Language]) -> str | None:
    """``said`` as the new wording of ``target`` when the sentence before announced the change
    with a cue of its own ("… machen wir ab jetzt anders") and ``said`` states how it is done
    now on the entry's subject (two of its content words), plainly: no question, no negation,
    four words or more. None otherwise."""
    if "?" in said or "¿" in said or not any_match(_patterns(turn, "change_cues"), announced):
        return None
    folded = fold(said)[0]
    words = {w for w in _content_words(said) if not w.isdigit()}
    if len(_shared(words, _content_words(target))) < 2 or _negated(folded):
        return None
    text = _clean(said, turn[0] if len(turn) == 1 else None)
    return text if len(markers.words(fold(text)[0])) >= 4 else None


#: A pronoun closing a two-word request: it names no thing a preference could be about.
_PRONOUNS = _shape("{pronouns}")
#: A preposition before a quantifier: "all" is part of the task's object ("ein Skript, das
#: aus allen Verträgen … zieht", "the dates from every contract in the folder").
_OBJECT_OF = _shape(r"\b{object_prepositions}\s+$")


def _standing_beyond_object(folded: str, langs: list[Language]) -> bool:
    """True when a word of ``folded`` makes it standing, other than a quantifier of the object
    of the task it asks for."""
    return any(
        not _OBJECT_OF.search(folded[: m.start()])
        for p in _patterns(langs, "standing")
        for m in p.finditer(folded)
    )


def _opens_on(patterns: tuple[re.Pattern[str], ...], folded: str) -> bool:
    """True when one of ``patterns`` matches where ``folded`` opens."""
    return any((m := p.search(folded)) is not None and m.start() == 0 for p in patterns)


def _with_what_was_rejected(
    found: list[_Candidate | None], sentences: list[str]
) -> list[_Candidate | None]:
    """``found`` with a request joined to the clause just before it that rejects how a thing
    was done and names the thing ("las fechas así no" + "pon '3 de febrero de 2027' …" → "Las
    fechas así no; pon …"): without it the request does not say what it is about."""
    out = list(found)
    for i in range(1, len(out)):
        candidate = out[i]
        if candidate is None or candidate.action != "add" or out[i - 1] is not None:
            continue
        before = sentences[i - 1].strip()
        folded, index = fold(before)
        langs = markers.detect(folded)
        m = any_match(_patterns(langs, "rejects"), folded)
        if m is None or "?" in before:
            continue
        start, end = _clause(folded, m.start())
        named = before[index[start] : index[end]].strip(" ,;:.!")
        if len(markers.words(fold(named)[0])) < 3:
            continue  # "not like that": it names nothing
        out[i] = dataclasses.replace(candidate, text=_joined(named, "; ", candidate.text or ""))
    return out


def _stops(folded: str, langs: list[Language]) -> bool:
    """True when a sentence stops a habit or says something holds no longer ("stop pulling
    …", "n'utilise plus …", "deja de usar …", "nimm nicht mehr …")."""
    return (
        any_match(_patterns(langs, "cessation"), folded) is not None
        or (_negated(folded) and any_match(_patterns(langs, "no_longer"), folded) is not None)
        or _NEVER_AGAIN.match(folded) is not None
        or _BARE_NO.match(folded) is not None
    )


#: A bare "No X (here)." ("No npm here.", "Pas de jQuery.", "Keine Tabs."): X stops.
_BARE_NO = _shape(r"{no_determiners}\s*[\w.-]+(?:\s+{here})?\s*[.!]*$")
#: A short sentence opening on "no" ("No exceptions for the supplier's home turf."): beside a
#: team rule, part of it.
_BARE_NO_OPENING = _shape(r"{no_openings}\s+(?:[\w'-]+\s+){0,6}[\w'-]+[.!]*$")
#: "pnpm, only pnpm.": what is used instead, said without a verb.
_ONLY = _shape(r"\b{only}\b")


#: "Never again X" opening a sentence ("Plus jamais d'emojis", "nunca más", "nie wieder").
_NEVER_AGAIN = _shape(r"{never_again}\b")


def _with_replacement(
    found: list[_Candidate | None], sentences: list[str]
) -> list[_Candidate | None]:
    """``found`` with a request that stops something joined to the next sentence when that one
    says what is used instead ("stop pulling from the old sharepoint precedents …" +
    "everything is in the Ironclad clause library now": one entry). The next sentence says it
    when it is a request itself or says what holds now (``change_cues``: "now", "depuis",
    "ahora", "jetzt"); never a question."""
    out = list(found)
    for i, candidate in enumerate(out[:-1]):
        if candidate is None or candidate.action != "add" or candidate.route != "memory":
            continue
        folded = fold(sentences[i])[0]
        langs = markers.detect(folded)
        if not _stops(folded, langs):
            continue
        then = sentences[i + 1].strip()
        nxt = out[i + 1]
        following = fold(then)[0]
        if _NOW_TASK.match(following):
            start, end = _clause(folded, 0)
            if len(_content_words(folded[start:end])) <= 2:
                out[i] = None  # "Hör auf damit. Jetzt zeig mir Paragraph 3.": stop it, now
            continue
        if "?" in then or "¿" in then or len(markers.words(following)) < 2:
            continue
        if nxt is not None and (nxt.action != "add" or nxt.route != "memory"):
            continue
        if (
            nxt is None
            and any_match(_patterns(langs, "change_cues"), following) is None
            and not (_BARE_NO.match(folded) and _ONLY.search(following))
            and _YOU.match(following) is None
            and _WE.match(following) is None  # "hemos dicho que todo va a …": how we work
        ):
            continue
        if nxt is None and any(
            any_match(lang.not_standing, following) or any_match(lang.document_facts, following)
            for lang in langs
        ):
            continue
        then = _prepare(then, langs).text.strip()
        if not then:
            continue
        out[i] = dataclasses.replace(candidate, text=_joined(candidate.text or "", "; ", then))
        out[i + 1] = None
    return out


#: A concession ("…, even if we disclose nothing right now", "auch wenn …"): what it says of
#: now makes the rule no less standing.
_CONCESSION = _shape(r",?\s*\b{even_if}\b[^,.;:!?]*")
#: A sentence opening on an exception ("except the internal admin pages, …", "sauf …").
_EXCEPTION = _shape(r"^{exceptions}\b")
#: Where an exception starts inside a sentence ("…, sauf dans les dépôts open source, …").
_EXCEPTION_AFTER = _shape(r",\s*{exceptions}\b")
#: A question asking why the agent does a thing ("Warum hängst du jedes Mal …?").
_WHY_YOU = _shape(r"^{why}\b.*\b{you}\b")


def _with_exception(
    found: list[_Candidate | None], sentences: list[str]
) -> list[_Candidate | None]:
    """``found`` with a request joined to the sentence after it when that one opens on an
    exception ("… behind a feature flag first, always." + "except the internal admin pages,
    those can ship straight."): a rule without its exception is another rule."""
    out = list(found)
    for i, candidate in enumerate(out[:-1]):
        if candidate is None or candidate.action == "remove" or out[i + 1] is not None:
            continue
        then = sentences[i + 1].strip()
        if "?" in then or not _EXCEPTION.match(fold(then)[0]):
            continue
        out[i] = dataclasses.replace(candidate, text=_joined(candidate.text or "", "; ", then))
    return out


def _with_why_asked(
    found: list[_Candidate | None], sentences: list[str]
) -> list[_Candidate | None]:
    """``found`` with a request that names its thing by a pronoun only ("Lass das weg, bei
    allen Antworten.", "stop that") joined to the question just before it asking why the agent
    does the thing ("Warum hängst du jedes Mal eine Zusammenfassung an?"), one sentence that
    asks nothing between them at most: the question names what stops."""
    out = list(found)
    for i in range(1, len(out)):
        candidate = out[i]
        if candidate is None or candidate.action != "add":
            continue
        asked = [
            j
            for j in (i - 1, i - 2)
            if j >= 0
            and all(c is None for c in out[j:i])
            and sentences[j].strip().endswith("?")
            and _WHY_YOU.match(fold(sentences[j].strip())[0])
        ]
        if not asked:
            continue
        before = sentences[asked[0]].strip()
        start, end = _clause(fold(candidate.text or "")[0], 0)
        said = markers.words(fold(candidate.text or "")[0][start:end])
        if len(said) > 4 or not any(_PRONOUNS.fullmatch(w) for w in said):
            continue
        text = (candidate.text or "").strip()  # a new sentence after the "?": its case kept
        out[i] = dataclasses.replace(candidate, text=_clean(f"{before} {text}", None))
    return out


#: The person saying what they themselves always or never do ("I never read past the first
#: paragraph", "Je relis toujours sur papier", "Yo no abro enlaces", "Ich lese … nur ausgedruckt").
_OWN_HABIT = _shape(r"^{first_person}\s+(?:\S+\s+){0,3}?{habit_words}\b")
#: A sentence drawing the consequence of the one before ("So …", "Donc …", "Así que …", "Also …").
_CONSEQUENCE = _shape(r"^{consequences}\b\s*,?\s*")


def _alone(candidate: _Candidate, sentence: str) -> bool:
    """True when ``candidate`` adds to the memory what ``sentence`` says after its opening
    word ("So your summaries fit on one screen, always." read as "Your summaries …")."""
    said = fold(sentence)[0].rstrip(" .!")
    text = fold(candidate.text or "")[0].rstrip(" .!")
    return (candidate.action, candidate.route) == ("add", "memory") and said.endswith(text)


def _after_own_habit(
    found: list[_Candidate | None],
    sentences: list[str],
    extractor: _Extractor,
    where: str,
) -> list[_Candidate | None]:
    """``found`` with a request the person draws from a habit of their own ("I never read past
    the first paragraph of a review." + "So the deal-breakers go in that first paragraph,
    always."): the habit holds beyond this session, so does what follows from it; the entry
    is both sentences, the habit saying why (its "that first paragraph" is the habit's)."""
    out = list(found)
    for i in range(1, len(out)):
        read = out[i]
        if out[i - 1] is not None or (read is not None and not _alone(read, sentences[i])):
            continue  # (a request the sentence already gave alone is given its habit)
        before, then = sentences[i - 1].strip(), sentences[i].strip()
        if "?" in before or "?" in then or "¿" in then:
            continue
        said, _ = fold(then)
        opening = _CONSEQUENCE.match(said)
        if opening is None or not _OWN_HABIT.match(fold(before)[0]):
            continue
        rest = said[opening.end() :]
        langs = markers.detect(said)
        if len(markers.words(rest)) < 4 or any(
            extractor._one_off(lang, rest) or any_match(lang.document_facts, rest) for lang in langs
        ):
            continue
        if any_match(_patterns(langs, "tasks") + _patterns(langs, "edit_verbs"), rest):
            continue  # "So send it again.": a piece of work
        habit = set(markers.words(fold(before)[0]))
        if any(
            not set(markers.words(rest[m.end() :])[:1]) <= habit
            for pattern in _patterns(langs, "deictic")
            for m in pattern.finditer(rest)
        ):
            continue  # a demonstrative that does not point back at the habit's words
        text = _joined(before, ", ", then)
        if extractor._repeats(text):
            continue
        if read is not None:
            out[i] = dataclasses.replace(read, text=text)
            continue
        section = _section_for(text, extractor.sections, langs)
        out[i] = _Candidate("add", "memory", section, None, text, f"asked in {where}")
    return out


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
_MARK = re.compile(r"^\s*[-*•]\s+")  # a bullet's mark, not a step's number
#: An item of an ordered list: its items make one entry together (steps in their order), as
#: the lines of a list given one a line do (:func:`_one_a_line`: a set of wording pairs).
_NUMBERED_ITEM = re.compile(r"^\s*\d+[.)]\s+")


def _one_a_line(text: str) -> frozenset[str]:
    """The lines of ``text`` that follow a line ending in a colon that says they hold from now
    on (:func:`_standing_heading`), as a list's items ("Here's what I mean, for every reply:" +
    "not 'we regret …', but 'I'm sorry'" + …), when there are two or more and none is marked
    as an item already; a blank line ends the list."""
    lines = text.split("\n")
    out: set[str] = set()
    for i, line in enumerate(lines):
        if not line.rstrip().endswith(":") or not _standing_heading(line):
            continue
        j = i + 1
        while j < len(lines) and lines[j].strip() and not _BULLET.match(lines[j]):
            j += 1
        if j - i > 2 and (j == len(lines) or not lines[j].strip()):
            out.update(item.strip() for item in lines[i + 1 : j])
    return frozenset(out)


def _standing_heading(said: str) -> bool:
    """True when a heading says what follows it holds from now on ("pour les migrations,
    désormais :", "for every reply you write for me:")."""
    folded = fold(said)[0]
    langs = markers.detect(folded)
    return (
        any_match(_patterns(langs, "standing") + _patterns(langs, "change_cues"), folded)
        is not None
    )


def _under_heading(
    found: list[_Candidate | None],
    sentences: list[str],
    sections: tuple[str, ...],
    where: str,
    listed: frozenset[str] = frozenset(),
) -> list[_Candidate | None]:
    """``found`` with the items of a list under a heading that says they hold from now on
    ("pour les migrations, désormais :" + "- jamais de suppression …" + "- une migration = un
    seul changement …"): each item is a request, with the heading's words before it; the
    heading is no entry by itself."""
    out = list(found)
    for i, heading in enumerate(sentences[:-1]):
        said = heading.strip()
        following = sentences[i + 1]
        if not said.endswith(":") or not (_BULLET.match(following) or following.strip() in listed):
            continue
        if not _standing_heading(said):
            continue
        langs = markers.detect(fold(said)[0])
        lead = _clean(said.rstrip(" :"), None)
        j = i + 1

        def is_item(s: str) -> bool:
            return bool(_NUMBERED_ITEM.match(s)) or s.strip() in listed

        together = (
            len(sentences) > i + 2 and is_item(sentences[i + 1]) and is_item(sentences[i + 2])
        )
        if not together and _NAMES_A_LIST.search(fold(said)[0]):
            # "… se termine par cette liste :" + "- [ ] …" lines: the list is ONE entry
            bullets = len(sentences) > i + 2 and all(
                _BULLET.match(s) for s in sentences[i + 1 : i + 3]
            )
            if bullets:
                together, is_item = True, lambda s: bool(_BULLET.match(s))
        if together:
            j = _together(out, sentences, i, lead, sections, where, is_item)
        while not together and j < len(sentences) and _BULLET.match(sentences[j]):
            item = _BULLET.sub("", sentences[j]).strip()
            folded = fold(item)[0]
            candidate = out[j]
            if candidate is None and len(markers.words(folded)) >= 3 and "?" not in item:
                if not _deictic(folded, markers.detect(folded)):
                    text = _joined(lead, ": ", item)
                    section = _section_for(text, sections, langs)
                    out[j] = _Candidate("add", "memory", section, None, text, f"asked in {where}")
            elif candidate is not None and candidate.action == "add" and candidate.text:
                out[j] = dataclasses.replace(candidate, text=_joined(lead, ": ", candidate.text))
            j += 1
        before = out[i]
        if j > i + 1 and before is not None and before.action == "add":
            out[i] = None
    return out


def _together(
    out: list[_Candidate | None],
    sentences: list[str],
    i: int,
    lead: str,
    sections: tuple[str, ...],
    where: str,
    is_item: Callable[[str], bool],
) -> int:
    """The items after heading ``i`` as ONE entry (the heading's words, then the items in
    their order), set on the first item in ``out``; the others say nothing of their own.
    Returns the index after the last item."""
    j = i + 1
    items = []
    while j < len(sentences) and is_item(sentences[j]):
        items.append(_MARK.sub("", sentences[j]).strip().rstrip(" .;,"))  # "- [ ] …": "[ ] …"
        out[j] = None
        j += 1
    text = _joined(lead, ": ", "; ".join(items) + ".")
    # the heading says what the items are for ("1. … 2. then …" is no dependency of rules)
    section = _section_for(lead, sections, markers.detect(fold(text)[0]))
    if _WRITING in sections and sum(bool(_QUOTE.search(x)) for x in items) * 2 > len(items):
        section = _WRITING  # "not 'we regret …', but 'I'm sorry'": wordings, one a line
    out[i + 1] = _Candidate("add", "memory", section, None, text, f"asked in {where}")
    return j


#: A heading naming the list that follows ("… ends with this checklist:", "cette liste :").
_NAMES_A_LIST = _shape(r"\b(?:{list_words})\b")
#: What widens a turn's words to every one of a kind ("every morning", "todas las PR").
_EVERY_ONE = _shape(r"\b(?:{quantifiers})\s+(?!(?:{time_words})\b)[\w-]+")
#: The agent addressed anywhere in a sentence ("… you book", "tu me le demandes").
_ADDRESSED = _shape(r"\b(?:{you})\b")
#: A condition on what the sentence before named ("if they're missing", "s'il manque"), or a
#: request opening on it ("esas las mandas tu directamente").
_IF_IT = _shape(r"^(?:{if_it})")
_THOSE = _shape(r"^(?:{those})\b")


def _closed_by_scope(
    found: list[_Candidate | None],
    sentences: list[str],
    sections: tuple[str, ...],
    where: str,
    reacting: bool,
) -> list[_Candidate | None]:
    """``found`` with one request more when a turn that answers the agent's work
    (``reacting``) closes on a short sentence widening what came just before it to every one
    of a kind ("every morning, not just today", "para todas las PR que abras, siempre", "das
    ist deine Rolle bei jedem Angebot, das ich dir gebe") and those sentences (two at most)
    said no request of their own: they are the request, with the closing words; after a
    request said just before them, they are its end ("Por defecto, … de usted. Solo si … le
    tuteamos. Para todos los tickets, no solo este.")."""
    last = len(sentences) - 1
    if not reacting or last < 1 or any(c is not None and c.action != "add" for c in found):
        return found  # (a turn that changes an entry: its last words are about the change)
    closer = sentences[last].strip()
    folded = fold(closer)[0]
    own = found[last]
    if own is not None and not (
        own.action == "add"
        and len(markers.words(fold(own.text or "")[0])) <= 6
        and fold(own.text or "")[0].rstrip(".!") in folded
    ):
        return found  # the closing sentence asks something of its own ("For every supplier.")
    size = len(markers.words(folded))
    langs = markers.detect(folded)
    # (what the team does, "wir arbeiten jetzt … für alle Verträge", is news)
    widening = (
        size <= 12
        and _EVERY_ONE.search(folded) is not None
        and any_match(_patterns(langs, "team"), folded) is None
    )
    # "that's the answer every time it happens", "both places, every time, till i tell you":
    # what the agent was just told to do, said to hold each time (the agent addressed)
    # (a stop, "nie mehr", "tu ne le fais plus", ends a change of mind, not a request)
    timed = (
        size <= 14
        and any_match(_patterns(langs, "standing"), folded) is not None
        and any_match(_patterns(langs, "no_longer"), folded) is None
    )
    if "?" in closer or _OF_A_COLLECTION.search(folded) or not (widening or timed):
        return found
    block: list[int] = []
    for k in (last - 1, last - 2):
        if k < 0 or found[k] is not None:
            break
        if len(markers.words(fold(sentences[k])[0])) > 3:
            block.insert(0, k)
    if len(block) == 2 and _aside(sentences[block[0]]):
        block = block[1:]  # "Es ist kurz nach vier.", "El lunes por la mañana no.": the moment
    start = block[0] if block else last
    before = found[start - 1] if start > 0 else None
    reaction = (
        block
        and before is not None
        and before.text is not None
        and len(markers.words(fold(before.text)[0])) <= 3
        and _aside(before.text)
    )
    if reaction:
        before = None  # "Bloß nicht.": a reaction, not a request to end
    if not block and before is None:
        return found
    told = [*block, start - 1] if before is not None else block
    if not widening and not any(_ADDRESSED.search(fold(sentences[k])[0]) for k in [*told, last]):
        return found  # "it crashed again. that's how it goes every time": nothing asked
    said = " ".join(sentences[k].strip() for k in [*block, last])
    out = list(found)
    out[last] = None
    if before is not None and before.action == "add" and before.route == "memory" and before.text:
        if folded.rstrip(" .!") in fold(before.text)[0]:
            return found  # its words are in the request already
        text = _then(before.text, said)
        out[start - 1] = dataclasses.replace(before, text=text)
        return out
    if not block:
        return found
    text = _clean(said, None)
    section = _section_for(text, sections, markers.detect(fold(text)[0]))
    out[block[0]] = _Candidate("add", "memory", section, None, text, f"asked in {where}")
    if reaction:
        out[start - 1] = None
    return out


def _only_quoted_says_always(folded: str, langs: list[Language]) -> bool:
    """True when a sentence's words of time or frequency ("jamais", "immer") are all inside
    what it quotes — a song, a house rule, a comment —, and outside the quotes it neither asks
    nor forbids: the quoted words are someone else's (``folded``: :func:`fold`'s copy)."""
    bare = _QUOTE.sub(" ", folded)
    if bare == folded or any_match(_patterns(langs, "standing"), bare):
        return False
    if not any_match(_patterns(langs, "standing"), folded):
        return False
    return not any(any_match(_patterns(langs, key), bare) for key in ("mood", "general", "norm"))


def _then(first: str, said: str) -> str:
    """``first``, then the sentences ``said`` after it, as one request's text."""
    return _clean(f"{first.rstrip('.!')}. {said}", None)


def _aside(said: str) -> bool:
    """True for a short sentence that neither addresses the agent nor says how long it holds
    ("Es ist kurz nach vier.", "Bloß nicht."): the moment or a reaction, not a request."""
    folded = fold(said)[0]
    langs = markers.detect(folded)
    return (
        len(markers.words(folded)) <= 6
        and _ADDRESSED.search(folded) is None
        and any_match(_patterns(langs, "standing"), folded) is None
    )


def _with_what_it_names(
    found: list[_Candidate | None], sentences: list[str]
) -> list[_Candidate | None]:
    """``found`` with a request that opens on a condition about what the sentence before it
    named ("s'il manque, tu me le demandes d'abord", "wenn er fehlt, fragst du mich zuerst"),
    on a demonstrative for it ("esas las mandas tu directamente") or on "keep doing that" ("mach
    das bitte weiter so", after the habit and why it matters), said together with that
    sentence, which names it ("tu ne commences aucune traduction tant que tu n'as pas le
    glossaire du client", "llevas un mes contestando bien las de envios")."""
    out = list(found)
    for i in range(1, len(sentences)):
        candidate = out[i]
        if candidate is None or candidate.action != "add" or not candidate.text:
            continue
        opening = fold(sentences[i].strip())[0]
        kept_on = _BACK_REF.match(opening) is not None and ":" not in candidate.text
        if not (_IF_IT.match(opening) or _THOSE.match(fold(candidate.text)[0]) or kept_on):
            continue
        before = out[i - 1]
        if before is None:
            said = sentences[i - 1].strip()
            if "?" in said or len(markers.words(fold(said)[0])) <= 3:
                continue
            langs = markers.detect(fold(said)[0])
            if kept_on and any_match(_patterns(langs, "praise"), fold(said)[0]):
                continue  # what was praised: :func:`_with_praised_thing`
            if kept_on and i > 1 and out[i - 2] is None and "?" not in sentences[i - 2]:
                said = f"{sentences[i - 2].strip()} {said}"  # the habit, then why it matters
            out[i - 1] = dataclasses.replace(
                candidate, text=_clean(f"{said} {candidate.text}", None)
            )
        elif before.action == "add" and before.route == candidate.route and before.text:
            text = _then(before.text, candidate.text)
            out[i - 1] = dataclasses.replace(before, text=text)
        else:
            continue
        out[i] = None
    return out


#: A yes or a no opening an answer ("yes. always.", "non. jamais, tu décales.").
_ANSWER = _shape(r"^(?:{answers})\b")


def _answered_itself(
    found: list[_Candidate | None], sentences: list[str], sections: tuple[str, ...], where: str
) -> list[_Candidate | None]:
    """``found`` with a question the person answers themselves, yes or no, as holding from now
    on ("cc me on supplier emails? yes. always.", "tu dois me demander avant de décaler une
    réunion interne ? non. jamais, tu décales."): the question with its answer is the request."""
    out = list(found)
    for i in range(len(sentences) - 1):
        asked = sentences[i].strip()
        if not asked.endswith("?") or out[i] is not None:
            continue
        answer = sentences[i + 1 : i + 3]
        said = " ".join(a.strip() for a in answer)
        folded = fold(said)[0]
        langs = markers.detect(fold(asked)[0])
        if not _ANSWER.match(folded) or len(markers.words(folded)) > 8:
            continue
        if any_match(_patterns(langs, "standing"), folded) is None:
            continue
        if any(c is not None and c.action != "add" for c in out[i + 1 : i + 3]):
            continue
        question = asked.rstrip(" ?").lstrip("¿ ")
        text = _clean(f"{question}: {said}", None)
        section = _section_for(question, sections, langs)
        out[i] = _Candidate("add", "memory", section, None, text, f"asked in {where}")
        for k in range(i + 1, min(i + 3, len(out))):
            out[k] = None
    return out


def _provisional(sentences: list[str], found: list[_Candidate | None]) -> list[_Candidate | None]:
    """``found`` without the requests said next to a sentence that says nothing is settled yet
    or that the turn is about this piece of work only ("nothing's decided", "noch nicht
    entschieden", "solo para este contrato … no lo hagas con los demás"), even with a trigger
    word ("künftig" in "wir überlegen, künftig …" is what might be, not what is)."""
    out = list(found)
    for j, said in enumerate(sentences):
        folded = fold(said)[0]
        if any_match(_patterns(markers.detect(folded), "provisional"), folded) is None:
            continue
        for i in (j - 1, j, j + 1):
            candidate = out[i] if 0 <= i < len(out) else None
            if candidate is not None and candidate.action == "add":
                out[i] = None
    return out


#: A request that refers back to what the agent did ("hazlo así …", "mach das ab jetzt immer so").
_BACK_REF = _shape(r"^(?:[a-z]+\s+){0,2}?(?:{back_refs})")


def _with_praised_thing(
    found: list[_Candidate | None], sentences: list[str]
) -> list[_Candidate | None]:
    """``found`` with a request that says to keep doing what the agent did ("hazlo así siempre
    que cierres un issue") given the thing the sentence before praised, when that one named it
    ("eso, lo del changelog con el número del issue, justo eso."): "Lo del changelog con el
    número del issue: hazlo así siempre …"."""
    out = list(found)
    for i in range(1, len(out)):
        candidate = out[i]
        if candidate is None or candidate.action != "add" or out[i - 1] is not None:
            continue
        if ":" in (candidate.text or ""):
            continue  # "continue comme ça, à chaque réponse : l'article …": it says its thing
        praised = sentences[i - 1]
        if "?" in praised or "¿" in praised:
            continue
        langs = markers.detect(fold(sentences[i])[0])
        if not _BACK_REF.match(fold(sentences[i])[0]):
            continue
        folded, index = fold(praised)
        spans = [
            (index[m.start()], index[m.end()] if m.end() < len(index) else len(praised))
            for p in _patterns(langs, "praise")
            for m in p.finditer(folded)
        ]
        if not spans:
            continue
        thing = praised
        for start, end in sorted(spans, reverse=True):
            thing = thing[:start] + " " + thing[end:]
        thing = " ".join(thing.split()).strip(" ,.;:!")
        if len(markers.words(fold(thing)[0])) < 3:
            continue
        text = _joined(thing[:1].upper() + thing[1:], ": ", candidate.text or "")
        out[i] = dataclasses.replace(candidate, text=text)
    return out


def _withdrawn(sentences: list[str], found: list[_Candidate | None]) -> list[_Candidate | None]:
    """``found`` without the requests a later sentence of the turn takes back ("… pon siempre
    el IVA desglosado… no, espera, olvídalo, eso lo decide cada cliente")."""
    for i, sentence in enumerate(sentences):
        folded = fold(sentence)[0]
        withdrawals = _patterns(markers.detect(folded), "withdrawals")
        if any_match(withdrawals, folded):
            own = found[i]
            if own is not None and any_match(withdrawals, fold(own.text or "")[0]):
                own = None  # the taking back itself ("No wait, forget it, that's overkill.")
            return [*([None] * i), own, *found[i + 1 :]]
    return found


def _near_reproach(sentences: list[str], i: int) -> bool:
    """True when sentence ``i`` or the one before it says the person asked before ("TE DIJE
    NO USAMOS EMOJIS"): what they had asked is there, not in every sentence of a long turn."""
    for j in (i - 1, i):
        if 0 <= j < len(sentences):
            folded = fold(sentences[j])[0]
            langs = markers.detect(folded)
            if any_match(_patterns(langs, "reproach"), folded) is not None:
                return True
    return False


_WRITING = "Writing style"


def _near_habit(sentences: list[str], i: int) -> bool:
    """True when sentence ``i``, one of the two before it or the one after it says what the
    agent keeps doing in what it writes ("You hedge every sentence. … Give me yes or no
    first", "Quita el relleno. Cada respuesta empieza con …"): the request answers that habit,
    for every answer to come."""
    for j in (i - 2, i - 1, i, i + 1):
        if 0 <= j < len(sentences) and "?" not in sentences[j]:
            folded = fold(sentences[j])[0]
            if any_match(_patterns(markers.detect(folded), "habits"), folded) is not None:
                return True
    return False


def _habit_itself(sentence: str) -> bool:
    """True when ``sentence`` says the habit ("Cada respuesta empieza con «…»") or only lists
    what shows it ("'May potentially', 'arguably', 'perhaps'.")."""
    folded = fold(sentence)[0]
    if any_match(_patterns(markers.detect(folded), "habits"), folded) is not None:
        return True
    return len(markers.words(fold(_QUOTE.sub(" ", sentence))[0])) < 3


def _near_extends(sentences: list[str], i: int) -> bool:
    """True when sentence ``i`` or the one after it says the request holds beyond this piece of
    work ("Use numbered lists. Same for anything you draft."): a later task of the turn ("so
    draft them but don't send") is not what "that's how we work" was said of."""
    for j in (i, i + 1):
        if 0 <= j < len(sentences):
            folded = fold(sentences[j])[0]
            if any_match(_patterns(list(markers.languages()), "extends"), folded) is not None:
                return True
    return False


def _with_their_object(
    found: list[_Candidate | None], sentences: list[str]
) -> list[_Candidate | None]:
    """A short team statement that names a figure but not what it bounds ("Our red line is 12
    months.") joined to the next sentence that gives the same figure with its object
    ("Anything longer than a 12-month buy-back obligation we refuse …"): one doctrine draft."""
    out = list(found)
    langs = markers.languages()
    for i, candidate in enumerate(out[:-1]):
        if candidate is None or candidate.route != "doctrine" or candidate.action != "add":
            continue
        if len(_content_words(candidate.text or "")) > 6:
            continue
        mine = {f.value for f in figures(sentences[i], langs)}
        theirs = {f.value for f in figures(sentences[i + 1], langs)}
        if not mine or not mine & theirs or "?" in sentences[i + 1]:
            continue
        nxt = out[i + 1]
        if nxt is not None and nxt.action != "add":
            continue  # (an add of its own, doctrine or memory, is the statement's object)
        candidate.text = _joined(candidate.text or "", ": ", sentences[i + 1])
        out[i + 1] = None
    return out


#: "etc." and "and" closing a list of this session's work: what follows is a request of its own
#: ("corrige les fautes, les renvois etc., et sur chaque modèle que tu touches mets …").
_ETC_AND = _shape(r"\b{etc}\.?\s*,?\s+{and}\s+(?=\w)")


_ASIDE = re.compile(r"\(([^()]{12,300})\)")


def _asides(sentences: list[str]) -> list[str]:
    """``sentences`` with a standing request said in parentheses inside a piece of work
    ("Redline the supplier's terms for … (and in any redline, keep the other side's clause
    numbers, never renumber) and give me …") read as a sentence of its own, after the work
    without it: the work names this session's documents, the aside is the rule."""
    out: list[str] = []
    for said in sentences:
        m = _ASIDE.search(said)
        if m is None:
            out.append(said)
            continue
        aside = m.group(1).strip()
        folded = fold(aside)[0]
        langs = markers.detect(folded)
        if not any_match(_patterns(langs, "standing"), folded):
            out.append(said)
            continue
        work = " ".join((said[: m.start()] + said[m.end() :]).split())
        folded, index = fold(aside)
        opening = _OPENING_CONJUNCTION.match(folded)  # "(and in any redline, …)"
        if opening is not None:
            aside = aside[index[opening.end()] :]
        out += [work, aside[0].upper() + aside[1:]]
    return out


def _after_etc(sentences: list[str]) -> list[str]:
    """``sentences`` with each one split after "etc., and" (see :data:`_ETC_AND`)."""
    out: list[str] = []
    for said in sentences:
        folded, index = fold(said)
        m = _ETC_AND.search(folded)
        if m is None or len(markers.words(folded[m.end() :])) < 4:
            out.append(said)
            continue
        out.append(said[: index[m.start()]] + "etc.")
        rest = said[index[m.end()] :]
        out.append(rest[0].upper() + rest[1:])
    return out


#: A sentence opening on one adverb and a comma ("Immer, die CI lehnt sonst ab").
_ADVERB_COMMA = re.compile(r"[a-z]+\s*,\s*")


def _own_rule(folded: str) -> bool:
    """True when a sentence opening on "every"/"chaque"/"jede" … is a rule of its own, with its
    subject and a verb ("every draft you export gets page numbers."), not how often the one
    before it holds ("Every time, not just when I ask.": a comma right after the two words);
    after what the agent keeps doing it is never joined to it."""
    subject = _UNIVERSAL_SUBJECT.match(folded)
    if subject is None or re.match(r"^\S+\s+\S+\s*,", folded):
        return False
    return len(markers.words(folded)) >= 5


def _habits_of_agent(folded: str) -> bool:
    """True when ``folded`` says what the agent keeps doing ("you keep sending me drafts with no
    page numbers, …"): a rule of its own after it is the request, not how often that holds."""
    return any_match(_patterns(markers.detect(folded), "habits"), folded) is not None


def _alone_adverbs(sentences: list[str]) -> list[str]:
    """``sentences`` with one that is only "always" ("toujours.", "siempre.", "immer!") joined
    to the one before it, as the norm it closes ("…, toujours."); and so is a short one that
    opens on how often and asks nothing of its own ("Run tsc before you say it works. Every
    time, not just when I ask.")."""
    out: list[str] = []
    for sentence in sentences:
        folded = fold(sentence)[0]
        if out and "?" not in out[-1] and len(markers.words(folded)) <= 2:
            langs = markers.detect(folded)
            joined = ", " + folded.strip(" .!")
            if any(any_match(lang.norm, joined) for lang in langs):
                out[-1] = out[-1].rstrip(" .!") + ", " + sentence.strip()
                continue
        opening = _ADVERB_COMMA.match(folded)
        if out and "?" not in out[-1] and opening is not None and len(markers.words(folded)) > 2:
            langs = markers.detect(folded)
            adverb = folded[: opening.end()].rstrip(" ,")
            if _opens_on(_patterns(langs, "standing"), adverb) and not any_match(
                _patterns(langs, "change_cues"), adverb
            ):  # ("Dorénavant, …" opens what holds now: it closes nothing before it)
                # "…, bevor du committest. Immer, die CI lehnt sonst ab": "always" closes it
                _, index = fold(sentence)
                head = sentence[: index[len(adverb)]].lower()
                out[-1] = out[-1].rstrip(" .!") + ", " + head + "."
                rest = sentence[index[opening.end()] :].strip()
                if rest:
                    out.append(rest[0].upper() + rest[1:])
                continue
        if (
            out
            and "?" not in out[-1]
            and "?" not in sentence
            and 2 < len(markers.words(folded)) <= 8
        ):
            langs = markers.detect(folded)
            before = fold(out[-1])[0]
            if (
                _opens_on(_patterns(langs, "standing"), folded)
                and not (_own_rule(folded) and _habits_of_agent(before))
                and not any(
                    any_match(_patterns(langs, key), folded)
                    for key in ("mood", "general", "deictic")
                )
                and not any(  # "… ist überholt. Ab jetzt K-2027-0001": what replaces it
                    any_match(_patterns(markers.detect(before), key), before)
                    for key in ("remove", "replace")
                )
            ):
                out[-1] = out[-1].rstrip(" .!") + ", " + sentence[0].lower() + sentence[1:].strip()
                continue
        out.append(sentence)
    return out


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


_SECTION_OF = {
    "ignored": "Priorities & scope",
    "reworked": "Writing style",
    "accepted": "Priorities & scope",
}
_OUTCOME_WORD = re.compile(r"[^\W\d_][\w'-]*")


def _topic_words(
    suggestion: str, generic: frozenset[str], nouns_capitalised: bool = False
) -> dict[str, str]:
    """``{folded: as written}`` of the words of a suggestion that may name its topic: not its
    first word (the verb), not a name (a capital inside the sentence; in German, where every
    noun has one, only a short one without its article), not a common or generic word, three
    letters or more ("log", "API")."""
    common = _common_words()
    out: dict[str, str] = {}
    previous = ""
    for i, m in enumerate(_OUTCOME_WORD.finditer(suggestion)):
        word = re.sub(r"^\w'", "", m.group(0)).strip("'-")  # l'exception → exception
        folded = fold(word)[0]
        after, previous = previous, folded
        if i == 0 or len(word) < 3 or folded in common or folded in generic:
            continue
        named = word[0].isupper() and not suggestion[: m.start()].rstrip().endswith((".", ":"))
        # in German a noun after its article is no name ("aus dem Glossar des Kunden")
        noun = nouns_capitalised and (len(word) >= 10 or bool(_NOUN_DETERMINER.fullmatch(after)))
        if named and not noun:
            continue
        out.setdefault(folded, word)
    return out


#: A determiner before a noun, in a language whose nouns take a capital ("dem", "im", "ein").
_NOUN_DETERMINER = _shape("{noun_determiners}")
#: A word that links a noun to the one it qualifies ("délai de paiement", "period of notice").
_NOUN_LINK = _shape("{noun_links}")


def _topic_phrase(topic: str, said: list[Outcome]) -> str:
    """``topic`` with the word next to it in every suggestion of ``said`` when they all share
    it ("governing" → "governing law", "aplicable" → "ley aplicable"); else ``topic``."""
    common = _common_words()
    befores: list[set[str]] = []
    afters: list[set[str]] = []
    written: dict[str, str] = {}
    for outcome in said:
        words = [m.group(0) for m in _OUTCOME_WORD.finditer(outcome.suggestion)]
        folded = [fold(w)[0] for w in words]
        before, after = set(), set()
        for i, w in enumerate(folded):
            if _same_word(w, fold(topic)[0]):
                # "délai de paiement": the word next to it may be linked by "de", "of"
                if i > 1 and _NOUN_LINK.fullmatch(folded[i - 1]):
                    key = f"{folded[i - 2]} {folded[i - 1]}"
                    before.add(key)
                    written.setdefault(key, f"{words[i - 2]} {words[i - 1]}")
                elif i > 0:
                    before.add(folded[i - 1])
                    written.setdefault(folded[i - 1], words[i - 1])
                if i + 2 < len(folded) and _NOUN_LINK.fullmatch(folded[i + 1]):
                    key = f"{folded[i + 1]} {folded[i + 2]}"
                    after.add(key)
                    written.setdefault(key, f"{words[i + 1]} {words[i + 2]}")
                elif i + 1 < len(folded):
                    after.add(folded[i + 1])
                    written.setdefault(folded[i + 1], words[i + 1])
        befores.append(before)
        afters.append(after)
    for side, sets in (("after", afters), ("before", befores)):
        shared = set.intersection(*sets) if sets else set()
        shared = {
            w
            for w in shared
            if (word := w.split()[0] if side == "before" else w.split()[-1]) not in common
            and len(word) >= 3
            and not word.isdigit()
            # a name, a defined term
            and not (
                written[w].split()[0 if side == "before" else -1][:1].isupper() and len(word) < 10
            )
        }
        if len(shared) == 1:
            (word,) = shared
            return f"{topic} {written[word]}" if side == "after" else f"{written[word]} {topic}"
    return topic


def _topics(
    group: list[Outcome], generic: frozenset[str], nouns_capitalised: bool = False
) -> list[tuple[str, list[Outcome]]]:
    """The topics that at least two outcomes of ``group`` share, each with its outcomes, most
    shared first (a word and its inflections are one topic: a common start of five letters)."""
    words = [_topic_words(o.suggestion, generic, nouns_capitalised) for o in group]
    firsts = [_first_word(o.suggestion) for o in group]
    left = set(range(len(group)))
    out: list[tuple[str, list[Outcome]]] = []
    while len(left) >= 2:
        best: tuple[int, int, int, str, set[int]] | None = None
        for i in sorted(left):
            for key in words[i]:
                holders = {j for j in left if any(_same_word(key, k) for k in words[j])}
                if len(holders) < 2:
                    continue
                # "Retry the call …" beside "Cap the retries …": a first word is no topic of
                # its own (the verb, mostly), but it is one more suggestion on that topic
                leading = {j for j in left - holders if _same_word(key, firsts[j])}
                forms = [w for j in holders for k, w in words[j].items() if _same_word(key, k)]
                longest = max(forms, key=len)
                rank = (len(holders) + len(leading), len(holders), len(longest))
                if best is None or rank > best[:3]:
                    best = (*rank, longest, holders | leading)
        if best is None:
            break
        said = [group[j] for j in sorted(best[4])]
        out.append((_topic_phrase(best[3], said), said))
        left -= best[4]
    return out


def _first_word(suggestion: str) -> str:
    """The folded first word of a suggestion ("" when it has none)."""
    first = _OUTCOME_WORD.search(suggestion)
    return fold(first.group(0))[0] if first is not None else ""


def _outcome_language(outcomes: tuple[Outcome, ...], fallback: Language | None) -> Language:
    text = " ".join(o.suggestion + " " + (o.final_text or "") for o in outcomes)
    langs = [lang for lang in markers.detect(fold(text)[0]) if dict(lang.outcomes)]
    if fallback is not None and (fallback in langs or not langs):
        return fallback
    return langs[0] if langs else markers.languages()[0]


def _outcome_proposals(
    outcomes: tuple[Outcome, ...], sections: tuple[str, ...], language: Language | None = None
) -> list[dict[str, object]]:
    """Outcome signals repeated on one topic (docs/design/harvest.md §Harvest): ignored → scope,
    reworked → style, accepted → priorities.

    One signal is noise; two decisions of one kind on suggestions that share a topic word
    become one ``inferred`` proposal about the habit on that topic, never the document's
    content (only the topic word is taken from the suggestions). A reworked topic adds what the
    person's final texts have in common: questions, or shorter than suggested.
    """
    lang = _outcome_language(outcomes, language)
    words = dict(lang.outcomes)
    generic = frozenset(w for each in markers.languages() for w in each.generic)
    proposals: list[dict[str, object]] = []
    for decision in ("ignored", "reworked", "accepted"):
        group = [o for o in outcomes if o.decision == decision]
        template = words.get(decision)
        if len(group) < 2 or not template:
            continue
        for topic, said in _topics(group, generic, lang.code == "de"):
            text = template.format(topic=topic)
            finals = [(o.suggestion, o.final_text) for o in said if o.final_text]
            notes = []
            if finals and sum(f.rstrip().endswith("?") for _, f in finals) * 2 >= len(finals):
                notes.append(words.get("question", ""))
            if finals and sum(len(f) / max(1, len(s)) for s, f in finals) <= 0.8 * len(finals):
                notes.append(words.get("shorter", ""))
            notes = [n for n in notes if n]
            if decision == "reworked" and notes:
                text += "; " + ", ".join(notes)
            section = _SECTION_OF[decision]
            if section not in sections:
                section = sections[0]
            proposals.append(
                {
                    "action": "add",
                    "route": "memory",
                    "section": section,
                    "target": None,
                    "text": text + ".",
                    "justification": f"{len(said)} suggestions on {topic} were {decision} in this session",
                    "basis": "inferred",
                }
            )
    return proposals


def _said_otherwise(candidate: _Candidate, found: list[_Candidate | None]) -> bool:
    """True for a complaint ("the tone is too harsh") when the same turn says what the person
    wants instead ("I want a collaborative tone"): that request is the entry."""
    if candidate.complaint is None:
        return False
    return any(
        other is not None
        and other is not candidate
        and other.section == candidate.section
        and candidate.complaint in fold(other.text or "")[0]
        for other in found
    )


def _session_language(request: HarvestRequest) -> Language | None:
    """The language of the person's own words in the session (None when no marker language
    stands out)."""
    text = " ".join(own.own for _, own in request.transcript.own_turns())
    langs = markers.detect(fold(text)[0])
    return langs[0] if len(langs) == 1 else None


def harvest(request: HarvestRequest) -> RawAnswer:
    """Deterministic proposals from the person's own words and the outcomes (never a model)."""
    extractor = _Extractor(request)
    proposals: list[dict[str, object]] = []
    seen: set[tuple[str, str]] = set()
    offered: str | None = None
    previous: str | None = None  # the person's previous turn
    # "that nudge …, it needs changing" / "What should it become?" / "a month before": a change
    # announced, asked about, and said in the next turn (the announcement and its proposal)
    announced: tuple[str, dict[str, object]] | None = None
    for turn in request.transcript.turns:
        if turn.role == "assistant":
            offered = turn.text
            if announced is not None and "?" not in turn.text:
                announced = None
            continue
        if turn.role != "user":
            continue
        own = split_own(turn.text)
        where = f"line {turn.line} of the session" if turn.line else "the session"
        cues = _turn_cues(own.own)
        sentences = _asides(_after_etc(_alone_adverbs(_sentences(own.own))))
        carried, announced = announced, None
        if carried is not None:
            sentences = [carried[0], *sentences]
        changes, said = extractor.turn_changes(sentences, where)
        changed = {c.target for c in changes}
        found: list[_Candidate | None] = list(changes)
        by_sentence: list[_Candidate | None] = []
        for i, s in enumerate(sentences):
            near = _near_reproach(sentences, i) if cues.reproach else False
            wide = _near_extends(sentences, i) if cues.extends else False
            habit = _near_habit(sentences, i)
            here = dataclasses.replace(cues, reproach=near, extends=wide or habit)
            candidate = None if i in said else extractor.sentence(s, where, here)
            if candidate is not None and candidate.target in changed:
                candidate = None  # the turn's change of that entry says it
            if habit and candidate is not None and _habit_itself(s):
                candidate = None  # "You hedge every sentence.": what to change, not the request
            if (
                habit
                and candidate is not None
                and candidate.action == "add"
                and candidate.route == "memory"
                and _WRITING in request.sections
            ):
                candidate = dataclasses.replace(candidate, section=_WRITING)
            by_sentence.append(candidate)
        by_sentence = _replaced(_dropped_again(sentences, by_sentence), sentences)
        by_sentence = _then_what(by_sentence, sentences)
        if not changes:
            by_sentence = extractor.named_then_new(sentences, by_sentence, where)
            by_sentence = extractor.named_then_dropped(sentences, by_sentence, where)
            by_sentence = extractor.team_rules(sentences, by_sentence, where)
        by_sentence = _with_what_was_rejected(_with_replacement(by_sentence, sentences), sentences)
        by_sentence = _with_why_asked(_with_exception(by_sentence, sentences), sentences)
        by_sentence = _under_heading(
            by_sentence, sentences, request.sections, where, _one_a_line(own.own)
        )
        by_sentence = _after_own_habit(by_sentence, sentences, extractor, where)
        by_sentence = _closed_by_scope(
            by_sentence, sentences, request.sections, where, offered is not None and not changes
        )
        by_sentence = _with_what_it_names(by_sentence, sentences)
        by_sentence = _answered_itself(by_sentence, sentences, request.sections, where)
        by_sentence = _provisional(sentences, by_sentence)
        by_sentence = _withdrawn(sentences, by_sentence)
        by_sentence = _with_praised_thing(by_sentence, sentences)
        found += _with_their_object(by_sentence, sentences)
        confirmed = extractor.confirmed(offered, own.own, where, cues)
        if confirmed is None and not any(found):
            confirmed = extractor.asked_always(previous, own.own, where, cues)
        found.append(confirmed)
        offered = None
        previous = own.own
        kept = [c for c in found if c is not None and not _said_otherwise(c, found)]
        if carried is not None:
            mine = carried[1]
            if any(c.action == "modify" and c.target == mine["target"] for c in kept):
                proposals.remove(mine)  # the announcement now carries what it becomes
                seen.discard(("modify", fold(str(mine["text"] or ""))[0]))
        for candidate in kept:
            key = (candidate.action, fold(candidate.text or candidate.target or "")[0])
            if key in seen:
                continue
            seen.add(key)
            proposals.append(_proposal(candidate))
            if (
                candidate.action == "modify"
                and len(kept) == 1
                and sentences
                and fold(candidate.text or "")[0].rstrip(".!") in fold(sentences[-1])[0]
            ):
                announced = (sentences[-1], proposals[-1])
    proposals.extend(
        _outcome_proposals(request.outcomes, request.sections, _session_language(request))
    )
    notes = []
    own_text = " ".join(own.own for _, own in request.transcript.own_turns())
    unmarked = markers.unmarked_language(own_text)
    if unmarked is not None:
        known = ", ".join(lang.name for lang in markers.languages())
        notes.append(
            f"the session is in {unmarked}, a language the offline extractor has no markers for"
            f" (it reads {known}): only what applies to any language was read"
            " (the outcomes); a model provider reads it whole"
        )
    return RawAnswer(provider="offline", proposals=proposals, notes=notes)
