"""Loading what settings and plug-ins name as ``"module:attribute"`` (providers, protocols, factories)."""

from __future__ import annotations

import importlib
from typing import Any

from agent.errors import RiverseError


def load_object(target: str) -> Any:
    """The object that ``"package.module:attribute"`` names, imported now."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise RiverseError(f"{target!r} is not of the form 'package.module:attribute'")
    module = importlib.import_module(module_name)
    try:
        return getattr(module, attr)
    except AttributeError:
        raise RiverseError(f"{module_name} has no attribute {attr!r} (named by {target!r})") from None
