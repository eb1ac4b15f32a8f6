"""Benchmark: bounded work (docs/design/write-path.md §Write path, *Bounded work*) — what a command costs on
the sizes that used to hang it.

Not a test. Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_bounds.py [--pending 10000] [--drafts 100000]
        [--clones 16 32] [--only review|drafts|sync|tool|line|timeout]

Cases (each in a fresh repository under a temporary folder, each command a fresh process):

- ``review``: ``--pending`` proposals in one person's inbox (written as ``write_to_inbox``
  renders them, committed with ONE plain ``git commit``: building them one harvest at a time
  would take longer than the benchmark), then ``agentmem review --reject all``, and in a copy
  ``agentmem review --accept all`` (the memory fills after a few hundred).
- ``drafts``: ``--drafts`` draft rules (canonical files committed with ONE plain ``git
  commit``), then ``agentmem context audit`` twice (the first builds the rule index) and
  ``agentmem check``: each did not end in 300 s on 100,000. Then the objects packed (``git
  repack``) and the served view's derived files removed: the first audit again.
- ``sync``: a burst. For each of ``--clones`` (16 and 32), one bare remote and that many
  clones, each a different member of ``roles.yaml`` who remembered and accepted one entry of
  their own; then every clone runs ``agentmem sync`` at the same moment. Prints how many
  landed, how many pushes were rejected and retried (the most for one clone), the slowest
  sync, and checks that the remote holds every entry (nothing lost).
- ``tool``: the memory tool's ``create`` of 300 lines (in process): wall seconds, proposals
  filed and commits made (one call files at most ``harvest.max_proposals``, in one commit;
  it filed 300 and made 300 commits in 174 s).
- ``line``: ``agentmem harvest --proposals`` of one proposal whose text is a 10 MB line (a
  fresh process): refused by its length before any scan (it took 167–256 s).
- ``timeout``: ``agentmem harvest --provider openai`` against a stub server on 127.0.0.1 that
  never answers, ``harvest.timeout_s: 3``: the model call ends at 3 s, retries included (120 s
  per try and three tries was about 6 minutes with the defaults); the command's wall adds the
  start-up and the openai SDK's import (2–4 s on a loaded machine).

Prints, per case: wall and CPU seconds (the process and its git children), commits made, and
the first lines of stderr. On a shared machine quote the CPU figure and the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def _run(root: Path, *args: str) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall and CPU seconds of one ``agentmem`` process (children included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "agentmem", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")},
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc


def _repository(root: Path) -> None:
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "alice@example.com")
    _git(root, "config", "user.name", "Alice Martin")
    _git(root, "config", "commit.gpgsign", "false")
    _git(root, "config", "gc.auto", "0")  # no background gc packing objects while a case copies
    _run(root, "init", ".")


def _fill_inbox(root: Path, count: int) -> None:
    from agentmem.proposals.inbox import proposal_relpath, render_proposal
    from agentmem.proposals.model import parse_proposal

    words = ["annexes", "clauses", "prices", "dates", "signatures", "parties", "terms", "fees"]
    for n in range(count):
        proposal = parse_proposal(
            {
                "action": "add",
                "route": "memory",
                "section": "Writing style",
                "target": None,
                "text": f"Check the {words[n % 8]} of batch {n} before item {n * 7 + 3}.",
                "justification": "benchmark",
                "basis": "declared",
            },
            person="alice",
            session=f"bench-{n // 6}",
            source="offline",
            scope=None,
            where="benchmark",
        )
        path = root / proposal_relpath(proposal)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render_proposal(proposal), encoding="utf-8")
    _git(root, "add", "inbox")
    _git(root, "commit", "-qm", f"{count} pending proposals")


def _report(name: str, root: Path, wall: float, cpu: float, commits_before: int, err: str) -> None:
    commits = int(_git(root, "rev-list", "--count", "HEAD")) - commits_before
    print(f"{name:<34} {wall:7.1f} s wall {cpu:7.1f} s CPU {commits:6d} commit(s)")
    for line in err.splitlines()[:3]:
        print(f"    {line[:110]}")


def bench_review(base: Path, pending: int) -> None:
    root = base / "review"
    _repository(root)
    _fill_inbox(root, pending)
    copy = base / "review-accept"
    shutil.copytree(root, copy, symlinks=True)
    for name, where, flag in (
        (f"review --reject all ({pending:,})", root, "--reject"),
        (f"review --accept all ({pending:,})", copy, "--accept"),
    ):
        before = int(_git(where, "rev-list", "--count", "HEAD"))
        wall, cpu, proc = _run(where, "review", flag, "all")
        _report(name, where, wall, cpu, before, proc.stderr)


def _fill_doctrine(root: Path, count: int) -> None:
    """``count`` draft rules proposed by alice, written as ``doctrine propose`` renders them
    (the canonical text), committed with ONE ``git commit`` carrying a proposal's trailers."""
    from agentmem.doctrine.fastread import fast_canonical_text
    from agentmem.doctrine.model import Rule
    from agentmem.doctrine.render import canonical_text

    subjects = ["warranty", "payment terms", "liability cap", "audit rights", "insurance"]
    scopes = ["contracts", "contracts/supply", "contracts/lease", "procurement", "hr/policies"]
    folder = root / "doctrine"
    folder.mkdir(exist_ok=True)
    for n in range(count):
        rule = Rule(
            id=f"rule-{n:06d}", title=f"Rule {n} on {subjects[n % 5]}", status="draft",
            scope=scopes[n // 5 % 5],
            instruction=f"Check {subjects[n % 5]} clause {n} against annex {n // 25} first.",
            limits=(f"Not for contracts signed before case {n}.",),
            justification="benchmark", version=1, proposed_by="alice",
            proposed_at="2026-11-29T10:02:00Z", origin_session=f"s-{n}", distinct_from=(),
            approval=None, review_due=None, path=f"doctrine/rule-{n:06d}.yaml",
        )  # fmt: skip
        (folder / f"{rule.id}.yaml").write_text(
            fast_canonical_text(rule) or canonical_text(rule), encoding="utf-8"
        )
    _git(root, "add", "doctrine")
    from agentmem import trailers

    said = (
        f"{trailers.ACTION}: propose\n{trailers.ACTOR}: alice <alice@example.com>\n"
        f"{trailers.ROLE}: admin\n{trailers.ROUTE}: doctrine"
    )  # a proposal commit as the history judge reads one, so the served view takes it
    _git(root, "commit", "-q", "-m", f"doctrine: propose {count} rules", "-m", said)


def bench_drafts(base: Path, count: int) -> None:
    """``context audit`` (the first: it builds the rule index; then again) and ``check`` on
    ``count`` draft rules."""
    root = base / "drafts"
    _repository(root)
    start = time.perf_counter()
    _fill_doctrine(root, count)
    print(
        f"    ({count:,} draft rules written and committed in {time.perf_counter() - start:.0f} s)"
    )
    for name, args in (
        (f"context audit, first ({count:,} drafts)", ("context", "audit", "--scope", "contracts")),
        (f"context audit, again ({count:,} drafts)", ("context", "audit", "--scope", "contracts")),
        (f"check ({count:,} drafts)", ("check",)),
    ):
        before = int(_git(root, "rev-list", "--count", "HEAD"))
        wall, cpu, proc = _run(root, *args)
        _report(f"{name} (exit {proc.returncode})", root, wall, cpu, before, proc.stderr)
    # The same first audit with the objects in a pack, as agentmem's own commits (git
    # fast-import) or git's gc leave them: reading 100,000 loose blobs is most of the above.
    _git(root, "repack", "-a", "-d", "-q")
    for derived in (".agentmem/rules-served.json", ".agentmem/served-doctrine.json"):
        (root / derived).unlink(missing_ok=True)
    args = ("context", "audit", "--scope", "contracts")
    before = int(_git(root, "rev-list", "--count", "HEAD"))
    wall, cpu, proc = _run(root, *args)
    name = f"context audit, first, packed ({count:,} drafts) (exit {proc.returncode})"
    _report(name, root, wall, cpu, before, proc.stderr)


def _sync_team(base: Path, clones: int) -> tuple[Path, list[Path]]:
    """A bare remote and ``clones`` clones, clone ``n`` of member ``p<n>`` with one entry accepted
    locally (not yet synced)."""
    remote = base / "remote.git"
    _git(base, "init", "-q", "--bare", "-b", "main", str(remote))
    first = base / "admin"
    _repository(first)
    roles = first / "roles.yaml"
    roles.write_text(
        roles.read_text(encoding="utf-8")
        + "".join(f"p{n}:\n  email: p{n}@example.com\n  role: member\n" for n in range(clones)),
        encoding="utf-8",
    )
    _git(first, "commit", "-qm", "the team", "--", "roles.yaml")
    _git(first, "remote", "add", "origin", str(remote))
    _git(first, "push", "-q", "-u", "origin", "main")
    made = []
    for n in range(clones):
        clone = base / f"clone{n}"
        _git(base, "clone", "-q", str(remote), str(clone))
        _git(clone, "config", "user.name", f"Person {n}")
        _git(clone, "config", "user.email", f"p{n}@example.com")
        _git(clone, "config", "commit.gpgsign", "false")
        text = f"Person {n} wants the figures of table {n} checked twice."
        for args in (("remember", text), ("review", "--accept", "all")):
            proc = _run(clone, *args)[2]
            if proc.returncode != 0:
                raise SystemExit(f"setting up clone {n}: {' '.join(args)}: {proc.stderr}")
        made.append(clone)
    return remote, made


def bench_sync(base: Path, clones: int) -> None:
    root = base / f"sync-{clones}"
    root.mkdir()
    remote, made = _sync_team(root, clones)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    start = time.perf_counter()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "agentmem", "sync"],
            cwd=clone,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for clone in made
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate()
        results.append((proc.returncode, err, time.perf_counter() - start))
    wall = time.perf_counter() - start
    landed = sum(1 for code, _, _ in results if code == 0)
    retries = [_retries(err) for _, err, _ in results]
    tree = _git(remote, "ls-tree", "--name-only", "HEAD", "memories/")
    kept = sum(  # a clone whose sync gave up has no memory file on the remote: not kept
        1
        for n in range(clones)
        if f"memories/p{n}.md" in tree.split()
        and f"table {n} checked twice" in _git(remote, "show", f"HEAD:memories/p{n}.md")
    )
    print(
        f"sync burst, {clones} clones: {landed}/{clones} landed, {kept}/{clones} entries on the "
        f"remote; {sum(retries)} rejected pushes retried (at most {max(retries)} for one "
        f"clone); slowest sync {max(t for _, _, t in results):.1f} s, burst {wall:.1f} s wall"
    )
    for code, err, _ in results:
        if code != 0:
            print(f"    refused: {err.strip().splitlines()[-1][:110]}")


def bench_tool(base: Path, lines: int = 300) -> None:
    root = base / "tool"
    _repository(root)
    os.environ["AGENTMEM_REPO"] = str(root)
    try:
        import agentmem
        from agentmem.integrations.anthropic import MemoryTool

        before = int(_git(root, "rev-list", "--count", "HEAD"))
        tool = MemoryTool(agentmem.open(root), session="bench")
        text = "".join(
            f"- Check the figures of table {n} against annex {n * 7 + 1}.\n" for n in range(lines)
        )
        start = time.perf_counter()
        said = tool.call({"command": "create", "path": "/memories/notes.md", "file_text": text})
        wall = time.perf_counter() - start
    finally:
        del os.environ["AGENTMEM_REPO"]
    commits = int(_git(root, "rev-list", "--count", "HEAD")) - before
    filed = said.split("\n", 1)[0]
    print(f"memory tool create ({lines} lines)    {wall:7.2f} s wall {commits:6d} commit(s)")
    print(f"    {filed[:110]}")
    print(f"    {said.rsplit(chr(10), 1)[-1][:110]}")


def bench_line(base: Path) -> None:
    import json

    root = base / "line"
    _repository(root)
    line = "Always " + "check " * 1_700_000
    answer = base / "line-answer.json"
    proposal = {"action": "add", "basis": "declared", "section": "Writing style", "text": line}
    answer.write_text(json.dumps({"proposals": [{**proposal, "justification": "x"}]}), "utf-8")
    session = base / "line-session.md"
    session.write_text("User: Here is how I work.\n\nAssistant: Noted.\n", encoding="utf-8")
    before = int(_git(root, "rev-list", "--count", "HEAD"))
    wall, cpu, proc = _run(root, "harvest", str(session), "--proposals", str(answer))
    name = f"harvest of a {len(line) / 1e6:.0f} MB line (exit {proc.returncode})"
    _report(name, root, wall, cpu, before, (proc.stdout + proc.stderr)[-400:])


def bench_timeout(base: Path, seconds: int = 3) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Silent(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            time.sleep(600)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Silent)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    root = base / "timeout"
    _repository(root)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    (root / "agentmem.yaml").write_text(
        f"harvest:\n  timeout_s: {seconds}\n  openai:\n    base_url: {url}\n    model: m\n",
        encoding="utf-8",
    )
    _git(root, "commit", "-qam", "a server that never answers")
    session = root.parent / "timeout-session.md"
    session.write_text(
        "User: From now on keep emails short.\n\nAssistant: Noted.\n", encoding="utf-8"
    )
    before = int(_git(root, "rev-list", "--count", "HEAD"))
    wall, cpu, proc = _run(root, "harvest", str(session), "--provider", "openai")
    _report(
        f"harvest, no answer, timeout_s {seconds} (exit {proc.returncode})",
        root,
        wall,
        cpu,
        before,
        proc.stderr,
    )
    server.shutdown()
    server.server_close()


def _retries(stderr: str) -> int:
    marker = "the push was rejected "
    for line in stderr.splitlines():
        if marker in line:
            return int(line.split(marker, 1)[1].split()[0])
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pending", type=int, default=10_000)
    parser.add_argument("--clones", type=int, nargs="+", default=[16, 32])
    parser.add_argument("--drafts", type=int, default=100_000)
    parser.add_argument(
        "--only", choices=["review", "drafts", "sync", "tool", "line", "timeout"], default=None
    )
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPU(s)")
    with tempfile.TemporaryDirectory(prefix="bench-bounds-") as folder:
        base = Path(folder)
        if args.only in (None, "review"):
            bench_review(base, args.pending)
        if args.only in (None, "drafts"):
            bench_drafts(base, args.drafts)
        if args.only in (None, "tool"):
            bench_tool(base)
        if args.only in (None, "line"):
            bench_line(base)
        if args.only in (None, "timeout"):
            bench_timeout(base)
        if args.only in (None, "sync"):
            for clones in args.clones:
                bench_sync(base, clones)


if __name__ == "__main__":
    main()
