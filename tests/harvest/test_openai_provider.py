"""The ``openai`` provider against a stub OpenAI-compatible server on 127.0.0.1 (recorded
responses; never the network): structured output, the fallback without it, retries, permanent
4xx, timeout, unreachable server, an answer outside the schema; and the CLI's clear error with
nothing written."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests.helpers import git, invoke
from typer.testing import CliRunner

from agentmem.config import HarvestConfig
from agentmem.errors import BusyError, ConfigError, ModelError
from agentmem.harvest.providers.openai_provider import OpenAISettings, harvest, settings_from
from agentmem.harvest.providers.request import HarvestRequest
from agentmem.harvest.transcripts import Transcript, Turn

SECTIONS = ("Writing style", "Priorities & scope", "Recurring patterns", "Rule dependencies")
PROPOSAL = {
    "action": "add",
    "route": "memory",
    "section": "Writing style",
    "target": None,
    "text": "Keep emails short.",
    "justification": "asked in the session",
    "basis": "declared",
}


def completion(content: str, finish: str = "stop") -> dict[str, Any]:
    """A chat.completions answer as an OpenAI-compatible server sends it."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1764547200,
        "model": "llama3.1",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


class Stub:
    """Replies with the queued (status, body, delay) in order; records every request body."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, dict[str, Any], float]] = []
        self.requests: list[dict[str, Any]] = []

    def handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                size = int(self.headers.get("content-length", 0))
                stub.requests.append(json.loads(self.rfile.read(size)))
                status, body, delay = stub.replies.pop(0) if stub.replies else (500, {}, 0)
                time.sleep(delay)
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (timeout)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


@pytest.fixture
def stub() -> Iterator[tuple[Stub, str]]:
    state = Stub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), state.handler())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state, f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def request(said: str = "From now on keep my emails short.") -> HarvestRequest:
    turns = [Turn("user", said, 1), Turn("assistant", "Noted.", 2)]
    return HarvestRequest(
        person="alice",
        transcript=Transcript(Path("s.md"), "text", "s1", turns),
        memory_text="# Memory: alice\n",
        doctrine_text="",
        sections=SECTIONS,
        max_proposals=6,
        scope=None,
        model="unused",
    )


def settings(url: str, **extra: Any) -> OpenAISettings:
    return OpenAISettings(url, "llama3.1", "k", extra.pop("timeout_s", 5.0), **extra)


@pytest.mark.slow
def test_structured_output_answer_is_returned_and_the_request_is_masked(stub) -> None:
    server, url = stub
    server.replies.append((200, completion(json.dumps({"proposals": [PROPOSAL]})), 0))
    answer = harvest(
        request("Remember: my daughter Emma is 7; keep my emails short."), settings(url)
    )
    assert answer.provider == "openai" and answer.proposals == [PROPOSAL]
    (sent,) = server.requests
    assert sent["model"] == "llama3.1"
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"]["required"] == ["proposals"]
    user = sent["messages"][1]["content"]
    assert "Emma" not in user and "[FAMILY]" in user
    assert "by who is concerned" in sent["messages"][0]["content"]


@pytest.mark.slow
def test_a_server_without_structured_output_is_asked_again_without_it(stub) -> None:
    server, url = stub
    refusal = {
        "error": {
            "message": "response_format json_schema is not supported",
            "type": "invalid_request_error",
        }
    }
    fenced = "```json\n" + json.dumps({"proposals": [PROPOSAL]}) + "\n```"
    server.replies += [(400, refusal, 0), (200, completion(fenced), 0)]
    answer = harvest(request(), settings(url))
    assert answer.proposals == [PROPOSAL]
    assert "response_format" in server.requests[0] and "response_format" not in server.requests[1]


@pytest.mark.slow
def test_5xx_is_retried_and_another_4xx_is_permanent(stub) -> None:
    server, url = stub
    server.replies += [
        (503, {"error": {"message": "busy"}}, 0),
        (200, completion('{"proposals": []}'), 0),
    ]
    assert harvest(request(), settings(url, max_retries=1)).proposals == []
    assert len(server.requests) == 2
    server.requests.clear()
    server.replies.append((404, {"error": {"message": "model 'x' not found"}}, 0))
    with pytest.raises(ModelError) as caught:
        harvest(request(), settings(url, max_retries=2))
    assert len(server.requests) == 1
    assert "refused the request (404): model 'x' not found" in str(caught.value)
    assert "harvest.openai.model" in str(caught.value)


@pytest.mark.slow
def test_an_answer_outside_the_schema_is_a_clear_error(stub) -> None:
    server, url = stub
    server.replies.append((200, completion('{"items": []}'), 0))
    with pytest.raises(ModelError, match="does not fit the schema"):
        harvest(request(), settings(url))
    server.replies.append((200, completion('{"proposals": [', finish="length"), 0))
    with pytest.raises(ModelError, match="cut off"):
        harvest(request(), settings(url))


@pytest.mark.slow
def test_timeout_and_unreachable_server(stub) -> None:
    server, url = stub
    server.replies.append((200, completion('{"proposals": []}'), 1.5))
    with pytest.raises(ModelError) as caught:
        harvest(request(), settings(url, timeout_s=0.3, max_retries=0))
    assert "did not answer within 0.3 s (harvest.timeout_s" in str(caught.value)
    with pytest.raises(ModelError) as caught:
        harvest(request(), settings("http://127.0.0.1:9/v1", max_retries=0))
    assert "could not reach http://127.0.0.1:9/v1" in str(caught.value)


def test_settings_come_from_agentmem_yaml_and_openai_base_url_wins() -> None:
    config = HarvestConfig(openai_base_url="http://a/v1", openai_model="m", timeout_s=7)
    resolved = settings_from(config, {"OPENAI_BASE_URL": "http://b/v1"})
    assert (resolved.base_url, resolved.model, resolved.timeout_s) == ("http://b/v1", "m", 7.0)
    assert resolved.api_key == "not-needed"  # a local server needs no key
    with pytest.raises(ConfigError, match="harvest.openai.model is not set"):
        settings_from(HarvestConfig(), {})
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        settings_from(HarvestConfig(openai_model="m"), {})


@pytest.mark.slow
def test_cli_failure_names_the_session_and_writes_nothing(
    memrepo: Path, runner: CliRunner, tmp_path: Path, stub
) -> None:
    server, url = stub
    (memrepo / "agentmem.yaml").write_text(
        f"harvest:\n  timeout_s: 5\n  openai:\n    base_url: {url}\n    model: llama3.1\n",
        encoding="utf-8",
    )
    git(memrepo, "commit", "-qam", "settings")
    head = git(memrepo, "rev-parse", "HEAD")
    session = tmp_path / "s.md"
    session.write_text("User: From now on keep my emails short.\n", encoding="utf-8")
    server.replies += [(200, completion("not json at all"), 0)]
    result = invoke(runner, "harvest", str(session), "--provider", "openai")
    assert result.exit_code == 1
    assert "session " in result.stderr and "s.md" in result.stderr
    assert "does not fit the schema" in result.stderr and "stays queued" in result.stderr
    assert git(memrepo, "rev-parse", "HEAD") == head
    server.replies += [(200, completion(json.dumps({"proposals": [PROPOSAL]})), 0)]
    result = invoke(runner, "harvest", str(session), "--provider", "openai", "--format", "json")
    assert result.exit_code == 0, result.stderr
    (out,) = json.loads(result.stdout)
    assert [p["text"] for p in out["proposals"]] == ["Keep emails short."]
    assert out["provider"] == "openai"


def test_a_transcript_over_the_cap_is_refused_before_it_is_read(
    memrepo: Path, runner: CliRunner, tmp_path: Path
) -> None:
    (memrepo / "agentmem.yaml").write_text("harvest:\n  max_transcript_mb: 1\n", encoding="utf-8")
    git(memrepo, "commit", "-qam", "settings")
    head = git(memrepo, "rev-parse", "HEAD")
    session = tmp_path / "big.md"
    session.write_text(
        "User: Remember that I like short notes.\n" + "x" * 1_200_000, encoding="utf-8"
    )
    result = invoke(runner, "harvest", str(session), "--provider", "offline")
    assert result.exit_code == 1
    assert (
        f"{session}: 1.2 MB is over harvest.max_transcript_mb (1 MB); nothing was read"
        in result.stderr
    )
    assert "raise harvest.max_transcript_mb" in result.stderr
    assert git(memrepo, "rev-parse", "HEAD") == head


def test_the_repository_lock_is_free_during_the_model_call(
    memrepo: Path, runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentmem.harvest.providers import offline
    from agentmem.harvest.providers.request import RawAnswer
    from agentmem.store.repo import open_repository

    seen: list[str] = []

    def other_writer() -> None:
        try:
            with open_repository(memrepo).locked(timeout=0):
                seen.append("lock taken by another writer during the call")
        except BusyError:
            seen.append("busy")

    def provider(request: HarvestRequest) -> RawAnswer:
        writer = threading.Thread(target=other_writer)  # the lock is re-entrant in one thread
        writer.start()
        writer.join()
        return RawAnswer("offline", [PROPOSAL])

    monkeypatch.setattr(offline, "harvest", provider)
    session = tmp_path / "s.md"
    session.write_text("User: From now on keep my emails short.\n", encoding="utf-8")
    result = invoke(runner, "harvest", str(session), "--provider", "offline", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert seen == ["lock taken by another writer during the call"]
    (out,) = json.loads(result.stdout)
    assert [p["text"] for p in out["proposals"]] == ["Keep emails short."]


#: What a trial's recording stub saw sent unmasked, one personal value per sentence.
ISSUE_25 = (
    "Jean Dupont signs for the supplier. He was born 12/03/1975, his social security number is "
    "1 85 05 78 006 084 91 and he lives at 12 rue de la Paix. Mot de passe du serveur : "
    "Azerty123! The database password is Tr0ub4dor&3, or run psql -h db -U app -W Tr0ub4dor3. "
    "The lawyer has breast cancer. Keep my emails short."
)
ISSUE_25_VALUES = (
    "Jean", "Dupont", "12/03/1975", "006 084 91", "rue de la Paix", "Azerty123", "Tr0ub4dor",
    "breast cancer",
)  # fmt: skip


@pytest.mark.slow
def test_personal_data_never_reaches_the_model_and_the_transcript_stays_readable(stub) -> None:
    """Through a recording stub (a trial): every value is masked by a typed placeholder and
    the words around it reach the model as they were."""
    server, url = stub
    server.replies.append((200, completion(json.dumps({"proposals": [PROPOSAL]})), 0))
    harvest(request(ISSUE_25), settings(url))
    (sent,) = server.requests
    user = sent["messages"][1]["content"]
    assert [v for v in ISSUE_25_VALUES if v in user] == []
    assert (
        "[NAME] signs for the supplier. He was born [DATE-OF-BIRTH], his social security number "
        "is [NATIONAL-ID] and he lives at [ADDRESS]. Mot de passe du serveur : [SECRET:password] "
        "The database password is [SECRET:password], or run psql -h db -U app -W "
        "[SECRET:password]. The lawyer has [HEALTH]. Keep my emails short."
    ) in user


@pytest.mark.slow
def test_timeout_s_bounds_the_whole_call_retries_included(stub) -> None:
    """A server that never answers in time: with two retries the SDK alone would wait three
    tries and its back-off (about 3 × 0.5 s + 1 s); harvest gives up at ``timeout_s``."""
    server, url = stub
    server.replies += [(200, completion('{"proposals": []}'), 3.0)] * 3
    import openai  # noqa: F401  (loaded before the clock: a cold import under load is no retry)

    start = time.perf_counter()
    with pytest.raises(ModelError) as caught:
        harvest(request(), settings(url, timeout_s=0.5, max_retries=2))
    elapsed = time.perf_counter() - start
    assert elapsed < 1.5, elapsed
    assert "did not answer within 0.5 s (harvest.timeout_s, the whole call, retries included)" in (
        str(caught.value)
    )
