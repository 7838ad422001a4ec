"""Riverse's plug-in tool system.

A tool is a ``BaseTool`` subclass in a ``.py`` file in a tools folder::

    from agent.tools import BaseTool, ToolManifest, ToolResult

The ``ToolRegistry`` finds it with no registration code. Every file in this folder is a built-in tool
and goes through the same registry, and the same scan, as a user's own file (files whose names start
with ``_`` are skipped). The machinery behind these names is in :mod:`agent.toolkit`.
"""

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.registry import ToolRegistry

__all__ = ["BaseTool", "ToolManifest", "ToolResult", "ToolRegistry"]
