"""Structure (leading Markdown, role markers, tags, chat-template tokens, code fences, prompt
delimiters) and exfiltration (images, links carrying data, resource-loading markup), read on
the detection copy (docs/design.md §Guard)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlsplit

from agentmem.guard.base import PROMPT_DELIMITERS

# ----------------------------------------------------------------------------------------------
# Structure and exfiltration (detection copy)
# ----------------------------------------------------------------------------------------------

_LEADING = re.compile(
    r"(?:#{1,6}(?:\s|$)|>|[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|([-*_])(?:\s*\1){2,}\s*$"
    r"|(?:system|assistant|user|human|ai|model)\s*:)"
)
_REF_DEF = re.compile(r"\[[^\]\n]+\]:[^\S\n]*\S")
_TAG = re.compile(
    r"<(/?)([a-z][a-z0-9:_.-]*)(\s[^<>\n]*)?/?>|<!--|<!\[cdata\[|<\?[a-z]|<!doctype|<\|[a-z_]+\|>"
)
_CODE_SPAN = re.compile(r"`[^`\n]+`")
_ROLE_TAGS = frozenset(
    "system user assistant human ai model instructions instruction prompt context memory "
    "doctrine tool tools function admin developer important note".split()
)
_CHAT_TOKENS = re.compile(r"\[/?inst\]|<</?sys>>")
_FENCE = re.compile(r"```|~~~")
# fmt: off
_EXFIL: list[tuple[str, str, re.Pattern[str]]] = [
    ("![", "Markdown image (fetched when displayed)", re.compile(r"!\[[^\]\n]*\]\s*[(\[]")),
    ("]:", "reference-style link definition",
     re.compile(r"\[[^\]\n]+\]:[^\S\n]*<?[a-z][a-z0-9+.-]*:")),
    ("<", "HTML element that loads a resource",
     re.compile(r"<(?:img|image|iframe|frame|object|embed|video|audio|source|link|meta|base"
                r"|form|svg|picture|script|style)\b")),
    ("data:", "data: URI", re.compile(r"\bdata:(?:[a-z]+/[a-z0-9.+-]+)?(?:;[a-z0-9=.-]+)*[;,]")),
    ("script:", "script URI", re.compile(r"\b(?:java|vb)script:(?=\S)")),
    ("file:", "file: URI", re.compile(r"\bfile:/")),
]
# fmt: on
_URL = re.compile(r"\b(?:https?|ftp)://[^\s<>\"'`)\]]+")
_MD_LINK_TARGET = re.compile(r"\]\(\s*<?(?:https?|ftp)://[^\s)>]*[?#][^\s)>]*")  # [text](url?…)
_QUERY_VALUE_MAX = 32  # characters in one query value
_QUERY_MAX = 100  # characters of query plus fragment
_TEMPLATE = re.compile(r"[{}$<>]|%7b|%24|%3c")


# A "- " line (not the first) whose content, white space aside, starts with a character that
# _LEADING or _REF_DEF can start with; the content of other lines cannot match either.
_ENTRY_HINT = re.compile(r"\n- [^\S\n]*(?:[#>*+_\[\d-]|system|assistant|user|human|ai|model)")


def _lines(det: str, kind: str) -> Iterator[tuple[int, str]]:
    """(offset, content) of each text whose leading Markdown matters: the whole entry or field,
    or in a file the content of every ``- `` entry line (headings are the file's own) that may
    start with Markdown structure (see ``_ENTRY_HINT``)."""
    if kind != "file":
        yield 0, det
        return
    if det.startswith("- "):
        end = det.find("\n")
        yield 2, det[2 : end if end >= 0 else len(det)]
    for m in _ENTRY_HINT.finditer(det):
        start = m.start() + 3
        end = det.find("\n", start)
        yield start, det[start : end if end >= 0 else len(det)]


_ESCAPED_DELIMITER = re.compile(
    r"(?:&lt;?|&#0*60;?|&#x0*3c;?|\\u003c|\\x3c|%3c)/?agentmem-(?:memory|doctrine)", re.IGNORECASE
)


def _structure_hits(det: str, kind: str) -> Iterator[tuple[int, int, str]]:
    for delim in PROMPT_DELIMITERS:
        i = det.find(delim)
        while i >= 0:
            yield i, i + len(delim), "matches one of agentmem's prompt delimiters"
            i = det.find(delim, i + 1)
    if "agentmem-" in det:  # the same tags written as HTML entities: &lt;/agentmem-doctrine&gt;
        for esc in _ESCAPED_DELIMITER.finditer(det):
            yield esc.start(), esc.end(), "matches one of agentmem's prompt delimiters (escaped)"
    for off, content in _lines(det, kind):
        stripped = content.lstrip()
        s = off + len(content) - len(stripped)
        m = _LEADING.match(stripped)
        if m:
            yield s, s + max(1, m.end()), "starts with Markdown structure or a role marker"
        elif _REF_DEF.match(stripped):
            yield s, s + len(stripped), "starts with a reference-style link definition"
    if "<" in det:
        code = [m.span() for m in _CODE_SPAN.finditer(det)] if "`" in det else []
        for m in _TAG.finditer(det):
            closing, name, attrs = m.group(1), m.group(2), m.group(3)
            if name and not attrs and name not in _ROLE_TAGS:
                if not closing and m.start() and det[m.start() - 1].isalnum():
                    continue  # a generic type such as Vec<String>, not markup
                if any(s < m.start() and m.end() < e for s, e in code):
                    continue  # `<T>` inside inline code
            yield m.start(), m.end(), "HTML/XML-like tag"
    if "[" in det or "<<" in det:
        for m in _CHAT_TOKENS.finditer(det):
            yield m.start(), m.end(), "chat-template token"
    if "```" in det or "~~~" in det:
        for m in _FENCE.finditer(det):
            yield m.start(), m.end(), "code fence"


def _exfiltration_hits(det: str) -> Iterator[tuple[int, int, str]]:
    for needle, label, rx in _EXFIL:
        if needle in det:
            for m in rx.finditer(det):
                yield m.start(), m.end(), label
    if "://" not in det:
        return
    if "](" in det:
        # docs/design.md §Guard: a Markdown link carrying query data is refused whatever its length
        # — the rendered link sends it on a click; a bare URL is refused only for long query data.
        for m in _MD_LINK_TARGET.finditer(det):
            yield m.start(), m.end(), "Markdown link with query data"
    for m in _URL.finditer(det):
        try:
            parts = urlsplit(m.group())
            values = [v for _, v in parse_qsl(parts.query, keep_blank_values=True)]
        except ValueError:
            yield m.start(), m.end(), "malformed link"
            continue
        data = parts.query + parts.fragment
        if _TEMPLATE.search(data):
            yield m.start(), m.end(), "link with a template to fill in its query"
        elif len(data) > _QUERY_MAX or any(len(v) >= _QUERY_VALUE_MAX for v in values):
            yield m.start(), m.end(), f"link with long query data ({len(data)} characters)"
