"""``check --history`` as the CLI reports it (JSON findings), merges made by hand, and the team
most history tests start from."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers import git, invoke
from tests.helpers.team import PEOPLE, commit_as, make_rule, set_people, trailers, write_rule


def findings(runner, *args: str) -> tuple[int, list[dict]]:
    result = invoke(runner, "check", "--history", "--format", "json", *args)
    return result.exit_code, [f for f in json.loads(result.stdout) if f["commit"]]


def history_errors(runner, *args: str) -> list[dict]:
    return [f for f in findings(runner, *args)[1] if f["severity"] == "error"]


def merge_taking(root: Path, branch: str, path: str, *flags: str) -> None:
    """Merge ``branch`` without committing (conflicts allowed), keep ``path`` as on main."""
    subprocess.run(["git", "-C", str(root), "merge", "-q", "--no-ff", "--no-commit", *flags, branch],
                   capture_output=True, check=False)  # fmt: skip
    git(root, "checkout", "main", "--", path)
    git(root, "commit", "-qm", "Merge")


def only(found: list[dict], code: str) -> dict:
    (finding,) = [f for f in found if f["code"] == code]
    return finding


def merge(root: Path, person: str, branch: str, *extra: str) -> str:
    git(root, "-c", f"user.name={person.title()}", "-c", f"user.email={PEOPLE[person]}",
        "merge", "-q", "--no-edit", *extra, branch)  # fmt: skip
    return git(root, "rev-parse", "HEAD").strip()


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def setup_team(memrepo: Path) -> Path:
    """alice and carol admins, bob member, dave user; bob's draft 'warranty' committed."""
    set_people(memrepo, {"alice": "admin", "bob": "member", "carol": "admin", "dave": "user"})
    commit_as(memrepo, "alice", "people", "roles.yaml")
    write_rule(memrepo, make_rule("warranty", proposed_by="bob"))
    commit_as(memrepo, "bob", "doctrine: propose warranty", "doctrine/warranty.yaml",
              body=trailers("propose", "bob", "member"))  # fmt: skip
    return memrepo


def approve(root: Path, person: str, rule_id: str = "warranty", proposed_by: str = "bob",
            role: str = "admin", **kwargs) -> str:  # fmt: skip
    rule = make_rule(rule_id, status="active", proposed_by=proposed_by, approved_by=person)
    write_rule(root, rule)
    return commit_as(root, person, f"doctrine: approve {rule_id}", rule.path,
                     body=trailers("approve", person, role), **kwargs)  # fmt: skip
