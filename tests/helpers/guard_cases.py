"""The guard corpus (tests/data/guard/cases.yaml) with its secrets. Secret values are not
committed: a ``{secret:NAME}`` marker there is replaced by a value built here, from pieces, at
run time."""

from __future__ import annotations

import base64
import json
import random
import re
import string
from typing import Any

import yaml
from tests.helpers import DATA

CASES_FILE = DATA / "guard" / "cases.yaml"
_ALNUM = string.ascii_letters + string.digits


def _rand(n: int, alphabet: str = _ALNUM, *, seed: int) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url(obj: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


_PEM = "PRIVATE" + " KEY"
SECRETS: dict[str, str] = {
    "anthropic": "sk-" + "ant-api03-" + _rand(93, _ALNUM + "-_", seed=1) + "AA",
    "anthropic-zwj": "sk-\u200d" + "ant-api03-" + _rand(93, _ALNUM + "-_", seed=1) + "AA",
    "openai": "sk-" + "proj-" + _rand(74, _ALNUM + "-_", seed=2),
    "openai-legacy": "sk-" + _rand(20, seed=3) + "T3Blbk" + "FJ" + _rand(20, seed=4),
    "aws-id": "AK" + "IA" + _rand(16, string.ascii_uppercase + string.digits, seed=5),
    "aws-secret": _rand(40, _ALNUM + "/+", seed=6),
    "github": "gh" + "p_" + _rand(36, seed=7),
    "github-pat": "github" + "_pat_" + _rand(22, seed=8) + "_" + _rand(59, seed=9),
    "gitlab": "gl" + "pat-" + _rand(20, seed=10),
    "slack": "xo" + "xb-" + _rand(12, string.digits, seed=11) + "-" + _rand(24, seed=12),
    "google": "AI" + "za" + _rand(35, _ALNUM + "-_", seed=13),
    "jwt": _b64url({"alg": "HS256", "typ": "JWT"})
    + "."
    + _b64url({"sub": "4821", "name": "fixture", "iat": 1700000000})
    + "."
    + _rand(43, _ALNUM + "-_", seed=14),
    "private-key": "-----BEGIN RSA " + _PEM + "-----",
    "private-key-block": "-----BEGIN OPENSSH "
    + _PEM
    + "-----\n"
    + "\n".join(_rand(64, _ALNUM + "+/", seed=15 + i) for i in range(3))
    + "\n-----END OPENSSH "
    + _PEM
    + "-----\n",
    "stripe": "sk" + "_live_" + _rand(24, seed=20),
    "password": "Tr0ub4dor" + "&" + _rand(4, seed=21),
    "azerty": "Azerty" + "123" + "!",
    "code": "48" + "21",  # an access code said in words
    "generic": _rand(32, seed=22),
    "entropy": _rand(24, seed=23),
}
_MARKER = re.compile(r"\{secret:([a-z-]+)\}")


def _load_cases() -> list[dict[str, Any]]:
    data = yaml.load(CASES_FILE.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    return list(data["cases"])


CASES = _load_cases()


def materialise(case: dict[str, Any]) -> tuple[str, list[str]]:
    """The case's text with generated secrets, and the secret values it now holds."""
    values: list[str] = []

    def fill(m: re.Match[str]) -> str:
        values.append(SECRETS[m.group(1)])
        return SECRETS[m.group(1)]

    return _MARKER.sub(fill, case["text"]), values


def case_id(i: int, case: dict[str, Any]) -> str:
    return f"{i:03d}-{case['lang']}-{case['verdict']}-{case['code'] or 'clean'}"
