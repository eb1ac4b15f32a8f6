"""``agentmem import``: real memory and instruction files (tests/data/imports, see SOURCES.md)
become pending proposals; bad files are skipped with their reason and commit nothing."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from tests.helpers import DATA, git, invoke

IMPORTS = DATA / "imports"


def _commits(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD").strip())


def _inbox(root: Path) -> list[Path]:
    return sorted((root / "inbox").rglob("*.yaml"))


def test_auto_memory_folder_becomes_declared_proposals(memrepo, runner):
    before = _commits(memrepo)
    result = invoke(runner, "import", str(IMPORTS / "auto-memory-fr"), "--format", "json")
    assert result.exit_code == 0, result.stderr
    files = {f["file"].rsplit("/", 1)[-1]: f for f in json.loads(result.stdout)}
    # The index names both topic files, which are imported themselves: it adds nothing.
    assert files["MEMORY.md"]["status"] == "nothing"
    topic = files["feedback_page_n8n.md"]
    assert topic["status"] == "imported"
    (proposal,) = topic["proposals"]
    assert proposal["line"] == 3  # the description line of the front matter
    assert proposal["text"].startswith("Chaque fois qu'une nouvelle page est ajoutée")
    assert proposal["basis"] == "declared"
    assert proposal["source"] == "import"
    assert proposal["action"] == "add" and proposal["route"] == "memory"
    assert proposal["justification"].endswith("feedback_page_n8n.md line 3")
    assert proposal["session"].startswith("import-")
    assert _commits(memrepo) == before + 2  # one commit per file that brought proposals
    assert len(_inbox(memrepo)) == 2
    trailers = git(memrepo, "log", "-1", "--format=%(trailers)")
    assert "Agentmem-Source: import" in trailers


def test_reimport_of_an_unchanged_file_is_skipped(memrepo, runner):
    target = str(IMPORTS / "auto-memory-en")
    assert invoke(runner, "import", target).exit_code == 0
    count = _commits(memrepo)
    again = invoke(runner, "import", target)
    assert again.exit_code == 0
    assert "imported before, unchanged" in again.stdout
    assert _commits(memrepo) == count


def test_dry_run_writes_and_commits_nothing(memrepo, runner):
    before = _commits(memrepo)
    result = invoke(runner, "import", str(IMPORTS / "instructions" / "fr_claude.md"), "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert (
        "14 proposal(s) would be filed, 5 left out (1 command, 3 code, 1 tool list)"
        in result.stdout
    )
    assert "fr_claude.md:46" in result.stdout  # "Pas d'emojis sauf demande explicite"
    assert "Pas d'emojis sauf demande explicite" in result.stdout
    assert "nothing was written" in result.stderr
    assert _commits(memrepo) == before
    assert _inbox(memrepo) == []


def test_markdown_items_skip_headings_code_and_intro_lines(memrepo, runner):
    result = invoke(
        runner, "import", str(IMPORTS / "instructions" / "fr_claude.md"), "--format", "json"
    )
    (entry,) = json.loads(result.stdout)
    texts = [p["text"] for p in entry["proposals"]]
    assert "Ne créer des commits que lorsque explicitement demandé" in texts
    assert not any("Co-Authored-By" in t for t in texts)  # inside a fenced block
    assert not any(t.startswith(("#", "Règles")) for t in texts)  # headings
    assert [p["line"] for p in entry["proposals"]][:2] == [6, 7]


def test_claude_ai_memories_json(memrepo, runner):
    result = invoke(
        runner, "import", str(IMPORTS / "claude-ai" / "memories.json"), "--format", "json"
    )
    assert result.exit_code == 0, result.stderr
    (entry,) = json.loads(result.stdout)
    assert entry["kind"] == "claude-ai-memories"
    assert [p["text"] for p in entry["proposals"]] == ["This is some nonsense"]
    assert entry["proposals"][0]["line"] == 3


def test_half_written_export_is_skipped_and_the_others_are_kept(memrepo, runner, tmp_path):
    broken = tmp_path / "export" / "memories.json"
    broken.parent.mkdir()
    whole = (IMPORTS / "claude-ai" / "memories.json").read_text(encoding="utf-8")
    broken.write_text(whole[: len(whole) // 2], encoding="utf-8")
    before = _commits(memrepo)
    result = invoke(runner, "import", str(IMPORTS / "instructions" / "AGENTS.md"), str(broken))
    assert result.exit_code == 1
    assert "memories.json: skipped: not valid JSON at line" in result.stdout
    assert "half-written export" in result.stdout
    assert "AGENTS.md: 2 proposal(s) filed" in result.stdout
    assert _commits(memrepo) == before + 1  # only the good file's commit


def test_folder_of_binaries_skips_each_file_and_commits_nothing(memrepo, runner, tmp_path):
    folder = tmp_path / "memory-bank"
    folder.mkdir()
    for name in ("activeContext.md", "progress.md"):
        (folder / name).write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" * 20)
    (folder / "notes.md").write_bytes(b"caf\xe9 au lait, toujours\n")  # Latin-1, not UTF-8
    before = _commits(memrepo)
    result = invoke(runner, "import", str(folder))
    assert result.exit_code == 1
    assert result.stdout.count("skipped: a binary file, not text") == 2
    assert "notes.md: skipped: not UTF-8 text (line 1)" in result.stdout
    assert _commits(memrepo) == before
    assert _inbox(memrepo) == []


def test_a_file_over_one_mib_is_refused_in_one_line_and_the_others_go_on(memrepo, runner, tmp_path):
    huge = tmp_path / "CLAUDE.md"
    huge.write_text("- Keep every answer short and plain.\n" * 30_000)  # 1.1 MB
    small = tmp_path / "AGENTS.md"
    shutil.copy(IMPORTS / "instructions" / "AGENTS.md", small)
    before = _commits(memrepo)
    result = invoke(runner, "import", str(huge), str(small))
    assert result.exit_code == 1
    assert (
        "CLAUDE.md: skipped: 1,110,000 bytes, more than the 1,048,576 (1 MiB) an import reads: "
        "split it\n"
    ) in result.stdout
    assert "AGENTS.md: 2 proposal(s) filed" in result.stdout
    assert _commits(memrepo) == before + 1


@pytest.mark.slow
def test_a_file_of_too_many_items_is_refused_whole_and_can_be_imported_in_part(
    memrepo, runner, tmp_path
):
    many = tmp_path / "CLAUDE.md"
    many.write_text("".join(f"- Keep rule number {i} in mind\n" for i in range(250)))
    result = invoke(runner, "import", str(many))
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        "error: these 250 proposals are more than the 200 one import files: import in part "
        "with --only (e.g. --only 1-200) or --section; nothing was filed"
    )
    assert "CLAUDE.md: 250 proposal(s), none filed" in result.stdout
    assert _inbox(memrepo) == []
    dry = invoke(runner, "import", str(many), "--dry-run")
    assert dry.exit_code == 1
    assert "  #250  " in dry.stdout and "CLAUDE.md:250  Keep rule number 249 in mind" in dry.stdout
    first = invoke(runner, "import", str(many), "--only", "1-50", "--format", "json")
    assert first.exit_code == 0, first.stderr
    (entry,) = json.loads(first.stdout)
    assert [p["number"] for p in entry["proposals"]] == list(range(1, 51))
    assert entry["not_picked"] == 200
    assert len(_inbox(memrepo)) == 50
    # another part of the same file is not "imported before"
    second = invoke(runner, "import", str(many), "--only", "51-60,70")
    assert second.exit_code == 0, second.stderr
    assert "11 proposal(s) filed" in second.stdout
    assert "  #70  " in second.stdout
    assert len(_inbox(memrepo)) == 61
    again = invoke(runner, "import", str(many), "--only", "51-60,70")
    assert "imported before, unchanged" in again.stdout


def test_guard_refuses_a_line_and_never_echoes_the_secret(memrepo, runner, tmp_path):
    rules = tmp_path / ".cursorrules"
    key = "sk-ant-api03-" + "Q" * 40 + "AA"
    rules.write_text(f"- Always answer in English.\n- Use the key {key} for the staging API.\n")
    result = invoke(runner, "import", str(rules))
    assert result.exit_code == 0, result.stderr
    assert ".cursorrules: 1 proposal(s) filed, 1 not kept" in result.stdout
    assert ".cursorrules:2  not kept:" in result.stdout
    assert key not in result.stdout + result.stderr
    assert key not in git(memrepo, "log", "-p")


def test_an_import_where_every_item_is_refused_exits_1_and_commits_nothing(
    memrepo, runner, tmp_path
):
    rules = tmp_path / ".cursorrules"
    key = "sk-ant-api03-" + "Q" * 40 + "AA"
    rules.write_text(f"- Use the key {key} for the staging API.\n")
    index = tmp_path / "CLAUDE.md"
    index.write_text("# Notes\n")  # nothing to propose, nothing refused
    before = _commits(memrepo)
    result = invoke(runner, "import", str(rules), str(index))
    assert result.exit_code == 1, result.stdout
    assert ".cursorrules: nothing new, 1 not kept" in result.stdout
    assert result.stderr.strip() == (
        "error: every item was refused: nothing reached your inbox (reasons above)"
    )
    assert key not in result.stdout + result.stderr
    assert _commits(memrepo) == before
    assert _inbox(memrepo) == []
    dry = invoke(runner, "import", str(rules), "--dry-run", "--format", "json")
    assert dry.exit_code == 1
    (only,) = json.loads(dry.stdout)
    assert (only["status"], only["proposals"], len(only["rejected"])) == ("dry-run", [], 1)
    assert "nothing would reach your inbox" in dry.stderr


def test_import_for_someone_else_is_refused(memrepo, runner):
    result = invoke(runner, "import", str(IMPORTS / "instructions" / "AGENTS.md"), "-p", "bob")
    assert result.exit_code != 0
    assert "for bob only" in result.stderr or "unknown person" in result.stderr


def test_folder_with_nothing_to_import_is_a_usage_error(memrepo, runner, tmp_path):
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "a.jpg").write_bytes(b"\xff\xd8\xff")
    result = invoke(runner, "import", str(tmp_path / "photos"))
    assert result.exit_code == 2
    assert "no memory or instruction file found" in result.stderr


def _proposals(result) -> list[dict]:
    return [p for entry in json.loads(result.stdout) for p in entry["proposals"]]


def test_the_issue_claude_md_proposes_its_rules_and_counts_the_rest(memrepo, runner):
    """marot/spotter's CLAUDE.md (40 proposals before): shell commands, the stack line and the
    code how-tos are left out and counted; nested items keep their parent's words."""
    result = invoke(
        runner, "import", str(IMPORTS / "instructions" / "CLAUDE.md"), "--dry-run", "--format",
        "json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    (entry,) = json.loads(result.stdout)
    texts = [p["text"] for p in entry["proposals"]]
    # 14: the line on manual spans ("Bandit/Phoenix/Ash cover common paths") is no longer
    # refused as a person's name.
    assert len(texts) == 14
    assert any(t.startswith("Add manual spans") for t in texts)
    assert not any("Ash, Phoenix" in t or t.startswith(("git gtr", "gtr ")) for t in texts)
    assert (
        "Plugin/hook HTTP calls must preserve tracing metadata headers: `traceparent` (when "
        "available); `x-spotter-hook-event`; `x-spotter-hook-script`"
    ) in texts
    assert any(
        t.startswith("CRITICAL RULES: Work is NOT complete until `git push` succeeds; NEVER stop")
        for t in texts
    )
    assert entry["skipped_counts"] == {
        "command": 5, "code": 5, "path": 1, "names": 2, "log": 1, "description": 2,
    }  # fmt: skip
    assert {"line": 5, "reason": "names"} in entry["skipped"]  # Ash, Phoenix, LiveView, …
    assert {"line": 14, "reason": "command"} in entry["skipped"]  # git gtr new my-feature
    text = invoke(runner, "import", str(IMPORTS / "instructions" / "CLAUDE.md"), "--dry-run")
    assert (
        "instructions/CLAUDE.md: 14 proposal(s) would be filed, 16 left out "
        "(5 commands, 5 code, 1 file path or link, 2 tool and library lists, 1 log line, "
        "2 descriptions)"
    ) in text.stdout
    assert "  #1  " in text.stdout and "instructions/CLAUDE.md:9  " in text.stdout


def test_a_nested_item_keeps_its_parent_words(memrepo, runner, tmp_path):
    rules = tmp_path / "CLAUDE.md"
    rules.write_text(
        "## Commands\n\n- **Commandes** :\n  - `npm run dev` — start the server\n"
        "  - `npm run build` — build\n\n## Review\n\n"
        "When you review a pull request:\n\n- Read the whole diff first\n"
        "- Flag missing tests\n\n## Secrets\n\n"
        "- Never log these headers:\n  - `Authorization`\n  - `Cookie`\n",
        encoding="utf-8",
    )
    result = invoke(runner, "import", str(rules), "--dry-run", "--format", "json")
    assert result.exit_code == 0, result.stderr
    (entry,) = json.loads(result.stdout)
    assert [p["text"] for p in entry["proposals"]] == [
        "When you review a pull request: Read the whole diff first; Flag missing tests",
        "Never log these headers: `Authorization`; `Cookie`",
    ]
    assert entry["skipped_counts"] == {"command": 3}  # the label and its two commands


@pytest.mark.slow
def test_a_cline_progress_log_proposes_nothing(memrepo, runner):
    result = invoke(
        runner, "import", str(IMPORTS / "memory-bank" / "progress.md"), "--format", "json"
    )
    assert result.exit_code == 0, result.stderr
    (entry,) = json.loads(result.stdout)
    assert entry["proposals"] == [] and entry["status"] == "nothing"
    assert set(entry["skipped_counts"]) == {"log", "code"}
    assert entry["skipped_counts"]["log"] > 150
    assert _inbox(memrepo) == []


def test_import_keeps_what_a_person_would_keep_on_real_files():
    """Precision and recall on the hand-written expectations of tests/data/imports/expected.yaml
    (benchmarks/import_quality.py prints them per file)."""
    from tests.helpers.imports import FLOOR, expectations, score_file, totals

    scores = [score_file(name, spec) for name, spec in expectations().items()]
    precision, recall, skipped, _ = totals(scores)
    assert precision >= FLOOR, [w for s in scores for w in s.wrong]
    assert recall >= FLOOR, [m for s in scores for m in s.missed]
    assert skipped >= FLOOR, [x for s in scores for x in s.leaked]
    assert len(scores) >= 6


@pytest.mark.slow
def test_a_batch_over_the_budget_files_nothing_and_says_how_to_pick(memrepo, runner):
    (memrepo / "agentmem.yaml").write_text("memory:\n  budget_chars: 1500\n", encoding="utf-8")
    assert invoke(runner, "remember", "Answer in British English.").exit_code == 0
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    letta = str(IMPORTS / "instructions" / "letta_AGENTS.md")
    before = _commits(memrepo)
    dry = invoke(runner, "import", letta, "--dry-run")
    assert dry.exit_code == 1
    assert re.fullmatch(
        r"error: these 3\d proposals need [5-7],\d{3} of 1,500 characters: pick with --only / "
        r"--section \(your memory holds 1\d\d already\); nothing would be filed",
        dry.stderr.strip(),
    ), dry.stderr
    assert re.search(r"letta_AGENTS.md: 3\d proposal\(s\), none filed", dry.stdout)
    assert "  #30  " in dry.stdout  # the listing to pick from
    real = invoke(runner, "import", letta)
    assert real.exit_code == 1 and "nothing was filed" in real.stderr
    assert _commits(memrepo) == before and _inbox(memrepo) == []
    part = invoke(runner, "import", letta, "--only", "1-3")
    assert part.exit_code == 0, part.stderr
    assert "3 proposal(s) filed" in part.stdout
    assert "with them" in part.stderr and "/1500 characters" in part.stderr
    assert len(_inbox(memrepo)) == 3


def test_section_picks_part_of_a_file(memrepo, runner):
    target = str(IMPORTS / "instructions" / "fr_claude.md")
    result = invoke(runner, "import", target, "--section", "writing style", "--format", "json")
    assert result.exit_code == 0, result.stderr
    sections = {p["section"] for p in _proposals(result)}
    assert sections == {"Writing style"}
    unknown = invoke(runner, "import", target, "--section", "Style")
    assert unknown.exit_code == 2
    assert "--section 'Style': no such memory section" in unknown.stderr
    assert "Writing style, Priorities & scope" in unknown.stderr


def test_only_takes_numbers_from_the_listing(memrepo, runner):
    target = str(IMPORTS / "instructions" / "AGENTS.md")
    bad = invoke(runner, "import", target, "--only", "two")
    assert bad.exit_code == 2 and "expected proposal numbers" in bad.stderr
    beyond = invoke(runner, "import", target, "--only", "1,9")
    assert beyond.exit_code == 2
    assert "--only 9: this import has 2 proposal(s) (numbers 1-2)" in beyond.stderr
    assert _inbox(memrepo) == []


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "empty: nothing to import"),
        (b"  \n\n\t\n", "empty: nothing to import"),
        (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "a binary file, not text"),
    ],
)
def test_an_empty_or_binary_file_gets_a_one_line_refusal(
    memrepo, runner, tmp_path, content, reason
):
    path = tmp_path / "CLAUDE.md"
    path.write_bytes(content)
    before = _commits(memrepo)
    result = invoke(runner, "import", str(path))
    assert result.exit_code == 1
    assert result.stdout.strip().endswith(f"CLAUDE.md: skipped: {reason}")
    assert len(result.stdout.strip().splitlines()) == 1
    assert _commits(memrepo) == before


def test_a_link_out_of_its_folder_is_refused_and_one_inside_is_read_once(memrepo, runner, tmp_path):
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- Always answer in French.\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").symlink_to(outside)
    result = invoke(runner, "import", str(project / "AGENTS.md"))
    assert result.exit_code == 1
    assert "AGENTS.md: skipped: a symbolic link to a file outside its folder" in result.stdout
    assert _inbox(memrepo) == []
    # spotter's layout: AGENTS.md is a link to CLAUDE.md beside it; the folder gives one file
    (project / "AGENTS.md").unlink()
    shutil.copy(IMPORTS / "instructions" / "AGENTS.md", project / "CLAUDE.md")
    (project / "AGENTS.md").symlink_to("CLAUDE.md")
    folder = invoke(runner, "import", str(project), "--dry-run", "--format", "json")
    assert folder.exit_code == 0, folder.stderr
    assert len(json.loads(folder.stdout)) == 1
    link = invoke(runner, "import", str(project / "AGENTS.md"), "--dry-run")
    assert link.exit_code == 0 and "2 proposal(s) would be filed" in link.stdout


def test_a_fifo_is_refused_without_blocking(memrepo, runner, tmp_path):
    fifo = tmp_path / "CLAUDE.md"
    os.mkfifo(fifo)  # nobody writes to it: opening it for reading would block
    result = invoke(runner, "import", str(fifo))
    assert result.exit_code == 1
    assert "CLAUDE.md: skipped: not a regular file (a FIFO): nothing read" in result.stdout


@pytest.mark.parametrize(
    ("export", "said"),
    [
        ("chatgpt/conversations.json", "a ChatGPT conversation export"),
        ("claude-ai/conversations.json", "a Claude.ai conversation export"),
    ],
)
def test_a_conversation_export_points_at_harvest(memrepo, runner, export, said):
    result = invoke(runner, "import", str(IMPORTS / export))
    assert result.exit_code == 1
    assert result.stdout.strip().endswith(
        f"conversations.json: skipped: {said}: read it with 'agentmem harvest conversations.json'"
    )
    assert _inbox(memrepo) == []


def test_an_export_folder_imports_its_memories_and_names_the_conversations(memrepo, runner):
    result = invoke(runner, "import", str(IMPORTS / "claude-ai"), "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert "memories.json: 1 proposal(s) would be filed" in result.stdout
    assert (
        "conversations.json: a Claude.ai conversation export: read it with 'agentmem harvest "
        "conversations.json'"
    ) in result.stderr


def test_a_session_transcript_points_at_harvest(memrepo, runner, tmp_path):
    session = tmp_path / "notes.md"
    line = {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": "hi"}}
    session.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = invoke(runner, "import", str(session))
    assert result.exit_code == 1
    assert "notes.md: skipped: a session transcript: read it with 'agentmem harvest notes.md'" in (
        result.stdout
    )


def test_a_secret_in_a_left_out_line_is_reported_not_counted(memrepo, runner, tmp_path):
    key = "sk-ant-api03-" + "Q" * 40 + "AA"
    rules = tmp_path / "CLAUDE.md"
    rules.write_text(f"- Always answer in English.\n- `export ANTHROPIC_API_KEY={key}`\n")
    result = invoke(runner, "import", str(rules), "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert "CLAUDE.md: 1 proposal(s) would be filed, 1 not kept" in result.stdout
    assert "CLAUDE.md:2  not kept: refused: secret:" in result.stdout
    assert key not in result.stdout + result.stderr


def test_the_report_goes_to_stdout_while_the_bar_runs_on_the_terminal(memrepo, runner, monkeypatch):
    """`import … > report.txt` with stderr on a terminal: the progress bar used to take
    stdout over, leaving the file empty."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich: both consoles are terminals
    files = [str(IMPORTS / "instructions" / n) for n in ("AGENTS.md", "fr_claude.md")]
    result = invoke(runner, "import", *files, "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert "AGENTS.md: 2 proposal(s) would be filed" in result.stdout
    assert "fr_claude.md: 14 proposal(s) would be filed" in result.stdout
    assert "proposal(s) would be filed," not in result.stderr


def test_a_file_that_only_imports_another_names_it(memrepo: Path, runner, tmp_path: Path) -> None:
    """A CLAUDE.md that says only ``@AGENTS.md`` (Claude Code's import) holds nothing to
    propose: the report names the imported file and the command that reads it."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "CLAUDE.md").write_text("@AGENTS.md\n", encoding="utf-8")
    result = invoke(runner, "import", str(project / "CLAUDE.md"), "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert (
        "  hint: it imports @AGENTS.md (Claude Code's @ import): "
        f"run agentmem import {project / 'AGENTS.md'}\n"
    ) in result.stdout
    assert list((memrepo / "inbox").rglob("*.yaml")) == []


def test_a_file_outside_the_current_folder_is_named_cut_not_as_a_path_below_it(
    memrepo, tmp_path, runner
):
    """`agentmem import /tmp/a25/f.md` from the repository: "…/a25/f.md" (the ellipsis says
    the path is cut; no home folder or user name), never "a25/f.md"."""
    outside = tmp_path / "elsewhere" / "a25"
    outside.mkdir(parents=True)
    (outside / "f.md").write_text("- Always answer in French.\n", encoding="utf-8")
    result = invoke(runner, "import", str(outside / "f.md"), "--dry-run")
    assert result.exit_code == 0, result.stderr
    out = result.stdout + result.stderr
    assert "…/a25/f.md" in out
    assert " a25/f.md" not in out and str(tmp_path) not in out
