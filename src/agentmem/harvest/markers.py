"""Language markers for the offline extractor, read from ``harvest/data/<language>.yaml``.

One data file per language (English, French, Spanish, German) holds the triggers of an explicit
request, the markers of a change of mind (``remove``, ``replace``), of who is concerned
(``person``, ``team``), the statements of what the team accepts (``doctrine_statements``), what
is not a standing request (``not_standing``, ``document_facts``) and the section keywords. Every
pattern is a regular expression matched on :func:`fold`'s copy of a sentence (lower case,
accents removed, straight apostrophes). Adding a language is adding a file; no code changes.
See docs/design.md §Harvest.
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
)


@dataclass(frozen=True)
class Language:
    """The compiled markers of one language (see the module)."""

    code: str
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
    lead_ins: tuple[str, ...]
    sections: tuple[tuple[str, tuple[re.Pattern[str], ...]], ...]


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings")
    return value


def _compile(patterns: list[str], where: str) -> tuple[re.Pattern[str], ...]:
    out = []
    for pattern in patterns:
        try:
            out.append(re.compile(pattern))
        except re.error as exc:
            raise ConfigError(f"{where}: invalid pattern {pattern!r}: {exc}") from None
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
    return Language(
        code=data["language"],
        detect=frozenset(_strings(data.get("detect", []), f"{where}: detect")),
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


def detect(folded: str) -> list[Language]:
    """The languages whose common words occur most in ``folded`` (every language on a tie at
    zero; the tied ones otherwise)."""
    words = _WORD.findall(folded)
    scores = [(sum(1 for w in words if w in lang.detect), lang) for lang in languages()]
    top = max(score for score, _ in scores)
    return [lang for score, lang in scores if score == top]


def any_match(patterns: tuple[re.Pattern[str], ...], folded: str) -> re.Match[str] | None:
    """The first match in ``folded`` of any of ``patterns`` (earliest position wins)."""
    found = [m for p in patterns if (m := p.search(folded))]
    return min(found, key=lambda m: m.start()) if found else None
