"""The value classes built at import on every command's path are plain classes (``Frozen``,
docs/decisions/) that behave as the frozen dataclasses they replaced: each is compared here
with a reference dataclass built from the fields, defaults and flags the dataclass had."""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import pickle
from pathlib import Path
from typing import Any

import pytest

from agentmem.config import (
    DEFAULT_RETENTION,
    DEFAULT_SECTIONS,
    Config,
    ContextConfig,
    DoctrineConfig,
    HarvestConfig,
    MemoryConfig,
    RetentionClass,
    ReviewConfig,
    SigningConfig,
)
from agentmem.delivery.context import AuditContext, ChatContext
from agentmem.governance import ROLES
from agentmem.memory.file import BudgetStatus, Entry, Line, LineKind, MemoryFile
from agentmem.memory.records import NO_RECORD, Record
from agentmem.store.repo import Person, Repository

REQUIRED = dataclasses.MISSING
HIDDEN = object()  # a field with compare=False, repr=False


def _status() -> BudgetStatus:
    return BudgetStatus(10, 100, 0.8)


# class → the dataclass fields it had: (name, default or REQUIRED or a factory in a list, flags),
# and a full set of values (other than the defaults) to build it with.
CASES: list[tuple[type, list[tuple[str, Any, object]], dict[str, Any]]] = [
    (
        RetentionClass,
        [("review_days", REQUIRED, None), ("expire_days", REQUIRED, None)],
        {"review_days": 30, "expire_days": 90},
    ),
    (
        MemoryConfig,
        [
            ("budget_chars", 8000, None),
            ("warn_ratio", 0.8, None),
            ("entry_max_chars", 500, None),
            ("sections", DEFAULT_SECTIONS, None),
            ("retention", [lambda: dict(DEFAULT_RETENTION)], None),
            ("on_review_due", "alert", None),
        ],
        {
            "budget_chars": 900,
            "warn_ratio": 0.5,
            "entry_max_chars": 90,
            "sections": ("A", "B"),
            "retention": {"declared": RetentionClass(7, None)},
            "on_review_due": "suspend",
        },
    ),
    (
        HarvestConfig,
        [
            ("max_proposals", 6, None),
            ("provider", "auto", None),
            ("model", "claude-sonnet-5-5", None),
            ("timeout_s", 120, None),
            ("max_transcript_mb", 20, None),
            ("openai_base_url", None, None),
            ("openai_model", None, None),
            ("openai_api_key_env", "OPENAI_API_KEY", None),
        ],
        {
            "max_proposals": 2,
            "provider": "offline",
            "model": "m",
            "timeout_s": 5,
            "max_transcript_mb": 1,
            "openai_base_url": "http://127.0.0.1:9/v1",
            "openai_model": "o",
            "openai_api_key_env": "KEY",
        },
    ),
    (
        DoctrineConfig,
        [
            ("review_days", 90, None),
            ("on_review_due", "alert", None),
            ("duplicate_threshold", 85, None),
            ("distinct_approver", True, None),
            ("require_signed", False, None),
        ],
        {
            "review_days": 10,
            "on_review_due": "suspend",
            "duplicate_threshold": 70,
            "distinct_approver": False,
            "require_signed": True,
        },
    ),
    (ContextConfig, [("doctrine_for_roles", ROLES, None)], {"doctrine_for_roles": ("admin",)}),
    (
        Config,
        [
            ("memory", [MemoryConfig], None),
            ("harvest", [HarvestConfig], None),
            ("doctrine", [DoctrineConfig], None),
            ("context", [ContextConfig], None),
            ("scopes", (), None),
            ("retired_scopes", (), None),
            ("review", [ReviewConfig], None),
            ("signing", [SigningConfig], None),
        ],
        {
            "memory": MemoryConfig(budget_chars=1),
            "harvest": HarvestConfig(provider="offline"),
            "doctrine": DoctrineConfig(review_days=1),
            "context": ContextConfig(("user",)),
            "scopes": (("/p", "team/p"),),
            "retired_scopes": (("team/old", "2026-01-02"),),
            "review": ReviewConfig(remind_days=3),
            "signing": SigningConfig(decisions="required"),
        },
    ),
    (ReviewConfig, [("remind_days", 7, None)], {"remind_days": 3}),
    (SigningConfig, [("decisions", "optional", None)], {"decisions": "required"}),
    (
        Person,
        [("id", REQUIRED, None), ("email", REQUIRED, None), ("role", REQUIRED, None)]
        + [("name", "", None)],
        {"id": "alice", "email": "alice@example.com", "role": "admin", "name": "Alice"},
    ),
    (
        Repository,
        [("root", REQUIRED, None), ("config", REQUIRED, None), ("cache", None, HIDDEN)],
        {"root": Path("/r"), "config": Config(), "cache": object()},
    ),
    (
        Record,
        [
            ("basis", None, None),
            ("scope", None, None),
            ("since", None, None),
            ("review", None, None),
            ("expires", None, None),
            ("marked", False, None),
        ],
        {
            "basis": "declared",
            "scope": "team",
            "since": "2026-01-01",
            "review": "2026-06-01",
            "expires": "2027-01-01",
            "marked": True,
        },
    ),
    (
        Line,
        [
            ("kind", REQUIRED, None),
            ("raw", REQUIRED, None),
            ("section", None, None),
            ("parsed", None, HIDDEN),
        ],
        {
            "kind": LineKind.ENTRY,
            "raw": "- x\n",
            "section": "Writing style",
            "parsed": ("x", Record()),
        },
    ),
    (
        Entry,
        [
            ("number", REQUIRED, None),
            ("section", REQUIRED, None),
            ("text", REQUIRED, None),
            ("line", REQUIRED, None),
            ("record", NO_RECORD, None),
        ],
        {"number": 2, "section": "S", "text": "t", "line": 7, "record": Record("inferred")},
    ),
    (
        BudgetStatus,
        [("used", REQUIRED, None), ("budget", REQUIRED, None), ("warn_ratio", REQUIRED, None)],
        {"used": 1, "budget": 2, "warn_ratio": 0.5},
    ),
    (
        ChatContext,
        [
            ("person", REQUIRED, None),
            ("path", REQUIRED, None),
            ("status", REQUIRED, None),
            ("sections", REQUIRED, None),
            ("entries", REQUIRED, None),
            ("withheld", (), None),
            ("exists", True, None),
            ("why", (), None),
            ("scope", None, None),
            ("left_out", (), None),
            ("due", (), None),
            ("blob", "", None),
            ("elsewhere", (), None),
            ("notes", (), None),
        ],
        {
            "person": "alice",
            "path": "memories/alice.md",
            "status": _status(),
            "sections": ("S",),
            "entries": (Entry(1, "S", "t", 3),),
            "withheld": (1,),
            "exists": False,
            "why": ((1, "delimiter"),),
            "scope": "team",
            "left_out": ((2, "expired"),),
            "due": (3,),
            "blob": "ab" * 20,
            "elsewhere": (("contracts", 2),),
            "notes": ("memories/alice.md has changes that are not committed",),
        },
    ),
    (
        AuditContext,
        [
            ("scope", REQUIRED, None),
            ("run_id", REQUIRED, None),
            ("actor", REQUIRED, None),
            ("role", REQUIRED, None),
            ("given", REQUIRED, None),
            ("applied", REQUIRED, None),
            ("decisions", REQUIRED, None),
            ("overdue", [frozenset], None),
            ("withheld", [frozenset], None),
            ("why", (), None),
            ("others", (), None),
            ("scopes", (), None),
            ("notes", (), None),
        ],
        {
            "scope": "team",
            "run_id": "r1",
            "actor": "alice",
            "role": "admin",
            "given": True,
            "applied": (),
            "decisions": (),
            "overdue": frozenset({"R1"}),
            "withheld": frozenset({"R2"}),
            "why": (("R2", "delimiter"),),
            "others": (("out of scope", 3),),
            "scopes": ("team",),
            "notes": ("doctrine/x.yaml has changes that are not committed",),
        },
    ),
]
IDS = [cls.__name__ for cls, _, _ in CASES]


def _reference(cls: type, spec: list[tuple[str, Any, object]]) -> Any:
    """The frozen dataclass ``cls`` was: same name, fields, defaults and flags."""
    fields: list[tuple[str, type, Any]] = []
    for name, default, flags in spec:
        options: dict[str, Any] = {}
        if isinstance(default, list):
            options["default_factory"] = default[0]
        elif default is not REQUIRED:
            options["default"] = default
        if flags is HIDDEN:
            options.update(compare=False, repr=False)
        fields.append((name, Any, dataclasses.field(**options)))
    return dataclasses.make_dataclass(cls.__name__, fields, frozen=True)


def _required(spec: list[tuple[str, Any, object]], values: dict[str, Any]) -> dict[str, Any]:
    return {name: values[name] for name, default, _ in spec if default is REQUIRED}


@pytest.mark.parametrize(("cls", "spec", "values"), CASES, ids=IDS)
def test_a_value_class_keeps_the_dataclass_signature(
    cls: type, spec: list[tuple[str, Any, object]], values: dict[str, Any]
) -> None:
    params = list(inspect.signature(cls).parameters.values())
    assert [p.name for p in params] == [name for name, _, _ in spec]
    for param, (_, default, _) in zip(params, spec, strict=True):
        if default is REQUIRED:
            assert param.default is inspect.Parameter.empty
        elif isinstance(default, list):
            # None stands for the former factory's fresh value; an immutable one is the default
            assert param.default is None or param.default == default[0]()
        else:
            assert param.default == default


@pytest.mark.parametrize(("cls", "spec", "values"), CASES, ids=IDS)
def test_a_value_class_behaves_as_its_frozen_dataclass(
    cls: type, spec: list[tuple[str, Any, object]], values: dict[str, Any]
) -> None:
    ref = _reference(cls, spec)
    mine, theirs = cls(**values), ref(**values)
    assert repr(mine) == repr(theirs)
    assert mine == cls(**values)
    assert mine != theirs  # another class is never equal, as between two dataclasses
    assert (mine == theirs) is False
    assert mine.__eq__(theirs) is NotImplemented
    try:
        expected_hash: int | None = hash(theirs)
    except TypeError:  # a dict among the values: neither is hashable
        expected_hash = None
    if expected_hash is None:
        with pytest.raises(TypeError):
            hash(mine)
    else:
        assert hash(mine) == expected_hash == hash(cls(**values))

    # defaults: what the dataclass filled in, field by field, and its repr
    mine_default, theirs_default = cls(**_required(spec, values)), ref(**_required(spec, values))
    for name, _, _ in spec:
        assert getattr(mine_default, name) == getattr(theirs_default, name)
    assert repr(mine_default) == repr(theirs_default)

    # each field: compared (and in the repr) unless the dataclass said compare=False
    for name, _, flags in spec:
        other = {**values, name: _different(values[name])}
        if flags is HIDDEN:
            assert cls(**other) == mine
            if expected_hash is not None:
                assert hash(cls(**other)) == hash(mine)
            assert name not in repr(mine)
        else:
            assert cls(**other) != mine
            assert ref(**other) != theirs

    # frozen: assignment and deletion raise what the dataclass raised
    first = spec[0][0]
    with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot assign to field '{first}'"):
        setattr(mine, first, values[first])
    with pytest.raises(dataclasses.FrozenInstanceError, match=f"cannot delete field '{first}'"):
        delattr(mine, first)
    with pytest.raises(dataclasses.FrozenInstanceError):
        mine.extra = 1  # type: ignore[attr-defined]

    # replace: as dataclasses.replace, through __init__
    last = spec[-1][0]
    new = _different(values[last])
    changed = mine.replace(**{last: new})
    assert type(changed) is cls
    assert getattr(changed, last) is new
    assert repr(changed) == repr(dataclasses.replace(theirs, **{last: new}))
    assert all(getattr(changed, n) is getattr(mine, n) for n, _, _ in spec if n != last)
    with pytest.raises(TypeError):
        mine.replace(no_such_field=1)

    # copies and pickles as the dataclass did
    assert copy.copy(mine) == mine and copy.deepcopy(mine) == mine
    if cls is not Repository:  # its sample cache is a bare object(), which pickles as itself
        assert pickle.loads(pickle.dumps(mine)) == mine


def _different(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if value is None:
        return "x"
    if isinstance(value, tuple):
        return (*value, "x")
    if isinstance(value, frozenset):
        return value | {"x"}
    if isinstance(value, dict):
        return {**value, "x": RetentionClass(1, 1)}
    if isinstance(value, Path):
        return value / "x"
    if isinstance(value, LineKind):
        return LineKind.BLANK if value is not LineKind.BLANK else LineKind.ENTRY
    if isinstance(value, dataclasses.Field):  # pragma: no cover - never a sample value
        raise AssertionError(value)
    if hasattr(value, "replace") and hasattr(value, "_fields"):
        first = value._fields[0]
        return value.replace(**{first: _different(getattr(value, first))})
    return object()


def test_memory_file_behaves_as_its_mutable_dataclass() -> None:
    reference = dataclasses.make_dataclass(
        "MemoryFile", [("person", str), ("lines", list, dataclasses.field(default_factory=list))]
    )
    lines = [Line(LineKind.BLANK, "\n")]
    mine, theirs = MemoryFile("alice", lines), reference("alice", lines)
    assert repr(mine) == repr(theirs)
    assert mine == MemoryFile("alice", [Line(LineKind.BLANK, "\n")])
    assert mine != MemoryFile("bob", lines) and mine != theirs
    assert MemoryFile("alice").lines == [] and MemoryFile("a").lines is not MemoryFile("a").lines
    with pytest.raises(TypeError):
        hash(mine)
    mine.lines.append(Line(LineKind.BLANK, "\n"))
    mine.person = "bob"
    assert (mine.person, len(mine.lines)) == ("bob", 2)
    assert copy.deepcopy(mine) == mine


def test_the_settings_default_retention_is_a_fresh_copy() -> None:
    first, second = MemoryConfig(), MemoryConfig()
    assert first.retention == DEFAULT_RETENTION
    assert first.retention is not DEFAULT_RETENTION and first.retention is not second.retention


ON_EVERY_PATH = (
    "config.py",
    "store/repo.py",
    "memory/records.py",
    "memory/file.py",
    "delivery/context.py",
    "delivery/fastpath.py",
    "frozen.py",
)


@pytest.mark.parametrize("relpath", ON_EVERY_PATH)
def test_modules_on_every_path_do_not_import_dataclasses_at_module_level(relpath: str) -> None:
    """Every command and the SessionStart hook import these: a dataclass built there costs each
    start about a millisecond, and importing ``dataclasses`` pulls ``inspect``."""
    path = Path(__file__).resolve().parents[1] / "src" / "agentmem" / relpath
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Import):
            assert all(alias.name != "dataclasses" for alias in node.names), relpath
        if isinstance(node, ast.ImportFrom):
            assert node.module != "dataclasses", relpath
