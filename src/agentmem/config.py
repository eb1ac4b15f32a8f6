"""Settings from ``agentmem.yaml`` (docs/design.md §Settings), resolved in one place.

Precedence: command-line flag (applied by the caller), then ``AGENTMEM_*`` environment variables
(``AGENTMEM_MODEL``, ``AGENTMEM_PROVIDER``), then ``agentmem.yaml``, then the defaults below.
Unknown keys and wrong types are errors naming the file and the key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentmem.errors import ConfigError
from agentmem.governance import ROLES
from agentmem.store.root import CONFIG_FILE as CONFIG_FILE
from agentmem.store.yamlio import load_yaml_file

DEFAULT_SECTIONS = (
    "Writing style",
    "Priorities & scope",
    "Recurring patterns",
    "Rule dependencies",
)


@dataclass(frozen=True)
class MemoryConfig:
    """``memory:`` — budget and entry limits in Unicode code points (NFC),
    docs/design.md §Settings."""

    budget_chars: int = 8000
    warn_ratio: float = 0.8
    entry_max_chars: int = 500
    sections: tuple[str, ...] = DEFAULT_SECTIONS


@dataclass(frozen=True)
class HarvestConfig:
    """``harvest:`` — ``provider`` is auto | anthropic | offline (docs/design.md §Settings,
    §Providers)."""

    max_proposals: int = 6
    provider: str = "auto"
    model: str = "claude-sonnet-5-5"


@dataclass(frozen=True)
class DoctrineConfig:
    """``doctrine:`` — review period in days, review policy, duplicate threshold 0–100
    (docs/design.md §Settings)."""

    review_days: int = 90
    on_review_due: str = "alert"
    duplicate_threshold: int = 85
    distinct_approver: bool = True
    require_signed: bool = False


@dataclass(frozen=True)
class ContextConfig:
    """``context:`` — which roles get doctrine in audit prompts (docs/design.md §Settings,
    §Context)."""

    doctrine_for_roles: tuple[str, ...] = ROLES


@dataclass(frozen=True)
class Config:
    """The whole resolved configuration of one memory repository."""

    memory: MemoryConfig = field(default_factory=MemoryConfig)
    harvest: HarvestConfig = field(default_factory=HarvestConfig)
    doctrine: DoctrineConfig = field(default_factory=DoctrineConfig)
    context: ContextConfig = field(default_factory=ContextConfig)


_SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "memory": {"budget_chars": int, "warn_ratio": float, "entry_max_chars": int, "sections": list},
    "harvest": {"max_proposals": int, "provider": str, "model": str},
    "doctrine": {
        "review_days": int,
        "on_review_due": str,
        "duplicate_threshold": int,
        "distinct_approver": bool,
        "require_signed": bool,
    },
    "context": {"doctrine_for_roles": list},
}
_CHOICES = {
    ("harvest", "provider"): ("auto", "anthropic", "offline"),
    ("doctrine", "on_review_due"): ("alert", "suspend"),
}


def _check_value(where: str, group: str, key: str, value: Any) -> Any:
    expected = _SCHEMA[group][key]
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if expected is int and isinstance(value, bool):
        raise ConfigError(f"{where}: {group}.{key} must be a whole number, got {value!r}")
    if not isinstance(value, expected):
        name = expected.__name__ if isinstance(expected, type) else "value"
        raise ConfigError(f"{where}: {group}.{key} must be a {name}, got {value!r}")
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


def parse_config(data: Any, where: str) -> Config:
    """Validate a loaded ``agentmem.yaml`` mapping (``None`` = empty file). Raises ConfigError."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of settings groups")
    groups: dict[str, dict[str, Any]] = {}
    for group, values in data.items():
        if group not in _SCHEMA:
            raise ConfigError(f"{where}: unknown key '{group}' (known: {', '.join(_SCHEMA)})")
        if values is None:
            values = {}
        if not isinstance(values, dict):
            raise ConfigError(f"{where}: '{group}' must be a mapping")
        checked = {}
        for key, value in values.items():
            if key not in _SCHEMA[group]:
                known = ", ".join(_SCHEMA[group])
                raise ConfigError(f"{where}: unknown key '{group}.{key}' (known: {known})")
            checked[key] = _check_value(where, group, key, value)
        groups[group] = checked
    return Config(
        memory=MemoryConfig(**groups.get("memory", {})),
        harvest=HarvestConfig(**groups.get("harvest", {})),
        doctrine=DoctrineConfig(**groups.get("doctrine", {})),
        context=ContextConfig(**groups.get("context", {})),
    )


def load_config(root: Path, env: Mapping[str, str] | None = None) -> Config:
    """Load ``root/agentmem.yaml`` and apply ``AGENTMEM_MODEL`` / ``AGENTMEM_PROVIDER``."""
    env = os.environ if env is None else env
    config = parse_config(load_yaml_file(root / CONFIG_FILE, CONFIG_FILE), CONFIG_FILE)
    harvest = config.harvest
    if env.get("AGENTMEM_MODEL"):
        harvest = HarvestConfig(harvest.max_proposals, harvest.provider, env["AGENTMEM_MODEL"])
    if env.get("AGENTMEM_PROVIDER"):
        provider = _check_value(
            "AGENTMEM_PROVIDER", "harvest", "provider", env["AGENTMEM_PROVIDER"]
        )
        harvest = HarvestConfig(harvest.max_proposals, provider, harvest.model)
    return Config(config.memory, harvest, config.doctrine, config.context)


DEFAULT_CONFIG_TEXT = """\
# agentmem settings (every key is optional; these are the defaults): see the README, Settings.
memory:
  budget_chars: 8000        # counted on the whole file, in Unicode code points
  warn_ratio: 0.8           # at or above: warning; above budget: write refused
  entry_max_chars: 500
  sections: ["Writing style", "Priorities & scope", "Recurring patterns", "Rule dependencies"]
harvest:
  max_proposals: 6
  provider: auto            # anthropic when ANTHROPIC_API_KEY is set, else offline
  model: claude-sonnet-5-5  # AGENTMEM_MODEL overrides; claude-haiku-5-5 is the cheap choice
doctrine:
  review_days: 90
  on_review_due: alert      # alert: stays applied and enters the review queue; suspend: stops applying
  duplicate_threshold: 85   # similarity 0-100 in the same scope that blocks creation
  distinct_approver: true   # nobody approves a rule they proposed
context:
  doctrine_for_roles: [user, member, admin]   # who gets doctrine in audits
"""
