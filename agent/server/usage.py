"""A turn's token usage for the OpenAI endpoint: the provider's own figures, or counted.

:class:`CountingProvider` adds up the ``usage`` of every completion the turn asks for (the decision, the
tool rounds and the answer). Where the provider reports none (the embedded model), the turn's text is
counted instead: the request's messages as the prompt, the answer as the completion, one token per word,
number, punctuation mark or Chinese/Japanese character, close to what a tokenizer makes of them.
"""

from __future__ import annotations

import re
from typing import Any

from agent.providers.base import Completion, Provider, capabilities_of

_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W\d_]+|\d{1,3}|[^\w\s]", re.UNICODE)


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


class CountingProvider:
    """``provider``, with the usage of every completion added up. Everything else is the provider's own."""

    def __init__(self, provider: Provider):
        self._provider = provider
        self.name = provider.name
        self.capabilities = capabilities_of(provider)
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.unreported = 0  # completions that came without usage

    def complete(self, messages: list[dict[str, Any]], **kwargs: Any) -> Completion:
        completion = self._provider.complete(messages, **kwargs)
        prompt, produced = completion.usage.get("prompt_tokens"), completion.usage.get("completion_tokens")
        if isinstance(prompt, int) and isinstance(produced, int):
            self.prompt_tokens += prompt
            self.completion_tokens += produced
        else:
            self.unreported += 1
        return completion

    def __getattr__(self, name: str) -> Any:  # open_reply, embed, load, ... as the provider declares them
        return getattr(self._provider, name)

    def usage(self, prompt_texts: list[str], answer: str) -> dict[str, Any]:
        """The turn's usage in the OpenAI shape; ``riverse_counted`` says whether it was counted."""
        counted = self.unreported > 0 or self.prompt_tokens + self.completion_tokens == 0
        prompt = sum(count_tokens(text) for text in prompt_texts) if counted else self.prompt_tokens
        produced = count_tokens(answer) if counted else self.completion_tokens
        return {"prompt_tokens": prompt, "completion_tokens": produced, "total_tokens": prompt + produced,
                "riverse_counted": counted}
