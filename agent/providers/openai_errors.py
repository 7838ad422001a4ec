"""What an OpenAI-compatible server's failure means, said on one line with what to do, and which
failures are worth sending the request again for.

A request is sent again only where that helps: the server refused the connection (it may be starting),
answered 429 (busy), or 502/503/504 (a gateway or a server that is overloaded or restarting), with a
growing pause between tries. A timeout is never sent again: a slow local model would only take as long
once more. Nor is a 500: it is the server's own error about this request, and comes back the same.
"""

from __future__ import annotations

import re
import time
from typing import Any, Callable, TypeVar

import openai

from agent.providers.base import ProviderError, ToolsUnsupportedError

T = TypeVar("T")

RETRY_STATUSES = (429, 502, 503, 504)
MAX_TRIES = 3
FIRST_PAUSE_S = 0.5
MAX_PAUSE_S = 8.0

_VALIDATION = re.compile(r"(\d+) validation errors?", re.I)
_LOC = re.compile(r"""['"]loc['"]:\s*[(\[]([^)\]]*)[)\]]""")
_MSG = re.compile(r"""['"]msg['"]:\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")""")


def server_reason(exc: openai.APIStatusError) -> tuple[str, str]:
    """(one line of the server's reason, the whole of it). A page of validation errors becomes its
    count and the first one: the field and what is wrong with it."""
    body = exc.body
    message = ""
    if isinstance(body, dict):
        error = body.get("error", body)
        message = str(error.get("message") or error.get("detail") or "") if isinstance(error, dict) else str(error)
    message = message or str(exc.message or "")
    whole = message.strip()
    count = _VALIDATION.search(whole)
    if count:
        loc, msg = _LOC.search(whole), _MSG.search(whole)
        field = ".".join(p.strip().strip("'\"") for p in loc.group(1).split(",") if p.strip()) if loc else ""
        field = field.removeprefix("body.")
        what = (msg.group(1) or msg.group(2)) if msg else ""
        first = f"; first: {field}: {what}" if field or what else ""
        return f"{count.group(0)}{first}", whole
    line = next((part.strip() for part in whole.splitlines() if part.strip()), "")
    return (line[:300] + "…" if len(line) > 300 else line), whole


def _pause(exc: Exception, attempt: int) -> float:
    response = getattr(exc, "response", None)
    retry_after = response.headers.get("retry-after") if response is not None else None
    try:
        if retry_after is not None:
            return min(max(float(retry_after), 0.0), MAX_PAUSE_S)
    except ValueError:
        pass
    return min(FIRST_PAUSE_S * 2**attempt, MAX_PAUSE_S)


def worth_retrying(exc: Exception) -> bool:
    if isinstance(exc, openai.APITimeoutError):
        return False
    if isinstance(exc, openai.APIConnectionError):
        return True
    return isinstance(exc, openai.APIStatusError) and exc.status_code in RETRY_STATUSES


def with_retries(send: Callable[[], T], *, tries: int = MAX_TRIES, wait: Callable[[float], Any] = time.sleep) -> T:
    """``send()``, sent again after a pause when it failed in a way worth retrying (see the module)."""
    for attempt in range(tries):
        try:
            return send()
        except openai.APIError as exc:
            if attempt + 1 >= tries or not worth_retrying(exc):
                raise
            wait(_pause(exc, attempt))
    raise AssertionError("unreachable")  # pragma: no cover


def translate(exc: openai.APIError, *, where: str, model: str, timeout: float, with_tools: bool) -> ProviderError:
    """The :class:`ProviderError` that says what went wrong and what to do."""
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError(
            f"the model server at {where} did not answer within {timeout:g} s (llm.request_timeout); a slow "
            "model may need longer: raise llm.request_timeout, or lower llm.max_tokens"
        )
    if isinstance(exc, openai.APIConnectionError):
        return ProviderError(
            f"cannot reach the model server at {where} ({exc.__class__.__name__}); "
            "is it running, and is llm.base_url right?"
        )
    if not isinstance(exc, openai.APIStatusError):
        return ProviderError(f"the model server at {where} failed: {exc}")
    reason, whole = server_reason(exc)
    status = exc.status_code
    if status == 401:
        return ProviderError(
            f"{where} rejected the API key (401); set it with llm.api_key_env or the provider's "
            "environment variable (for example OPENAI_API_KEY)", whole)
    if status == 404:
        return ProviderError(f"{where} answered 404 for model {model!r}; check llm.model and llm.base_url", whole)
    if status in (400, 422) and with_tools:
        return ToolsUnsupportedError(f"{where} rejected a request with native tools ({status}: {reason})", whole)
    if status in (400, 422):
        return ProviderError(f"{where} rejected the request ({status}): {reason}", whole)
    more = " (riverse ask --verbose shows all of it)" if whole != reason else ""
    return ProviderError(f"{where} answered HTTP {status}: {reason}{more}", whole)
