"""The secret scanner: every secret finding refuses, on every write path, before any commit.

The provider patterns copied from detect-secrets are checked against the installed library, so an
upgrade that changes a pattern fails here instead of drifting silently.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from tests.helpers import git, invoke

from agentmem import guard
from agentmem.errors import GuardError
from agentmem.guard import secrets

# Fabricated values shaped like each provider's keys (none is real).
AZURE = (
    "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=" + "Zm9vYmFyQmF6" * 7 + "Zm9v==;"
)
SAMPLES = {
    "url-credentials": "The prod database is postgres://admin:Wint3r-Lake-42@db.internal/prod",
    "azure": f"Storage: {AZURE}",
    "mailchimp": "Newsletter key 0123456789abcdef0123456789abcdef-us12 for the list",
    "discord": "Bot token MTAxMjM0NTY3ODkwMTIzNDU2.GaBcDe.abcdefghijklmnopqrstuvwxyz1 for the bot",
    "telegram": "Bot 1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 posts the alerts",
    "twilio": "Twilio account AC0123456789abcdef0123456789abcdef sends the texts",
    "sendgrid": "Mail key SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ",
    "entropy": "Build tag aZ3kQ9xW2mR7tY5uP1oL8nB4vC6",
}
CLEAN = [
    "Use postgres://user:password@localhost/dev for the local database",
    "Use postgres://app:${PGPASSWORD}@db/prod, never the password itself",
    "Always run the tests with pytest -q before pushing to main.",
]


def _secret_value(text: str, code: str) -> str:
    found = [f for f in guard.scan(text) if f.code == f"secret:{code}"]
    assert found, f"{code}: no finding"
    return text[found[0].start : found[0].end]


@pytest.mark.parametrize("code", sorted(SAMPLES))
def test_every_secret_finding_refuses_without_echoing_it(code: str) -> None:
    text = SAMPLES[code]
    value = _secret_value(text, code)
    assert len(value) >= 12
    findings = [f for f in guard.scan(text) if f.code.startswith("secret:")]
    assert findings and all(f.severity == guard.ERROR for f in findings)
    with pytest.raises(GuardError) as info:
        guard.check(text, where="entry")
    assert f"secret:{code}" in str(info.value)
    assert value not in str(info.value) and value not in info.value.hint
    assert value not in guard.mask(text)


@pytest.mark.parametrize("text", CLEAN)
def test_placeholders_and_prose_pass(text: str) -> None:
    assert [f.code for f in guard.scan(text) if f.code.startswith("secret:")] == []


def test_patterns_match_the_installed_detect_secrets_plugins() -> None:
    import detect_secrets.plugins as plugins

    def norm(pattern: str) -> str:
        return re.sub(r"\\(['\"])", r"\1", pattern)

    for plugin, _, _, _, icase, _, _, pattern in secrets._DETECT_SECRETS:
        module = importlib.import_module(f"{plugins.__name__}.{plugin}")
        upstream = {
            norm(rx.pattern): bool(rx.flags & re.IGNORECASE)
            for cls in vars(module).values()
            if isinstance(cls, type) and cls.__module__ == module.__name__
            for rx in getattr(cls, "denylist", ())
        }
        assert norm(pattern) in upstream, f"{plugin}: {pattern} is no longer detect-secrets'"
        assert upstream[norm(pattern)] == icase, f"{plugin}: {pattern} case flag differs"


@pytest.mark.parametrize("code", ["url-credentials", "azure", "mailchimp", "discord", "telegram"])
def test_remember_refuses_a_secret_before_any_commit(memrepo: Path, runner, code: str) -> None:
    head = git(memrepo, "rev-parse", "HEAD")
    text = SAMPLES[code]
    value = _secret_value(text, code)
    result = invoke(runner, "remember", text)
    assert result.exit_code == 1
    assert f"secret:{code}" in result.stderr
    assert value not in result.stdout + result.stderr
    assert git(memrepo, "rev-parse", "HEAD") == head
    assert value not in git(memrepo, "log", "--all", "-p")


def test_mcp_remember_refuses_a_secret_before_any_commit(memrepo: Path) -> None:
    from agentmem.delivery import mcp_server

    head = git(memrepo, "rev-parse", "HEAD")
    with pytest.raises(GuardError) as info:
        mcp_server.remember(SAMPLES["twilio"], None, "mcp-test")
    assert "secret:twilio" in str(info.value)
    assert git(memrepo, "rev-parse", "HEAD") == head


def test_an_invisible_character_inside_a_key_does_not_hide_it() -> None:
    key = "sk-ant-api03-" + "abcdefghijklmnopqrstuvwxyz0123"
    text = f"Use {key[:15]}\u200d{key[15:]} for the batch jobs"
    codes = {f.code for f in guard.scan(text)}
    assert {"secret:anthropic", "invisible-char"} <= codes
    assert key[15:] not in guard.mask(text)


def test_the_secret_patterns_run_are_those_whose_needles_occur() -> None:
    """``secrets._secret_patterns_to_run`` (each needle looked up once) picks, in order, the
    patterns that asking every pattern for its needles picks: on every case of the guard's
    corpus, every sample here and a text around each needle, as written and in upper and
    lower case."""
    from tests.helpers.guard_cases import CASES, materialise

    from agentmem.guard.unicode import _Raw

    needles = [n for _, solid, other in secrets._SECRET_NEEDLES for n in (*solid, *other)]
    texts = [materialise(case)[0] for case in CASES] + list(SAMPLES.values())
    texts += [f"key {n} here" for n in needles] + [f"x{n}" for n in needles]
    texts += [t.upper() for t in texts] + [t.lower() for t in texts]
    for text in texts:
        raw = _Raw(text)
        asked = [
            i
            for i, (icase, solid, other) in enumerate(secrets._SECRET_NEEDLES)
            if any(n in (raw.tokens_lower if icase else raw.tokens) for n in solid)
            or any(n in (text.lower() if icase else text) for n in other)
        ]
        assert secrets._secret_patterns_to_run(text, raw) == asked, text
