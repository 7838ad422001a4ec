"""A scripted model that writes its answer slowly, piece by piece, so a test can stop it midway."""

from __future__ import annotations

import threading
from typing import Any

from agent.providers.base import Completion, TextCallback
from agent.providers.fake import ScriptedProvider

BLOCKING_TOOL = '''
import time
from agent.tools import BaseTool, ToolManifest, ToolResult

class Slow(BaseTool):
    def manifest(self):
        return ToolManifest(name="slow_job", description="A job that takes long", parameters={"what": "the job"},
                            examples=["run the long job"], timeout=60)

    def execute(self, params):
        time.sleep(30)
        return ToolResult(success=True, data="finished " + params.get("what", ""))
'''


class SlowProvider(ScriptedProvider):
    """Plays its script, streaming text answers ``piece`` characters every ``pause`` seconds; records
    how many pieces it wrote (``written``) and whether a stream was cut short (``cut``)."""

    def __init__(self, script: list[Any], *, pause: float = 0.05, piece: int = 4):
        super().__init__(script)
        self.pause = pause
        self.piece = piece
        self.written = 0
        self.cut = threading.Event()
        self.started = threading.Event()  # the first piece went out

    def complete(self, messages: list[dict[str, Any]], *, on_text: TextCallback | None = None, **kwargs: Any) -> Completion:
        completion = super().complete(messages, **kwargs)  # no on_text: this class streams it itself
        text = completion.text or ""
        if on_text is None or not text:
            return completion
        delay = threading.Event()  # never set: waits are the model's pace, not synchronisation
        try:
            for start in range(0, len(text), self.piece):
                on_text(text[start : start + self.piece])
                self.written += 1
                self.started.set()
                delay.wait(self.pause)
        except BaseException:
            self.cut.set()
            raise
        return completion
