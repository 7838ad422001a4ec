"""Small MCP servers for the tests, written with the SDK's low-level server, started over stdio.

``python -m tests.helpers.mcp_servers MODE``:

- ``tools``: a server with well-behaved tools (``echo``, ``add``, ``order`` with an enum, numbers and a
  nested object, ``fail`` that returns an error result, ``pid``), one that ends its own process mid-call
  (``crash``), one that never answers (``hang``) and one whose ``inputSchema`` is broken (``broken``).
- ``silent``: reads its input and never answers, not even the handshake.
- ``secret``: one tool, ``env``, that returns whether the variable RIVERSE_TEST_SECRET is set (never its value).
"""

from __future__ import annotations

import json
import os
import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

TOOLS = [
    types.Tool(name="echo", description="Repeat a text back.",
               input_schema={"type": "object", "properties": {"text": {"type": "string", "description": "what to repeat"}},
                             "required": ["text"]}),
    types.Tool(name="add", description="Add two integers.",
               input_schema={"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                             "required": ["a", "b"]}),
    types.Tool(name="order", description="Order an item in a size.",
               input_schema={"type": "object", "properties": {
                   "size": {"type": "string", "enum": ["small", "large"], "description": "the size"},
                   "price-limit": {"type": "number", "description": "the most to pay"},
                   "item": {"type": "object", "properties": {"name": {"type": "string"}, "qty": {"type": "integer"}},
                            "required": ["name"], "description": "what to order"}},
                   "required": ["size", "item"]}),
    types.Tool(name="fail", description="Always fails.", input_schema={"type": "object", "properties": {}}),
    types.Tool(name="crash", description="Ends the server's process during the call.",
               input_schema={"type": "object", "properties": {}}),
    types.Tool(name="hang", description="Never answers.", input_schema={"type": "object", "properties": {}}),
    types.Tool(name="pid", description="The server's process id.", input_schema={"type": "object", "properties": {}}),
    types.Tool(name="broken", description="A tool with a broken schema.",
               input_schema={"type": "object", "properties": ["not", "an", "object"]}),
]


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=TOOLS)


def _text(value: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=value)], is_error=error)


async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    args = dict(params.arguments or {})
    if params.name == "echo":
        return _text(str(args.get("text")))
    if params.name == "add":
        return _text(str(args["a"] + args["b"]))
    if params.name == "order":
        return _text(json.dumps(args, sort_keys=True))
    if params.name == "fail":
        return _text("the order book is closed", error=True)
    if params.name == "crash":
        os._exit(3)
    if params.name == "hang":
        await anyio.sleep_forever()
    if params.name == "pid":
        return _text(str(os.getpid()))
    if params.name == "env":
        return _text("set" if os.environ.get("RIVERSE_TEST_SECRET") else "unset")
    return _text(f"no tool {params.name}", error=True)


async def serve(tools: list[types.Tool]) -> None:
    async def listing(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    server = Server("riverse-test", on_list_tools=listing, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main(mode: str) -> None:
    if mode == "silent":
        sys.stdin.read()
        return
    if mode == "secret":
        tools = [types.Tool(name="env", description="Whether the secret is set.",
                            input_schema={"type": "object", "properties": {}})]
        print("starting the secret server", file=sys.stderr)
        anyio.run(serve, tools)
        return
    anyio.run(serve, TOOLS)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tools")
