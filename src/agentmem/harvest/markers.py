"""Language markers for the offline extractor, read from ``harvest/data/<language>.yaml``.

One data file per language (English, French, Spanish, German) holds the triggers of an explicit
request, the markers of a change of mind (``remove``, ``replace``), of who is concerned
(``person``, ``team``), the statements of what the team accepts (``doctrine_statements``), what
is not a standing request (``not_standing``, ``document_facts``) and the section keywords; then
the general cues of a request said without a trigger word: its mood (``mood``: an imperative,
a prohibition, an obligation, a wish, how "we" work), time and frequency (``standing``),
stopping a habit (``cessation``), a prohibition, a preference or how "we" work about something
general (``general``), having asked before (``reproach``), one thing of this session (``deictic``,
``current``, ``edit_verbs``), "stop being X", "don't worry" (``idioms``), a complaint about tone or wording
(``complaint`` → ``complaint_entry``), words never copied (``profanity``, ``noise``), cue words
whose typos count (``fuzzy``), question tags, a request asked as a question (``polite``) or hedged (``hedges``), an offer of the
agent the person confirms (``offers``, ``confirm``); for a change of mind told by content
(:mod:`agentmem.harvest.changes`), what says a value changed or holds from now on
(``change_cues``), what says something holds no longer (``no_longer``), the words that are
values of one setting (``alternatives``: a language, a spelling, a weekday with the part of
the day, a month with its day) and the units of a figure
(``units``); a short answer that assents (``assent``) and says "always", which makes the
request before it standing; a norm said without a verb ("…, always", "three sentences max":
``norm``); what says a rule holds for the whole team ("that's the rule for all of us, not only
me": ``team_scope``), that nothing is decided yet ("nothing's decided", "noch nicht
entschieden", "solo para este contrato": ``provisional``) and that a request holds beyond this piece of work ("same for
anything you draft", "en todos los contratos": ``extends``), and a clause that rejects how a thing was done ("las
fechas así no": ``rejects``), an imperative asking for a piece of work on this
session's documents ("go through … and list", "contesta a … que", ``tasks``); a thing
this session made or is making ("for the new endpoint", "für den neuen Export": ``particular``,
a request about it without a word that makes it standing is a piece of work); a wish about how the agent works ("I'd rather you…", "j'aimerais
bien que tu…", "mir wäre lieber, du…", a habit to take, a promise asked: ``wishes``, a
preference, standing unless about one thing; "versprich mir, dass …", asked and kept whole:
``promises``); a question asked for its answer even after "I told you" ("…, ou pas ?":
``open_questions``, never a request); a request taken back in the same turn ("… no wait, forget
it": ``withdrawals``, the turn's requests before it dropped); praise of what the agent just did,
naming it ("genau so, mit der Rechnungsnummer im Buchungstext": ``praise``, the thing a "keep
doing that" after it is about);
what says the rule is known already ("same as always", "comme d'habitude", "wie immer":
``known``, with an entry or an active rule on the subject, a repeat); what the agent keeps
doing in what it writes ("You hedge every sentence", "Tu mets des anglicismes partout", "Cada
respuesta empieza con …", "Das liest sich wie ein Behördenbrief": ``habits``, which make the
requests next to it standing, in Writing style); one thing preferred to another ("use the read
replica, not the primary": ``contrast``, standing unless the sentence asks for a piece of
work); a preference said in the first person about a kind of thing ("the way I like letters to
the other side is …", "ce que je préfère, c'est …", "lo que me gusta es que …", "mir ist
lieber, wenn …": ``preferences``, standing unless about one thing); and the wording of outcome-derived entries
(``outcomes``, ``generic``); whether the language writes its nouns with a capital
(``nouns_capitalised``: then a capital tells no name), and whether its verb comes right after an
opening adverbial (``verb_second``: "ab jetzt kommt …" keeps what opened it). Under ``grammar``, the word classes the extractor's shapes of a
sentence are built from (:func:`word_class`: the reasons that open a clause, "and"/"but", "now",
"here", "if", the pronouns and articles, "no X", "only", "never again", abbreviations …): the
shape is code ("a reason starts after a comma: ``,\\s*{reasons}``"), its words are data. Every
pattern is a regular expression matched on :func:`fold`'s copy of a sentence (lower case,
accents removed, straight apostrophes). Adding a language is adding a file; no code changes. See docs/design/offline.md §Offline extractor.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from importlib import resources

from agentmem.errors import ConfigError
from agentmem.store.yamlio import load_yaml_text

LANGUAGE_FILES = ("en.yaml", "fr.yaml", "es.yaml", "de.yaml")
_PATTERN_KEYS = (
    "triggers",
    "scope_triggers",
    "remove",
    "replace",
    "person",
    "team",
    "doctrine_statements",
    "not_standing",
    "document_facts",
    "standing",
    "mood",
    "cessation",
    "general",
    "reproach",
    "deictic",
    "current",
    "edit_verbs",
    "idioms",
    "complaint",
    "profanity",
    "noise",
    "question_tags",
    "open_questions",
    "withdrawals",
    "praise",
    "polite",
    "hedges",
    "offers",
    "confirm",
    "change_cues",
    "no_longer",
    "assent",
    "norm",
    "team_scope",
    "provisional",
    "extends",
    "rejects",
    "tasks",
    "particular",
    "wishes",
    "promises",
    "known",
    "habits",
    "contrast",
    "preferences",
)
_OUTCOME_KEYS = ("ignored", "reworked", "accepted", "question", "shorter")


@dataclass(frozen=True)
class Language:
    """The compiled markers of one language (see the module)."""

    code: str
    name: str
    detect: frozenset[str]
    triggers: tuple[re.Pattern[str], ...]
    scope_triggers: tuple[re.Pattern[str], ...]
    remove: tuple[re.Pattern[str], ...]
    replace: tuple[re.Pattern[str], ...]
    person: tuple[re.Pattern[str], ...]
    team: tuple[re.Pattern[str], ...]
    doctrine_statements: tuple[re.Pattern[str], ...]
    not_standing: tuple[re.Pattern[str], ...]
    document_facts: tuple[re.Pattern[str], ...]
    standing: tuple[re.Pattern[str], ...]
    mood: tuple[re.Pattern[str], ...]
    cessation: tuple[re.Pattern[str], ...]
    general: tuple[re.Pattern[str], ...]
    reproach: tuple[re.Pattern[str], ...]
    deictic: tuple[re.Pattern[str], ...]
    current: tuple[re.Pattern[str], ...]
    edit_verbs: tuple[re.Pattern[str], ...]
    idioms: tuple[re.Pattern[str], ...]
    complaint: tuple[re.Pattern[str], ...]
    profanity: tuple[re.Pattern[str], ...]
    noise: tuple[re.Pattern[str], ...]
    question_tags: tuple[re.Pattern[str], ...]
    open_questions: tuple[re.Pattern[str], ...]
    withdrawals: tuple[re.Pattern[str], ...]
    praise: tuple[re.Pattern[str], ...]
    polite: tuple[re.Pattern[str], ...]
    hedges: tuple[re.Pattern[str], ...]
    offers: tuple[re.Pattern[str], ...]
    confirm: tuple[re.Pattern[str], ...]
    change_cues: tuple[re.Pattern[str], ...]
    no_longer: tuple[re.Pattern[str], ...]
    assent: tuple[re.Pattern[str], ...]
    norm: tuple[re.Pattern[str], ...]
    team_scope: tuple[re.Pattern[str], ...]
    provisional: tuple[re.Pattern[str], ...]
    extends: tuple[re.Pattern[str], ...]
    rejects: tuple[re.Pattern[str], ...]
    tasks: tuple[re.Pattern[str], ...]
    particular: tuple[re.Pattern[str], ...]
    wishes: tuple[re.Pattern[str], ...]
    promises: tuple[re.Pattern[str], ...]
    known: tuple[re.Pattern[str], ...]
    habits: tuple[re.Pattern[str], ...]
    contrast: tuple[re.Pattern[str], ...]
    preferences: tuple[re.Pattern[str], ...]
    lead_ins: tuple[str, ...]
    sections: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]
    complaint_entry: str
    complaint_articles: tuple[tuple[str, str], ...]
    fuzzy: tuple[str, ...]
    outcomes: tuple[tuple[str, str], ...]
    generic: frozenset[str]
    rephrase: tuple[tuple[re.Pattern[str], str], ...]
    numbers: tuple[tuple[str, str], ...]
    alternatives: tuple[tuple[str, str], ...]
    units: frozenset[str]
    grammar: tuple[tuple[str, tuple[str, ...]], ...]
    nouns_capitalised: bool
    verb_second: bool


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings")
    return value


def _mapping(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigError(f"{where}: expected a mapping of strings")
    return value


def _rephrase(value: object, where: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, list) and len(v) == 2 and all(isinstance(s, str) for s in v) for v in value
    ):
        raise ConfigError(f"{where}: expected a list of [pattern, replacement] pairs")
    out = []
    for pattern, replacement in value:
        try:
            out.append((re.compile(pattern, re.I), replacement))
        except re.error as exc:
            raise ConfigError(f"{where}: invalid pattern {pattern!r}: {exc}") from None
    return tuple(out)


def _compile(patterns: list[str], where: str) -> tuple[re.Pattern[str], ...]:
    out = []
    for pattern in patterns:
        try:
            out.append(re.compile(pattern))
        except re.error as exc:
            raise ConfigError(f"{where}: invalid pattern {pattern!r}: {exc}") from None
    return tuple(out)


def _grammar(value: object, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: expected a mapping of word class → patterns")
    out = []
    for name, fragments in value.items():
        patterns = _strings(fragments, f"{where}: {name}")
        _compile(patterns, f"{where}: {name}")
        out.append((str(name), tuple(patterns)))
    return tuple(out)


def parse_language(text: str, where: str) -> Language:
    """One language file's text → :class:`Language`. Raises :class:`ConfigError`."""
    data = load_yaml_text(text, where, ConfigError)
    if not isinstance(data, dict) or not isinstance(data.get("language"), str):
        raise ConfigError(f"{where}: expected a mapping with a 'language' code")
    compiled = {
        key: _compile(_strings(data.get(key, []), f"{where}: {key}"), f"{where}: {key}")
        for key in _PATTERN_KEYS
    }
    sections = data.get("sections", {})
    if not isinstance(sections, dict):
        raise ConfigError(f"{where}: sections: expected a mapping of section → patterns")
    outcomes = _mapping(data.get("outcomes", {}), f"{where}: outcomes")
    unknown = sorted(set(outcomes) - set(_OUTCOME_KEYS))
    if unknown:
        raise ConfigError(f"{where}: outcomes: unknown key {unknown[0]!r}")
    entry = data.get("complaint_entry", "")
    if not isinstance(entry, str):
        raise ConfigError(f"{where}: complaint_entry: expected a string")
    capitalised = data.get("nouns_capitalised", False)
    if not isinstance(capitalised, bool):
        raise ConfigError(f"{where}: nouns_capitalised: expected true or false")
    second = data.get("verb_second", False)
    if not isinstance(second, bool):
        raise ConfigError(f"{where}: verb_second: expected true or false")
    name = data.get("name", data["language"])
    if not isinstance(name, str):
        raise ConfigError(f"{where}: name: expected a string")
    return Language(
        code=data["language"],
        name=name,
        detect=frozenset(_strings(data.get("detect", []), f"{where}: detect")),
        complaint_entry=entry,
        complaint_articles=tuple(
            _mapping(data.get("complaint_articles", {}), f"{where}: complaint_articles").items()
        ),
        fuzzy=tuple(_strings(data.get("fuzzy", []), f"{where}: fuzzy")),
        outcomes=tuple(outcomes.items()),
        generic=frozenset(_strings(data.get("generic", []), f"{where}: generic")),
        rephrase=_rephrase(data.get("rephrase", []), f"{where}: rephrase"),
        numbers=tuple(_mapping(data.get("numbers", {}), f"{where}: numbers").items()),
        alternatives=tuple(
            _mapping(data.get("alternatives", {}), f"{where}: alternatives").items()
        ),
        units=frozenset(_strings(data.get("units", []), f"{where}: units")),
        grammar=_grammar(data.get("grammar", {}), f"{where}: grammar"),
        nouns_capitalised=capitalised,
        verb_second=second,
        lead_ins=tuple(
            sorted(_strings(data.get("lead_ins", []), f"{where}: lead_ins"), key=len, reverse=True)
        ),
        sections=tuple(
            (str(name), _compile(_strings(pats, f"{where}: {name}"), f"{where}: {name}"))
            for name, pats in sections.items()
        ),
        **compiled,
    )


@functools.cache
def languages() -> tuple[Language, ...]:
    """Every bundled language, in :data:`LANGUAGE_FILES` order (read once per process)."""
    folder = resources.files("agentmem.harvest") / "data"
    return tuple(
        parse_language((folder / name).read_text(encoding="utf-8"), f"agentmem/harvest/data/{name}")
        for name in LANGUAGE_FILES
    )


@functools.cache
def word_class(name: str) -> str:
    """``(?:…)``: the patterns of word class ``name`` (a key of the ``grammar`` mapping) of every
    language, each once, in :data:`LANGUAGE_FILES` order; the extractor's shapes of a sentence
    ("a reason starts at ``, {reasons}``") name them. Raises :class:`ConfigError` for a class
    no language has."""
    seen: dict[str, None] = {}
    for lang in languages():
        for pattern in dict(lang.grammar).get(name, ()):
            seen.setdefault(pattern, None)
    if not seen:
        raise ConfigError(f"no language file has the word class {name!r} (grammar: {name})")
    return "(?:" + "|".join(seen) + ")"


@functools.cache
def other_languages() -> tuple[tuple[str, frozenset[str]], ...]:
    """``(name, common words)`` of languages without markers (``harvest/data/others.yaml``)."""
    where = "agentmem/harvest/data/others.yaml"
    text = (resources.files("agentmem.harvest") / "data" / "others.yaml").read_text(
        encoding="utf-8"
    )
    data = load_yaml_text(text, where, ConfigError)
    if not isinstance(data, list):
        raise ConfigError(f"{where}: expected a list of {{name, detect}}")
    out = []
    for i, item in enumerate(data, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ConfigError(f"{where}: item {i}: expected a mapping with a 'name'")
        out.append((item["name"], frozenset(_strings(item.get("detect", []), f"{where}: {i}"))))
    return tuple(out)


#: Unicode scripts (the first word of a character's name) → the language or script named.
_SCRIPTS = {
    "HIRAGANA": "Japanese",
    "KATAKANA": "Japanese",
    "HANGUL": "Korean",
    "CJK": "Chinese",
    "CYRILLIC": "a Cyrillic-script language",
    "ARABIC": "Arabic",
    "HEBREW": "Hebrew",
    "GREEK": "Greek",
    "DEVANAGARI": "Hindi",
    "THAI": "Thai",
}


def unmarked_language(text: str) -> str | None:
    """The name of the language ``text`` is written in when it is none of the marker
    languages: by script (Japanese, Korean, Chinese, Cyrillic, Arabic …; kana before Han), else
    by the common words of ``harvest/data/others.yaml``; None when a marker language fits as
    well or the text is too short to tell."""
    scripts: dict[str, int] = {}
    latin = 0
    for char in text:
        if not char.isalpha():
            continue
        script = unicodedata.name(char, "").split(" ", 1)[0]
        if script == "LATIN":
            latin += 1
        elif script in _SCRIPTS:
            scripts[script] = scripts.get(script, 0) + 1
    other = sum(scripts.values())
    if other > latin and other >= 4:
        if scripts.get("HIRAGANA", 0) + scripts.get("KATAKANA", 0) > 0:
            return "Japanese"
        return _SCRIPTS[max(scripts, key=lambda s: scripts[s])]
    found = words(fold(text)[0])
    if len(found) < 4:
        return None
    marked = max(sum(1 for w in found if w in lang.detect) for lang in languages())
    name, best = max(
        ((name, sum(1 for w in found if w in common)) for name, common in other_languages()),
        key=lambda pair: pair[1],
    )
    return name if best >= 2 and best > marked else None


_APOSTROPHES = {"\u2019": "'", "\u02bc": "'", "\u2018": "'"}


def fold(text: str) -> tuple[str, list[int]]:
    """``(folded, index)``: ``text`` in lower case without accents, typographic apostrophes
    straightened; ``index[i]`` is the offset in ``text`` of folded character ``i`` (and
    ``index[len(folded)] == len(text)``)."""
    out: list[str] = []
    index: list[int] = []
    for pos, char in enumerate(text):
        char = _APOSTROPHES.get(char, char)
        decomposed = unicodedata.normalize("NFKD", char)
        base = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
        for c in base:
            out.append(c)
            index.append(pos)
    index.append(len(text))
    return "".join(out), index


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def words(folded: str) -> list[str]:
    """The words of a folded text (an apostrophe inside a word kept: "don't", "n'utilise")."""
    return _WORD.findall(folded)


def detect(folded: str) -> list[Language]:
    """The languages whose common words occur most in ``folded`` (every language on a tie at
    zero; the tied ones otherwise)."""
    words = _WORD.findall(folded)
    # an elided article or pronoun counts as its word ("l'habitude": "l'", a French one)
    words += [w[: w.index("'") + 1] for w in words if "'" in w]
    scores = [(sum(1 for w in words if w in lang.detect), lang) for lang in languages()]
    top = max(score for score, _ in scores)
    return [lang for score, lang in scores if score == top]


@functools.cache
def _spelt_right() -> frozenset[str]:
    """The cue words and common words of every language: never a typo of another's."""
    return frozenset(w for lang in languages() for w in (*lang.fuzzy, *lang.detect))


def repair(folded: str, index: list[int], words: tuple[str, ...]) -> tuple[str, list[int]]:
    """``(folded, index)`` with each word one typo away from one of ``words`` (one letter
    added, dropped, changed, or two swapped; same first letter; five letters or more) spelt as
    that word ("siemrpe" → "siempre", "nnunca" → "nunca"), offsets still pointing into the
    original text. Unchanged when no word is repaired."""
    if not words:
        return folded, index
    # lazy: rapidfuzz loads only when a sentence is read for its cue words
    from rapidfuzz.distance import OSA

    out, out_index, last = [], [], 0
    for m in _WORD.finditer(folded):
        word = m.group(0)
        if len(word) < 5 or word in words or word in _spelt_right():
            continue  # (a cue word of another language is no typo: "jamais" is not "jamas")
        near = next(
            (w for w in words if w[0] == word[0] and OSA.distance(word, w, score_cutoff=1) <= 1),
            None,
        )
        if near is None:
            continue
        out.append(folded[last : m.start()])
        out_index.extend(index[last : m.start()])
        out.append(near)
        out_index.extend([index[m.start()]] * len(near))
        last = m.end()
    if not out:
        return folded, index
    out.append(folded[last:])
    out_index.extend(index[last:])
    return "".join(out), out_index


def any_match(patterns: tuple[re.Pattern[str], ...], folded: str) -> re.Match[str] | None:
    """The first match in ``folded`` of any of ``patterns`` (earliest position wins)."""
    found = [m for p in patterns if (m := p.search(folded))]
    return min(found, key=lambda m: m.start()) if found else None
