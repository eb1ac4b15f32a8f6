"""Helpers for the ``agentmem check`` tests (no tests here): rule files, people, commits, a bare
server with agentmem's pre-receive hook."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import yaml
from tests.helpers import git, invoke
from tests.helpers.memory import seed_memory
from typer.testing import CliRunner

from agentmem.doctrine.model import Approval, Rule, content_sha256
from agentmem.doctrine.render import canonical_text

PEOPLE = {
    "alice": "alice@example.com",
    "bob": "bob@example.com",
    "carol": "carol@example.com",
    "dave": "dave@example.com",
}


def make_rule(
    rule_id: str,
    *,
    status: str = "draft",
    proposed_by: str = "bob",
    approved_by: str | None = None,
    scope: str | None = "contracts/supply",
    instruction: str = "Accept a 12-month warranty on supply contracts although the playbook asks for 24.",
    limits: tuple[str, ...] = (
        "Not when the supplier has traded with us for less than two years.",
    ),
    version: int = 1,
) -> Rule:
    """A rule; with ``approved_by`` it carries a correct approval of its content."""
    rule = Rule(
        id=rule_id,
        title=f"Rule {rule_id}",
        status=status,
        scope=scope,
        instruction=instruction,
        limits=limits,
        justification="Settled across several audits of long-standing suppliers.",
        version=version,
        proposed_by=proposed_by,
        proposed_at="2026-11-29T10:02:00Z",
        origin_session=None,
        distinct_from=(),
        approval=None,
        review_due=None,
        path=f"doctrine/{rule_id}.yaml",
    )
    if approved_by:
        approval = Approval(approved_by, "2026-11-30T08:00:00Z", version, content_sha256(rule))
        rule = rule.with_changes(approval=approval, review_due="2099-02-28")
    return rule


def write_rule(root: Path, rule: Rule) -> str:
    """Write ``doctrine/<id>.yaml`` canonically; returns its relative path."""
    (root / rule.path).write_text(canonical_text(rule), encoding="utf-8")
    return rule.path


def set_people(root: Path, roles: dict[str, str], keys: dict[str, list[str]] | None = None) -> None:
    """Rewrite roles.yaml: ``{person: role}``, e-mails from :data:`PEOPLE`."""
    data: dict[str, dict[str, object]] = {}
    for person, role in roles.items():
        data[person] = {"email": PEOPLE[person], "role": role}
        if keys and person in keys:
            data[person]["signing_keys"] = keys[person]
    (root / "roles.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def trailers(action: str, person: str, role: str, **extra: str) -> str:
    lines = [
        f"Agentmem-Action: {action}",
        f"Agentmem-Actor: {person} <{PEOPLE[person]}>",
        f"Agentmem-Role: {role}",
    ]
    lines += [f"Agentmem-{key.replace('_', '-').title()}: {value}" for key, value in extra.items()]
    return "\n".join(lines)


def commit_as(
    root: Path,
    person: str,
    subject: str,
    *paths: str,
    body: str | None = None,
    sign_key: Path | None = None,
) -> str:
    """``git add paths`` then commit them as ``person`` (plain git); returns the commit id."""
    subprocess.run(["git", "-C", str(root), "add", "-A", "--", *paths], check=True)
    args = [
        "git",
        "-C",
        str(root),
        "-c",
        f"user.name={person.title()}",
        "-c",
        f"user.email={PEOPLE[person]}",
    ]
    if sign_key is not None:
        args += ["-c", "gpg.format=ssh", "-c", f"user.signingkey={sign_key}"]
    message = subject + (f"\n\n{body}\n" if body else "\n")
    args += ["commit", "-q", *(["-S"] if sign_key is not None else []), "-F", "-", "--", *paths]
    subprocess.run(args, input=message, text=True, check=True, capture_output=True)
    return subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()


def ssh_key(folder: Path, name: str) -> tuple[Path, str]:
    """A fresh ed25519 key pair in ``folder``: (private key path, public key line)."""
    path = folder / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], check=True
    )
    return path, (folder / f"{name}.pub").read_text(encoding="utf-8").strip()


def bob_as_second_admin(root: Path, folder: Path) -> Path:
    """bob added to ``roles.yaml`` as an admin with a fresh signing key (one commit, plain
    git); his private key's path."""
    key, public = ssh_key(folder, "bob")
    people = yaml.safe_load((root / "roles.yaml").read_text(encoding="utf-8"))
    people["bob"] = {"email": "bob@example.com", "role": "admin", "signing_keys": [public]}
    (root / "roles.yaml").write_text(yaml.safe_dump(people), encoding="utf-8")
    git(root, "commit", "-qm", "roles: bob admin", "--", "roles.yaml")
    return key


#: What :func:`alice_signs` puts in ``agentmem.yaml``: signed decisions, or signed activations.
DECISIONS_SIGNED = "decisions"
ACTIVATIONS_SIGNED = "activations"


def alice_signs(
    root: Path,
    folder: Path,
    settings: str | None = DECISIONS_SIGNED,
    message: str = "roles and settings: decisions are signed",
    sign: bool = False,
) -> Path:
    """alice admin with a fresh SSH signing key (in ``folder``) that roles.yaml lists, bob
    member; ``settings``: ``signing.decisions: required`` (:data:`DECISIONS_SIGNED`),
    ``doctrine.require_signed: true`` (:data:`ACTIVATIONS_SIGNED`) or None (roles.yaml alone).
    Committed with plain git, unsigned; with ``sign``, alice's git signs with her key from
    then on. Returns her private key."""
    key, public = ssh_key(folder, "alice")
    set_people(root, {"alice": "admin", "bob": "member"}, {"alice": [public]})
    config = root / "agentmem.yaml"
    text = config.read_text(encoding="utf-8")
    if settings == DECISIONS_SIGNED:
        config.write_text(text + "signing:\n  decisions: required\n", encoding="utf-8")
    elif settings == ACTIVATIONS_SIGNED:
        config.write_text(text.replace("doctrine:\n", "doctrine:\n  require_signed: true\n", 1))
    paths = ["roles.yaml"] if settings is None else ["roles.yaml", "agentmem.yaml"]
    git(root, "commit", "-qm", message, "--", *paths)
    if sign:
        use_key(root, key)
    return key


def use_key(root: Path, key: Path | None) -> None:
    """Make ``root``'s git sign with the SSH key ``key`` (None: sign with none)."""
    if key is None:
        git(root, "config", "--unset", "user.signingkey")
        return
    git(root, "config", "gpg.format", "ssh")
    git(root, "config", "user.signingkey", str(key))


def served_repository(memrepo: Path, tmp_path: Path, runner: CliRunner) -> tuple[Path, Path]:
    """``(server.git, alice's clone)``: bob is a member; alice's memory holds one accepted
    entry; the bare repository has the history and agentmem's hook."""
    roles = memrepo / "roles.yaml"
    roles.write_text(
        roles.read_text(encoding="utf-8") + "bob:\n  email: bob@example.com\n  role: member\n",
        encoding="utf-8",
    )
    git(memrepo, "commit", "-qm", "add bob", "--", "roles.yaml")
    seed_memory(runner, ["Quote clause numbers first."])
    server = tmp_path / "server.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(server))
    git(memrepo, "remote", "add", "origin", str(server))
    git(memrepo, "push", "-q", "origin", "main")
    result = invoke(runner, "install-server-hook", str(server))
    assert result.exit_code == 0, result.stderr
    return server, memrepo


#: How :func:`relaxed_on_a_branch` merges the branch: ``clean`` (main left ``agentmem.yaml``
#: alone: the merge takes the branch's version and changes nothing itself), ``combined`` (main
#: added a comment to it meanwhile: git merges both changes, a version neither parent has),
#: ``theirs`` (the same, but the merge keeps the branch's version whole: main's comment dropped).
MERGES = ("clean", "combined", "theirs")


def relaxed_on_a_branch(
    root: Path, relax: tuple[str, str], how: str, then: Callable[[str], None] | None = None
) -> tuple[str, str]:
    """On a branch ``side``, alice replaces ``relax[0]`` by ``relax[1]`` in ``agentmem.yaml``
    with plain git (no second admin approves it); main is merged with it with a real ``git
    merge --no-ff`` as :data:`MERGES` says (``how``); ``then(relaxing commit)`` runs on the
    branch before the merge (a second admin's approval). Returns (the relaxing commit, the merge);
    main checked out."""
    config = root / "agentmem.yaml"
    strict = config.read_text(encoding="utf-8")
    assert relax[0] in strict
    git(root, "checkout", "-qb", "side")
    config.write_text(strict.replace(relax[0], relax[1], 1), encoding="utf-8")
    relaxing = commit_as(root, "alice", "settings: relaxed on a branch", "agentmem.yaml")
    if then is not None:
        then(relaxing)
    git(root, "checkout", "-q", "main")
    if how == "clean":
        (root / "notes.txt").write_text("main moved on\n", encoding="utf-8")
        commit_as(root, "alice", "notes", "notes.txt")
    else:
        config.write_text("# the team's settings\n" + strict, encoding="utf-8")
        commit_as(root, "alice", "settings: a comment", "agentmem.yaml")
    git(root, "-c", "user.name=Alice", "-c", f"user.email={PEOPLE['alice']}",
        "-c", "commit.gpgsign=false", "merge", "-q", "--no-ff", "--no-edit", "side")  # fmt: skip
    if how == "theirs":
        git(root, "checkout", "side", "--", "agentmem.yaml")
        git(root, "-c", "commit.gpgsign=false", "commit", "-q", "--amend", "--no-edit")
    merged = config.read_text(encoding="utf-8")
    assert relax[1] in merged and (merged.startswith("# the team's") == (how == "combined"))
    merge = git(root, "rev-parse", "HEAD").strip()
    assert len(git(root, "rev-parse", "HEAD^@").split()) == 2
    return relaxing, merge
