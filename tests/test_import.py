"""``agentmem import``: real memory and instruction files (tests/data/imports, see SOURCES.md)
become pending proposals; bad files are skipped with their reason and commit nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

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
    assert "15 proposal(s) would be filed" in result.stdout
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


def test_ten_thousand_line_claude_md_is_skipped_with_its_size(memrepo, runner, tmp_path):
    huge = tmp_path / "CLAUDE.md"
    huge.write_text("".join(f"- Rule number {i} of a generated file\n" for i in range(10_000)))
    small = tmp_path / "AGENTS.md"
    shutil.copy(IMPORTS / "instructions" / "AGENTS.md", small)
    before = _commits(memrepo)
    result = invoke(runner, "import", str(huge), str(small))
    assert result.exit_code == 1
    assert "CLAUDE.md: skipped: 10,001 lines, more than the 3,000 an import reads" in result.stdout
    assert _commits(memrepo) == before + 1


def test_a_file_with_too_many_candidates_is_skipped_whole(memrepo, runner, tmp_path):
    many = tmp_path / "CLAUDE.md"
    many.write_text("".join(f"- Keep rule number {i} in mind\n" for i in range(250)))
    result = invoke(runner, "import", str(many))
    assert result.exit_code == 1
    assert "250 candidate entries, more than the 200" in result.stdout
    assert _inbox(memrepo) == []


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
