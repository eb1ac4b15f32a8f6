"""A change of mind told by content (docs/design/offline.md §Offline extractor).

People rarely say "replace the entry …". They name the new value of something an entry of
their memory already settles, or say that it holds no longer:

- "3 bullets is too tight, make it 5 max from now on" on "Keep each comment to at most 3 bullet
  points." — a **figure** of the entry gets another value of the same unit ("5 % c'est trop bas
  comme seuil. Passe à 10 %.", "die Grenze liegt seit Oktober bei 250.000 €", "£500k");
- "from now on the summaries in English" on "Write review summaries in French." — a word of
  the entry that is one value of a setting (a language, a spelling: ``alternatives``) gets
  another value of the same setting;
- "ya no firmamos como Departamento Legal, ahora es "Asesoría Jurídica"" — a quoted name of the
  entry is said again and a new quoted name given.
- "thursday afternoon from now on" on "Send the report every Monday morning." — a weekday of
  the entry gets another, with its part of the day, in a sentence that says it holds from now
  on (a weekday alone is one-off: "send it Friday"); "lo mandas el 15 de enero" on "… el 1 de
  marzo" — a month with its day of the month.

:func:`turn_changes` reads one turn of the person's own words against the entries: each found
change is a ``modify`` whose target is the entry's text (never its record) and whose text is
the entry with the one value replaced, so the entry keeps its wording. A change needs a cue
that something changed (``change_cues``, ``no_longer``: "now", "raised", "the threshold",
"désormais", "ya no", "seit"), a link to the entry (the old value said again, a content word
shared, or the same unit), and is never read from a question, a negated clause or a one-off.
Content words are compared inflection aside (:func:`same_word`, a German compound's head
included: "Berichte" is in "Prüfberichte"). Pure functions; no I/O.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from agentmem.harvest import markers
from agentmem.harvest.markers import Language, any_match, fold

_WORDS = re.compile(r"[a-z0-9]+")
#: A figure: a currency before it, thousands grouped, a decimal part, "k"/"m", a unit after.
_FIGURE = re.compile(
    r"(?P<pre>[£$€]\s?)?(?<![\w.,])(?P<num>\d{1,3}(?:[.,]\d{3})+(?![.,]?\d)|\d+(?:[.,]\d+)?)"
    r"(?P<mult>[kKmM]\b)?(?:\s?(?P<post>%|€|£|\$|[^\W\d_]+))?"
)
#: Words before a figure that make it a numbered place, not a value ("clause 9.1").
_PLACES = frozenset(
    "clause clauses section sections article articles art line lines page item step annex"
    " schedule no nr paragraph paragraphe ligne annexe clausula seccion articulo linea anexo"
    " absatz ziffer anlage abschnitt artikel zeile version v".split()
)
_QUOTED = re.compile(r"[\"“«„]\s*([^\"“”«»„]{2,60}?)\s*[\"”»“]")
_SYMBOLS = frozenset("%€£$")


def content_words(text: str) -> set[str]:
    """The words of ``text`` that may carry its content: folded, three letters or more (or a
    figure), not a common word of any marker language."""
    stop: set[str] = set()
    for language in markers.languages():
        stop |= language.detect
    folded, _ = fold(text)
    return {w for w in _WORDS.findall(folded) if (len(w) >= 3 or w.isdigit()) and w not in stop}


def same_word(a: str, b: str) -> bool:
    """True when two folded words are one word, inflection aside: a plural ("date" /
    "dates", "retry" / "retries"), a common start of at least
    five letters (all but the last two of the shorter word), or eight letters; or the head of a
    compound ("berichte" ends "prufberichte", six letters or more)."""
    if a == b:
        return True
    if a.isdigit() or b.isdigit():
        return False
    short, long_ = sorted((a, b), key=len)
    if len(short) >= 3 and long_ in (short + "s", short + "es"):
        return True  # a plural: "date" / "dates"
    if (
        len(short) >= 4
        and short.endswith("y")
        and long_ in (short[:-1] + "ies", short[:-1] + "ied")
    ):
        return True  # "retry" / "retries", "policy" / "policies"
    if len(short) >= 6 and long_.endswith(short):
        return True
    common = len(os.path.commonprefix([a, b]))
    return len(short) >= 5 and (common >= max(5, len(short) - 2) or common >= 8)


def shared(a: set[str], b: set[str]) -> set[str]:
    """Words of ``a`` that ``b`` holds too (:func:`same_word`)."""
    return {w for w in a if any(same_word(w, x) for x in b)}


@dataclass(frozen=True)
class Figure:
    """A value written in a text: ``value`` as a number, ``unit`` folded ("%", "€", "days" …,
    "" when none is named), ``start``/``end`` the digits' span, ``raw`` the digits."""

    value: float
    unit: str
    start: int
    end: int
    raw: str
    grouped: str  # the thousands separator the digits use, "" when none


def _unit_key(unit: str) -> str:
    """One key per unit, singular or plural ("day" and "days", "Tag" and "Tage")."""
    return unit if unit in _SYMBOLS else unit[:3]


def spelled_figures(
    text: str, langs: tuple[Language, ...] | list[Language], alone: bool = False
) -> str:
    """``text`` with a number word written as a figure where a unit follows it ("cinco
    líneas" → "5 líneas", "two weeks" → "2 weeks"); a number word alone stays a word unless
    ``alone`` ("give me five" after "three bullets is not enough")."""
    numbers = {w: n for lang in langs for w, n in lang.numbers}
    units = frozenset(u for lang in langs for u in lang.units)
    if not numbers:
        return text
    folded, index = fold(text)
    out, last = [], 0
    found = list(_WORDS.finditer(folded))
    for k, m in enumerate(found):
        unit = k + 1 < len(found) and found[k + 1].group(0) in units
        if m.group(0) in numbers and (unit or alone):
            out += [text[last : index[m.start()]], numbers[m.group(0)]]
            last = index[m.end()]
    return "".join(out) + text[last:]


def figures(text: str, langs: tuple[Language, ...] | list[Language]) -> list[Figure]:
    """The values of ``text``: not a numbered place ("clause 9.1", "v4"), not a year."""
    units = frozenset(u for lang in langs for u in lang.units)
    out: list[Figure] = []
    for m in _FIGURE.finditer(text):
        before = fold(text[: m.start()])[0].split()
        if before and before[-1].strip("(.:") in _PLACES:
            continue
        raw = m.group("num")
        grouped = ""
        if re.fullmatch(r"\d{1,3}(?:[.,]\d{3})+", raw):
            grouped = raw[-4]
            number = float(raw.replace(grouped, ""))
        else:
            number = float(raw.replace(",", "."))
        mult = (m.group("mult") or "").lower()
        number *= {"k": 1e3, "m": 1e6}.get(mult, 1)
        pre = (m.group("pre") or "").strip()
        post = fold(m.group("post") or "")[0]
        unit = pre or (post if post in _SYMBOLS or post in units else "")
        if not unit and not mult and 1900 <= number <= 2100 and raw.isdigit():
            continue  # a year
        out.append(
            Figure(
                number, unit, m.start("num"), m.end("mult") if mult else m.end("num"), raw, grouped
            )
        )
    return out


def _written_like(value: float, old: Figure) -> str:
    """``value`` written as ``old`` writes its figures (thousands grouped the same way)."""
    if value == int(value):
        digits = str(int(value))
        if old.grouped and len(digits) > 3:
            head = len(digits) % 3 or 3
            groups = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
            return old.grouped.join(groups)
        return digits
    return (f"{value:g}").replace(".", "," if "," in old.raw else ".")


@dataclass(frozen=True)
class Change:
    """A change of mind about entry ``index`` (of the list given): its new ``text``; the
    sentences (indices) of the turn that say it."""

    index: int
    text: str
    sentences: frozenset[int]
    kind: str  # "figure", "alternative" or "quoted"


@dataclass(frozen=True)
class _Sentence:
    text: str
    folded: str
    langs: tuple[Language, ...]
    words: set[str]


def _negated_before(folded: str, at: int) -> bool:
    """True when a negation opens the clause of ``folded`` that ends at ``at``."""
    start = max(folded.rfind(c, 0, at) for c in ",;:.!")
    head = markers.words(folded[start + 1 : at])
    return any(w in _NEGATIONS or w.endswith("n't") or w.startswith(("n'", "kein")) for w in head)


_NEGATIONS = frozenset("not never no nunca nie nicht kein ne pas jamais dont jamas".split())

#: A figure turned down by the word after it, closing its clause ("al 10 no, es demasiado",
#: "10 %? non", "zehn nicht"): not the new value.
_TURNED_DOWN = re.compile(r"\s*(?:%|[^\W\d_]+)?\s*\b(?:no|non|not|nein|nicht)\b\s*(?:[,.;!?]|$)")


def _turned_down(text: str, figure: Figure) -> bool:
    """True when ``figure`` of ``text`` is refused by a negation that opens or closes its
    clause ("not 10", "pas 10", "al 10 no,")."""
    folded = fold(text)[0]
    if len(folded) != len(text):
        return False  # positions would not line up; read it as said
    return _negated_before(folded, figure.start) or bool(_TURNED_DOWN.match(folded, figure.end))


#: Endings a value word takes ("anglaise", "englischen", "tuteamos", "vouvoyons"), never a
#: new word ("Deutschland" is no "deutsch").
_INFLECTIONS = frozenset(
    # the last two: an imperative with its pronoun ("tutéame")
    "e s es en er em n a as o os amos emos imos ons ez t st te ten ent ait ar er ame eme".split()
)


#: The inflections of ``_INFLECTIONS`` that are an imperative with its pronoun ("tutéame").
_WITH_PRONOUN = ("ame", "eme")


def _alternatives() -> dict[str, str]:
    return {w: v for lang in markers.languages() for w, v in lang.alternatives}


#: The setting whose values are the days of the week (``alternatives``: "monday: day:mon"),
#: and the one of the parts of a day ("morning: time:morning"), changed with its day only.
_DAY = "day"
_TIME = "time"
#: The setting of the months ("marzo: month:03"); a month changes with its day of the month.
_MONTH = "month"
_DAY_BEFORE = re.compile(r"\b(?P<day>\d{1,2})(?:er|st|nd|rd|th|\.)?\s+(?:de\s+|of\s+)?$")
_DAY_AFTER = re.compile(r"\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?\b")
#: A time on the clock ("5 pm", "17h30", "17 Uhr", "9:00").
_CLOCK = re.compile(r"\b\d{1,2}(?:[:.h]\d{2}|\s?(?:am|pm|h|uhr)\b)", re.IGNORECASE)


def _day_number(folded: str, start: int, end: int) -> re.Match[str] | None:
    """The day of the month said with the month at ``folded[start:end]`` ("15 de enero", "1er
    mars", "3. März", "March 3rd"), or None."""
    before = _DAY_BEFORE.search(folded[:start])
    return before if before is not None else _DAY_AFTER.match(folded, end)


def _with_day_of_month(
    entry: str,
    old: tuple[str, int, int],
    found: tuple[str, set[int], str],
    read: list[_Sentence],
) -> tuple[str, set[int], str] | None:
    """The month change ``found`` with the day of the month its sentence gives too ("lo mandas
    el 15 de enero" on "… el 1 de marzo": "… el 15 de enero"); None when that sentence gives a
    day the entry has no place for."""
    text, said, kind = found
    (at,) = said
    sentence = read[at]
    new_month = next(
        (
            w
            for w in _alternative_words(sentence.folded)
            if w[0].startswith(_MONTH + ":") and w[0] != old[0]
        ),
        None,
    )
    if new_month is None:
        return found
    day = _day_number(sentence.folded, new_month[1], new_month[2])
    if day is None:
        return found
    folded, index = fold(text)
    month = next((w for w in _alternative_words(folded) if w[0] == new_month[0]), None)
    theirs = _day_number(folded, month[1], month[2]) if month is not None else None
    if theirs is None:
        return None
    number = day.group("day")
    b, e = index[theirs.start("day")], index[theirs.end("day")]
    return text[:b] + number + text[e:], said, kind


def _with_time_of_day(
    entry: str, found: tuple[str, set[int], str], read: list[_Sentence]
) -> tuple[str, set[int], str] | None:
    """The day change ``found`` with the part of the day its sentence gives too ("thursday
    afternoon from now on" on "… every Monday morning": "… every Thursday afternoon"); None
    when that sentence gives a time the entry cannot take in one word ("on Wednesday at noon"
    on "… every Thursday at 5 pm", "le lundi à midi" on "… chaque vendredi matin" is one when
    "midi" replaces "matin"): another reading of the turn says it then."""
    text, said, kind = found
    (at,) = said
    sentence = read[at]
    clock = _CLOCK.search(sentence.folded)
    if clock is not None and clock.group(0).replace(" ", "") not in fold(entry)[0].replace(" ", ""):
        return None
    new = {v for v, _b, _e in _alternative_words(sentence.folded) if v.startswith(_TIME + ":")}
    folded = fold(text)[0]
    old = [(v, b, e) for v, b, e in _alternative_words(folded) if v.startswith(_TIME + ":")]
    if not new or new <= {v for v, _b, _e in old}:
        return found
    if len(new) != 1 or len({v for v, _b, _e in old}) != 1:
        return None
    timed = _other_value(text, old[0], read, [at], True)
    return (timed[0], said, kind) if timed is not None else None


def _holds_from_now(sentence: _Sentence) -> bool:
    """True when ``sentence`` says what it asks holds from now on ("from now on", "every",
    "désormais", "ab jetzt") or replaces something ("instead of", "plutôt que")."""
    return any(
        any_match(lang.standing, sentence.folded) or any_match(lang.replace, sentence.folded)
        for lang in sentence.langs
    )


def _without_days(folded: str) -> str:
    """``folded`` with each weekday blanked (the values of :data:`_DAY`)."""
    for value, start, end in reversed(_alternative_words(folded)):
        if value.split(":", 1)[0] == _DAY:
            folded = folded[:start] + " " * (end - start) + folded[end:]
    return folded


def _alternative_words(folded: str) -> list[tuple[str, int, int]]:
    """``[(setting:value, start, end)]`` of the words of ``folded`` that are values of one
    setting (a word or its inflection: "anglaise", "englischen")."""
    table = _alternatives()
    out = []
    for m in _WORDS.finditer(folded):
        word = m.group(0)
        for key, value in table.items():
            if word == key or (word.startswith(key) and word[len(key) :] in _INFLECTIONS):
                out.append((value, m.start(), m.end()))
                break
    return out


def turn_changes(
    sentences: list[str], entries: list[str], one_off: tuple[re.Pattern[str], ...] = ()
) -> list[Change]:
    """The changes of mind one turn of the person's own ``sentences`` says about ``entries``
    (their texts; see the module). ``one_off``: patterns of a sentence about this session only,
    read from no change."""
    every = markers.languages()
    read: list[_Sentence] = []
    for s in sentences:
        langs = tuple(markers.detect(fold(s)[0]))
        s = spelled_figures(spelled_figures(s, every), langs, alone=True)
        folded = fold(s)[0]
        read.append(_Sentence(s, folded, langs, content_words(s)))
    # "¿y si … saliera a las 6:30? la gente lo lee en el tren. si, venga, hagámoslo así": a
    # question one of the next two sentences assents to says the change; the assent is its cue
    confirmed = {
        i
        for i, s in enumerate(read)
        if ("?" in s.text or "¿" in s.text)
        and any(any_match(lang.assent, r.folded) for r in read[i + 1 : i + 3] for lang in every)
    }
    usable = [
        i
        for i, s in enumerate(read)
        if (i in confirmed or ("?" not in s.text and "¿" not in s.text))
        and not any(any_match(lang.not_standing, s.folded) for lang in s.langs)
        and not any_match(one_off, s.folded)
    ]
    # "thursday afternoon from now on" on "… every Monday morning": a weekday is one-off
    # ("send it Friday") but for the day an entry settles, changed with a cue
    dated = [
        i
        for i, s in enumerate(read)
        if i not in usable
        and "?" not in s.text
        and "¿" not in s.text
        and not any(any_match(lang.not_standing, _without_days(s.folded)) for lang in s.langs)
        and not any_match(one_off, s.folded)
    ]
    if not usable and not dated:
        return []
    cue = bool(confirmed & set(usable)) or any(
        any_match(lang.change_cues, read[i].folded) or any_match(lang.no_longer, read[i].folded)
        for i in usable + dated
        for lang in every
    )
    out: list[Change] = []
    for index, said_entry in enumerate(entries):
        entry = spelled_figures(said_entry, every)
        change = (
            _clock_change(entry, read, usable, cue)
            or _figure_change(entry, read, usable, cue)
            or _alternative_change(entry, read, usable, cue, dated)
            or _quoted_change(entry, read, usable)
        )
        if change is not None:
            text, said, kind = change
            if text != entry:
                out.append(Change(index, text, frozenset(said), kind))
    return out


def _clock_change(
    entry: str, read: list[_Sentence], usable: list[int], cue: bool
) -> tuple[str, set[int], str] | None:
    """The entry with its one time on the clock replaced by the one other time a sentence gives
    ("a las 6:30" on "… a las 7:00"), with a cue or a word of the entry in that sentence."""
    olds = list(_CLOCK.finditer(entry))
    if len(olds) != 1:
        return None
    old = olds[0]
    known = {w for w in content_words(entry) if not w.isdigit()}
    new: dict[str, tuple[str, int]] = {}
    for i in usable:
        for m in _CLOCK.finditer(read[i].text):
            if _clock_value(m.group(0)) != _clock_value(old.group(0)):
                new.setdefault(_clock_value(m.group(0)), (m.group(0), i))
    if len(new) != 1:
        return None
    ((said, at),) = new.values()
    if not (cue or shared(read[at].words, known)):
        return None
    return entry[: old.start()] + said + entry[old.end() :], {at}, "clock"


def _clock_value(said: str) -> str:
    """A time on the clock as ``HH:MM`` ("6:30", "6h30", "6.30 am" → "06:30"; "5 pm" → "17:00")."""
    digits = re.findall(r"\d+", said)
    hour, minute = int(digits[0]), int(digits[1]) if len(digits) > 1 else 0
    if "pm" in said.lower() and hour < 12:
        hour += 12
    return f"{hour:02d}:{minute:02d}"


def _figure_change(
    entry: str, read: list[_Sentence], usable: list[int], cue: bool
) -> tuple[str, set[int], str] | None:
    if not cue:
        return None
    langs = markers.languages()
    olds = figures(entry, langs)
    said = [f for i in usable for f in figures(read[i].text, read[i].langs or langs) if f.unit]
    by_unit = len(olds) > 1
    if by_unit:
        # "halve it (so 24 hours)" on "… to tier 2 after 48 hours …": the figure of that unit
        olds = [
            o for o in olds if o.unit and any(_unit_key(f.unit) == _unit_key(o.unit) for f in said)
        ]
    if len(olds) != 1:
        return None
    old = olds[0]
    known = {w for w in content_words(entry) if not w.isdigit()}
    new: dict[float, tuple[Figure, int]] = {}
    again: set[int] = set()
    for i in usable:
        for f in figures(read[i].text, read[i].langs or langs):
            if by_unit and not f.unit:
                continue
            if f.unit and old.unit and _unit_key(f.unit) != _unit_key(old.unit):
                continue
            if f.value == old.value:
                again.add(i)
            elif not _turned_down(read[i].text, f):
                new.setdefault(f.value, (f, i))
    if len(new) != 1:
        return None
    ((value, (figure, at)),) = new.items()
    at_all = {
        i for i in usable for f in figures(read[i].text, read[i].langs or langs) if f.value == value
    }
    linked = (
        bool(again)
        # "ocho. lo del descuento …, hasta un ocho por ciento": any sentence giving the value
        or any(shared(read[i].words, known) for i in at_all)
        or (bool(figure.unit) and _unit_key(figure.unit) == _unit_key(old.unit))
    )
    if not linked:
        return None
    text = entry[: old.start] + _written_like(value, old) + entry[old.end :]
    return text, again | at_all, "figure"


def _alternative_change(
    entry: str, read: list[_Sentence], usable: list[int], cue: bool, dated: list[int]
) -> tuple[str, set[int], str] | None:
    folded, index = fold(entry)
    olds = _alternative_words(folded)
    for value, start, end in olds:
        setting = value.split(":", 1)[0]
        if len({v for v, _, _ in olds if v.split(":", 1)[0] == setting}) != 1:
            continue  # the entry names two values of that setting ("French or English")
        if setting == _TIME:
            continue  # a part of the day changes with its day only
        if setting == _MONTH:
            found = _other_value(entry, (value, start, end), read, usable, cue)
            if found is not None:
                found = _with_day_of_month(entry, (value, start, end), found, read)
            if found is not None:
                return found
            continue
        if setting == _DAY:
            said = sorted(usable + dated)
            if not any(_holds_from_now(read[i]) for i in said):
                continue  # "send it Friday (now)": this week's, unless said to hold from now on
            found = _other_value(entry, (value, start, end), read, said, cue)
            if found is not None:
                found = _with_time_of_day(entry, found, read)
        else:
            found = _other_value(entry, (value, start, end), read, usable, cue)
        if found is not None:
            return found
    return None


def _other_value(
    entry: str,
    old: tuple[str, int, int],
    read: list[_Sentence],
    usable: list[int],
    cue: bool,
) -> tuple[str, set[int], str] | None:
    """The entry with its value ``old`` of a setting replaced by another value of that setting
    a sentence gives ("British" → "American" spelling, "siezen" → "duzen")."""
    folded, index = fold(entry)
    value, start, end = old
    setting = value.split(":", 1)[0]
    known = {w for w in content_words(entry) if not w.isdigit()} - {folded[start:end]}
    for i in usable:
        s = read[i]
        for other, b, e in _alternative_words(s.folded):
            if other == value or other.split(":", 1)[0] != setting:
                continue
            if _negated_before(s.folded, b):
                continue
            if not (cue or shared(s.words, known)):
                continue
            _, s_index = fold(s.text)
            said = s.text[s_index[b] : s_index[e]]
            if s.folded[b:e].endswith(_WITH_PRONOUN) and s.folded[b:e] not in _alternatives():
                return s.text, {i}, "alternative"  # "tutéame …": a verb, no word of the entry
            was = entry[index[start] : index[end]]
            if was[:1].isupper():
                said = said[:1].upper() + said[1:]
            elif was[:1].islower():
                said = said[:1].lower() + said[1:]
            if said.endswith(",") or said.endswith("."):
                said = said.rstrip(",.")
            if said[-1:] in "sS" and was[-1:] not in "sS" and fold(said[:-1])[0] in _alternatives():
                said = said[:-1]  # "it's thursdays" on "every Friday": "every Thursday"
            return entry[: index[start]] + said + entry[index[end] :], {i}, "alternative"
    return None


def _quoted_change(
    entry: str, read: list[_Sentence], usable: list[int]
) -> tuple[str, set[int], str] | None:
    quoted = _QUOTED.search(entry)
    if quoted is None:
        return None
    old_words = content_words(quoted.group(1))
    if not old_words:
        return None
    for i in usable:
        s = read[i]
        if not old_words <= s.words:
            continue
        for m in _QUOTED.finditer(s.text):
            if content_words(m.group(1)) != old_words:
                return (
                    entry[: quoted.start(1)] + m.group(1) + entry[quoted.end(1) :],
                    {i},
                    "quoted",
                )
    return None
