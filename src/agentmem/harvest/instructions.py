"""What an instruction file says, and what of it a person would keep (docs/design/harvest.md §Harvest).

An instruction file (``CLAUDE.md``, ``AGENTS.md``, ``.cursorrules``, a Cline memory bank …) is
read with a Markdown parser (markdown-it-py): its list items and paragraphs are its items;
headings, front matter, HTML comments and ``@file`` lines are not, and a code block or a table is
one skipped item. A nested item, and each item of a list that a line ending with ``:``
introduces, keeps its parent's words: the children are joined to the parent in as few entries
as the entry limit allows (``Parent: first; second``).

Each item is then kept, or skipped with a reason (:data:`REASONS`), by the markers of
``harvest/data/import.yaml`` (every language in one file):

- ``log``: under a dated heading or a changelog/progress heading, starting with a date, a status
  mark (✅) or a ticked box, or anywhere in a progress log (``progress.md``, ``activeContext.md``);
- ``placeholder``: a template slot (``[Project name]``, ``<your-name>``, ``TODO``);
- ``command``: a command line (``git gtr list``, ``Dev mode: `bun run dev```), or a line that
  introduces a code block without a rule word ("Run tests like this:");
- ``path``: a file path, a link or a pointer to another file (``src/cli/AGENTS.md — …``);
- ``code``: mostly code (more than half of its letters in code spans, or fewer than five words
  of prose around them; three quarters with a word such as *always*, *must*, *jamais*);
- ``names``: a list of tools and libraries ("Ash, Phoenix, LiveView, xterm.js, tmux", "Uses
  uv.") without a rule word;
- ``description``: an explanation ("Why: …"), a paragraph that states no rule, a ``term —
  definition`` item whose definition states none, a Japanese statement of fact.

What is left is kept: a list item that asks for nothing is still a preference ("Interface
claire et minimaliste"); a paragraph is kept when it holds a rule word or opens with an
instruction.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from typing import TYPE_CHECKING

from agentmem.errors import ConfigError
from agentmem.store.yamlio import load_yaml_text

if TYPE_CHECKING:
    from markdown_it.token import Token

#: Why an item is not proposed: reason → how the report counts one, and several.
REASONS = {
    "command": ("command", "commands"),
    "code": ("code", "code"),
    "path": ("file path or link", "file paths and links"),
    "names": ("tool list", "tool and library lists"),
    "log": ("log line", "log lines"),
    "placeholder": ("placeholder", "placeholders"),
    "description": ("description", "descriptions"),
    "table": ("table", "tables"),
}
#: Items shorter than this (characters) are not items ("Rules", "Notes").
MIN_CHARS = 8


@dataclass(frozen=True)
class Item:
    """One thing a file says, as one line: ``line``–``last`` (1-based) are the lines it covers,
    ``skip`` the reason it is not proposed (None: kept), ``heading`` the nearest heading."""

    text: str
    line: int
    last: int
    skip: str | None = None
    heading: str = ""


@dataclass(frozen=True)
class _Markers:
    strong: _Matcher
    rules: _Matcher
    imperatives: frozenset[str]
    explanations: frozenset[str]
    commands: frozenset[str]
    not_arguments: frozenset[str]
    log_headings: _Matcher
    log_files: frozenset[str]
    uses: _Matcher
    pointers: _Matcher
    statements: _Matcher
    sections: tuple[tuple[str, _Matcher], ...]


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "\u2018": "'"})


@functools.lru_cache(maxsize=8192)
def _folded(text: str) -> str:
    """:func:`agentmem.harvest.markers.fold`'s copy of ``text`` (lower case, accents and
    Japanese voicing marks removed, straight apostrophes), without its offsets."""
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text.translate(_APOSTROPHES))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _folded_pattern(pattern: str) -> str:
    """A pattern folded as the text it is matched on, its ASCII (escapes such as ``\\W``)
    kept as written."""
    return "".join(c if c.isascii() else _folded(c) for c in pattern)


_WORD_PATTERN = re.compile(r"\\b([a-z']+)(\\b)?")
_TOKEN = re.compile(r"[a-z0-9']+")


class _Matcher:
    """Several patterns matched as one: those that are a word (``\\bmust\\b``) or a word's
    start (``\\bavoid``) against the text's words, the others as one regular expression (``^``
    and ``$``: each line of the text). A hundred patterns cost one search, not a hundred."""

    def __init__(self, patterns: list[str], where: str) -> None:
        words: set[str] = set()
        starts: set[str] = set()
        others: list[str] = []
        for pattern in patterns:
            try:
                re.compile(pattern)
            except (re.error, TypeError) as exc:
                raise ConfigError(f"{where}: invalid pattern {pattern!r}: {exc}") from None
            word = _WORD_PATTERN.fullmatch(pattern)
            if word:
                (words if word.group(2) else starts).add(word.group(1))
            else:
                others.append(f"(?:{_folded_pattern(pattern)})")
        self.words = frozenset(words)
        self.starts = frozenset(starts)
        self.lengths = sorted({len(s) for s in starts})
        self.pattern = re.compile("|".join(others), re.MULTILINE) if others else None

    def search(self, folded: str) -> bool:
        if self.words or self.starts:
            for token in _TOKEN.findall(folded):
                if token in self.words or any(token[:n] in self.starts for n in self.lengths):
                    return True
        return self.pattern is not None and self.pattern.search(folded) is not None


@functools.cache
def markers() -> _Markers:
    """The markers of ``harvest/data/import.yaml``, folded and compiled (read once)."""
    where = "agentmem/harvest/data/import.yaml"
    text = (resources.files("agentmem.harvest") / "data" / "import.yaml").read_text("utf-8")
    data = load_yaml_text(text, where, ConfigError)
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping")

    def strings(key: str) -> list[str]:
        value = data.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: {key}: expected a list of strings")
        return value

    def words(key: str) -> list[str]:
        return [_folded(v) for v in strings(key)]

    def patterns(key: str) -> _Matcher:
        return _Matcher(strings(key), f"{where}: {key}")

    sections = data.get("sections", {})
    if not isinstance(sections, dict):
        raise ConfigError(f"{where}: sections: expected a mapping of section → patterns")
    return _Markers(
        strong=patterns("strong"),
        rules=patterns("rules"),
        imperatives=frozenset(words("imperatives")),
        explanations=frozenset(words("explanations")),
        commands=frozenset(words("commands")),
        not_arguments=frozenset(words("not_arguments")),
        log_headings=patterns("log_headings"),
        log_files=frozenset(words("log_files")),
        uses=patterns("uses"),
        pointers=patterns("pointers"),
        statements=patterns("statements"),
        sections=tuple(
            (str(name), _Matcher(pats, f"{where}: sections: {name}"))
            for name, pats in sections.items()
        ),
    )


# --- Reading the Markdown --------------------------------------------------------------------


@dataclass
class _Block:
    """A list item or a paragraph while the file is read: ``children`` are its nested items, or
    the items of the list it introduces; ``code_after``: a code block follows it."""

    text: str
    line: int
    last: int
    kind: str
    heading: str
    children: list[_Block] = field(default_factory=list)
    code_after: bool = False
    ticked: bool = False


_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*(?:\n|\Z)", re.S)
_IMPORT_LINE = re.compile(r"^@[\w./~-]+$")
_CHECKBOX = re.compile(r"^\[([ xX])\]\s+")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")


def one_line(text: str) -> str:
    """One line: white space runs made one space, ``**bold**`` marks dropped (a memory entry is
    plain text), a stray ``**`` left by a bold phrase cut at a line end too."""
    text = _EMPHASIS.sub(r"\2", " ".join(text.split()))
    return text.replace("**", "").strip()


def body_start(text: str) -> int:
    """The line (1-based) after the front matter, 1 when there is none."""
    match = _FRONT.match(text)
    return match.group(0).count("\n") + 1 if match else 1


def _intro(text: str) -> bool:
    """True when ``text`` ends with a colon: it introduces what follows."""
    return one_line(text).endswith((":", "："))


def _tokens(text: str) -> list[Token]:
    # lazy: the Markdown parser is only needed by an import and the memory tool's create
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").parse(text)


def _read(text: str) -> tuple[list[_Block], list[Item]]:
    """The file's top-level blocks (items nested under their parents) and its skipped code
    blocks and tables, numbered in the file's lines."""
    start = body_start(text)
    lines = text.replace("\r\n", "\n").split("\n")
    body = "\n".join([""] * (start - 1) + lines[start - 1 :])
    roots: list[_Block] = []
    skipped: list[Item] = []
    items: list[_Block] = []  # the list items open now, innermost last
    parents: list[_Block | None] = []  # per open list: the block its items belong to
    headings: list[str] = []
    previous: _Block | None = None  # the paragraph just closed at the top, if nothing since
    tokens = _tokens(body)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        kind = token.type
        heading = headings[-1] if headings else ""
        if kind == "heading_open":
            level = int(token.tag[1:])
            title = one_line(tokens[index + 1].content)
            headings = headings[: level - 1] + [""] * max(0, level - 1 - len(headings)) + [title]
            previous = None
            index += 3
            continue
        if kind in ("bullet_list_open", "ordered_list_open"):
            if items:
                parents.append(items[-1])
            else:
                intro = previous if previous and _intro(previous.text) else None
                parents.append(intro)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            parents.pop()
            previous = None
        elif kind == "list_item_open":
            first, last = token.map or (0, 0)
            block = _Block("", first + 1, last, "item", heading)
            owner = parents[-1] if parents else None
            (owner.children if owner else roots).append(block)
            items.append(block)
        elif kind == "list_item_close":
            items.pop()
        elif kind == "paragraph_open":
            inline = tokens[index + 1]
            first, last = token.map or (0, 0)
            content = inline.content
            if items:
                block = items[-1]
                if not block.text:
                    tick = _CHECKBOX.match(content)
                    if tick:
                        block.ticked = tick.group(1) != " "
                        content = content[tick.end() :]
                    block.text = content
                else:
                    block.text += "\n" + content
            elif _IMPORT_LINE.match(content.strip()):
                skipped.append(Item(content.strip(), first + 1, last, "path", heading))
            else:
                block = _Block(content, first + 1, last, "para", heading)
                roots.append(block)
                previous = block
            index += 3
            continue
        elif kind in ("fence", "code_block"):
            first, last = token.map or (0, 0)
            skipped.append(Item("", first + 1, last, "code", heading))
            if items:
                items[-1].code_after = True
            elif previous is not None and _intro(previous.text):
                previous.code_after = True
            previous = None
        elif kind == "table_open":
            first, last = token.map or (0, 0)
            skipped.append(Item("", first + 1, last, "table", heading))
            while tokens[index].type != "table_close":
                index += 1
            previous = None
        elif kind in ("hr", "html_block"):
            previous = None
        index += 1
    return roots, skipped


# --- Judging one item --------------------------------------------------------------------------

_CODE_SPAN = re.compile(r"`+([^`]+?)`+")
_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)[^)]*\)")
_URL = re.compile(r"\b(?:https?|file|ftp|ssh|postgres(?:ql)?|mysql|redis|mongodb)://\S+")
_EXTENSIONS = (
    r"(?:md|mdc|py|ts|tsx|js|jsx|cjs|mjs|json|jsonl|ya?ml|toml|html?|css|sh|txt|env|lock|rs|go"
    r"|rb|exs?|java|kt|swift|sql|ini|cfg|conf|xml|csv)"
)
#: A path in plain text: ``./a``, ``~/a``, ``/a/b``, ``a/b/``, ``a/b.md``, ``CLAUDE.md``.
_BARE_PATH = re.compile(
    r"(?<![\w/])@?(?:(?:~|\.{1,2})?/(?:[\w.*@-]+/?)+|(?:[\w.*@-]+/)+(?:[\w*@-]+\."
    + _EXTENSIONS
    + r"\b)?(?=[\s,;:)]|$)|[\w-]+\."
    + _EXTENSIONS
    + r"\b)"
)
#: A path in a code span: anything with a slash, or a file name.
_CODE_PATH = re.compile(r"[\w.*@~-]*/[\w.*@/~-]*|[\w.*@-]+\." + _EXTENSIONS)
_DATE = re.compile(
    r"\b(?:19|20)\d\d-\d\d(?:-\d\d)?\b|\b\d{1,2}/\d{1,2}/(?:19|20)?\d\d\b"
    r"|\b(?:19|20)\d\d/\d\d/\d\d\b|\b\d{1,2}\.\d{1,2}\.(?:19|20)\d\d\b"
)
_STARTS_DATED = re.compile(
    r"^[\[(*~_\s]*(?:(?:19|20)\d\d-\d\d|\d{1,2}/\d{1,2}/|\d{1,2}\.\d{1,2}\.(?:19|20)\d\d"
    r"|v?\d+\.\d+\.\d+\b)"
)
_STATUS = re.compile(
    r"^[\s*_>]*(?:[✅✔☑✓❌✗✘🔄⏳🚧🟢🔴🟡📦🎉]|statu[ts]\s*:|statut\s*:|estado\s*:)", re.I
)
_PLACEHOLDER = re.compile(
    r"\[(?![ xX]\])[^\]\[\n]{2,40}\](?![(\[:])"  # [Project name] (not a link, not a box)
    r"|<(?:your|votre|ton|ta|vos|tu)[\w .-]*>|<[a-z]+(?:[-_][a-z]+)+>"  # <your-name>
    r"|\{\{[^}]+\}\}|\b(?:TODO|TBD|FIXME|XXX)\b|\blorem ipsum\b",
)
_LABEL = re.compile(
    r"^(?:\*\*([^*]+?)\*\*|`([^`]+)`|([^\s:`][^:`]{0,40}?))\s*(?:[:：]|\s[—–→-]\s|\s->\s)\s*"
)
_SHELL_LINE = re.compile(r"^\s*\$\s|\$\(|\s&&\s")
_SHELL = re.compile(r"\s#\s|\$\(|\s&&\s|\s\|\s|\s2>&1|^\s*\$\s|\s--?[a-z][\w-]*(?:=|\s|$)")
_CODE_SYNTAX = re.compile(
    r"=>|[{};]\s*$|^(?:import|from|export|const|let|var|def|class|function|fn|func)\s+\w"
)
_LETTERS = re.compile(r"[^\W\d_]")
_WORDS = re.compile(r"[^\W\d_][^\W_]*(?:['’-][^\W\d_]+)*")
_SPLIT = re.compile(r"\s*(?:,|;|\+|、|\band\b|\bet\b|\bund\b|\by\b)\s*")
_PARENS = re.compile(r"\([^)]*\)")


def _letters(text: str) -> int:
    return len(_LETTERS.findall(text))


def _any(matcher: _Matcher, folded: str) -> bool:
    return matcher.search(folded)


@dataclass(frozen=True)
class _Text:
    """An item's text taken apart: its label (``**Term**:``, ```x` —``, ``Term:``) and the
    rest; the code in it (code spans, URLs, link targets, paths) and how much of it is paths;
    the prose around the code; the code at its head (a code label or a leading code span)."""

    raw: str
    label: str
    rest: str
    code: tuple[str, ...]
    paths: int
    prose: str
    head: str | None


def _is_path(value: str) -> bool:
    value = value.strip().strip("*")
    return bool(_URL.match(value) or _CODE_PATH.fullmatch(value))


@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> _Text:
    raw = " ".join(text.split())
    match = _LABEL.match(raw)
    label, rest, head = "", raw, None
    if match:
        label = (match.group(1) or match.group(2) or match.group(3) or "").strip()
        if match.group(1) or match.group(2) or len(label.split()) <= 3:
            rest = raw[match.end() :]
            if match.group(2) or (match.group(1) and label.startswith("`")):
                head = label.strip("`")
        else:
            label = ""
    if head is None:
        lead = _CODE_SPAN.match(rest)
        head = lead.group(1) if lead else None
    code: list[str] = []
    seen: set[str] = set()
    paths = 0

    def span(found: re.Match[str]) -> str:
        nonlocal paths
        code.append(found.group(1))
        if _is_path(found.group(1)) and found.group(1) not in seen:
            seen.add(found.group(1))
            paths += 1
        return " "

    def link(found: re.Match[str]) -> str:
        nonlocal paths
        code.append(found.group(2))
        paths += 1
        return f" {found.group(1)} "

    def bare(found: re.Match[str]) -> str:
        nonlocal paths
        value = found.group(0)
        if value[:1].isupper() and value.endswith(".js"):
            return value  # Next.js, Node.js: a product's name
        code.append(value)
        paths += 1
        return " "

    prose = _CODE_SPAN.sub(span, raw)
    prose = _LINK.sub(link, prose)
    prose = _URL.sub(bare, prose)
    prose = _BARE_PATH.sub(bare, prose)
    return _Text(raw, label, rest, tuple(code), paths, prose, head)


def _first_word(text: str) -> str:
    found = _WORDS.search(text)
    return _folded(found.group(0)) if found and found.start() < 4 else ""


def _is_command(line: str) -> bool:
    """A command line: a program's name (an English word only with an argument after it)."""
    m = markers()
    tokens = line.strip().split()
    if not tokens:
        return False
    first = _folded(tokens[0])
    if first.startswith(("./", "bin/")):
        return len(tokens) > 1
    if first not in m.commands:
        return False
    if len(tokens) == 1:
        return True
    second = _folded(tokens[1]).strip(",.:;")
    return second not in m.not_arguments and not second.endswith("'s")


_SENTENCE = re.compile(r"(?<=[.!?。！？])\s*|\s+[—–]\s+|;\s+")


def _rules(parts: _Text) -> tuple[bool, bool]:
    """(strong, ruled): a strong rule word; any rule word, or an instruction opening one of
    its sentences (or what follows its label)."""
    m = markers()
    prose = _folded(" ".join(parts.prose.split()))
    sentences = [s.strip(" -—:*_>(") for s in _SENTENCE.split(prose)]
    if parts.label:
        rest = _folded(" ".join(_parse(parts.rest).prose.split()))
        sentences += [s.strip(" -—:*_>(") for s in _SENTENCE.split(rest)]
    sentences = [s for s in sentences if s]
    lines = "\n".join(sentences)
    if _any(m.strong, lines):
        return True, True
    opening = any(_first_word(s) in m.imperatives for s in sentences)
    return False, opening or _any(m.rules, lines)


def states_rule(text: str) -> bool:
    """True when ``text`` holds a rule word or opens with an instruction (a label of fewer
    than three words never does: "Structure", "Commandes")."""
    return len(_WORDS.findall(text)) >= 3 and _rules(_parse(text))[1]


def judge(
    text: str, *, kind: str = "item", heading: str = "", code_after: bool = False
) -> str | None:
    """Why ``text`` (one item of an instruction file) is not a rule a person would keep: a key
    of :data:`REASONS`, or None when it is kept. ``kind`` is ``item`` (a list item) or
    ``para`` (a paragraph); ``code_after``: the item introduces a code block."""
    m = markers()
    parts = _parse(text)
    strong, ruled = _rules(parts)
    rest = parts.rest.strip()
    # A log: dated, a status mark, under a dated or changelog heading.
    if _STARTS_DATED.match(parts.raw) or _STATUS.match(parts.raw):
        return "log"
    if heading and (_DATE.search(heading) or _any(m.log_headings, _folded(heading))):
        return "log"
    if _PLACEHOLDER.search(parts.prose):
        return "placeholder"
    if parts.label and _folded(parts.label.strip("`*")) in m.explanations:
        return "description"
    # A command: a line introducing code without a rule word, a command line, `label: command`.
    if code_after and not strong:
        return "command"
    prose_words = len(_WORDS.findall(_parse(rest).prose)) if rest else 0
    head_is_command = parts.head is not None and (
        _is_command(parts.head) or bool(_SHELL.search(" " + parts.head))
    )
    if head_is_command and (prose_words < 8 or not ruled):
        return "command"
    if not parts.code and not strong and (_is_command(rest) or _SHELL_LINE.search(parts.raw)):
        return "command"
    # A path, a link, a pointer to another file.
    first = rest.split(" ")[0].rstrip(",.:;") if rest else ""
    starts_with_path = (
        (parts.head is not None and _is_path(parts.head))
        or bool(_LINK.match(rest) or _URL.match(rest))
        or bool(first and _BARE_PATH.fullmatch(first))
        or _is_path(parts.label)
    )
    if (not strong and starts_with_path) or parts.paths >= 4:
        return "path"
    if parts.paths and _any(m.pointers, _folded(parts.raw)) and _letters(parts.prose) < 80:
        return "path"
    # Code: more than half code, or code with hardly any prose around it.
    code_letters = sum(_letters(c) for c in parts.code)
    total = code_letters + _letters(parts.prose)
    share = code_letters / total if total else 0.0
    if parts.code and (share >= (0.75 if strong else 0.6) or (prose_words < 4 and not strong)):
        return "path" if parts.paths * 2 > len(parts.code) else "code"
    if not parts.code and _CODE_SYNTAX.search(parts.raw):
        return "code"
    # A list of tools and libraries, or what the project uses.
    if (not ruled and _is_names(parts)) or (not strong and _any(m.uses, _folded(rest))):
        return "names"
    # A description: a paragraph without a rule, a definition, a statement of fact.
    if not ruled and (
        kind == "para" or parts.label or _any(m.statements, _folded(parts.raw).rstrip())
    ):
        return "description"
    return None


def _is_names(parts: _Text) -> bool:
    """A list of at least three short names ("Ash, Phoenix, LiveView, xterm.js, tmux")."""
    rest = _PARENS.sub(" ", parts.rest).strip(" .")
    pieces = [p for p in _SPLIT.split(rest) if p.strip()]
    if len(pieces) < 3 and not (len(pieces) >= 2 and "+" in rest):
        return False
    return all(len(p.split()) <= 3 and len(p) <= 30 for p in pieces) and len(rest.split()) <= 20


# --- The items of a file -----------------------------------------------------------------------


def _own(block: _Block) -> str | None:
    text = one_line(block.text)
    if block.ticked:
        return "log"
    return judge(text, kind=block.kind, heading=block.heading, code_after=block.code_after)


def _is_name(item: Item) -> bool:
    """A child that is only a name: one code span (``- `traceparent` (when available)``) or a
    list of names; a parent that states a rule takes those as its content."""
    bare = _PARENS.sub("", item.text).strip(" .;")
    return item.skip in ("code", "names", "command") and (
        item.skip == "names" or bool(_CODE_SPAN.fullmatch(bare))
    )


def _flatten(block: _Block, limit: int) -> list[Item]:
    """The entries of one block: itself alone, or its children joined to its words (as few
    entries as ``limit`` characters allow), then the children left out. A parent that states a
    rule takes the children that are only a name as its content ("must preserve these
    headers: `traceparent`; …"); another takes only the children kept on their own."""
    text = one_line(block.text)
    reason = _own(block)
    if not block.children:
        return [Item(text, block.line, block.last, reason, block.heading)] if text else []
    kids = [item for child in block.children for item in _flatten(child, limit)]
    words = text.rstrip(":： ").strip()
    ruled = reason is None and bool(words) and states_rule(words)
    joined = [k for k in kids if k.skip is None or (ruled and _is_name(k))]
    left = [k for k in kids if k not in joined]
    if not joined:
        if not words:
            return left
        if reason in (None, "description") and not ruled and text.endswith((":", "：")) and left:
            reason = Counter(k.skip for k in left).most_common(1)[0][0]
        return [Item(words, block.line, block.last, reason, block.heading), *left]
    out: list[Item] = []
    group: list[Item] = []

    def entry(members: list[Item]) -> str:
        body = "; ".join(k.text.rstrip(";.:： ") for k in members)
        return f"{words}: {body}" if words else body

    for kid in joined:
        if group and len(entry([*group, kid])) > limit:
            out.append(Item(entry(group), block.line, group[-1].last, None, block.heading))
            group = []
        group.append(kid)
    out.append(Item(entry(group), block.line, group[-1].last, None, block.heading))
    return out + left


def items(text: str, *, name: str = "", limit: int = 500) -> list[Item]:
    """Every item of an instruction file's text, in file order, each kept or skipped with its
    reason; ``name`` (the file's name) marks a progress log whole; ``limit`` is the entry
    limit (``memory.entry_max_chars``) that joined children stay within."""
    roots, skipped = _read(text)
    found = [item for block in roots for item in _flatten(block, limit)]
    found = [i for i in found if len(i.text) >= MIN_CHARS]
    if name.lower() in markers().log_files:
        found = [Item(i.text, i.line, i.last, i.skip or "log", i.heading) for i in found]
    return sorted(found + skipped, key=lambda i: (i.line, i.last))


def flat_items(text: str) -> list[tuple[str, int]]:
    """Each list item and paragraph of Markdown ``text`` as one line with its line number, in
    order, none judged: lines that only introduce a list or a code block (ending with ``:``)
    and anything shorter than :data:`MIN_CHARS` left out (the memory tool's reading)."""
    roots, _ = _read(text)
    out: list[tuple[str, int]] = []

    def walk(blocks: list[_Block]) -> None:
        for block in blocks:
            line = one_line(block.text)
            if len(line) >= MIN_CHARS and not line.endswith((":", "：")):
                out.append((line, block.line))
            walk(block.children)

    walk(roots)
    return sorted(out, key=lambda x: x[1])


def section_hint(text: str, heading: str, sections: tuple[str, ...]) -> str | None:
    """The configured section the import's own keywords give ``text``, else its ``heading``
    (None when neither matches)."""
    for probe in (text, heading):
        folded = _folded(probe)
        for name, patterns in markers().sections:
            if name in sections and _any(patterns, folded):
                return name
    return None


def counts(found: Iterable[Item]) -> dict[str, int]:
    """How many items were skipped for each reason, in :data:`REASONS` order."""
    tally = Counter(i.skip for i in found if i.skip)
    return {reason: tally[reason] for reason in REASONS if tally[reason]}
