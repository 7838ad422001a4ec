"""What Riverse has found out about one OpenAI-compatible endpoint and model, remembered in the home.

Servers differ in what they accept: the shape of ``response_format`` (OpenAI's ``json_schema``, or
``json_object`` with a ``schema`` as llama.cpp's servers take it, or none), whether a stream may carry
tool calls, and which tool protocol works best with the model behind them. Each is found out once,
by a request that worked or was refused, or by ``riverse model --check``, and kept in
``endpoints.json`` in the Riverse home under ``base_url`` and model, so that the next run does not
ask again.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

FILENAME = "endpoints.json"
_LOCK = threading.Lock()


def endpoint_key(base_url: str | None, model: str) -> str:
    return f"{(base_url or 'https://api.openai.com/v1').rstrip('/')} {model}"


class EndpointMemory:
    """The findings for one endpoint and model: a dict of names to values, read and written through."""

    def __init__(self, home: Path | None, key: str):
        self.path = home / FILENAME if home is not None else None
        self.key = key
        self._values: dict[str, Any] = self._read().get(key, {})

    def _read(self) -> dict[str, Any]:
        if self.path is None or not self.path.is_file():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # a damaged file only costs asking the server again
        return data if isinstance(data, dict) else {}

    def get(self, name: str, default: Any = None) -> Any:
        return self._values.get(name, default)

    def remember(self, **values: Any) -> None:
        """Keep ``values`` (in memory, and in the home's file when there is a home)."""
        self._values.update(values)
        if self.path is None:
            return
        with _LOCK:
            data = self._read()
            entry = data.get(self.key) if isinstance(data.get(self.key), dict) else {}
            data[self.key] = {**entry, **values}
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
                temporary.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
                os.replace(temporary, self.path)
            except OSError:
                pass  # a read-only home: the finding still holds for this run
