"""Structure (leading Markdown, role markers, tags, chat-template tokens, code fences, prompt
delimiters) and exfiltration (images, links carrying data, resource-loading markup), read on
the detection copy (docs/design/guard.md §Guard)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from agentmem.guard.base import PROMPT_DELIMITERS
from agentmem.guard.unicode import _is_invisible_cp
from agentmem.lazyre import lazy_compile

# ----------------------------------------------------------------------------------------------
# Structure and exfiltration (detection copy)
# ----------------------------------------------------------------------------------------------

_LEADING = lazy_compile(
    r"(?:#{1,6}(?:\s|$)|>|[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|([-*_])(?:\s*\1){2,}\s*$"
    r"|(?:system|assistant|user|human|ai|model)\s*:)"
)
_REF_DEF = lazy_compile(r"\[[^\]\n]+\]:[^\S\n]*\S")
_TAG = lazy_compile(
    r"<(/?)([a-z][a-z0-9:_.-]*)(\s[^<>\n]*)?/?>|<!--|<!\[cdata\[|<\?[a-z]|<!doctype|<\|[a-z_]+\|>"
)
_CODE_SPAN = lazy_compile(r"`[^`\n]+`")
_ROLE_TAGS = frozenset(
    "system user assistant human ai model instructions instruction prompt context memory "
    "doctrine tool tools function admin developer important note".split()
)
_CHAT_TOKENS = lazy_compile(r"\[/?inst\]|<</?sys>>")
# HTML elements and the names made of role words stay tags even alone; any other lone opening
# tag with no attributes and no closing tag in the text is a placeholder: <your-token>.
_HTML_ELEMENTS = frozenset(
    "a abbr address article aside b bdi bdo blockquote body br button canvas caption cite code col "
    "dd del details dfn dialog div dl dt em fieldset figure footer h1 h2 h3 h4 h5 h6 head header "
    "hr html i input ins kbd label legend li main mark menu nav noscript ol optgroup option p pre "
    "q s samp section select slot small span strong sub summary sup table tbody td template "
    "textarea tfoot th thead time title tr u ul var wbr".split()
)
_NAME_PARTS = lazy_compile(r"[-_.:]")
_FENCE = lazy_compile(r"```|~~~")
# fmt: off
_EXFIL: list[tuple[str, str, re.Pattern[str]]] = [
    ("![", "Markdown image (fetched when displayed)", lazy_compile(r"!\[[^\]\n]*\]\s*[(\[]")),
    ("]:", "reference-style link definition",
     lazy_compile(r"\[[^\]\n]+\]:[^\S\n]*<?[a-z][a-z0-9+.-]*:")),
    ("<", "HTML element that loads a resource",
     lazy_compile(r"<(?:img|image|iframe|frame|object|embed|video|audio|source|link|meta|base"
                r"|form|svg|picture|script|style)\b")),
    ("data:", "data: URI", lazy_compile(r"\bdata:(?:[a-z]+/[a-z0-9.+-]+)?(?:;[a-z0-9=.-]+)*[;,]")),
    ("script:", "script URI", lazy_compile(r"\b(?:java|vb)script:(?=\S)")),
    ("file:", "file: URI", lazy_compile(r"\bfile:/")),
]
# fmt: on
_URL = lazy_compile(r"\b(?:https?|ftp)://[^\s<>\"'`)\]]+")
# <https://…>, rendered as a link: refused with any query data, and to any host that is not a
# code or documentation host (like a reference-style link definition, it is link markup).
_AUTOLINK = lazy_compile(r"<(?:https?|ftp)://([^\s<>/?#]*)([^\s<>?#]*)([^\s<>]*)>")
_MD_LINK_TARGET = lazy_compile(r"\]\(\s*<?(?:https?|ftp)://[^\s)>]*[?#][^\s)>]*")  # [text](url?…)
_QUERY_VALUE_MAX = 32  # characters in one query value
_QUERY_MAX = 100  # characters of query plus fragment
_TEMPLATE = lazy_compile(r"[{}$<>]|%7b|%24|%3c")


# A "- " line (not the first) whose content, white space aside, starts with a character that
# _LEADING or _REF_DEF can start with; the content of other lines cannot match either.
_ENTRY_HINT = lazy_compile(r"\n- [^\S\n]*(?:[#>*+_\[\d-]|system|assistant|user|human|ai|model)")


#: What a match of _LEADING or _REF_DEF starts with (the set of _ENTRY_HINT; a digit aside:
#: ``\d``, ``str.isdecimal``): a text that starts otherwise matches neither, and neither is
#: compiled for it (most entries).
_LEADING_STARTS = (
    "#",
    ">",
    "*",
    "+",
    "_",
    "[",
    "-",
    *"system assistant user human ai model".split(),
)


def _may_lead(content: str) -> bool:
    """Whether ``content`` (white space stripped) can match _LEADING or _REF_DEF."""
    return content.startswith(_LEADING_STARTS) or content[:1].isdecimal()


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


_ESCAPED_DELIMITER = lazy_compile(
    r"(?:&lt;?|&#0*60;?|&#x0*3c;?|\\u003c|\\x3c|%3c)/?agentmem-(?:memory|doctrine)", re.IGNORECASE
)


def _find_all(text: str, needle: str) -> Iterator[int]:
    i = text.find(needle)
    while i >= 0:
        yield i
        i = text.find(needle, i + 1)


def _placeholder(det: str, tag: str, name: str) -> bool:
    """A lone ``<name>`` (no attributes, not self-closing, no ``</name>`` anywhere) whose name is
    neither an HTML element nor made of a role word: ``<your-token>``, ``<branch-name>``."""
    return (
        not tag.endswith("/>")
        and name not in _HTML_ELEMENTS
        and _ROLE_TAGS.isdisjoint(_NAME_PARTS.split(name))
        and f"</{name}" not in det
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
        if not _may_lead(stripped):
            continue
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
                if not closing and _placeholder(det, m.group(), name):
                    continue  # <your-token>: a value to fill in, not markup
            yield m.start(), m.end(), "HTML/XML-like tag"
    if "]]>" in det:
        for i in _find_all(det, "]]>"):
            yield i, i + 3, "CDATA section end"
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
    # The hot path scans every served entry at every start (docs/design/code.md §Hot path).
    # lazy: urllib.parse (and the ipaddress it imports) only for a text that holds a link
    from urllib.parse import parse_qsl, urlsplit

    if "](" in det:
        # docs/design/guard.md §Guard: a Markdown link carrying query data is refused whatever its length
        # — the rendered link sends it on a click; a bare URL is refused only for long query data.
        for m in _MD_LINK_TARGET.finditer(det):
            yield m.start(), m.end(), "Markdown link with query data"
    if "<" in det:  # an autolink <https://…> is rendered as a link too
        for m in _AUTOLINK.finditer(det):
            host = m.group(1).rpartition("@")[2].partition(":")[0]
            if m.group(3):
                yield m.start(), m.end(), "autolink with query data"
            elif not _allowed_host(host, m.group(2)):
                yield (
                    m.start(),
                    m.end(),
                    "autolink to a host that is not a code or documentation host",
                )
    for m in _URL.finditer(det):
        try:
            parts = urlsplit(m.group())
            values = [v for _, v in parse_qsl(parts.query, keep_blank_values=True)]
            host = parts.hostname or ""
        except ValueError:
            yield m.start(), m.end(), "malformed link"
            continue
        data = parts.query + parts.fragment
        if _TEMPLATE.search(parts.netloc + parts.path + data):
            yield m.start(), m.end(), "link with a template to fill in"
        elif len(data) > _QUERY_MAX or any(len(v) >= _QUERY_VALUE_MAX for v in values):
            yield m.start(), m.end(), f"link with long query data ({len(data)} characters)"
        if _capture_host(host):
            yield m.start(), m.end(), "link to a request-capture or webhook relay service"
        elif _WEBHOOK_PATH.search(parts.path) and not _allowed_host(host, parts.path):
            yield m.start(), m.end(), "link to a webhook endpoint on a host not on the allowlist"


# Services that record whatever is sent to them, and webhook relays (docs/design/guard.md §Guard).
_CAPTURE_SUFFIXES = (
    "webhook.site", "requestbin.com", "requestbin.net", "pipedream.net", "hookbin.com",
    "beeceptor.com", "requestcatcher.com", "requestinspector.com", "mockbin.org", "postb.in",
    "ptsv2.com", "ptsv3.com", "webhookrelay.com", "hookdeck.com", "ngrok.io", "ngrok.app",
    "ngrok-free.app", "ngrok.dev", "trycloudflare.com", "loca.lt", "localtunnel.me", "serveo.net",
    "interact.sh", "oast.pro", "oast.live", "oast.site", "oast.online", "oast.fun", "oast.me",
    "oastify.com", "burpcollaborator.net", "canarytokens.com", "canarytokens.org",
    "hooks.zapier.com", "webhook.office.com",
)  # fmt: skip
_WEBHOOK_PATH = lazy_compile(r"/(?:api/)?(?:web-?hooks?|hooks?|callbacks?|catch)(?:/|$)")
# Where a webhook path is a page about webhooks (settings, documentation), not an endpoint.
_ALLOWED_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "git-scm.com")
_DOC_HOST = lazy_compile(r"(?:docs?|developers?|dev|learn|help|support|wiki)\.")
_DOC_PATH = lazy_compile(r"/(?:docs?|documentation|guides?|help|wiki|blog)(?:/|$)")


def _suffix(host: str, suffixes: tuple[str, ...]) -> bool:
    return any(host == s or host.endswith("." + s) for s in suffixes)


def _capture_host(host: str) -> bool:
    return _suffix(host, _CAPTURE_SUFFIXES) or (
        host.startswith("hook.") and host.endswith(".make.com")
    )


def _allowed_host(host: str, path: str) -> bool:
    """A host on the allowlist, a documentation host or a documentation path."""
    return (
        _suffix(host, _ALLOWED_HOSTS)
        or _DOC_HOST.match(host) is not None
        or _DOC_PATH.match(path) is not None
    )


# ----------------------------------------------------------------------------------------------
# Data hidden in a link's path or host name (raw text: decoding needs the case)
# ----------------------------------------------------------------------------------------------

_HEX = lazy_compile(r"(?:[0-9a-fA-F]{2}){8,}")
_B64 = lazy_compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_B32 = lazy_compile(r"[a-zA-Z2-7]{16,}={0,6}")
_EXTENSION = lazy_compile(r"\.[A-Za-z0-9]{1,5}$")


def _text_like(data: bytes) -> bool:
    """Decoded bytes that read as text: UTF-8, printable, mostly letters, digits and spaces."""
    if len(data) < 8:
        return False
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if not decoded.isprintable():
        return False
    plain = sum(c.isalnum() or c == " " for c in decoded)
    return plain >= 0.6 * len(decoded)


def _decodes_to_text(part: str, *, base32: bool) -> bool:
    """Whether a path segment or host label is text written in hex, base64 or base32."""
    # lazy: for a link's long path segment or host label only, never on the hot path's entries
    import base64

    candidates: list[bytes] = []
    try:
        if _HEX.fullmatch(part):
            candidates.append(bytes.fromhex(part))
        if _B64.fullmatch(part):
            padded = part.rstrip("=") + "=" * (-len(part.rstrip("=")) % 4)
            alt = padded.replace("-", "+").replace("_", "/")
            candidates.append(base64.b64decode(alt, validate=False))
        if base32 and _B32.fullmatch(part):
            bare = part.rstrip("=").upper()
            candidates.append(base64.b32decode(bare + "=" * (-len(bare) % 8)))
    except ValueError:  # binascii.Error is a ValueError
        pass
    return any(_text_like(c) for c in candidates)


def _link_data_hits(text: str, spans: list[tuple[int, int]]) -> Iterator[tuple[int, int, str]]:
    """Links (raw ``spans``) whose host name or path carries text written in hex, base64 or
    base32: data smuggled out where the query checks do not look."""
    if not spans:
        return
    # lazy: urllib.parse only for a text that holds a link (see _exfiltration_hits)
    from urllib.parse import urlsplit

    for start, end in spans:
        url = text[start:end]
        if not url.isascii():  # read without invisible characters, as the other rules are
            url = "".join(ch for ch in url if not _is_invisible_cp(ch))
        try:
            parts = urlsplit(url)
        except ValueError:
            continue  # the exfiltration check already refuses a malformed link
        host = parts.netloc.rpartition("@")[2].partition(":")[0]  # as written: case matters
        labels = host.split(".")[:-2]  # the registered domain and its suffix are the site's name
        if any(len(label) >= 16 and _decodes_to_text(label, base32=True) for label in labels):
            yield start, end, "link with data encoded in its host name"
            continue
        for segment in parts.path.split("/"):
            segment = _EXTENSION.sub("", segment)
            if len(segment) >= 16 and _decodes_to_text(segment, base32=False):
                yield start, end, "link with data encoded in its path"
                break
