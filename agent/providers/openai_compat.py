"""Any OpenAI-compatible chat endpoint, through the official ``openai`` SDK.

Works with OpenAI, DeepSeek, Qwen (DashScope compatible mode), vLLM, the llama.cpp server, LM Studio
and Ollama's ``/v1``. Presets fill in the base URL, the environment variable of the API key and a
default model; every one of them can be overridden in settings.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

import httpx
import openai

from agent.config import Settings
from agent.providers.base import (
    Capabilities,
    Completion,
    ProviderError,
    TextCallback,
    ToolCallRequest,
)
from agent.providers.endpoints import EndpointMemory, endpoint_key
from agent.providers.openai_errors import server_reason, translate, with_retries


@dataclass(frozen=True)
class Preset:
    base_url: str | None
    key_env: str | None
    model: str | None
    needs_key: bool = True


PRESETS: dict[str, Preset] = {
    "openai": Preset(None, "OPENAI_API_KEY", "gpt-4o-mini"),
    "deepseek": Preset("https://api.deepseek.com", "DEEPSEEK_API_KEY", "deepseek-chat"),
    "qwen": Preset("https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY", "qwen-plus"),
    "ollama": Preset("http://127.0.0.1:11434/v1", None, "qwen2.5:0.5b", needs_key=False),
    "llamacpp": Preset("http://127.0.0.1:8080/v1", None, "local", needs_key=False),
    "lmstudio": Preset("http://127.0.0.1:1234/v1", None, "local", needs_key=False),
    "vllm": Preset("http://127.0.0.1:8000/v1", None, None, needs_key=False),
    "openai_compatible": Preset(None, None, None, needs_key=False),
}


#: the tool protocols ``riverse model --check`` may find best for an endpoint
CHECKED_PROTOCOLS = ("native", "router", "json")

#: the shapes of ``response_format`` that carry a JSON schema, tried in this order
RESPONSE_FORMATS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    # OpenAI, vLLM, llama.cpp's server, LM Studio, Ollama
    "json_schema": lambda schema: {"type": "json_schema", "json_schema": {"name": "decision", "schema": schema}},
    # llama-cpp-python's server (and llama.cpp's): json_object with the schema beside it
    "json_object": lambda schema: {"type": "json_object", "schema": schema},
}


def _parse_arguments(raw: str) -> dict[str, Any] | str:
    """Native tool-call arguments are a JSON string; keep the raw text when it does not parse."""
    if not raw or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return raw
    return value if isinstance(value, dict) else raw


class OpenAICompatProvider:
    """Chat completions over HTTP. ``client`` may be injected (tests, custom transports).

    ``memory`` keeps what was found out about this endpoint (see :mod:`agent.providers.endpoints`):
    the ``response_format`` shape it takes, whether it streams tool calls, and the tool protocol
    ``riverse model --check`` found best, which ``tool_protocol: auto`` then uses.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        name: str = "openai",
        temperature: float = 0.2,
        max_tokens: int = 512,
        timeout: float = 120.0,
        native_tools: bool = True,
        client: Any = None,
        memory: EndpointMemory | None = None,
        wait: Callable[[float], Any] = time.sleep,
    ):
        self.name = name
        self.model = model
        self.base_url = base_url
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.memory = memory or EndpointMemory(None, endpoint_key(base_url, model))
        self._wait = wait
        checked = self.memory.get("protocol")
        self.capabilities = Capabilities(
            native_tools=native_tools, preferred_protocol=checked if checked in CHECKED_PROTOCOLS else None
        )
        if client is None:
            from openai import OpenAI

            # Local servers accept any key; the SDK insists on one. Retries are ours (openai_errors).
            client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=0)
        self.client = client

    def _where(self) -> str:
        return self.base_url or "https://api.openai.com/v1"

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        on_text: TextCallback | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": max_tokens or self.max_tokens,
        }
        if tools:
            # Said explicitly: some servers (llama-cpp-python's) drop the tools without it.
            kwargs["tools"] = tools
            kwargs["tool_choice"] = "auto"
        try:
            if json_schema is not None:
                return self._with_schema(kwargs, json_schema, on_text)
            held = _HeldName(on_text) if tools and on_text is not None else None
            completion = self._send(kwargs, held or on_text)
            if tools and _garbled_message(completion, tools):
                # llama-cpp-python's chatml-function-calling: the model chose to answer with a message, and
                # the server's grammar let it write only a function's name. Ask for the message itself.
                return self._send({**kwargs, "tool_choice": "none"}, on_text)
            if held is not None:
                held.flush()
            return completion
        except openai.APIError as exc:
            raise translate(exc, where=self._where(), model=self.model, timeout=self.timeout,
                            with_tools=bool(tools)) from exc

    def _with_schema(self, kwargs: dict[str, Any], schema: dict[str, Any], on_text: TextCallback | None) -> Completion:
        """Send the schema as ``response_format`` in the shape this endpoint takes: the one remembered,
        else each in turn until one is accepted (then remembered); none when it takes neither."""
        remembered = self.memory.get("response_format")
        shapes = [remembered] if remembered in RESPONSE_FORMATS or remembered == "none" else [*RESPONSE_FORMATS, "none"]
        for i, shape in enumerate(shapes):
            attempt = dict(kwargs)
            if shape != "none":
                attempt["response_format"] = RESPONSE_FORMATS[shape](schema)
            try:
                completion = self._send(attempt, on_text)
            except (openai.BadRequestError, openai.UnprocessableEntityError, openai.InternalServerError) as exc:
                if i + 1 == len(shapes) or not _about_response_format(exc):
                    raise
                continue
            if shape != remembered:
                self.memory.remember(response_format=shape)
            return completion
        raise AssertionError("unreachable")  # pragma: no cover

    def _send(self, kwargs: dict[str, Any], on_text: TextCallback | None) -> Completion:
        stream = on_text is not None and not ("tools" in kwargs and self.memory.get("streams_tools") is False)
        if stream:
            assert on_text is not None
            try:
                return self._stream_with_usage(kwargs, on_text)
            except openai.InternalServerError:
                if "tools" not in kwargs or self.memory.get("streams_tools") is not None:
                    raise
                # llama-cpp-python cannot stream a tool choice: ask without a stream, and remember
                completion = self._send_once(kwargs, on_text)
                self.memory.remember(streams_tools=False)
                return completion
        return self._send_once(kwargs, on_text)

    def _stream_with_usage(self, kwargs: dict[str, Any], on_text: TextCallback) -> Completion:
        """A stream that ends with the reply's usage (``stream_options``), unless the server refuses that
        (then remembered, and streamed without)."""
        if self.memory.get("stream_usage") is False:
            return self._stream(kwargs, on_text)
        try:
            return self._stream({**kwargs, "stream_options": {"include_usage": True}}, on_text)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            if "stream_options" not in server_reason(exc)[1]:
                raise
            self.memory.remember(stream_usage=False)
            return self._stream(kwargs, on_text)

    def _send_once(self, kwargs: dict[str, Any], on_text: TextCallback | None) -> Completion:
        response = with_retries(lambda: self.client.chat.completions.create(**kwargs), wait=self._wait)
        completion = self._from_message(response)
        if on_text is not None and completion.text:
            on_text(completion.text)
        return completion

    @staticmethod
    def _from_message(response: Any) -> Completion:
        if not getattr(response, "choices", None):
            raise ProviderError("the model server returned no choices")
        choice = response.choices[0]
        message = choice.message
        calls = [
            ToolCallRequest(
                name=call.function.name or "",
                arguments=_parse_arguments(call.function.arguments or ""),
                id=call.id or "",
            )
            for call in (message.tool_calls or [])
            if getattr(call, "function", None) is not None
        ]
        usage = response.usage.model_dump() if getattr(response, "usage", None) else {}
        return Completion(text=message.content or "", tool_calls=calls, usage=usage,
                          finish_reason=choice.finish_reason or "")

    def _stream(self, kwargs: dict[str, Any], on_text: TextCallback) -> Completion:
        text_parts: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        finish = ""
        usage: dict[str, Any] = {}
        stream = with_retries(lambda: self.client.chat.completions.create(stream=True, **kwargs), wait=self._wait)
        try:
            for chunk in stream:
                if getattr(chunk, "usage", None):
                    usage = chunk.usage.model_dump()
                if not chunk.choices:
                    continue
                choice = chunk.choices[0]
                finish = choice.finish_reason or finish
                delta = choice.delta
                if delta is None:
                    continue
                if delta.content:
                    text_parts.append(delta.content)
                    on_text(delta.content)
                for call in delta.tool_calls or []:
                    slot = calls.setdefault(call.index or 0, {"id": "", "name": "", "arguments": ""})
                    if call.id:
                        slot["id"] = call.id
                    if call.function is not None:
                        slot["name"] += call.function.name or ""
                        slot["arguments"] += call.function.arguments or ""
        except httpx.HTTPError as exc:
            raise self._cut(f"{exc.__class__.__name__}: {exc}") from exc
        if not finish:
            raise self._cut("it ended without a finish_reason")
        return Completion(
            text="".join(text_parts),
            tool_calls=[
                ToolCallRequest(name=c["name"], arguments=_parse_arguments(c["arguments"]), id=c["id"])
                for _, c in sorted(calls.items())
            ],
            usage=usage,
            finish_reason=finish,
        )

    def _cut(self, how: str) -> ProviderError:
        return ProviderError(
            f"the reply from {self._where()} was cut off before it finished ({how}); the server or a proxy in "
            "between closed the stream — try again, and check the server's log"
        )


_FUNCTION_NAME = re.compile(r"functions\.([\w.-]+):?")


def _garbled_message(completion: Completion, tools: list[dict[str, Any]]) -> bool:
    """A reply that is only ``functions.NAME:`` for a tool that was sent, with no call."""
    match = _FUNCTION_NAME.fullmatch(completion.text.strip())
    names = {t.get("function", {}).get("name") for t in tools}
    return not completion.tool_calls and match is not None and match.group(1) in names


class _HeldName:
    """Streams text through, except a reply that starts like ``functions.``: held until it is known
    whether it is only a function's name (see :func:`_garbled_message`); :meth:`flush` sends it when not."""

    def __init__(self, on_text: TextCallback):
        self.on_text = on_text
        self.held = ""
        self.passing = False

    def __call__(self, piece: str) -> None:
        if self.passing:
            self.on_text(piece)
            return
        self.held += piece
        head = self.held.lstrip()
        if head and not ("functions."[: len(head)] == head[:10] or head.startswith("functions.")):
            self.flush()

    def flush(self) -> None:
        self.passing = True
        if self.held:
            self.on_text(self.held)
            self.held = ""


def _about_response_format(exc: openai.APIStatusError) -> bool:
    """Whether the server refused ``response_format`` (its shape, or having one at all)."""
    return "response_format" in server_reason(exc)[1] or exc.status_code in (400, 422)


def from_settings(settings: Settings) -> OpenAICompatProvider:
    llm = settings.llm
    preset = PRESETS.get(llm.provider, PRESETS["openai_compatible"])
    base_url = llm.base_url or preset.base_url
    model = llm.model or preset.model
    if not model:
        raise ProviderError(f"llm.model is not set; name the model that {base_url or llm.provider} serves")
    api_key = settings.resolve_api_key(preset.key_env)
    if preset.needs_key and not api_key and not llm.base_url:
        env = preset.key_env or "RIVERSE_API_KEY"
        raise ProviderError(
            f"no API key for provider {llm.provider!r}: set the {env} environment variable, "
            "or llm.api_key_env to the variable that holds it"
        )
    native = llm.tool_protocol != "json"
    return OpenAICompatProvider(
        model=model,
        base_url=base_url,
        api_key=api_key,
        name=llm.provider,
        temperature=llm.temperature,
        max_tokens=llm.max_tokens,
        timeout=llm.request_timeout,
        native_tools=native,
        memory=EndpointMemory(settings.home, endpoint_key(base_url, model)),
    )
