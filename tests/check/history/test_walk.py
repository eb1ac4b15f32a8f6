"""``agentmem check --history`` (docs/design/governance.md §Trailers) on real temporary repositories."""

from __future__ import annotations

import gc
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.helpers import git, invoke, set_identity
from tests.helpers.history import approve, findings, merge, only
from tests.helpers.history import history_errors as cli_history_errors  # the CLI's JSON findings
from tests.helpers.team import (
    MERGES,
    PEOPLE,
    commit_as,
    make_rule,
    relaxed_on_a_branch,
    set_people,
    ssh_key,
    trailers,
    write_rule,
)

from agentmem import governance
from agentmem.check.history.gitread import BlobReader, case_problem, parse_log
from agentmem.check.history.walk import check_history
from agentmem.check.run import run_check
from agentmem.doctrine.fastread import fast_status
from agentmem.doctrine.render import canonical_text
from agentmem.errors import GitError


def history_errors(root: Path, **kwargs) -> list:
    return [f for f in run_check(root, history=True, **kwargs).findings if f.commit and f.is_error]


@pytest.fixture
def team(history_team: Path) -> Path:
    """alice admin, bob member, carol admin, dave user; bob's draft rule 'warranty' committed."""
    return history_team


def approve_as(
    root: Path, person: str, rule_id: str = "warranty", proposed_by: str = "bob", **kwargs
) -> str:
    rule = make_rule(rule_id, status="active", proposed_by=proposed_by, approved_by=person)
    write_rule(root, rule)
    return commit_as(
        root,
        person,
        f"doctrine: approve {rule_id}",
        rule.path,
        body=trailers("approve", person, "admin"),
        **kwargs,
    )


def test_a_proper_activation_passes(team: Path, runner) -> None:
    approve_as(team, "alice")
    result = invoke(runner, "check", "--history")
    assert result.exit_code == 0, result.stdout
    assert "clean" in result.stderr and "commits" in result.stderr


def test_a_member_activating_with_plain_git_fails_naming_commit_author_and_role(
    team: Path, runner
) -> None:
    path = team / "doctrine" / "warranty.yaml"
    path.write_text(path.read_text().replace("status: draft", "status: active"), encoding="utf-8")
    sha = commit_as(team, "bob", "activate it myself", "doctrine/warranty.yaml")
    assert invoke(runner, "check").exit_code == 1  # no approval on an active rule
    result = invoke(runner, "check", "--history", "--format", "json")
    assert result.exit_code == 1
    findings = [f for f in json.loads(result.stdout) if f["commit"] == sha]
    not_admin = next(f for f in findings if f["code"] == "history-not-admin")
    assert not_admin["path"] == "doctrine/warranty.yaml"
    assert not_admin["message"] == (
        f"commit {sha[:10]} by Bob <bob@example.com> sets rule 'warranty' to active, but bob was "
        "member in roles.yaml at the parent commit (admin required)"
    )
    assert any(f["code"] == "history-trailers" for f in findings)


def test_granting_admin_and_activating_in_the_same_commit_fails(team: Path) -> None:
    set_people(team, {"alice": "admin", "bob": "admin", "carol": "admin", "dave": "user"})
    rule = make_rule("warranty", status="active", proposed_by="carol", approved_by="bob")
    write_rule(team, rule)
    sha = commit_as(
        team,
        "bob",
        "promote myself and approve",
        "roles.yaml",
        rule.path,
        body=trailers("approve", "bob", "admin"),
    )
    errors = history_errors(team)
    assert {(f.path, f.code) for f in errors} == {
        ("roles.yaml", "history-not-admin"),
        ("doctrine/warranty.yaml", "history-not-admin"),
    }
    assert all(
        f.commit == sha and "bob was member in roles.yaml at the parent commit" in f.message
        for f in errors
    )
    # the next commit by bob, now admin at its parent, may approve (carol proposed)
    assert len(history_errors(team, since=sha)) == 0


def test_the_proposer_cannot_activate_their_own_rule(team: Path) -> None:
    approve_as(team, "carol", proposed_by="carol")
    errors = history_errors(team)
    assert [f.code for f in errors] == ["history-self-approval"]
    assert "carol proposed it" in errors[0].message


def test_activation_needs_a_complete_rule_and_a_matching_approval(team: Path) -> None:
    write_rule(team, make_rule("warranty", proposed_by="bob", limits=()))
    commit_as(team, "bob", "drop the limit", "doctrine/warranty.yaml",
              body=trailers("edit", "bob", "member"))  # fmt: skip
    rule = make_rule("warranty", status="active", proposed_by="bob", approved_by="carol", limits=())
    write_rule(team, rule)
    commit_as(
        team,
        "alice",
        "approve without limit",
        rule.path,
        body=trailers("approve", "alice", "admin"),
    )
    codes = sorted(f.code for f in history_errors(team))
    assert codes == ["history-approval-mismatch", "history-incomplete"]


def test_status_changes_need_an_admin_and_drafts_a_member(team: Path) -> None:
    approve_as(team, "alice")
    rule = make_rule("warranty", status="suspended", proposed_by="bob", approved_by="alice")
    write_rule(team, rule)
    sha = commit_as(team, "bob", "suspend", rule.path, body=trailers("suspend", "bob", "member"))
    write_rule(team, make_rule("by-a-user", proposed_by="dave"))
    sha2 = commit_as(
        team, "dave", "propose", "doctrine/by-a-user.yaml", body=trailers("propose", "dave", "user")
    )
    errors = history_errors(team)
    assert [(f.commit, f.code) for f in errors] == [
        (sha, "history-not-admin"),
        (sha2, "history-not-member"),
    ]
    assert "from active to suspended" in errors[0].message


def test_memory_written_by_someone_else_fails_but_an_admin_erasure_passes(team: Path) -> None:
    (team / "memories" / "bob.md").write_text("# Memory: bob\n", encoding="utf-8")
    ok = commit_as(
        team, "bob", "memory(bob): add", "memories/bob.md", body=trailers("add", "bob", "member")
    )
    (team / "memories" / "bob.md").write_text(
        "# Memory: bob\n\n## Writing style\n", encoding="utf-8"
    )
    bad = commit_as(
        team,
        "alice",
        "memory(bob): fix",
        "memories/bob.md",
        body=trailers("edit", "alice", "admin"),
    )
    (team / "memories" / "bob.md").unlink()
    erased = commit_as(
        team, "alice", "erase bob", "memories/bob.md", body=trailers("erase", "alice", "admin")
    )
    errors = history_errors(team)
    assert [(f.commit, f.code) for f in errors] == [(bad, "history-memory-owner")]
    assert "changes bob's memory; only its owner writes it" in errors[0].message
    assert ok != erased


def test_agentmem_shaped_commits_need_trailers_naming_their_author(team: Path) -> None:
    (team / "memories" / "bob.md").write_text("# Memory: bob\n", encoding="utf-8")
    plain = commit_as(team, "bob", "my memory, by hand", "memories/bob.md")
    (team / "memories" / "bob.md").write_text("# Memory: bob\n\n", encoding="utf-8")
    forged = commit_as(
        team, "bob", "memory(bob): add", "memories/bob.md", body=trailers("add", "carol", "admin")
    )
    errors = history_errors(team)
    assert [(f.commit, f.code) for f in errors] == [
        (plain, "history-trailers"),
        (forged, "history-actor-mismatch"),
    ]
    assert (
        "without the audit trailers Agentmem-Action, Agentmem-Actor, Agentmem-Role"
        in errors[0].message
    )


def test_since_limits_the_walk(team: Path) -> None:
    (team / "memories" / "bob.md").write_text("# Memory: bob\n", encoding="utf-8")
    commit_as(team, "bob", "by hand", "memories/bob.md")
    after = git(team, "rev-parse", "HEAD").strip()
    assert history_errors(team)
    report = run_check(team, history=True, since=after)
    assert report.commits == 0 and not [f for f in report.errors if f.commit]
    with pytest.raises(Exception, match="not a commit"):
        run_check(team, history=True, since="no-such-rev")


def test_a_merge_is_judged_on_what_it_changes_itself(team: Path) -> None:
    git(team, "switch", "-q", "-c", "side")
    approve_as(team, "alice")
    git(team, "switch", "-q", "main")
    (team / "memories" / "alice.md").write_text("# Memory: alice\n", encoding="utf-8")
    commit_as(
        team,
        "alice",
        "memory(alice): add",
        "memories/alice.md",
        body=trailers("add", "alice", "admin"),
    )
    git(
        team,
        "-c",
        "user.name=Dave",
        "-c",
        "user.email=dave@example.com",
        "merge",
        "-q",
        "--no-edit",
        "side",
    )
    assert history_errors(team) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("id: a\nstatus: draft\ninstruction: be active\n", None),
        ("id: a\nstatus: draft\n", "draft"),
        ("id: a\nstatus: deactivated\n", "deactivated"),
        ("id: a\nstatus: active\n", "active"),
        ("status: active\nid: a\n", "active"),
        ("id: a\nstatus: draft\nstatus: active\n", None),
        ('id: a\ntitle: "x\nstatus: draft\n"\n"status": active\n', None),
        ('id: a\n"status": "\\x61ctive"\nstatus: draft\n', None),
        ("id: a\nstatus: draft # comment\n", None),
    ],
)
def test_fast_status_is_only_used_when_provable(text: str, expected: str | None) -> None:
    assert fast_status(text) == expected


@pytest.mark.slow
def test_with_the_real_doctrine_and_memory_commands_history_is_clean(team: Path, runner) -> None:
    set_identity(team, "Bob", "bob@example.com")
    result = invoke(runner, "doctrine", "propose", "--id", "net-60", "--title", "Sixty-day payment terms",
                    "--instruction", "Accept payment terms up to 60 days.", "--limit", "Not for new suppliers.",
                    "--scope", "contracts/supply")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    result = invoke(runner, "remember", "Keep answers short and list the clauses first.")
    assert result.exit_code == 0, result.stderr
    assert invoke(runner, "review", "--accept", "all").exit_code == 0
    set_identity(team, "Alice", "alice@example.com")
    for args in (
        ("approve", "net-60", "--version", "1"),
        ("suspend", "net-60"),
        ("resume", "net-60"),
    ):
        result = invoke(runner, "doctrine", *args)
        assert result.exit_code == 0, result.stderr
    result = invoke(runner, "check", "--history")
    assert result.exit_code == 0, result.stdout + result.stderr


def test_history_only_walks_the_commits_and_skips_the_tree(team: Path, runner) -> None:
    self_approved = approve_as(team, "bob")  # bob is a member: not admin when he activated
    (team / "memories" / "bob.md").write_text("not a memory file\n", encoding="utf-8")  # tree only

    tree_and_history = run_check(team, history=True)
    history_only = run_check(team, history_only=True)

    assert sorted((f.path, f.code) for f in tree_and_history.findings if not f.commit) == [
        ("doctrine/warranty.yaml", "doctrine-approver-role"),
        ("doctrine/warranty.yaml", "doctrine-self-approved"),
        ("memories/bob.md", "memory-structure"),
    ]
    assert all(f.commit for f in history_only.findings)  # nothing from the checked-out files
    assert [f.code for f in history_only.findings if f.is_error] == [
        f.code for f in tree_and_history.findings if f.commit and f.is_error
    ]
    assert any(f.commit == self_approved for f in history_only.findings)
    assert history_only.files == 0
    assert history_only.commits == tree_and_history.commits

    result = invoke(runner, "check", "--history-only")
    assert result.exit_code == 1
    assert "files" not in result.stderr.splitlines()[-1]
    assert f"{history_only.commits} commits" in result.stderr
    for args in (("--history-only", "--history"),):
        assert invoke(runner, "check", *args).exit_code == 2
    assert invoke(runner, "check", "--history-only", "--since", "HEAD~1").exit_code == 1


def test_the_walk_leaves_the_garbage_collector_as_it_found_it(team: Path) -> None:
    approve_as(team, "bob")  # a finding: the walk goes through every judge
    assert gc.isenabled()
    assert [f.code for f in check_history(team).findings if f.is_error] == ["history-not-admin"]
    assert gc.isenabled()
    gc.disable()
    try:
        assert check_history(team).commits == run_check(team, history_only=True).commits
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("doctrine/warranty.yaml", None),
        ("notes/readme.md", None),
        ("Doctrine/warranty.yaml", "doctrine/warranty.yaml"),
        ("ROLES.yaml", "roles.yaml"),
        ("docs/Warranty.md", None),
        ("a/.GitAttributes", "a/.gitattributes"),
    ],
)
def test_case_problem_names_the_spelling_a_case_insensitive_checkout_gives(
    path: str, expected: str | None
) -> None:
    assert case_problem(path) == expected


needs_ssh = pytest.mark.skipif(
    shutil.which("ssh-keygen") is None, reason="ssh-keygen not installed"
)


@pytest.mark.slow
@needs_ssh
def test_require_signed_activations(memrepo: Path, tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    alice_key, alice_pub = ssh_key(keys, "alice")
    carol_key, carol_pub = ssh_key(keys, "carol")
    stranger_key, _ = ssh_key(keys, "stranger")
    set_people(
        memrepo,
        {"alice": "admin", "carol": "admin", "bob": "member"},
        {"alice": [alice_pub], "carol": [carol_pub]},
    )
    start = commit_as(memrepo, "alice", "people and their keys", "roles.yaml")
    for rule_id in ("unsigned", "stranger", "proposer", "other-key", "good"):
        write_rule(memrepo, make_rule(rule_id, proposed_by="carol"))
    commit_as(
        memrepo, "carol", "propose five", "doctrine", body=trailers("propose", "carol", "admin")
    )

    unsigned = approve_as(memrepo, "alice", "unsigned", proposed_by="carol")
    stranger = approve_as(memrepo, "alice", "stranger", proposed_by="carol", sign_key=stranger_key)
    proposer = approve_as(memrepo, "carol", "proposer", proposed_by="carol", sign_key=carol_key)
    other = approve_as(memrepo, "alice", "other-key", proposed_by="carol", sign_key=carol_key)
    good = approve_as(memrepo, "alice", "good", proposed_by="carol", sign_key=alice_key)

    errors = history_errors(memrepo, since=start, require_signed=True)
    by_commit: dict[str, list[str]] = {}
    for f in errors:
        by_commit.setdefault(f.commit, []).append(f.code)
    assert by_commit == {
        unsigned: ["history-signature"],
        stranger: ["history-signature"],
        proposer: ["history-self-approval"],
        other: ["history-signature"],
    }
    assert good not in by_commit
    messages = {f.commit: f.message for f in errors if f.code == "history-signature"}
    assert messages[unsigned].endswith("is not signed; signatures are required")
    assert "which roles.yaml at the parent commit does not list for alice" in messages[stranger]
    assert "which roles.yaml at the parent commit does not list for alice" in messages[other]
    # without --require-signed (and doctrine.require_signed false) signatures are not asked for
    assert {f.commit for f in history_errors(memrepo, since=start)} == {proposer}


@needs_ssh
def test_a_key_added_in_the_activating_commit_does_not_count(memrepo: Path, tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    alice_key, alice_pub = ssh_key(keys, "alice")
    new_key, new_pub = ssh_key(keys, "alice-new")
    set_people(memrepo, {"alice": "admin", "carol": "admin"}, {"alice": [alice_pub]})
    start = commit_as(memrepo, "alice", "people", "roles.yaml")
    write_rule(memrepo, make_rule("late-key", proposed_by="carol"))
    commit_as(memrepo, "carol", "propose", "doctrine", body=trailers("propose", "carol", "admin"))
    set_people(memrepo, {"alice": "admin", "carol": "admin"}, {"alice": [alice_pub, new_pub]})
    rule = make_rule("late-key", status="active", proposed_by="carol", approved_by="alice")
    write_rule(memrepo, rule)
    sha = commit_as(memrepo, "alice", "new key and approve", "roles.yaml", rule.path,
                    body=trailers("approve", "alice", "admin"), sign_key=new_key)  # fmt: skip
    errors = history_errors(memrepo, since=start, require_signed=True)
    assert [(f.commit, f.code) for f in errors] == [(sha, "history-signature")]
    # require_signed from agentmem.yaml (at each commit's parent) works like the flag
    (memrepo / "agentmem.yaml").write_text("doctrine:\n  require_signed: true\n", encoding="utf-8")
    turned_on = commit_as(memrepo, "alice", "signatures required", "agentmem.yaml")
    write_rule(memrepo, make_rule("after", proposed_by="carol"))
    commit_as(memrepo, "carol", "propose", "doctrine", body=trailers("propose", "carol", "admin"))
    unsigned = approve_as(memrepo, "alice", "after", proposed_by="carol")
    assert [(f.commit, f.code) for f in history_errors(memrepo, since=turned_on)] == [
        (unsigned, "history-signature")
    ]
    assert alice_key.exists()


def test_canonical_rule_round_trip_used_by_helpers() -> None:
    rule = make_rule("x", status="active", approved_by="alice")
    assert "content_sha256" in canonical_text(rule)


def test_a_shallow_clone_is_refused_without_since(team: Path, tmp_path: Path) -> None:
    approve_as(team, "alice")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{team}", str(clone))
    with pytest.raises(Exception, match="shallow"):
        run_check(clone, history=True)
    assert run_check(clone, history=True, since="HEAD").commits == 0


def test_a_history_git_cannot_read_is_git_s_failure_named(team: Path) -> None:
    """The log is parsed while git writes it: when git stops half-way (a tree object lost),
    the failure reported is git's own, not a parse of its cut-short output."""
    approve_as(team, "alice")
    tree = git(team, "rev-parse", "HEAD^{tree}").strip()
    (team / ".git" / "objects" / tree[:2] / tree[2:]).unlink()  # plain git wrote it loose
    with pytest.raises(GitError, match=r"^git log failed: fatal: unable to read"):
        check_history(team)
    with pytest.raises(GitError, match="unexpected git log output"):
        parse_log("not a commit id\0")


def test_blobs_are_read_while_asked_for_and_git_s_failure_is_named(
    team: Path, tmp_path: Path
) -> None:
    """One cat-file, fed while the log is read: every blob asked for, once; nothing asked for,
    no git process; git failing is named, never a partial read taken for the blobs."""
    approve_as(team, "alice")
    blob = git(team, "rev-parse", "HEAD:doctrine/warranty.yaml").strip()
    with BlobReader(team) as reader:
        reader.request([blob, None, "0" * 40])
        reader.request([blob])
        texts = reader.texts()
    assert texts == {blob: (team / "doctrine" / "warranty.yaml").read_text(encoding="utf-8")}
    with BlobReader(tmp_path) as idle:
        assert idle.texts() == {} and idle.proc is None
    with BlobReader(tmp_path) as reader:  # tmp_path is no repository
        reader.request([blob])
        with pytest.raises(GitError, match="^git cat-file failed: "):
            reader.texts()


# ``check --history`` and the governance settings of ``agentmem.yaml``: relaxing one needs a
# second admin, and approvals made under a relaxed setting are named (docs/design/check.md §Check).


def _settings(root: Path, person: str, text: str, subject: str = "settings") -> str:
    (root / "agentmem.yaml").write_text(text, encoding="utf-8")
    return commit_as(root, person, subject, "agentmem.yaml")


def _approve_settings(root: Path, person: str, role: str, sha: str) -> str:
    """A second admin's approval: an empty commit with the approve-settings trailers."""
    body = trailers("approve-settings", person, role, approves=sha)
    args = ["git", "-C", str(root), "-c", f"user.name={person.title()}"]
    args += ["-c", f"user.email={PEOPLE[person]}", "commit", "-q", "--allow-empty", "-F", "-"]
    subprocess.run(args, input=f"settings: approve {sha[:10]}\n\n{body}\n", text=True, check=True)
    return subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def _own_rule_approved(root: Path, person: str) -> str:
    """``person`` proposes rule 'own' and approves it herself."""
    write_rule(root, make_rule("own", proposed_by=person))
    commit_as(root, person, "propose own", "doctrine/own.yaml",
              body=trailers("propose", person, "admin"))  # fmt: skip
    return approve(root, person, "own", proposed_by=person)


def test_an_admin_who_relaxes_distinct_approver_and_approves_her_own_rule_is_found(
    team: Path, runner
) -> None:
    relax = _settings(team, "alice", "doctrine:\n  distinct_approver: false\n")
    own = _own_rule_approved(team, "alice")
    errors = cli_history_errors(runner)
    assert [(f["commit"], f["code"]) for f in errors] == [
        (relax, "history-settings-relaxed"),
        (own, "history-self-approval"),
    ]
    assert errors[0]["path"] == "agentmem.yaml"
    assert (
        "relaxes the governance setting(s) doctrine.distinct_approver without a second "
        "admin's approval" in errors[0]["message"]
    )
    assert f"Agentmem-Approves: {relax}" in errors[0]["message"]
    assert errors[1]["message"].endswith(
        f"alice proposed it (an admin who did not propose it must approve); "
        f"doctrine.distinct_approver: false does not count, relaxed by commit {relax[:10]} "
        "without a second admin's approval"
    )
    # An unrelated edit of agentmem.yaml afterwards does not launder the relaxation.
    _settings(
        team, "alice", "doctrine:\n  distinct_approver: false\nmemory:\n  budget_chars: 9000\n"
    )
    write_rule(team, make_rule("own2", proposed_by="alice"))
    commit_as(team, "alice", "propose own2", "doctrine/own2.yaml",
              body=trailers("propose", "alice", "admin"))  # fmt: skip
    own2 = approve(team, "alice", "own2", proposed_by="alice")
    assert (own2, "history-self-approval") in [
        (f["commit"], f["code"]) for f in cli_history_errors(runner)
    ]


@pytest.mark.parametrize("how", MERGES)
def test_a_distinct_approver_relaxation_on_a_merged_branch_still_holds(
    team: Path, runner, how: str
) -> None:
    """alice turns ``doctrine.distinct_approver`` off on a branch alone, main merges it (clean,
    combined with main's own change of the file, or keeping the branch's file whole): her
    approval of her own rule after the merge is a self-approval (docs/decisions/0118)."""
    flip = ("distinct_approver: true", "distinct_approver: false")
    relaxing, _merge = relaxed_on_a_branch(team, flip, how)
    own = _own_rule_approved(team, "alice")
    assert [(f["commit"], f["code"]) for f in cli_history_errors(runner)] == [
        (relaxing, "history-settings-relaxed"),
        (own, "history-self-approval"),
    ]


def test_a_merge_keeps_a_relaxation_main_had_approved_where_a_branch_made_it_alone(
    team: Path, runner
) -> None:
    """A branch turns ``distinct_approver`` off alone; main turns it off too, carol approves,
    and main comments the file; the merge (main's version) takes the value from both parents:
    main had it as approved, so it counts (held only where every parent with it holds it)."""
    config = team / "agentmem.yaml"
    strict = config.read_text(encoding="utf-8")
    loose = strict.replace("distinct_approver: true", "distinct_approver: false")
    git(team, "checkout", "-qb", "side")
    alone = _settings(team, "alice", loose, "settings: alone on a branch")
    git(team, "checkout", "-q", "main")
    relax = _settings(team, "alice", loose, "settings: one admin is enough")
    approval = _approve_settings(team, "carol", "admin", relax)
    _settings(team, "alice", "# the team's settings\n" + loose, "settings: a comment")
    merged = merge(team, "alice", "side")
    assert "Merge" in git(team, "show", "-s", "--format=%s", merged)
    own = _own_rule_approved(team, "alice")
    code, found = findings(runner)
    assert [(f["commit"], f["code"]) for f in found if f["severity"] == "error"] == [
        (alone, "history-settings-relaxed")
    ]
    named = [(f["commit"], f["code"]) for f in found if f["severity"] == "warning"]
    assert (own, "history-relaxed-approval") in named
    assert (
        f"approved by carol in {approval[:10]}"
        in only(found, "history-relaxed-approval")["message"]
    )


def test_a_second_admins_approval_accepts_the_relaxation_and_names_what_it_allowed(
    team: Path, runner
) -> None:
    relax = _settings(team, "alice", "doctrine:\n  distinct_approver: false\n")
    # Neither the author herself nor a member can approve it.
    _approve_settings(team, "alice", "admin", relax)
    _approve_settings(team, "bob", "member", relax)
    assert [f["code"] for f in cli_history_errors(runner)] == ["history-settings-relaxed"]
    approval = _approve_settings(team, "carol", "admin", relax)
    own = _own_rule_approved(team, "alice")
    code, found = findings(runner)
    assert code == 0, found
    named = [f for f in found if f["code"] == "history-relaxed-approval"]
    assert [(f["commit"], f["severity"]) for f in named] == [(own, "warning")]
    assert named[0]["message"].endswith(
        "approves rule 'own', which alice proposed: allowed only because "
        f"doctrine.distinct_approver is false (relaxed by commit {relax[:10]}, approved by "
        f"carol in {approval[:10]})"
    )
    # Tightening again needs nobody's approval.
    _settings(team, "alice", "doctrine:\n  distinct_approver: true\n")
    assert cli_history_errors(runner) == []


def test_an_activation_under_relaxed_signatures_is_named(team: Path, runner) -> None:
    _settings(team, "alice", "doctrine:\n  require_signed: true\n")
    relax = _settings(team, "alice", "doctrine:\n  require_signed: false\n")
    approval = _approve_settings(team, "carol", "admin", relax)
    sha = approve(team, "alice")  # bob's draft, unsigned
    _, found = findings(runner)
    named = [f for f in found if f["commit"] == sha]
    assert [(f["code"], f["severity"]) for f in named] == [("history-relaxed-approval", "warning")]
    assert named[0]["message"].endswith(
        "sets rule 'warranty' to active while doctrine.require_signed is false (relaxed by "
        f"commit {relax[:10]}, approved by carol in {approval[:10]}): no signature was asked for"
    )


@pytest.mark.parametrize(
    ("strict", "loose", "setting"),
    [
        ("doctrine:\n  distinct_approver: true\n", "doctrine:\n  distinct_approver: false\n",
         "doctrine.distinct_approver"),
        ("doctrine:\n  require_signed: true\n", "doctrine: {}\n", "doctrine.require_signed"),
        ("doctrine:\n  on_review_due: suspend\n", "doctrine:\n  on_review_due: alert\n",
         "doctrine.on_review_due"),
        ("doctrine:\n  review_days: 90\n", "doctrine:\n  review_days: 365\n",
         "doctrine.review_days"),
        ("doctrine:\n  duplicate_threshold: 85\n", "doctrine:\n  duplicate_threshold: 99\n",
         "doctrine.duplicate_threshold"),
        ("context:\n  doctrine_for_roles: [user, member, admin]\n",
         "context:\n  doctrine_for_roles: [admin]\n", "context.doctrine_for_roles"),
        ("memory:\n  on_review_due: suspend\n", "memory:\n  on_review_due: alert\n",
         "memory.on_review_due"),
        ("memory:\n  retention:\n    inferred: {expire_days: 90}\n",
         "memory:\n  retention:\n    inferred: {expire_days: null}\n",
         "memory.retention.inferred.expire_days"),
        ("retired_scopes:\n  contracts/supply: 2026-11-01\n", "{}\n", "retired_scopes"),
    ],
)  # fmt: skip
@pytest.mark.slow
def test_every_governance_setting_relaxed_alone_is_a_finding(
    team: Path, runner, strict: str, loose: str, setting: str
) -> None:
    _settings(team, "alice", strict, "tighten")  # tightening needs no second admin
    assert cli_history_errors(runner) == []
    relax = _settings(team, "alice", loose, "relax")
    # (switching signatures off must itself be signed while they are required)
    unsigned = [(relax, "history-signature")] if setting == "doctrine.require_signed" else []
    errors = cli_history_errors(runner)
    assert [(f["commit"], f["code"]) for f in errors] == [
        (relax, "history-settings-relaxed"),
        *unsigned,
    ]
    assert f"relaxes the governance setting(s) {setting} without" in errors[0]["message"]
    _approve_settings(team, "carol", "admin", relax)
    assert [(f["commit"], f["code"]) for f in cli_history_errors(runner)] == unsigned


def test_the_relaxable_table_covers_every_governance_setting() -> None:
    assert list(governance.RELAXABLE) == [
        "doctrine.distinct_approver",
        "doctrine.require_signed",
        "doctrine.on_review_due",
        "doctrine.review_days",
        "doctrine.duplicate_threshold",
        "context.doctrine_for_roles",
        "memory.on_review_due",
        "memory.retention.declared.review_days",
        "memory.retention.declared.expire_days",
        "memory.retention.inferred.review_days",
        "memory.retention.inferred.expire_days",
        "retired_scopes",
        "signing.decisions",
    ]
    old = {"doctrine.review_days": 90, "memory.retention.inferred.expire_days": 90}
    assert governance.relaxations(old, {**old, "doctrine.review_days": 30}) == []
    assert governance.relaxations(old, {**old, "memory.retention.inferred.expire_days": None}) == [
        "memory.retention.inferred.expire_days"
    ]


def test_settings_approve_is_the_second_admins_command(team: Path, runner) -> None:
    relax = _settings(team, "alice", "doctrine:\n  distinct_approver: false\n")
    mine = invoke(runner, "settings", "approve", relax)  # alice, who relaxed it
    assert mine.exit_code == 1
    assert "a relaxed setting is approved by a second admin" in mine.stderr
    unchanged = _settings(team, "alice", "doctrine:\n  distinct_approver: false\n# same\n")
    nothing = invoke(runner, "settings", "approve", unchanged)
    assert nothing.exit_code == 2 and "relaxes no governance setting" in nothing.stderr
    set_identity(team, "Carol", PEOPLE["carol"])
    done = invoke(runner, "settings", "approve", relax[:12])
    assert done.exit_code == 0, done.stderr
    assert f"approved doctrine.distinct_approver relaxed by alice in {relax[:10]}" in done.stdout
    assert cli_history_errors(runner) == []
    message = git(team, "log", "-1", "--format=%B")
    assert f"Agentmem-Approves: {relax}" in message
    assert "Agentmem-Action: approve-settings" in message
    assert git(team, "show", "--stat", "--format=", "HEAD").strip() == ""  # an empty commit


def test_a_walk_over_many_file_versions_says_so_and_keeps_their_bytes_when_asked(
    team: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From ``PROGRESS_FROM`` file versions the walk gives one progress line (decision 0105)
    before it judges; with ``read`` it hands back the bytes it read, by blob id."""
    from agentmem import notices
    from agentmem.check.history import walk

    approve_as(team, "alice")
    lines: list[str] = []
    monkeypatch.setattr(notices, "_PROGRESS", [lines.append])
    monkeypatch.setattr(walk, "PROGRESS_FROM", 10**9)
    read: dict[str, bytes] = {}
    quiet = check_history(team, read=read)
    assert lines == []
    rule = git(team, "rev-parse", "HEAD:doctrine/warranty.yaml").strip()
    assert read[rule] == (team / "doctrine" / "warranty.yaml").read_bytes()
    monkeypatch.setattr(walk, "PROGRESS_FROM", 1)
    loud = check_history(team)
    assert len(lines) == 1 and lines[0].startswith("judging the history: ")
    assert loud.findings == quiet.findings
