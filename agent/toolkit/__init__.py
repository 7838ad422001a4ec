"""Riverse's tool framework: what a tool is, how tools are found, and how a call runs.

Tool authors import from :mod:`agent.tools` (``BaseTool``, ``ToolManifest``, ``ToolResult``,
``ToolRegistry``); this package holds the machinery behind those names:

- :mod:`agent.toolkit.base`: the contract (``BaseTool``, ``ToolManifest``, ``ToolResult``).
- :mod:`agent.toolkit.registry`: ``ToolRegistry``, which finds tools in folders and packages.
- :mod:`agent.toolkit.validate`: manifest checks at discovery, naming file, line and class.
- :mod:`agent.toolkit.schema`: parameter types, JSON schemas and the coercion of values.
- :mod:`agent.toolkit.runtime`: running a call (validation, approval, worker, time limit, output cap).
- :mod:`agent.toolkit.paths`: the file roots that file tools stay inside.
- :mod:`agent.toolkit.descriptors`: opening, listing and walking by descriptor, never through a link.
- :mod:`agent.toolkit.net`: fetching a URL a model chose without reaching the user's own network.
- :mod:`agent.toolkit.texts`, :mod:`agent.toolkit.tool_settings`: helpers for tools' messages and settings.
- :mod:`agent.toolkit.scaffold`: ``riverse tools new``'s templates.
"""
