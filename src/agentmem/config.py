"""Settings from ``agentmem.yaml`` (docs/design/settings.md §Settings), resolved in one place.

Precedence: command-line flag (applied by the caller), then ``AGENTMEM_*`` environment variables
(``AGENTMEM_MODEL``, ``AGENTMEM_PROVIDER``), then ``agentmem.yaml``, then the defaults below.
Unknown keys and wrong types are errors naming the file and the key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from agentmem.errors import ConfigError, InvalidMemoryError
from agentmem.frozen import Frozen
from agentmem.governance import ROLES
from agentmem.store.paths import check_scope
from agentmem.store.root import CONFIG_FILE as CONFIG_FILE
from agentmem.store.yamlio import load_yaml_file

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any

    from agentmem.store.hotcache import HotCache
    from agentmem.store.root import StrPath

DEFAULT_SECTIONS = (
    "Writing style",
    "Priorities & scope",
    "Recurring patterns",
    "Rule dependencies",
)


class RetentionClass(Frozen):
    """``memory.retention.<basis>:`` — days from acceptance (or the last reconfirmation) to the
    review date, and to the expiry date (None: never expires)."""

    _fields = ("review_days", "expire_days")
    review_days: int
    expire_days: int | None

    def __init__(self, review_days: int, expire_days: int | None) -> None:
        self._set(review_days=review_days, expire_days=expire_days)


#: The retention policy when ``agentmem.yaml`` says nothing (a policy choice recorded in
#: docs/decisions/): what a person declared is reviewed yearly and never expires; what a
#: model inferred is reviewed after a month and expires after three unless reconfirmed.
DEFAULT_RETENTION: dict[str, RetentionClass] = {
    "declared": RetentionClass(365, None),
    "inferred": RetentionClass(30, 90),
}


class MemoryConfig(Frozen):
    """``memory:`` — budget and entry limits in Unicode code points (NFC),
    docs/design/settings.md §Settings; ``retention`` per basis (days) and ``on_review_due``
    (alert | suspend) for entries (docs/decisions/0051). ``retention`` None: a copy
    of ``DEFAULT_RETENTION``."""

    _fields = (
        "budget_chars",
        "warn_ratio",
        "entry_max_chars",
        "sections",
        "retention",
        "on_review_due",
    )
    budget_chars: int
    warn_ratio: float
    entry_max_chars: int
    sections: tuple[str, ...]
    retention: Mapping[str, RetentionClass]
    on_review_due: str

    def __init__(
        self,
        budget_chars: int = 8000,
        warn_ratio: float = 0.8,
        entry_max_chars: int = 500,
        sections: tuple[str, ...] = DEFAULT_SECTIONS,
        retention: Mapping[str, RetentionClass] | None = None,
        on_review_due: str = "alert",
    ) -> None:
        self._set(
            budget_chars=budget_chars,
            warn_ratio=warn_ratio,
            entry_max_chars=entry_max_chars,
            sections=sections,
            retention=dict(DEFAULT_RETENTION) if retention is None else retention,
            on_review_due=on_review_due,
        )


class HarvestConfig(Frozen):
    """``harvest:`` — ``provider`` is auto | anthropic | offline (docs/design/settings.md §Settings,
    §Providers)."""

    _fields = (
        "max_proposals",
        "provider",
        "model",
        "timeout_s",
        "max_transcript_mb",
        "openai_base_url",
        "openai_model",
        "openai_api_key_env",
    )
    max_proposals: int
    provider: str
    model: str
    timeout_s: int  # seconds the whole model call may take, retries included
    max_transcript_mb: int  # a larger transcript is refused before it is read
    openai_base_url: str | None  # harvest.openai.base_url; OPENAI_BASE_URL overrides
    openai_model: str | None  # harvest.openai.model
    openai_api_key_env: str  # harvest.openai.api_key_env

    def __init__(
        self,
        max_proposals: int = 6,
        provider: str = "auto",
        model: str = "claude-sonnet-5-5",
        timeout_s: int = 120,
        max_transcript_mb: int = 20,
        openai_base_url: str | None = None,
        openai_model: str | None = None,
        openai_api_key_env: str = "OPENAI_API_KEY",
    ) -> None:
        self._set(
            max_proposals=max_proposals,
            provider=provider,
            model=model,
            timeout_s=timeout_s,
            max_transcript_mb=max_transcript_mb,
            openai_base_url=openai_base_url,
            openai_model=openai_model,
            openai_api_key_env=openai_api_key_env,
        )


class DoctrineConfig(Frozen):
    """``doctrine:`` — review period in days, review policy, duplicate threshold 0–100
    (docs/design/settings.md §Settings)."""

    _fields = (
        "review_days",
        "on_review_due",
        "duplicate_threshold",
        "distinct_approver",
        "require_signed",
    )
    review_days: int
    on_review_due: str
    duplicate_threshold: int
    distinct_approver: bool
    require_signed: bool

    def __init__(
        self,
        review_days: int = 90,
        on_review_due: str = "alert",
        duplicate_threshold: int = 85,
        distinct_approver: bool = True,
        require_signed: bool = False,
    ) -> None:
        self._set(
            review_days=review_days,
            on_review_due=on_review_due,
            duplicate_threshold=duplicate_threshold,
            distinct_approver=distinct_approver,
            require_signed=require_signed,
        )


class ReviewConfig(Frozen):
    """``review:`` — when a waiting decision is old (docs/design/settings.md §Settings, §Web):
    ``agentmem serve`` shows a proposal or a rule waiting longer than ``remind_days`` in red."""

    _fields = ("remind_days",)
    remind_days: int

    def __init__(self, remind_days: int = 7) -> None:
        self._set(remind_days=remind_days)


class SigningConfig(Frozen):
    """``signing:`` — ``decisions: required`` signs every decision commit (accept, hand edit,
    approve and the other rule transitions, settings approve, scope retire, erase), refused
    without a key, and ``check --history`` verifies each against ``roles.yaml``'s keys
    (docs/design/settings.md §Settings, §Trust boundary); ``optional`` (the default) signs when a key
    is set."""

    _fields = ("decisions",)
    decisions: str

    def __init__(self, decisions: str = "optional") -> None:
        self._set(decisions=decisions)


class ContextConfig(Frozen):
    """``context:`` — which roles get doctrine in audit prompts (docs/design/settings.md §Settings,
    §Context)."""

    _fields = ("doctrine_for_roles",)
    doctrine_for_roles: tuple[str, ...]

    def __init__(self, doctrine_for_roles: tuple[str, ...] = ROLES) -> None:
        self._set(doctrine_for_roles=doctrine_for_roles)


class Config(Frozen):
    """The whole resolved configuration of one memory repository (a section left None: its
    defaults)."""

    _fields = (
        "memory",
        "harvest",
        "doctrine",
        "context",
        "scopes",
        "retired_scopes",
        "review",
        "signing",
    )
    memory: MemoryConfig
    harvest: HarvestConfig
    doctrine: DoctrineConfig
    context: ContextConfig
    review: ReviewConfig
    signing: SigningConfig
    #: ``scopes:`` — project folder (absolute, ``~/…`` or relative to the repository) → scope,
    #: in the order written; the hooks take the scope of the longest folder holding the session.
    scopes: tuple[tuple[str, str], ...]
    #: ``retired_scopes:`` — scope → the day it was retired (``YYYY-MM-DD``), written by
    #: ``agentmem scope retire``: what was confirmed in it before that day is due for review
    #: (docs/decisions/0052).
    retired_scopes: tuple[tuple[str, str], ...]

    def __init__(
        self,
        memory: MemoryConfig | None = None,
        harvest: HarvestConfig | None = None,
        doctrine: DoctrineConfig | None = None,
        context: ContextConfig | None = None,
        scopes: tuple[tuple[str, str], ...] = (),
        retired_scopes: tuple[tuple[str, str], ...] = (),
        review: ReviewConfig | None = None,
        signing: SigningConfig | None = None,
    ) -> None:
        self._set(
            memory=MemoryConfig() if memory is None else memory,
            harvest=HarvestConfig() if harvest is None else harvest,
            doctrine=DoctrineConfig() if doctrine is None else doctrine,
            context=ContextConfig() if context is None else context,
            review=ReviewConfig() if review is None else review,
            signing=SigningConfig() if signing is None else signing,
            scopes=scopes,
            retired_scopes=retired_scopes,
        )


_SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "memory": {
        "budget_chars": int,
        "warn_ratio": float,
        "entry_max_chars": int,
        "sections": list,
        "retention": dict,
        "on_review_due": str,
    },
    "harvest": {
        "max_proposals": int,
        "provider": str,
        "model": str,
        "timeout_s": int,
        "max_transcript_mb": int,
        "openai": dict,
    },
    "doctrine": {
        "review_days": int,
        "on_review_due": str,
        "duplicate_threshold": int,
        "distinct_approver": bool,
        "require_signed": bool,
    },
    "context": {"doctrine_for_roles": list},
    "review": {"remind_days": int},
    "signing": {"decisions": str},
}
_CHOICES = {
    ("harvest", "provider"): ("auto", "anthropic", "offline", "openai"),
    ("doctrine", "on_review_due"): ("alert", "suspend"),
    ("memory", "on_review_due"): ("alert", "suspend"),
    ("signing", "decisions"): ("optional", "required"),
}


def _retention(where: str, value: dict[str, Any]) -> dict[str, RetentionClass]:
    """``memory.retention`` → one :class:`RetentionClass` per basis (missing ones default)."""
    classes = dict(DEFAULT_RETENTION)
    for basis, spec in value.items():
        key = f"memory.retention.{basis}"
        if basis not in DEFAULT_RETENTION:
            raise ConfigError(f"{where}: unknown key '{key}' (known: declared, inferred)")
        if spec is None:
            continue
        if not isinstance(spec, dict):
            raise ConfigError(f"{where}: {key} must be a mapping (review_days, expire_days)")
        unknown = sorted(set(spec) - {"review_days", "expire_days"})
        if unknown:
            raise ConfigError(
                f"{where}: unknown key '{key}.{unknown[0]}' (known: review_days, expire_days)"
            )
        review = spec.get("review_days", classes[basis].review_days)
        expire = spec.get("expire_days", classes[basis].expire_days)
        for name, days, nullable in (("review_days", review, False), ("expire_days", expire, True)):
            if days is None and nullable:
                continue
            if isinstance(days, bool) or not isinstance(days, int) or days <= 0:
                never = " or null (never)" if nullable else ""
                raise ConfigError(
                    f"{where}: {key}.{name} must be a positive number of days{never}, got {days!r}"
                )
        classes[basis] = RetentionClass(review, expire)
    return classes


def _scopes(where: str, value: Any) -> tuple[tuple[str, str], ...]:
    """``scopes:`` → ``((folder, scope), …)``; each scope a path such as contracts/supply."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: 'scopes' must map project folders to scopes")
    pairs = []
    for folder, scope in value.items():
        if not isinstance(folder, str) or not folder.strip() or not isinstance(scope, str):
            raise ConfigError(
                f"{where}: scopes: {folder!r}: expected a folder mapped to a scope such as "
                "contracts/supply"
            )
        try:
            pairs.append((folder, check_scope(scope, f"scopes.{folder}")))
        except InvalidMemoryError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return tuple(pairs)


def _retired(where: str, value: Any) -> tuple[tuple[str, str], ...]:
    """``retired_scopes:`` → ``((scope, YYYY-MM-DD), …)``, widest scope first."""
    # lazy: only a repository with retired scopes needs the date parser
    from datetime import date

    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: 'retired_scopes' must map scopes to the day they were retired")
    pairs = []
    for scope, day in value.items():
        text = day.isoformat() if isinstance(day, date) else day
        try:
            if not isinstance(scope, str) or not isinstance(text, str):
                raise ValueError
            date.fromisoformat(text)
            if len(text) != 10:
                raise ValueError
            pairs.append((check_scope(scope, f"retired_scopes.{scope}"), text))
        except (ValueError, InvalidMemoryError):
            raise ConfigError(
                f"{where}: retired_scopes: {scope!r}: expected a scope such as contracts/supply "
                "mapped to a day (YYYY-MM-DD)"
            ) from None
    return tuple(sorted(pairs, key=lambda p: (p[0].count("/"), p[0])))


def _check_value(where: str, group: str, key: str, value: Any) -> Any:
    expected = _SCHEMA[group][key]
    if expected is dict and value is None:
        value = {}
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if expected is int and isinstance(value, bool):
        raise ConfigError(f"{where}: {group}.{key} must be a whole number, got {value!r}")
    if not isinstance(value, expected):
        name = expected.__name__ if isinstance(expected, type) else "value"
        raise ConfigError(f"{where}: {group}.{key} must be a {name}, got {value!r}")
    if isinstance(value, dict):
        if key == "openai":
            return _check_openai(where, value)
        return _retention(where, value)
    if isinstance(value, list):
        if not value or not all(isinstance(v, str) and v.strip() for v in value):
            raise ConfigError(f"{where}: {group}.{key} must be a non-empty list of names")
        if len(set(value)) != len(value):
            raise ConfigError(f"{where}: {group}.{key} lists a name twice")
        return tuple(value)
    choices = _CHOICES.get((group, key))
    if choices and value not in choices:
        raise ConfigError(
            f"{where}: {group}.{key} is {value!r}; expected one of {', '.join(choices)}"
        )
    if isinstance(value, int) and not isinstance(value, bool) and value <= 0:
        raise ConfigError(f"{where}: {group}.{key} must be positive, got {value}")
    if key == "warn_ratio" and isinstance(value, float) and not 0 < value <= 1:
        raise ConfigError(f"{where}: memory.warn_ratio must be between 0 and 1, got {value}")
    return value


_OPENAI_KEYS = ("base_url", "model", "api_key_env")


def _check_openai(where: str, value: dict[str, Any]) -> dict[str, str]:
    """``harvest.openai: {base_url, model, api_key_env}``: strings, no other key."""
    out: dict[str, str] = {}
    for key, item in value.items():
        if key not in _OPENAI_KEYS:
            known = ", ".join(_OPENAI_KEYS)
            raise ConfigError(f"{where}: unknown key 'harvest.openai.{key}' (known: {known})")
        if item is None:
            continue  # null: the default
        if not isinstance(item, str) or not item.strip():
            raise ConfigError(f"{where}: harvest.openai.{key} must be a non-empty string")
        out[f"openai_{key}"] = item.strip()
    return out


def parse_config(data: Any, where: str) -> Config:
    """Validate a loaded ``agentmem.yaml`` mapping (``None`` = empty file). Raises ConfigError."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of settings groups")
    groups: dict[str, dict[str, Any]] = {}
    scopes = _scopes(where, data.get("scopes"))
    retired = _retired(where, data.get("retired_scopes"))
    for group, values in data.items():
        if group in ("scopes", "retired_scopes"):
            continue
        if group not in _SCHEMA:
            known = ", ".join([*_SCHEMA, "scopes", "retired_scopes"])
            raise ConfigError(f"{where}: unknown key '{group}' (known: {known})")
        if values is None:
            values = {}
        if not isinstance(values, dict):
            raise ConfigError(f"{where}: '{group}' must be a mapping")
        checked = {}
        for key, value in values.items():
            if key not in _SCHEMA[group]:
                known = ", ".join(_SCHEMA[group])
                raise ConfigError(f"{where}: unknown key '{group}.{key}' (known: {known})")
            checked_value = _check_value(where, group, key, value)
            if key == "openai":
                checked.update(checked_value)
            else:
                checked[key] = checked_value
        groups[group] = checked
    return Config(
        memory=MemoryConfig(**groups.get("memory", {})),
        harvest=HarvestConfig(**groups.get("harvest", {})),
        doctrine=DoctrineConfig(**groups.get("doctrine", {})),
        context=ContextConfig(**groups.get("context", {})),
        review=ReviewConfig(**groups.get("review", {})),
        signing=SigningConfig(**groups.get("signing", {})),
        scopes=scopes,
        retired_scopes=retired,
    )


def load_config(
    root: StrPath, env: Mapping[str, str] | None = None, cache: HotCache | None = None
) -> Config:
    """Load ``root/agentmem.yaml`` and apply ``AGENTMEM_MODEL`` / ``AGENTMEM_PROVIDER``.
    ``cache``: the hot path's (:mod:`agentmem.store.hotcache`), which spares parsing a text
    parsed before."""
    env = os.environ if env is None else env
    data = load_yaml_file(os.path.join(root, CONFIG_FILE), CONFIG_FILE, cache=cache)
    config = parse_config(data, CONFIG_FILE)
    harvest = config.harvest
    if env.get("AGENTMEM_MODEL"):
        harvest = harvest.replace(model=env["AGENTMEM_MODEL"])
    if env.get("AGENTMEM_PROVIDER"):
        provider = _check_value(
            "AGENTMEM_PROVIDER", "harvest", "provider", env["AGENTMEM_PROVIDER"]
        )
        harvest = harvest.replace(provider=provider)
    return config.replace(harvest=harvest)


DEFAULT_CONFIG_TEXT = """\
# agentmem settings (every key is optional; these are the defaults): see agentmem's docs/guide/sync-and-settings.md.
memory:
  budget_chars: 8000        # counted on the whole file, in Unicode code points
  warn_ratio: 0.8           # at or above: warning; above budget: write refused
  entry_max_chars: 500
  sections: ["Writing style", "Priorities & scope", "Recurring patterns", "Rule dependencies"]
  retention:                # days from acceptance or the last reconfirmation (a policy choice)
    declared: {review_days: 365, expire_days: null}   # what the person said: yearly review
    inferred: {review_days: 30, expire_days: 90}      # what a model inferred: reviewed sooner
  on_review_due: alert      # alert: a past-review entry stays applied; suspend: it stops applying
harvest:
  max_proposals: 6
  provider: auto            # anthropic when ANTHROPIC_API_KEY is set, else offline
  model: claude-sonnet-5-5  # AGENTMEM_MODEL overrides; claude-haiku-5-5 is the cheap choice
  timeout_s: 120            # seconds the whole model call may take, retries included
  max_transcript_mb: 20     # a larger transcript is refused before it is read
  # openai:                 # --provider openai: any OpenAI-compatible chat-completions server
  #   base_url: http://localhost:11434/v1   # OPENAI_BASE_URL overrides
  #   model: llama3.1
  #   api_key_env: OPENAI_API_KEY
doctrine:
  review_days: 90
  on_review_due: alert      # alert: stays applied and enters the review queue; suspend: stops applying
  duplicate_threshold: 85   # similarity 0-100 in the same scope that blocks creation
  distinct_approver: true   # nobody approves a rule they proposed
context:
  doctrine_for_roles: [user, member, admin]   # who gets doctrine in audits
"""
