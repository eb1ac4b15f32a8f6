"""``check --history`` against the ways to forge an approval found on 2026-11-29 (unrelated
histories, branches made before a demotion, proposers, erasures, settings, inbox owners, links,
user memories), each reproduced on a real temporary repository."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.helpers import git
from tests.helpers.history import (
    approve,
    findings,
    head,
    history_errors,
    merge,
    merge_taking,
    only,
)
from tests.helpers.team import (
    commit_as,
    make_rule,
    set_people,
    ssh_key,
    trailers,
    write_rule,
)

from agentmem.check.history.lineage import only_removes
from agentmem.check.history.walk import check_history
from agentmem.doctrine import fastread
from agentmem.doctrine.fastread import fast_proposed_by
from agentmem.doctrine.render import canonical_text

needs_ssh = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="no ssh-keygen")


@pytest.fixture
def team(history_team: Path) -> Path:
    """alice and carol admins, bob member, dave user; bob's draft 'warranty' committed."""
    return history_team


def approve_text(root: Path, person: str, instruction: str) -> str:
    rule = make_rule("warranty", status="active", approved_by=person, instruction=instruction)
    write_rule(root, rule)
    return commit_as(root, person, "approve", rule.path, body=trailers("approve", person, "admin"))


# -- an unrelated history ------------------------------------------------------------------
def test_h1_an_orphan_branch_brings_no_roles_of_its_own(team: Path, runner) -> None:
    git(team, "checkout", "-q", "--orphan", "side")
    git(team, "rm", "-rfq", ".")
    set_people(team, {"alice": "admin", "bob": "admin"})
    root = commit_as(team, "bob", "tooling", "roles.yaml")
    (team / "doctrine").mkdir()
    write_rule(team, make_rule("no-check", status="active", proposed_by="bob", approved_by="alice"))
    forged = commit_as(team, "alice", "approve", "doctrine/no-check.yaml",
                       body=trailers("approve", "alice", "admin"))  # fmt: skip
    git(team, "checkout", "-q", "main")
    merge_taking(team, "side", "roles.yaml", "--allow-unrelated-histories")
    code, found = findings(runner)
    assert code == 1
    unrelated = only(found, "history-unrelated")
    assert unrelated["commit"] == root and unrelated["path"] == "roles.yaml"
    assert unrelated["message"] == (
        f"commit {root[:10]} by Bob <bob@example.com> starts a history unrelated to the main "
        "line (a commit without parent) and changes watched paths: nobody has a role there"
    )
    not_admin = only([f for f in found if f["commit"] == forged], "history-not-admin")
    assert not_admin["message"].endswith(
        "sets rule 'no-check' to active, but nobody: a history unrelated to the main line (from "
        "a parentless commit) gives nobody a role (admin required)"
    )


def test_h1_an_orphan_root_touching_nothing_watched_still_gives_no_roles(
    team: Path, runner
) -> None:
    git(team, "checkout", "-q", "--orphan", "side")
    git(team, "rm", "-rfq", ".")
    (team / "README").write_text("tools\n", encoding="utf-8")
    commit_as(team, "bob", "readme", "README")
    set_people(team, {"alice": "admin", "bob": "admin"})
    fake = commit_as(team, "bob", "people", "roles.yaml")
    git(team, "checkout", "-q", "main")
    merge_taking(team, "side", "roles.yaml", "--allow-unrelated-histories")
    code, found = findings(runner)
    assert code == 1
    assert only(found, "history-not-admin")["commit"] == fake


# -- a branch made before a demotion ---------------------------------------------------------
def test_h4_a_demoted_admin_keeps_no_power_through_an_old_branch(team: Path, runner) -> None:
    before = head(team)
    set_people(team, {"alice": "admin", "bob": "member", "carol": "member", "dave": "user"})
    commit_as(team, "alice", "carol steps down", "roles.yaml")
    git(team, "switch", "-q", "-c", "late", before)
    late = approve(team, "carol")
    git(team, "switch", "-q", "main")
    merge(team, "carol", "late")
    code, found = findings(runner)
    assert code == 1
    not_admin = only(found, "history-not-admin")
    assert not_admin["commit"] == late and not_admin["path"] == "doctrine/warranty.yaml"
    assert not_admin["message"] == (
        f"commit {late[:10]} by Carol <carol@example.com> sets rule 'warranty' to active, but "
        "carol was member in roles.yaml at both the parent commit and the merge "
        f"{head(team)[:10]} that brought it in (admin required)"
    )


def test_h4_with_since_the_parent_order_of_a_merge_does_not_hide_a_demotion(
    team: Path, runner
) -> None:
    before = head(team)
    set_people(team, {"alice": "admin", "bob": "member", "carol": "member", "dave": "user"})
    demoted = commit_as(team, "alice", "carol steps down", "roles.yaml")
    git(team, "switch", "-q", "-c", "late", before)
    late = approve(team, "carol")
    merge(team, "carol", "main")  # main is the SECOND parent: the late branch is the main line
    git(team, "switch", "-q", "main")
    git(team, "merge", "-q", "--ff-only", "late")
    code, found = findings(runner, "--since", demoted)
    assert code == 1
    not_admin = only(found, "history-not-admin")
    assert not_admin["commit"] == late
    assert not_admin["message"].endswith(
        "but carol was member in roles.yaml at the parent commit and at the --since commit "
        f"{demoted[:10]} (admin required)"
    )


def test_a_colleague_approval_merged_by_a_plain_pull_stays_clean(team: Path, runner) -> None:
    git(team, "switch", "-q", "-c", "remote")
    approve(team, "alice")
    (team / "memories" / "carol.md").write_text("# Memory: carol\n", encoding="utf-8")
    commit_as(team, "carol", "memory(carol): add", "memories/carol.md",
              body=trailers("add", "carol", "admin"))  # fmt: skip
    git(team, "switch", "-q", "main")
    (team / "memories" / "bob.md").write_text("# Memory: bob\n", encoding="utf-8")
    commit_as(team, "bob", "memory(bob): add", "memories/bob.md",
              body=trailers("add", "bob", "member"))  # fmt: skip
    merge(team, "bob", "remote")
    assert history_errors(runner) == []


@needs_ssh
def test_h1_h4_signatures_count_only_keys_listed_on_both_sides(
    memrepo: Path, tmp_path: Path, runner
) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    alice_key, alice_pub = ssh_key(keys, "alice")
    bob_key, bob_pub = ssh_key(keys, "bob")
    set_people(memrepo, {"alice": "admin", "bob": "member", "carol": "admin"},
               {"alice": [alice_pub]})  # fmt: skip
    commit_as(memrepo, "alice", "people", "roles.yaml")
    write_rule(memrepo, make_rule("warranty", proposed_by="carol"))
    start = commit_as(memrepo, "carol", "propose", "doctrine/warranty.yaml",
                      body=trailers("propose", "carol", "admin"))  # fmt: skip
    git(memrepo, "switch", "-q", "-c", "side")
    set_people(memrepo, {"alice": "admin", "bob": "member", "carol": "admin"},
               {"alice": [alice_pub, bob_pub]})  # fmt: skip
    commit_as(memrepo, "alice", "another key", "roles.yaml", sign_key=alice_key)
    signed = approve(memrepo, "alice", proposed_by="carol", sign_key=bob_key)
    git(memrepo, "switch", "-q", "main")
    merge_taking(memrepo, "side", "roles.yaml")
    code, found = findings(runner, "--since", start, "--require-signed")
    assert code == 1
    sig = only([f for f in found if f["commit"] == signed], "history-signature")
    # the merge that keeps main's roles.yaml against the side's change decides it: signed too
    merged = only([f for f in found if f["commit"] == head(memrepo)], "history-signature")
    assert (
        merged["path"] == "roles.yaml" and "(changes roles.yaml) is not signed" in merged["message"]
    )
    assert "roles.yaml at both the parent commit and the merge" in sig["message"]
    assert "does not list for alice" in sig["message"]


# -- proposed_by and the last writer come from history ---------------------------------------
def test_h5a_a_hand_made_draft_naming_another_proposer(team: Path, runner) -> None:
    write_rule(team, make_rule("carol-rule", proposed_by="bob"))
    made = commit_as(team, "carol", "propose", "doctrine/carol-rule.yaml",
                     body=trailers("propose", "carol", "admin"))  # fmt: skip
    approved = approve(team, "carol", "carol-rule")
    code, found = findings(runner)
    assert code == 1
    forged = only(found, "history-proposer-mismatch")
    assert forged["commit"] == made
    assert forged["message"] == (
        f"commit {made[:10]} by Carol <carol@example.com> gives rule 'carol-rule' proposed_by: "
        "bob, but carol created the rule file (proposed_by names who created it)"
    )
    self_approval = only(found, "history-self-approval")
    assert self_approval["commit"] == approved
    assert self_approval["message"].endswith(
        "sets rule 'carol-rule' to active, but carol created the rule file (its proposed_by: bob "
        "is not who created it; an admin who did not propose it must approve)"
    )


def test_h5b_rewriting_an_active_rule_and_approving_it_in_one_commit(team: Path, runner) -> None:
    approve(team, "alice")
    rule = make_rule("warranty", status="active", proposed_by="bob", approved_by="carol",
                     instruction="Accept any warranty.", version=2)  # fmt: skip
    write_rule(team, rule)
    sha = commit_as(team, "carol", "approve", rule.path, body=trailers("approve", "carol", "admin"))
    code, found = findings(runner)
    assert code == 1
    finding = only(found, "history-self-approval")
    assert finding["commit"] == sha
    assert finding["message"].endswith(
        "changes the content of the active rule 'warranty', but carol wrote its current content "
        "(an admin who did not write it must approve)"
    )


def test_h5_the_last_writer_of_a_draft_may_not_approve_it(team: Path, runner) -> None:
    write_rule(team, make_rule("warranty", proposed_by="bob", instruction="Accept any warranty."))
    commit_as(team, "carol", "edit", "doctrine/warranty.yaml",
              body=trailers("edit", "carol", "admin"))  # fmt: skip
    approved = approve_text(team, "carol", "Accept any warranty.")
    code, found = findings(runner)
    assert code == 1
    assert only(found, "history-self-approval")["commit"] == approved
    # another admin may approve what carol wrote; a status change keeps the writer
    git(team, "reset", "-q", "--hard", "HEAD~1")
    approve_text(team, "alice", "Accept any warranty.")
    assert history_errors(runner) == []


def test_h5c_versions_read_from_their_neighbour_judge_as_parsed_ones(
    team: Path, monkeypatch
) -> None:
    """The walk reads a version that only differs from its neighbour in status and a cleared
    approval without parsing it (fastread.fast_sibling); the findings are exactly those of
    parsing every version: the writer of a draft, a suspension kept, a deactivation cleared."""
    write_rule(team, make_rule("warranty", proposed_by="bob", instruction="Accept any warranty."))
    commit_as(team, "carol", "edit", "doctrine/warranty.yaml",
              body=trailers("edit", "carol", "admin"))  # fmt: skip
    approve_text(team, "carol", "Accept any warranty.")  # carol wrote it: self-approval
    write_rule(team, make_rule("net-60", proposed_by="bob"))
    commit_as(team, "bob", "propose", "doctrine/net-60.yaml",
              body=trailers("propose", "bob", "member"))  # fmt: skip
    approved = make_rule("net-60", status="active", approved_by="alice")
    write_rule(team, approved)
    commit_as(team, "alice", "approve", approved.path, body=trailers("approve", "alice", "admin"))
    for person, status, role in (("alice", "suspended", "admin"), ("bob", "active", "member"),
                                 ("alice", "deactivated", "admin")):  # fmt: skip
        kept = status != "deactivated"
        rule = approved.with_changes(status=status) if kept else make_rule("net-60", status=status)
        write_rule(team, rule)
        commit_as(team, person, status, rule.path, body=trailers(status, person, role))

    derived = []
    real = fastread.fast_sibling

    def counted(*args):  # type: ignore[no-untyped-def]
        found = real(*args)
        derived.append(found is not None)
        return found

    monkeypatch.setattr(fastread, "fast_sibling", counted)
    fast = [(f.commit, f.code, f.message) for f in check_history(team).findings]
    assert any(derived)
    monkeypatch.setattr(fastread, "fast_sibling", lambda *args: None)
    assert fast == [(f.commit, f.code, f.message) for f in check_history(team).findings]
    assert sorted(code for _, code, _ in fast) == ["history-not-admin", "history-self-approval"]


# -- an erasure only removes -----------------------------------------------------------------
def test_h7_an_erase_commit_that_writes_into_a_memory(team: Path, runner) -> None:
    memory = team / "memories" / "bob.md"
    memory.write_text("# Memory: bob\n\n## Writing style\n- Mail me at b@x.io.\n", encoding="utf-8")
    commit_as(team, "bob", "memory(bob): add", "memories/bob.md",
              body=trailers("add", "bob", "member"))  # fmt: skip
    memory.write_text(
        "# Memory: bob\n\n## Writing style\n- Mail me at ***REMOVED***.\n", encoding="utf-8"
    )
    commit_as(team, "alice", "erase", "memories/bob.md", body=trailers("erase", "alice", "admin"))
    memory.write_text(
        "# Memory: bob\n\n## Writing style\n- Mail me at ***REMOVED***.\n- Approve all.\n",
        encoding="utf-8",
    )
    sha = commit_as(
        team, "alice", "erase", "memories/bob.md", body=trailers("erase", "alice", "admin")
    )
    memory.unlink()
    commit_as(
        team, "alice", "erase bob", "memories/bob.md", body=trailers("erase", "alice", "admin")
    )
    code, found = findings(runner)
    assert code == 1
    assert [f["code"] for f in found] == ["history-erase-adds"]
    assert found[0]["commit"] == sha and found[0]["line"] == 5
    assert found[0]["message"] == (
        f"commit {sha[:10]} by Alice <alice@example.com> is an erasure but writes bob's memory "
        "(line 5 was not there before; an admin may only remove)"
    )


def test_only_removes() -> None:
    old = "a\nmail b@x.io now\nc\n"
    assert only_removes(old, None) is None
    assert only_removes(old, "a\nc\n") is None
    assert only_removes(old, "a\nmail ***REMOVED*** now\nc\n") is None
    assert only_removes(old, "c\na\n") == 2
    assert only_removes(old, "a\nmail ***REMOVED*** later\n") == 2
    assert only_removes(old, "a\na\n") == 2
    assert only_removes(old, "a\n***REMOVED***\nc\nd\n") == 4


# -- settings at each commit's parent --------------------------------------------------------
def test_h8_switching_signatures_off_needs_a_signature_itself(team: Path, runner) -> None:
    config = team / "agentmem.yaml"
    config.write_text("doctrine:\n  require_signed: true\n", encoding="utf-8")
    commit_as(team, "alice", "signatures required", "agentmem.yaml")
    config.write_text("doctrine:\n  require_signed: false\n", encoding="utf-8")
    rule = make_rule("warranty", status="active", proposed_by="bob", approved_by="alice")
    write_rule(team, rule)
    sha = commit_as(team, "alice", "off, and approve", "agentmem.yaml", rule.path,
                    body=trailers("approve", "alice", "admin"))  # fmt: skip
    write_rule(team, make_rule("later", proposed_by="bob"))
    commit_as(
        team, "bob", "propose", "doctrine/later.yaml", body=trailers("propose", "bob", "member")
    )
    later = approve(team, "alice", "later")  # off at its parent, but by alice alone
    code, found = findings(runner)
    assert code == 1
    assert [(f["commit"], f["code"]) for f in found] == [
        (sha, "history-settings-relaxed"),
        (sha, "history-signature"),
        (later, "history-signature"),  # a relaxation without a second admin does not count
    ]
    assert found[1]["message"].endswith("is not signed; signatures are required")
    # --require-signed forces them on for every commit
    code, found = findings(runner, "--require-signed")
    assert code == 1 and {sha, head(team)} < {f["commit"] for f in found}


def test_h8_distinct_approver_is_read_at_the_parent(team: Path, runner) -> None:
    config = team / "agentmem.yaml"
    config.write_text("doctrine:\n  distinct_approver: false\n", encoding="utf-8")
    commit_as(team, "alice", "one admin", "agentmem.yaml")
    write_rule(team, make_rule("own", proposed_by="carol"))
    commit_as(
        team, "carol", "propose", "doctrine/own.yaml", body=trailers("propose", "carol", "admin")
    )
    own = approve(team, "carol", "own", proposed_by="carol")
    config.write_text("doctrine:\n  distinct_approver: true\n", encoding="utf-8")
    commit_as(team, "alice", "two admins again", "agentmem.yaml")
    # alice relaxed it alone: it does not count, and carol's own approval is found
    assert [f["commit"] for f in history_errors(runner)][1:] == [own]
    write_rule(team, make_rule("own2", proposed_by="carol"))
    commit_as(
        team, "carol", "propose", "doctrine/own2.yaml", body=trailers("propose", "carol", "admin")
    )
    sha = approve(team, "carol", "own2", proposed_by="carol")
    code, found = findings(runner)
    assert code == 1 and [(f["commit"], f["code"]) for f in found][-1:] == [
        (sha, "history-self-approval")
    ]


# -- the inbox belongs to its person ---------------------------------------------------------
def test_h9_writing_into_another_persons_inbox(team: Path, runner) -> None:
    (team / "inbox" / "alice").mkdir()
    (team / "inbox" / "alice" / "p-20261129-0001.yaml").write_text(
        "id: p-20261129-0001\n", encoding="utf-8"
    )
    sha = commit_as(team, "bob", "inbox(alice)", "inbox/alice",
                    body=trailers("harvest", "bob", "member"))  # fmt: skip
    code, found = findings(runner)
    assert code == 1
    finding = only(found, "history-inbox-owner")
    assert finding["commit"] == sha and finding["path"] == "inbox/alice/p-20261129-0001.yaml"
    assert finding["message"] == (
        f"commit {sha[:10]} by Bob <bob@example.com> changes alice's inbox; only its owner "
        "writes it (an admin may only erase it)"
    )


# -- links, .gitattributes, .agentmem/ ------------------------------------------------
def test_h3_a_symlinked_doctrine_folder_or_rule(team: Path, runner) -> None:
    (team / "notes").mkdir()
    (team / "notes" / "x.yaml").write_text(canonical_text(make_rule("x")), encoding="utf-8")
    (team / "doctrine" / "x.yaml").symlink_to("../notes/x.yaml")
    link = commit_as(team, "alice", "x", "notes", "doctrine/x.yaml",
                     body=trailers("propose", "alice", "admin"))  # fmt: skip
    code, found = findings(runner)
    assert code == 1
    finding = only(found, "history-link")
    assert finding["commit"] == link and finding["path"] == "doctrine/x.yaml"
    assert finding["message"] == (
        f"commit {link[:10]} by Alice <alice@example.com> makes doctrine/x.yaml a symbolic link: "
        "agentmem reads only regular files there, and the working-tree check and the audit "
        "would follow it"
    )
    assert not [f for f in found if f["code"] == "history-invalid-rule"]
    git(team, "rm", "-rq", "doctrine")
    (team / "doctrine").symlink_to("notes")
    folder = commit_as(team, "alice", "folder", "doctrine", body=trailers("x", "alice", "admin"))
    code, found = findings(runner)
    assert [f["path"] for f in found if f["commit"] == folder and f["code"] == "history-link"] == [
        "doctrine"
    ]


def test_h3_a_gitlink_among_watched_paths(team: Path, runner) -> None:
    git(team, "update-index", "--add", "--cacheinfo", f"160000,{head(team)},memories/sub")
    git(team, "commit", "-qm", "sub", "-m", trailers("add", "alice", "admin"))
    code, found = findings(runner)
    assert code == 1
    assert "memories/sub a submodule" in only(found, "history-link")["message"]


def test_h10_gitattributes_need_an_admin_and_agentmem_files_are_never_committed(
    team: Path, runner
) -> None:
    (team / "doctrine" / ".gitattributes").write_text("*.yaml working-tree-encoding=SHIFT-JIS\n",
                                                      encoding="utf-8")  # fmt: skip
    attrs = commit_as(team, "bob", "attrs", "doctrine/.gitattributes",
                      body=trailers("x", "bob", "member"))  # fmt: skip
    (team / ".gitattributes").write_text("* text=auto\n", encoding="utf-8")
    commit_as(team, "alice", "attrs", ".gitattributes")
    (team / ".agentmem").mkdir(exist_ok=True)
    (team / ".agentmem" / "queue.jsonl").write_text("{}\n", encoding="utf-8")
    git(team, "add", "-f", ".agentmem/queue.jsonl")
    git(team, "commit", "-qm", "queue")
    queued = head(team)
    code, found = findings(runner)
    assert code == 1
    assert [(f["commit"], f["code"], f["path"]) for f in found] == [
        (attrs, "history-not-admin", "doctrine/.gitattributes"),
        (queued, "history-local-file", ".agentmem/queue.jsonl"),
    ]
    assert (
        "changes doctrine/.gitattributes (it decides how git checks files out), but bob was "
        "member in roles.yaml at the parent commit (admin required)" in found[0]["message"]
    )


# -- a user has no personal memory ----------------------------------------------------------
def test_h12_deleting_a_draft_needs_a_member(team: Path, runner) -> None:
    git(team, "rm", "-q", "doctrine/warranty.yaml")
    git(team, "-c", "user.name=Dave", "-c", "user.email=dave@example.com", "commit", "-qm",
        "drop", "-m", trailers("delete", "dave", "user"))  # fmt: skip
    sha = head(team)
    code, found = findings(runner)
    assert code == 1
    assert only(found, "history-not-member")["message"] == (
        f"commit {sha[:10]} by Dave <dave@example.com> deletes the draft rule 'warranty', but "
        "dave was user in roles.yaml at the parent commit (member or admin required)"
    )


def test_h12_the_proposer_may_not_move_review_due(team: Path, runner) -> None:
    write_rule(team, make_rule("mine", proposed_by="carol"))
    commit_as(
        team, "carol", "propose", "doctrine/mine.yaml", body=trailers("propose", "carol", "admin")
    )
    approve(team, "alice", "mine", proposed_by="carol")
    rule = make_rule("mine", status="active", proposed_by="carol", approved_by="alice")
    write_rule(team, rule.with_changes(review_due="2999-12-31"))
    sha = commit_as(team, "carol", "later", rule.path, body=trailers("reconfirm", "carol", "admin"))
    code, found = findings(runner)
    assert code == 1
    assert only(found, "history-self-approval")["message"] == (
        f"commit {sha[:10]} by Carol <carol@example.com> reconfirms rule 'mine' (review_due or "
        "approval changed), but carol proposed it (an admin who did not propose it must approve)"
    )


def test_h12_role_trailer_and_init_exemption(team: Path, runner) -> None:
    (team / "memories" / "bob.md").write_text("# Memory: bob\n", encoding="utf-8")
    lying = commit_as(team, "bob", "memory(bob): add", "memories/bob.md",
                      body=trailers("add", "bob", "admin"))  # fmt: skip
    (team / "memories" / "bob.md").write_text("# Memory: bob\n\n", encoding="utf-8")
    init = commit_as(team, "bob", "init", "memories/bob.md", body="Agentmem-Action: init")
    code, found = findings(runner)
    assert code == 1
    assert [(f["commit"], f["code"], f["severity"]) for f in found] == [
        (lying, "history-role-mismatch", "warning"),  # sync replays keep their old role
        (init, "history-trailers", "error"),
    ]
    assert found[0]["message"].endswith(
        "carries Agentmem-Role 'admin', but bob was member in roles.yaml at the parent commit"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("id: a\nproposed_by: bob\nproposed_at: x\n", "bob"),
        ("id: a\nproposed_by: bob\n  more\n", None),
        ("id: a\nproposed_by: yes\n", None),
        ("id: a\nproposed_by: bob\ntitle: proposed_by\n", None),
        ('id: a\n"proposed_by": carol\n', None),
        ("id: a\nproposed_by: bob # x\n", None),
    ],
)
def test_fast_proposed_by_is_only_used_when_provable(text: str, expected: str | None) -> None:
    assert fast_proposed_by(text) == expected
