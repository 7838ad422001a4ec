"""Any OpenAI-compatible chat endpoint, through the official ``openai`` SDK.

Works with OpenAI, DeepSeek, Qwen (DashScope compatible mode), vLLM, the llama.cpp server, LM Studio
and Ollama's ``/v1``. Presets fill in the base URL, the environment variable of the API key and a
default model; every one of them can be overridden in settings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agent.config import Settings
from agent.providers.base import (
    Capabilities,
    Completion,
    ProviderError,
    TextCallback,
    ToolCallRequest,
    ToolsUnsupportedError,
)


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
    """Chat completions over HTTP. ``client`` may be injected (tests, custom transports)."""

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
    ):
        self.name = name
        self.model = model
        self.base_url = base_url
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.capabilities = Capabilities(native_tools=native_tools)
        if client is None:
            from openai import OpenAI

            # Local servers accept any key; the SDK insists on one.
            client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=1)
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
        import openai

        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": max_tokens or self.max_tokens,
        }
        if tools:
            kwargs["tools"] = tools
        try:
            if on_text is None:
                response = self.client.chat.completions.create(**kwargs)
                return self._from_message(response)
            return self._stream(kwargs, on_text)
        except openai.APIConnectionError as exc:
            raise ProviderError(
                f"cannot reach the model server at {self._where()} ({exc.__class__.__name__}); "
                "is it running, and is llm.base_url right?"
            ) from exc
        except openai.AuthenticationError as exc:
            raise ProviderError(
                f"{self._where()} rejected the API key (401); set it with llm.api_key_env or the provider's "
                "environment variable (for example OPENAI_API_KEY)"
            ) from exc
        except openai.NotFoundError as exc:
            raise ProviderError(
                f"{self._where()} answered 404 for model {self.model!r}; check llm.model and llm.base_url"
            ) from exc
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            if tools:
                raise ToolsUnsupportedError(
                    f"{self._where()} rejected a request with native tools ({exc.status_code})"
                ) from exc
            raise ProviderError(f"{self._where()} rejected the request ({exc.status_code}): {exc.message}") from exc
        except openai.APIStatusError as exc:
            raise ProviderError(f"{self._where()} answered HTTP {exc.status_code}: {exc.message}") from exc

    @staticmethod
    def _from_message(response: Any) -> Completion:
        if not getattr(response, "choices", None):
            raise ProviderError("the model server returned no choices")
        message = response.choices[0].message
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
        return Completion(text=message.content or "", tool_calls=calls, usage=usage)

    def _stream(self, kwargs: dict[str, Any], on_text: TextCallback) -> Completion:
        text_parts: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        stream = self.client.chat.completions.create(stream=True, **kwargs)
        for chunk in stream:
            if not chunk.choices:
                continue
            delta = chunk.choices[0].delta
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
        return Completion(
            text="".join(text_parts),
            tool_calls=[
                ToolCallRequest(name=c["name"], arguments=_parse_arguments(c["arguments"]), id=c["id"])
                for _, c in sorted(calls.items())
            ],
        )


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
    )
