"""The ``openai`` harvest provider (docs/design/providers.md §Providers): one chat-completions call to any
OpenAI-compatible server (Ollama, vLLM, LM Studio, Mistral, a company gateway) through the
``openai`` SDK, imported inside :func:`harvest` only.

Settings: ``harvest.openai.base_url`` (the ``OPENAI_BASE_URL`` environment variable overrides
it), ``harvest.openai.model``, ``harvest.openai.api_key_env`` (default ``OPENAI_API_KEY``), and
``harvest.timeout_s`` (default 120 s: the whole call, retries included). The prompt is the anthropic provider's
(:func:`agentmem.harvest.providers.anthropic_provider.build_prompt`, masked by the guard). The
answer is asked as JSON-schema structured output; a server that refuses ``response_format``
is asked once more without it. Either way the answer is validated (its shape here, each
proposal by harvest). The SDK retries 429, 5xx and connection errors twice with backoff;
another 4xx is permanent. Every failure becomes a :class:`~agentmem.errors.ModelError` or a
:class:`~agentmem.errors.ConfigError` that says what to do next.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentmem.errors import ConfigError, ModelError, require_extra
from agentmem.harvest.providers.deadline import within
from agentmem.harvest.providers.request import HarvestRequest, RawAnswer
from agentmem.proposals.model import PROPOSAL_JSON_SCHEMA

if TYPE_CHECKING:
    import openai

    from agentmem.config import HarvestConfig

PROVIDER = "openai"
#: A key the SDK needs to build a client when a local server (Ollama, vLLM) wants none.
NO_KEY = "not-needed"


@dataclass(frozen=True)
class OpenAISettings:
    """Resolved settings: ``base_url`` None means the SDK's default (api.openai.com)."""

    base_url: str | None
    model: str
    api_key: str
    timeout_s: float
    max_retries: int = 2


def settings_from(harvest: HarvestConfig, env: Mapping[str, str] | None = None) -> OpenAISettings:
    """Resolve ``harvest.openai.*`` and the environment (``OPENAI_BASE_URL`` wins over
    ``base_url``). Raises :class:`ConfigError` when no model is set, or when the official API
    is meant (no base URL) and the key variable is empty."""
    env = os.environ if env is None else env
    base_url = (env.get("OPENAI_BASE_URL") or "").strip() or harvest.openai_base_url
    if not harvest.openai_model:
        raise ConfigError(
            "harvest.openai.model is not set: the openai provider needs a model name",
            hint="add to agentmem.yaml: harvest: {openai: {base_url: http://localhost:11434/v1, "
            "model: llama3.1}} — or use --provider offline",
        )
    key = (env.get(harvest.openai_api_key_env) or "").strip()
    if not key and base_url is None:
        raise ConfigError(
            f"{harvest.openai_api_key_env} is not set: the OpenAI API needs a key",
            hint=f"export {harvest.openai_api_key_env}=…, set harvest.openai.base_url for a "
            "local server, or use --provider offline",
        )
    return OpenAISettings(base_url, harvest.openai_model, key or NO_KEY, float(harvest.timeout_s))


def harvest(
    request: HarvestRequest,
    settings: OpenAISettings,
    *,
    client: openai.OpenAI | None = None,
    mask: Callable[[str], str] | None = None,
) -> RawAnswer:
    """Ask the server for proposals with one ``chat.completions.create`` call (plus one without
    ``response_format`` when the server does not support it).

    Returns the untrusted proposals as they came (not cut, not validated). Raises
    :class:`ModelError` for an API refusal (4xx, or 429/5xx once retries are spent), a timeout,
    an unreachable server, an answer cut short or outside the schema.
    """
    require_extra("openai")  # a one-line error with the pip command, not an ImportError
    # lazy: the openai SDK loads only when this provider runs
    import openai

    from agentmem.harvest.providers.anthropic_provider import (
        _guard_mask,
        build_prompt,
        parse_answer,
    )

    if client is None:
        client = openai.OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key,
            timeout=settings.timeout_s,
            max_retries=settings.max_retries,
        )
    system, user_content = build_prompt(request, mask or _guard_mask())
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user_content}]
    schema: dict[str, Any] = {
        "type": "json_schema",
        "json_schema": {"name": "proposals", "schema": PROPOSAL_JSON_SCHEMA, "strict": True},
    }
    call: dict[str, Any] = {"model": settings.model, "messages": messages}
    sdk = client

    def ask() -> Any:
        try:
            return sdk.chat.completions.create(**call, response_format=schema)  # type: ignore[call-overload]
        except openai.BadRequestError as exc:
            if "response_format" not in str(exc) and "json_schema" not in str(exc):
                raise
            return sdk.chat.completions.create(**call)

    try:
        completion = within(settings.timeout_s, ask, lambda: _timed_out(settings), sdk.close)
    except openai.APIError as exc:
        raise _model_error(exc, settings) from exc
    if not completion.choices:
        raise ModelError("the model's answer does not fit the schema: no choices")
    choice = completion.choices[0]
    if getattr(choice.message, "refusal", None):
        raise ModelError(
            "the model declined to answer (refusal)",
            hint="review the transcript, or use --provider offline",
        )
    if choice.finish_reason == "length":
        raise ModelError(
            "the model's answer was cut off (finish_reason: length)",
            hint="harvest a shorter session, or use a model with a larger context",
        )
    proposals = parse_answer(_strip_fence(choice.message.content or ""))
    return RawAnswer(provider=PROVIDER, proposals=proposals, model=settings.model)


def _strip_fence(text: str) -> str:
    """A server without structured output may wrap its JSON in a ```json fence."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    return body


def _timed_out(settings: OpenAISettings) -> ModelError:
    where = settings.base_url or "the OpenAI API"
    return ModelError(
        f"{where} did not answer within {settings.timeout_s:g} s (harvest.timeout_s, the whole "
        "call, retries included)",
        hint="raise harvest.timeout_s, harvest a shorter session, or use --provider offline",
    )


def _model_error(exc: Exception, settings: OpenAISettings) -> ModelError:
    require_extra("openai")  # a one-line error with the pip command, not an ImportError
    # lazy: the openai SDK loads only when this provider runs
    import openai

    where = settings.base_url or "the OpenAI API"
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        detail = _detail(exc)
        if status == 429 or status >= 500:
            return ModelError(
                f"{where} is unavailable ({status}) after retrying: {detail}",
                hint="try again in a few minutes, or use --provider offline",
            )
        hints = {
            401: "check the key variable (harvest.openai.api_key_env)",
            403: "this key may not use this model",
            404: "check harvest.openai.model and harvest.openai.base_url (it usually ends in /v1)",
        }
        return ModelError(
            f"{where} refused the request ({status}): {detail}",
            hint=hints.get(status, "check harvest.openai.* in agentmem.yaml"),
        )
    if isinstance(exc, openai.APITimeoutError):
        return _timed_out(settings)
    if isinstance(exc, openai.APIConnectionError):
        return ModelError(
            f"could not reach {where} (connection error)",
            hint="check that the server runs and harvest.openai.base_url (or OPENAI_BASE_URL), "
            "or use --provider offline",
        )
    return ModelError(f"{where} answered in an unexpected way: {type(exc).__name__}")


def _detail(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            text: str = error["message"]
            return text[:300]
    message = getattr(exc, "message", None)
    return str(message)[:300] if message else type(exc).__name__
