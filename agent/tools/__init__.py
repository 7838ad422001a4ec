"""Riverse's plug-in tool system.

A tool is a ``BaseTool`` subclass in a ``.py`` file in a tools folder::

    from agent.tools import BaseTool, ToolManifest, ToolResult

The ``ToolRegistry`` finds it with no registration code. Files in this folder whose names start with
``_`` are the machinery, not tools; every other file here is a built-in tool and goes through the
same registry as a user's own file.
"""

from agent.tools._base import BaseTool, ToolManifest, ToolResult
from agent.tools._registry import ToolRegistry

__all__ = ["BaseTool", "ToolManifest", "ToolResult", "ToolRegistry"]
