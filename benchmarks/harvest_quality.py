"""Benchmark: how good are harvest's proposals? (the labelled set in ``harvest_set/cases.yaml``)

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/harvest_quality.py [--provider offline] [--json] [--show]

Each labelled session is written as a transcript in its declared format (plain text, a Messages
JSON array, Claude Code JSONL or Codex JSONL, with tool calls, tool results and hook blocks where
that format has them) into a fresh memory repository holding the case's current memory and
active doctrine (scope ``contracts``). ``harvest_session`` then runs exactly as the CLI does and
the proposals it keeps are compared with the labels.

Figures, per language and over all:

- explicit: expected requests of kind ``explicit`` found (any route);
- doctrine: expected doctrine statements found, and of those, routed to doctrine;
- change: expected changes of mind found as the expected ``modify``/``remove`` with a target
  holding the expected words;
- precision: kept proposals that match some expected proposal;
- routing / section: matched proposals with the expected route / section;
- must-not: kept proposals that carry a must-not string (personal data, a secret, pasted
  document content, injected text): the target is 0;
- nothing: proposals kept in sessions with nothing to remember (target: at most 1 in all).

``--show`` prints every session's kept proposals and what they matched.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
CASES = HERE / "harvest_set" / "cases.yaml"
SCOPE = "contracts"
LANGS = ("en", "fr", "es", "de")


def fold(text: str) -> str:
    """Case and accents aside (NFKD, combining marks dropped, casefold)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


# --- writing a case as a transcript -----------------------------------------------------------


def _turns(case: dict[str, Any], with_hooks: bool) -> list[tuple[str, str]]:
    """``[(kind, text)]`` with hook text glued to the person's previous turn (Claude Code)."""
    out: list[tuple[str, str]] = []
    for turn in case["turns"]:
        ((kind, text),) = turn.items()
        if kind == "hook":
            if with_hooks and out and out[-1][0] == "u":
                out[-1] = ("u", out[-1][1] + "\n" + text)
            continue
        out.append((kind, str(text)))
    return out


def render(case: dict[str, Any], session_id: str) -> str:
    fmt = case["format"]
    if fmt == "text":
        parts = [f"# Session {case['id']}", ""]
        for kind, text in _turns(case, False):
            if kind == "tool":
                continue
            parts += [f"{'User' if kind == 'u' else 'Assistant'}: {text}", ""]
        return "\n".join(parts)
    if fmt == "messages":
        messages: list[dict[str, Any]] = [{"role": "system", "content": "You review contracts."}]
        for i, (kind, text) in enumerate(_turns(case, False)):
            if kind == "tool":
                call, _, result = text.partition(" -> ")
                messages.append(
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": f"call_{i}",
                                "type": "function",
                                "function": {"name": "read", "arguments": json.dumps({"q": call})},
                            }
                        ],
                    }
                )
                messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": result})
            else:
                messages.append({"role": "user" if kind == "u" else "assistant", "content": text})
        return json.dumps(messages, ensure_ascii=False, indent=1)
    if fmt == "claude-code":
        lines = []
        common = {"sessionId": session_id, "cwd": "/home/USER/contracts", "version": "2.1.38"}
        for i, (kind, text) in enumerate(_turns(case, True)):
            uuid = f"00000000-0000-4000-8000-{i:012d}"
            if kind == "u":
                lines.append(
                    {
                        **common,
                        "type": "user",
                        "uuid": uuid,
                        "message": {"role": "user", "content": text},
                    }
                )
            elif kind == "a":
                content = [{"type": "text", "text": text}]
                lines.append(
                    {
                        **common,
                        "type": "assistant",
                        "uuid": uuid,
                        "message": {"role": "assistant", "content": content},
                    }
                )
            else:
                call, _, result = text.partition(" -> ")
                use = {
                    "type": "tool_use",
                    "id": f"toolu_{i}",
                    "name": "Read",
                    "input": {"file_path": call},
                }
                lines.append(
                    {
                        **common,
                        "type": "assistant",
                        "uuid": uuid,
                        "message": {"role": "assistant", "content": [use]},
                    }
                )
                res = {"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": result}
                lines.append(
                    {
                        **common,
                        "type": "user",
                        "uuid": uuid + "r",
                        "message": {"role": "user", "content": [res]},
                    }
                )
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    if fmt == "codex":
        lines = [
            {"type": "session_meta", "payload": {"id": session_id, "cwd": "/redacted/path"}},
            {
                "type": "response_item",
                "payload": {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<environment_context>cwd: /repo</environment_context>",
                        }
                    ],
                },
            },
        ]
        for i, (kind, text) in enumerate(_turns(case, False)):
            if kind == "u":
                item = {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": text}],
                }
                lines.append({"type": "response_item", "payload": item})
                lines.append(
                    {"type": "event_msg", "payload": {"type": "user_message", "message": text}}
                )
            elif kind == "a":
                item = {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text}],
                }
                lines.append({"type": "response_item", "payload": item})
            else:
                call, _, result = text.partition(" -> ")
                fc = {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": json.dumps({"cmd": call}),
                    "call_id": f"c{i}",
                }
                out = {"type": "function_call_output", "call_id": f"c{i}", "output": result}
                lines += [
                    {"type": "response_item", "payload": fc},
                    {"type": "response_item", "payload": out},
                ]
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    raise SystemExit(f"{case['id']}: unknown format {fmt!r}")


# --- a repository per case --------------------------------------------------------------------


def _memory_text(person: str, sections: tuple[str, ...], memory: dict[str, list[str]]) -> str:
    lines = [f"# Memory: {person}", ""]
    for section in sections:
        lines.append(f"## {section}")
        lines += [f"- {entry}" for entry in memory.get(section, [])]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _rule_text(index: int, instruction: str) -> str:
    from agentmem.doctrine.model import Approval, Rule, content_sha256, rule_relpath
    from agentmem.doctrine.render import canonical_text

    rule_id = f"seeded-rule-{index}"
    rule = Rule(
        id=rule_id,
        title=instruction[:60],
        status="active",
        scope=SCOPE,
        instruction=instruction,
        limits=(),
        justification="Seeded by the harvest quality benchmark.",
        version=1,
        proposed_by="bob",
        proposed_at="2026-11-01T10:00:00Z",
        origin_session=None,
        distinct_from=(),
        approval=None,
        review_due="2099-01-01",
        path=rule_relpath(rule_id),
    )
    approval = Approval("alice", "2026-11-02T10:00:00Z", 1, content_sha256(rule))
    return canonical_text(rule.with_changes(approval=approval))


def run_case(case: dict[str, Any], base: Path, provider: str) -> list[Any]:
    """Harvest one case in a fresh repository; the kept proposals."""
    from agentmem import trailers
    from agentmem.harvest.run import harvest_session
    from agentmem.store import gitio
    from agentmem.store.init import init_repository
    from agentmem.store.repo import open_repository

    root = base / case["id"]
    init_repository(root)
    repo = open_repository(root)
    actor = repo.actor()
    paths = []
    if case.get("memory"):
        rel = repo.memory_relpath(actor.id)
        (root / rel).write_text(
            _memory_text(actor.id, repo.config.memory.sections, case["memory"]), encoding="utf-8"
        )
        paths.append(rel)
    for i, instruction in enumerate(case.get("doctrine") or [], start=1):
        rel = f"doctrine/seeded-rule-{i}.yaml"
        (root / rel).write_text(_rule_text(i, instruction), encoding="utf-8")
        paths.append(rel)
    if paths:
        gitio.commit_paths(root, paths, trailers.message("seed", []))
    suffix = {"text": ".md", "messages": ".json", "claude-code": ".jsonl", "codex": ".jsonl"}
    transcript = base / f"{case['id']}{suffix[case['format']]}"
    transcript.write_text(render(case, f"bench-{case['id']}"), encoding="utf-8")
    result = harvest_session(repo, actor, transcript, provider=provider, scope=SCOPE)
    return list(result.kept)


# --- scoring ----------------------------------------------------------------------------------


def _words_in(words: list[Any], text: str | None) -> bool:
    haystack = fold(text or "")
    return all(fold(str(w)) in haystack for w in words)


def matches(expected: dict[str, Any], proposal: Any) -> bool:
    """The proposal says what ``expected`` says (its words, in text or, for remove, target)."""
    where = proposal.target if proposal.action == "remove" else proposal.text
    return _words_in(expected["match"], where)


def score(cases: list[dict[str, Any]], kept: dict[str, list[Any]]) -> dict[str, dict[str, Any]]:
    stats: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    for case in cases:
        proposals = kept[case["id"]]
        for key in (case["lang"], "all"):
            s = stats[key]
            s["sessions"] += 1
            s["proposals"] += len(proposals)
            used: set[int] = set()
            for exp in case.get("expect") or []:
                kind = exp["kind"]
                s[f"{kind}_expected"] += 1
                hit = next(
                    (i for i, p in enumerate(proposals) if i not in used and matches(exp, p)), None
                )
                if hit is None:
                    continue
                used.add(hit)
                p = proposals[hit]
                s[f"{kind}_found"] += 1
                s["routed"] += int(p.route == exp["route"])
                s["matched"] += 1
                if kind == "doctrine":
                    s["doctrine_routed"] += int(p.route == "doctrine")
                if exp["route"] == "memory":
                    s["section_expected"] += 1
                    s["section_right"] += int(p.section == exp.get("section"))
                if kind == "change":
                    right = p.action == exp["action"] and _words_in(exp.get("target", []), p.target)
                    s["change_right"] += int(right)
            s["precise"] += len(used)
            for p in proposals:
                blob = fold(" ".join(x or "" for x in (p.text, p.target, p.justification)))
                if any(fold(m) in blob for m in case.get("must_not") or []):
                    s["must_not"] += 1
            if case["kind"] == "nothing":
                s["nothing_sessions"] += 1
                s["nothing_proposals"] += len(proposals)
    return stats


def pct(num: int, den: int) -> str:
    return f"{100 * num / den:5.1f} % ({num}/{den})" if den else "    – (0/0)"


def report(stats: dict[str, dict[str, Any]]) -> str:
    rows = [
        ("explicit requests found", lambda s: pct(s["explicit_found"], s["explicit_expected"])),
        ("doctrine statements found", lambda s: pct(s["doctrine_found"], s["doctrine_expected"])),
        ("doctrine routed to doctrine", lambda s: pct(s["doctrine_routed"], s["doctrine_found"])),
        (
            "changes of mind as modify/remove",
            lambda s: pct(s["change_right"], s["change_expected"]),
        ),
        ("precision", lambda s: pct(s["precise"], s["proposals"])),
        ("routing right (matched)", lambda s: pct(s["routed"], s["matched"])),
        (
            "section right (matched memory)",
            lambda s: pct(s["section_right"], s["section_expected"]),
        ),
        ("proposals carrying a must-not", lambda s: f"{s['must_not']}"),
        (
            "proposals in nothing-to-remember",
            lambda s: f"{s['nothing_proposals']} over {s['nothing_sessions']} sessions",
        ),
        ("sessions / proposals kept", lambda s: f"{s['sessions']} / {s['proposals']}"),
    ]
    keys = [k for k in (*LANGS, "all") if k in stats]
    width = 34
    out = [f"{'':{width}}" + "".join(f"{k:>22}" for k in keys)]
    for label, fn in rows:
        out.append(f"{label:{width}}" + "".join(f"{fn(stats[k]):>22}" for k in keys))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--provider", default="offline")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--show", action="store_true", help="print every session's proposals")
    args = parser.parse_args(argv)
    cases = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    kept: dict[str, list[Any]] = {}
    with tempfile.TemporaryDirectory(prefix="agentmem-harvest-quality-") as tmp:
        os.environ.setdefault("AGENTMEM_TODAY", "2026-12-01")
        for case in cases:
            kept[case["id"]] = run_case(case, Path(tmp), args.provider)
            if args.show:
                print(f"{case['id']} [{case['kind']}]")
                for p in kept[case["id"]]:
                    hit = any(matches(e, p) for e in case.get("expect") or [])
                    mark = "ok " if hit else "-- "
                    print(
                        f"  {mark}{p.action} {p.route} {p.section!s:20} {p.target!s:>20} | {p.text}"
                    )
    stats = score(cases, kept)
    if args.json:
        print(json.dumps({k: dict(v) for k, v in stats.items()}, indent=2))
    else:
        print(report(stats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
