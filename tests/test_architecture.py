"""Meta-tests: layers import one way, hot paths stay light, every command has
help and is documented in the user guide (README and docs/guide/)."""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers import REPO_ROOT
from typer.testing import CliRunner

from agentmem.cli.tree import app

SRC = REPO_ROOT / "src" / "agentmem"
HEAVY = ("anthropic", "git", "ruamel", "rapidfuzz", "mcp", "httpx2", "phonenumbers")


@functools.cache
def _tree(path: Path) -> ast.Module:
    """One parse per source file per test process: the meta-tests below walk the same trees
    (each full parse of src/ costs about a second of CPU). Read-only: no test changes a tree."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of :func:`_tree`, walked once per test process: several meta-tests look at
    every node of every module, and the walk costs more than the looking."""
    return tuple(ast.walk(_tree(path)))


@functools.cache
def _docstring_ids(path: Path) -> frozenset[int]:
    """:func:`_docstrings` of ``path``'s tree, once per test process."""
    return frozenset(_docstrings(_tree(path)))


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_domain_never_imports_typer_or_rich() -> None:
    offenders = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if "cli" not in path.relative_to(SRC).parts and _imports(path) & {"typer", "rich"}
    ]
    assert offenders == []


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes of a module, its classes and functions."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                found.add(id(value))
    return found


def test_trailer_names_are_spelt_only_in_the_trailers_module() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "trailers.py":
            continue
        docs = _docstring_ids(path)
        for node in _nodes(path):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str | bytes)
                and id(node) not in docs
                and (
                    "Agentmem-" in node.value
                    if isinstance(node.value, str)
                    else b"Agentmem-" in node.value
                )
            ):
                offenders.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert offenders == []


#: A measured duration or speed-up, the kind of figure that goes stale in a docstring
#: ("about 0.15 s", "12 ms", "1.7x faster"); a limit or a default (Claude Code's 1.5 s for
#: SessionEnd, ``timeout_s`` 120 s) is not one.
TIMING = re.compile(
    r"\babout \d+(?:\.\d+)? ?(?:s|ms|µs)\b|\b\d+(?:\.\d+)? ?(?:ms|µs)\b"
    r"|\b\d+(?:\.\d+)? ?[x×] (?:faster|slower)\b|\b(?:takes|costs) (?:about|most of) a second\b"
)


def test_docstrings_quote_no_timings() -> None:
    """Timings live in ``benchmarks/`` output and the guide's performance page, where they are
    measured again; a docstring says which benchmark has the figures."""
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        docstrings = _docstring_ids(path)  # once per module: per node it took a minute
        for node in _nodes(path):
            if isinstance(node, ast.Constant) and id(node) in docstrings:
                offenders += [
                    f"{path.relative_to(SRC)}:{node.lineno}: {m.group(0)}"
                    for m in TIMING.finditer(str(node.value))
                ]
    assert offenders == []


def test_the_trailers_module_builds_and_parses_its_own_block() -> None:
    from agentmem import trailers

    text = trailers.message(
        "subject  with   spaces",
        [
            (trailers.ACTION, "accept"),
            (trailers.PROPOSAL, "p1"),
            (trailers.PROPOSAL, "p2"),
            ("Other", "x"),
        ],
    )
    assert text == (
        "subject with spaces\n\nAgentmem-Action: accept\nAgentmem-Proposal: p1\n"
        "Agentmem-Proposal: p2\nOther: x\n"
    )
    assert trailers.parse(text.split("\n\n", 1)[1]) == {
        "Agentmem-Action": ["accept"],
        "Agentmem-Proposal": ["p1", "p2"],
    }
    assert len(set(trailers.ALL)) == len(trailers.ALL)
    assert all(name.startswith("Agentmem-") for name in trailers.ALL)
    assert trailers.actor_email("alice <alice@example.com>") == "alice@example.com"
    assert trailers.actor_id("alice <alice@example.com>") == "alice"


def test_role_names_are_spelt_only_in_governance() -> None:
    """Who may do what is decided in one table (agentmem/governance.py): nothing else compares
    a role with "admin" or "member"."""
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "governance.py":
            continue
        offenders += [
            f"{path.relative_to(SRC)}:{node.lineno}"
            for node in _nodes(path)
            if isinstance(node, ast.Constant) and node.value in ("admin", "member")
        ]
    assert offenders == []


def test_the_distinct_approver_rule_names_the_first_conflict() -> None:
    from agentmem import governance as gov

    calls: list[str] = []

    def writer() -> str:
        calls.append("asked")
        return "carol"

    assert gov.self_approval("bob", proposed_by="bob", created_by="bob", wrote=writer) == "proposed"
    assert (
        gov.self_approval("bob", proposed_by="alice", created_by="bob", wrote=writer) == "created"
    )
    assert calls == []  # the writer is looked up only when the first two do not decide
    assert (
        gov.self_approval("carol", proposed_by="alice", created_by="bob", wrote=writer) == "wrote"
    )
    assert gov.self_approval("dave", proposed_by="alice", created_by=None, wrote="carol") is None
    assert gov.self_approval(None, proposed_by=None) is None
    assert [gov.needed(a) for a in (gov.APPROVE, gov.PROPOSE)] == ["admin", "member or admin"]
    assert gov.may("admin", gov.ERASE) and not gov.may("member", gov.ERASE)
    assert not gov.may(None, gov.PROPOSE) and not gov.may("user", gov.HAVE_MEMORY)


def test_the_write_path_never_reaches_the_network() -> None:
    for path in [*(SRC / "store").glob("*.py"), *(SRC / "apply").glob("*.py")]:
        assert not _imports(path) & {"anthropic", "httpx2", "httpx", "urllib", "socket", "requests"}


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(path): path for path in sorted(SRC.rglob("*.py"))}


def _agentmem_imports(path: Path) -> list[tuple[str, bool]]:
    """``(module, lazy)`` for every agentmem module ``path`` imports (``from agentmem.x import y``
    counts ``agentmem.x.y`` when that is a module); ``lazy`` when inside a function. Imports
    under ``if TYPE_CHECKING:`` are left out (they never run)."""
    found: list[tuple[str, bool]] = []

    def add(name: str, lazy: bool) -> None:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name and name != _module(path):
            found.append((name, lazy))

    def visit(nodes: list[ast.stmt], lazy: bool) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    add(alias.name, lazy)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    add(f"{node.module}.{alias.name}", lazy)
            elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse, lazy)
            else:
                inner = lazy or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                for field in ("body", "orelse", "finalbody", "handlers"):
                    sub = getattr(node, field, None)
                    if isinstance(sub, list):
                        stmts = [getattr(h, "body", h) for h in sub]
                        for item in stmts:
                            visit(item if isinstance(item, list) else [item], inner)

    visit(_tree(path).body, False)
    return [(name, lazy) for name, lazy in found if name.startswith("agentmem")]


def test_imports_have_no_cycle() -> None:
    """The import graph of src/agentmem (module-level imports, and the lazy ones inside
    functions too) is acyclic: imports go one way."""
    graph = {name: {m for m, _lazy in _agentmem_imports(path)} for name, path in MODULES.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def walk(name: str, trail: list[str]) -> None:
        state[name] = 1
        for nxt in sorted(graph[name]):
            if state.get(nxt) == 1:
                cycles.append([*trail[trail.index(nxt) :], nxt] if nxt in trail else [name, nxt])
            elif nxt not in state:
                walk(nxt, [*trail, nxt])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name, [name])
    assert cycles == []


# Which packages a package may not import (lazily or not): the package contract of the layout.
ORCHESTRATION = {"harvest", "delivery", "check", "sync", "erase", "search", "cli", "web"}
# The review pages (agentmem.web) are a front end like the CLI: nothing below imports them, and
# they do not import the CLI (typer, rich) either.
FRONT_ENDS = {"cli", "web"}
FORBIDDEN = {
    "store": {"apply", "memory", "proposals", "doctrine", "guard", *ORCHESTRATION},
    "guard": {"apply", "store", "memory", "proposals", "doctrine", *ORCHESTRATION},
    # apply/ plans and writes accepted edits: it never reads rules' lifecycle or orchestrates.
    "apply": {"doctrine", "tidy", *ORCHESTRATION},
    "memory": {"doctrine", *ORCHESTRATION},
    "proposals": ORCHESTRATION,
    "doctrine": ORCHESTRATION,
    "harvest": FRONT_ENDS,
    "delivery": FRONT_ENDS,
    "check": FRONT_ENDS,
    "sync": FRONT_ENDS,
    "erase": FRONT_ENDS,
    "search": FRONT_ENDS,
    "tidy": FRONT_ENDS,
    "web": {"cli"},
}
BASE = {"agentmem.errors", "agentmem.trailers", "agentmem.governance", "agentmem.store.root"}


def test_packages_import_only_what_the_layout_allows() -> None:
    """store/ is the bottom (it imports no domain or orchestration package), the domain never
    imports orchestration or the CLI, and the vocabulary modules import only errors."""
    offenders = []
    for name, path in MODULES.items():
        area = name.split(".")[1] if "." in name else ""
        for target, _lazy in _agentmem_imports(path):
            top = target.split(".")[1] if "." in target else ""
            if top in FORBIDDEN.get(area, set()):
                offenders.append(f"{name} imports {target}")
            if name in BASE and target != "agentmem.errors":
                offenders.append(
                    f"{name} imports {target} (a vocabulary module imports only errors)"
                )
    assert offenders == []


def _function_import_nodes(tree: ast.Module) -> list[tuple[ast.stmt, bool]]:
    """Every import inside a function body, with whether it starts a run of imports."""
    found: list[tuple[ast.stmt, bool]] = []

    def visit(nodes: list[ast.stmt], in_function: bool) -> None:
        previous_was_import = False
        for node in nodes:
            is_import = isinstance(node, ast.Import | ast.ImportFrom)
            if is_import and in_function:
                found.append((node, not previous_was_import))
            previous_was_import = is_import
            inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for field in ("body", "orelse", "finalbody"):
                sub = getattr(node, field, None)
                if isinstance(sub, list):
                    visit(sub, inner)
            for handler in getattr(node, "handlers", []) or []:
                visit(handler.body, inner)

    visit(tree.body, False)
    return found


def _function_import_blocks(tree: ast.Module) -> list[ast.stmt]:
    """The first import of each run of imports inside a function body."""
    return [node for node, starts_run in _function_import_nodes(tree) if starts_run]


def test_every_import_inside_a_function_says_why() -> None:
    """Imports sit at the top of the module; one inside a function (hot path, heavy SDK, a
    package whose submodules import it) is preceded by a ``# lazy: <why>`` comment line. The
    CLI is exempt: each command loads its domain when it runs (docs/design/code.md §Hot path)."""
    offenders = []
    for name, path in MODULES.items():
        if name.startswith("agentmem.cli"):
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in _function_import_blocks(_tree(path)):
            above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
            if not (above.startswith("# lazy: ") or "# lazy: " in lines[node.lineno - 1]):
                offenders.append(
                    f"{path.relative_to(SRC)}:{node.lineno}: {lines[node.lineno - 1].strip()}"
                )
    assert offenders == [], "move these imports to the top of the module, or say why with # lazy:"


def _loaded_after(args: list[str], cwd: Path) -> list[str]:
    code = (
        "import sys\n"
        "from agentmem.cli.tree import app\n"
        "try:\n"
        f"    app({args!r}, standalone_mode=False)\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True
    )
    return eval(proc.stdout.strip().splitlines()[-1])  # noqa: S307 - our own printed list


@pytest.mark.slow
def test_memory_show_and_inbox_import_no_heavy_library(memrepo: Path) -> None:
    assert _loaded_after(["memory", "show"], memrepo) == []
    assert _loaded_after(["inbox"], memrepo) == []


def _commands(group: object, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    import typer.main

    click_group = typer.main.get_command(app) if group is None else group
    found: list[tuple[str, ...]] = []
    for name, command in getattr(click_group, "commands", {}).items():
        path = (*prefix, name)
        if getattr(command, "commands", None):
            found += _commands(command, path)
        else:
            found.append(path)
    return found


ALL_COMMANDS = _commands(None)


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=lambda c: " ".join(c))
def test_every_command_has_help(command: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*command, "--help"])
    assert result.exit_code == 0
    assert "Usage:" in result.stdout
    lines = [ln for ln in result.stdout.splitlines() if ln.strip()]
    assert len(lines) >= 3, result.stdout
    # Options read "--scope SCOPE", "--format text|json": never typer's "<str>", "<list[str]>".
    options = [ln for ln in result.stdout.splitlines() if ln.lstrip().startswith("-")]
    assert not [ln for ln in options if "<" in ln.strip().split("  ")[0]], result.stdout


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=lambda c: " ".join(c))
def test_every_command_is_in_the_user_guide(command: tuple[str, ...]) -> None:
    """The README links the guide (docs/guide/); every command is shown there or in it."""
    pages = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs" / "guide").glob("*.md"))]
    guide = "".join(page.read_text(encoding="utf-8") for page in pages)
    assert f"agentmem {' '.join(command)}" in guide


def test_the_command_list_is_not_cut() -> None:
    """``agentmem --help`` lists every command of ``COMMANDS``, in its order, one line each at
    80 columns, by the summary the command itself sets (``short_help=``)."""
    from agentmem.cli import COMMANDS

    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "80"})
    commands = result.stdout.split("Commands:\n")[1].splitlines()
    assert [ln for ln in commands if ln.rstrip().endswith("...")] == []
    named = [ln.split()[0] for ln in commands if ln.startswith("  ") and ln[2:3] != " "]
    assert named == list(COMMANDS)
    assert len(commands) == len(COMMANDS)  # no summary wraps onto a second line


def test_each_top_level_command_sets_its_own_summary() -> None:
    """The one-line summary lives on the typer command (``@app.command(short_help=...)``, a
    group's ``typer.Typer(short_help=...)``), not in a table beside it."""
    import importlib

    from agentmem.cli import COMMANDS

    missing = []
    for name, (module_name, group) in COMMANDS.items():
        sub = importlib.import_module(f"agentmem.cli.{module_name}").app
        own = sub.info.short_help if group else sub.registered_commands[0].short_help
        if not isinstance(own, str) or not own.endswith("."):
            missing.append(name)
    assert missing == []


TOY = '''
import typer

from agentmem.cli import output

app = typer.Typer()


@app.command(short_help="Say hello to the actor.")
def hello() -> None:
    """Say hello: the actor's person id.

    Examples:

    \\b
      agentmem hello
    """
    from agentmem.cli.common import repository

    output.data(f"hello {repository().actor().id}")
'''


def test_adding_a_command_as_agents_md_says(memrepo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """AGENTS.md's recipe, followed: the module (step 1) and its line in ``COMMANDS`` (step 2)
    are all the code a command needs; the --help listing, the lazy tree of one command,
    completion and the gate's table follow from the typer command. (Steps 3 and 4, the guide's
    synopsis and the command's tests, are checked by tests/test_docs.py and by the tests
    themselves.)"""
    import types

    import agentmem.cli.tree as cli
    from agentmem.cli import gatetable

    toy = types.ModuleType("agentmem.cli.hello")
    exec(compile(TOY, "agentmem/cli/hello.py", "exec"), toy.__dict__)  # noqa: S102 - our own text
    monkeypatch.setitem(sys.modules, "agentmem.cli.hello", toy)
    monkeypatch.setitem(cli.COMMANDS, "hello", ("hello", False))
    whole = cli.build_app()
    monkeypatch.setattr(cli, "_WHOLE", [whole])
    runner = CliRunner()

    listing = runner.invoke(whole, ["--help"], env={"COLUMNS": "80"}).stdout
    assert "  hello                Say hello to the actor.\n" in listing
    assert cli.command_named(["hello"]) == "hello"
    alone = runner.invoke(cli.build_app("hello"), ["hello"])
    assert (alone.exit_code, alone.stdout, alone.stderr) == (0, "hello alice\n", "")
    monkeypatch.setenv("_AGENTMEM_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", "agentmem hel")
    monkeypatch.setenv("COMP_CWORD", "1")
    assert runner.invoke(whole, [], prog_name="agentmem").stdout.split() == ["hello"]
    monkeypatch.delenv("_AGENTMEM_COMPLETE")
    # not person-only: the gate's table is the checked-in one
    assert gatetable.render() == gatetable.TARGET.read_text(encoding="utf-8")


#: The top-level test files that check the whole rather than one top-level module.
META_TESTS = {"architecture", "docs", "install", "version", "bounded_input"}


def test_test_files_mirror_the_modules() -> None:
    """A test is found from the code it checks: ``tests/<package>/test_<module>.py`` (a module
    of a sub-package too: ``harvest/test_offline.py`` is ``harvest/providers/offline.py``),
    ``tests/test_<module>.py`` for a top-level module, ``tests/stories/`` for journeys. A test
    of several modules is split by module, or is a journey."""
    tests = REPO_ROOT / "tests"
    unmapped = []
    for path in sorted(tests.rglob("test_*.py")):
        rel = path.relative_to(tests)
        if rel.parts[0] in ("data", "helpers", "stories"):
            continue
        module = rel.stem.removeprefix("test_")
        if len(rel.parts) == 1:
            if module not in META_TESTS and not (SRC / f"{module}.py").exists():
                unmapped.append(str(rel))
        elif not any((SRC / rel.parts[0]).rglob(f"{module}.py")):
            unmapped.append(str(rel))
    assert unmapped == []


def test_test_modules_share_helpers_only_through_tests_helpers() -> None:
    """A test module imports no other test module and not conftest (fixtures come from pytest):
    what tests share lives in tests/helpers/."""
    pattern = re.compile(r"^\s*(from|import)\s+(tests\.)?(test_\w+|conftest)\b", re.M)
    offenders = [
        f"{path.name}: {m.group(0).strip()}"
        for path in sorted((REPO_ROOT / "tests").rglob("*.py"))
        for m in pattern.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_benchmarks_import_only_names_agentmem_has() -> None:
    """The benchmarks are not run by the tests; a name moved in ``src/`` must not leave one
    importing what no longer exists (each ``from agentmem… import name``, at any depth)."""
    import importlib

    missing = []
    for path in sorted((REPO_ROOT / "benchmarks").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("agentmem"):
                module = importlib.import_module(str(node.module))
                for alias in node.names:
                    if not hasattr(module, alias.name):
                        try:
                            importlib.import_module(f"{node.module}.{alias.name}")
                        except ImportError:
                            missing.append(f"{path.name}:{node.lineno} {node.module}.{alias.name}")
    assert missing == []


def test_no_timing_is_quoted_in_the_source() -> None:
    """Timings go stale in docstrings and comments; they live in ``benchmarks/`` output and the
    performance guide. (A fact of another tool, such as Claude Code's 1.5 s for a SessionEnd
    hook, is not a timing of ours.)"""
    timing = re.compile(
        r"\b\d+(?:[.,]\d+)?(?:[-–]\d+(?:\.\d+)?)? ?(?:ms|µs)\b|(?:about|~) ?\d[\d.]* ?s\b"
    )
    quoted = [
        f"{path.relative_to(SRC)}:{number}"
        for path in sorted(SRC.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if timing.search(line)
    ]
    assert quoted == []


#: Package ``__init__`` files that hold code, and why (every other one is a docstring, or
#: re-exports with ``__all__``).
INIT_WITH_CODE = {
    "agentmem": "the library's front door: agentmem.open() and __version__, light for the hot path",
}


def _re_export_only(tree: ast.Module) -> bool:
    for i, node in enumerate(tree.body):
        if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            ("__future__", "agentmem")
        ):
            continue
        targets = (
            [node.target]
            if isinstance(node, ast.AnnAssign)
            else node.targets
            if isinstance(node, ast.Assign)
            else []
        )
        if targets and all(
            (isinstance(t, ast.Name) and t.id == "__all__")
            or (isinstance(t, ast.Attribute) and t.attr == "__module__")
            for t in targets
        ):
            continue
        return False
    return True


def test_every_package_init_is_a_plain_namespace() -> None:
    """A package's ``__init__`` is empty or re-exports its modules' names with ``__all__``:
    each name has one home, the module that defines it (docs/design/code.md §Packages)."""
    inits = {name: path for name, path in MODULES.items() if path.name == "__init__.py"}
    offenders = []
    for name, path in inits.items():
        tree = _tree(path)
        plain = _re_export_only(tree)
        exports = any(
            isinstance(node, ast.ImportFrom) and node.module != "__future__" for node in tree.body
        )
        has_all = "__all__" in {
            t.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        if name in INIT_WITH_CODE:
            assert not plain, f"{name} is a plain namespace now: drop it from INIT_WITH_CODE"
        elif not plain or (exports and not has_all):
            offenders.append(name)
    assert offenders == []


#: Import statements inside functions, per module: the most each may hold. Each keeps a
#: start-up cheap (the hook, ``entry.py``, ``mcp_start``, a heavy SDK) and says which with
#: ``# lazy:``. An import that costs nothing at start-up (its module is loaded with the
#: importing one anyway) goes to the top. Lower a number when you remove one; raise it only
#: with the reason in the comment. A command's module (``cli/<command>.py``, named in
#: ``COMMANDS``) is not capped: each command loads its domain when it runs, which is how
#: ``agentmem --help`` and completion stay cheap (docs/design/code.md §Hot path), and a new
#: command needs no line here.
FUNCTION_IMPORTS = {
    "__init__.py": 1,
    "api.py": 11,
    "apply/planner.py": 1,
    "apply/writer.py": 4,
    "check/history/signing.py": 3,
    "check/history/start.py": 4,
    "check/run.py": 7,
    "cli/gatetable.py": 1,
    "cli/output.py": 9,
    "cli/tree.py": 3,
    "config.py": 1,
    "delivery/context.py": 11,
    "delivery/fastpath.py": 20,
    "delivery/mcp_server.py": 13,
    "delivery/served.py": 14,
    "delivery/toolgate.py": 1,
    "delivery/usage.py": 1,
    "delivery/usagelog.py": 1,
    "doctrine/conflicts.py": 2,
    "doctrine/index.py": 5,
    "doctrine/lifecycle.py": 3,
    "doctrine/model.py": 2,
    "doctrine/render.py": 5,
    "doctrine/similar.py": 1,
    "entry.py": 2,
    "erase/rewrite.py": 1,
    "erase/scrub.py": 1,
    "frozen.py": 1,
    "guard/personal.py": 11,
    "guard/structure.py": 3,
    "guard/unicode.py": 1,
    "harvest/instructions.py": 1,
    "harvest/markers.py": 1,
    "harvest/providers/anthropic_provider.py": 2,
    "harvest/providers/openai_provider.py": 3,
    "harvest/queue.py": 1,
    "harvest/run.py": 2,
    "integrations/anthropic.py": 4,
    "memory/due.py": 2,
    "notices.py": 2,
    "proposals/ids.py": 1,
    "proposals/inbox.py": 1,
    "proposals/model.py": 2,
    "proposals/trail.py": 2,
    "search/committed.py": 1,
    "search/query.py": 1,
    "store/gitio.py": 1,
    "store/journal.py": 1,
    "store/repo.py": 5,
    "store/root.py": 1,
    "store/yamlio.py": 4,
    "tidy/retire.py": 2,
    "web/actions.py": 1,
    "web/reads.py": 4,
    "web/render.py": 1,
}


def _function_imports(tree: ast.Module) -> int:
    return len(_function_import_nodes(tree))


def test_imports_inside_functions_do_not_grow_silently() -> None:
    from agentmem.cli import COMMANDS

    commands = {f"cli/{module}.py" for module, _ in COMMANDS.values()}
    grown = []
    for path in sorted(SRC.rglob("*.py")):
        name = str(path.relative_to(SRC))
        if name in commands:
            continue
        found, allowed = _function_imports(_tree(path)), FUNCTION_IMPORTS.get(name, 0)
        if found > allowed:
            grown.append(f"{name}: {found} imports inside functions (at most {allowed})")
    assert grown == [], (
        "move the import to the top of the module; if it must stay lazy (# lazy: why), "
        "raise its number in FUNCTION_IMPORTS"
    )
