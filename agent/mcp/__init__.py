"""The Model Context Protocol, both ways.

- :mod:`agent.mcp.links` and :mod:`agent.mcp.source`: MCP servers that settings name
  (``mcp.servers``) as a source of registry tools, named ``NAME_tool``, with source ``mcp:NAME``.
- :mod:`agent.mcp.serve`: ``riverse mcp serve``, every Riverse tool for any MCP client, each call run
  by Riverse's :class:`~agent.toolkit.runtime.ToolRunner` and recorded with the client as its caller.
"""
