"""`agentmem harvest --provider anthropic` end to end, through an httpx2.MockTransport that
returns recorded responses (one request, the schema, no sampling parameters; 429 then
200; 400 → exit 1 with the API's message; 8 → 6 and the cut said; off-schema → nothing stored)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import httpx2
import pytest
from tests.helpers import DATA, git, invoke
from typer.testing import CliRunner

from agentmem.proposals.model import PROPOSAL_JSON_SCHEMA

if TYPE_CHECKING:  # the SDK takes seconds to import: only the tests that use it pay
    import anthropic

RECORDED = DATA / "anthropic"


def _session(tmp_path: Path) -> Path:
    path = tmp_path / "session.md"
    path.write_text(
        "User: From now on keep client emails short. Write to me at claire.martin@example.com.\n\n"
        "Assistant: Noted.\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Callable[[list[httpx2.Response]], list[httpx2.Request]]:
    """Make ``anthropic.Anthropic()`` answer with the given responses, in order; returns the
    list the requests are recorded into."""
    import anthropic

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")

    def install(responses: list[httpx2.Response]) -> list[httpx2.Request]:
        seen: list[httpx2.Request] = []
        queue = list(responses)

        def handler(request: httpx2.Request) -> httpx2.Response:
            seen.append(request)
            return queue.pop(0)

        real = anthropic.Anthropic

        def factory(*args: object, **kwargs: object) -> anthropic.Anthropic:
            return real(
                api_key="test-key",
                http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
            )

        monkeypatch.setattr(anthropic, "Anthropic", factory)
        return seen

    return install


def _ok(name: str) -> httpx2.Response:
    return httpx2.Response(200, json=json.loads((RECORDED / name).read_text(encoding="utf-8")))


def test_one_request_with_the_schema_and_no_sampling_parameters(
    memrepo: Path, runner: CliRunner, tmp_path: Path, api
) -> None:
    seen = api([_ok("success.json")])
    result = invoke(runner, "harvest", str(_session(tmp_path)))
    assert result.exit_code == 0, result.stderr
    assert len(seen) == 1
    body = json.loads(seen[0].content)
    assert set(body) == {"model", "max_tokens", "system", "messages", "output_config"}
    assert body["model"] == "claude-sonnet-5-5"
    assert body["output_config"] == {
        "format": {"type": "json_schema", "schema": PROPOSAL_JSON_SCHEMA}
    }
    sent = body["messages"][0]["content"]
    assert "keep client emails short" in sent
    assert "claire.martin@example.com" not in sent and "[EMAIL]" in sent
    assert "via anthropic: 2 proposals kept, 0 rejected" in result.stdout


def test_agentmem_model_overrides_the_configured_model(
    memrepo: Path, runner: CliRunner, tmp_path: Path, api, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTMEM_MODEL", "claude-haiku-5-5")
    seen = api([_ok("success.json")])
    assert invoke(runner, "harvest", str(_session(tmp_path))).exit_code == 0
    assert json.loads(seen[0].content)["model"] == "claude-haiku-5-5"


def test_429_then_200_succeeds_through_the_sdk_retries(
    memrepo: Path, runner: CliRunner, tmp_path: Path, api
) -> None:
    limited = httpx2.Response(
        429,
        headers={"retry-after-ms": "1"},
        json=json.loads((RECORDED / "error_429.json").read_text(encoding="utf-8")),
    )
    seen = api([limited, _ok("success.json")])
    result = invoke(runner, "harvest", str(_session(tmp_path)))
    assert result.exit_code == 0, result.stderr
    assert len(seen) == 2


def test_400_is_exit_1_with_the_api_message_and_nothing_stored(
    memrepo: Path, runner: CliRunner, tmp_path: Path, api
) -> None:
    bad = httpx2.Response(
        400, json=json.loads((RECORDED / "error_400.json").read_text(encoding="utf-8"))
    )
    seen = api([bad])
    head = git(memrepo, "rev-parse", "HEAD")
    result = invoke(runner, "harvest", str(_session(tmp_path)))
    assert result.exit_code == 1
    assert "max_tokens: 64000 > 32000" in result.stderr
    assert len(seen) == 1
    assert git(memrepo, "rev-parse", "HEAD") == head
    assert "Traceback" not in result.output


def test_eight_proposals_are_cut_to_six_and_said(
    memrepo: Path, runner: CliRunner, tmp_path: Path, api
) -> None:
    api([_ok("eight_proposals.json")])
    result = invoke(runner, "harvest", str(_session(tmp_path)))
    assert result.exit_code == 0, result.stderr
    assert "the answer held 8 proposals; only the first 6 were kept" in result.stdout
    assert (
        len(list((memrepo / "inbox" / "alice").glob("*.yaml"))) + result.stdout.count("rejected #")
        == 6
    )


def test_an_answer_outside_the_schema_is_exit_1_and_nothing_stored(
    memrepo: Path, runner: CliRunner, tmp_path: Path, api
) -> None:
    message = json.loads((RECORDED / "success.json").read_text(encoding="utf-8"))
    message["content"][-1]["text"] = '{"ideas": ["shorter emails"]}'
    api([httpx2.Response(200, json=message)])
    head = git(memrepo, "rev-parse", "HEAD")
    result = invoke(runner, "harvest", str(_session(tmp_path)))
    assert result.exit_code == 1
    assert "does not fit the schema" in result.stderr
    assert git(memrepo, "rev-parse", "HEAD") == head
    assert not (memrepo / "inbox" / "alice").exists()


def test_a_missing_key_is_explained_before_any_call(
    memrepo: Path, runner: CliRunner, tmp_path: Path, api, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = api([])
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    result = invoke(runner, "harvest", str(_session(tmp_path)), "--provider", "anthropic")
    assert result.exit_code == 1
    assert "ANTHROPIC_API_KEY is not set" in result.stderr and "--provider offline" in result.stderr
    assert seen == []
