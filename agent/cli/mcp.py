"""``riverse mcp``: Riverse's tools for MCP clients."""

from __future__ import annotations

from pathlib import Path

import click

from agent.cli.common import State, console, pass_state


@click.group()
def mcp() -> None:
    """The Model Context Protocol: serve Riverse's tools to MCP clients (Claude Desktop, IDEs, ...).

    MCP servers whose tools Riverse uses are set in settings.yaml under mcp.servers.
    """


@mcp.command("serve")
@click.option("--http", "http", is_flag=True, help="Speak streamable HTTP at http://HOST:PORT/mcp instead of stdio.")
@click.option("--host", metavar="ADDRESS", help="With --http: the address to bind (default: mcp.serve.host, "
              "127.0.0.1). Any other than a loopback address needs a token (server.token or RIVERSE_SERVER_TOKEN).")
@click.option("--port", type=click.IntRange(0, 65535), help="With --http: the port (default: mcp.serve.port, 8788; 0: any free port).")
@click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="With --http: require the token kept in FILE, on 127.0.0.1 too. A missing FILE is created, "
              "readable by you only, with a new token shown once.")
@pass_state
def serve(state: State, http: bool, host: str | None, port: int | None, token_file: Path | None) -> None:
    """Serve every available Riverse tool to an MCP client. Each call is validated, approved by the
    risk policy, time-limited, isolated and logged as in riverse (riverse logs shows the client).

    \b
    Examples:
      riverse mcp serve                         stdio: what an MCP client's config starts
      riverse mcp serve --http                  http://127.0.0.1:8788/mcp
      RIVERSE_SERVER_TOKEN=... riverse mcp serve --http --host 0.0.0.0
    \b
    A tool that needs approval (write, execute) is refused unless mcp.serve.approval is allow, or ask
    (the client's user is asked, when the client can).
    """
    import anyio

    from agent.mcp.serve import RiverseMcpServer
    from agent.mcp.texts import text

    if not http and (host or port is not None or token_file):
        raise click.UsageError("--host, --port and --token-file go with --http")
    app = state.app
    err = console(stderr=True)
    server = RiverseMcpServer(app)
    count = len(app.registry)
    if not http:
        err.print(text("stdio", app.language, count=count), markup=False)
        try:
            anyio.run(server.serve_stdio)
        except KeyboardInterrupt:  # Ctrl-C: the client's servers and workers end with this process
            pass
        return
    from agent.server.access import check_bind, token_from_file

    settings = app.settings
    host = host or settings.mcp.serve.host
    port = settings.mcp.serve.port if port is None else port
    token, created = settings.server.token, False
    if token_file is not None:
        token, created = token_from_file(token_file.expanduser(), app.language)
    check_bind(host, token, app.language)
    shown = f"[{host}]" if ":" in host else host

    def started(bound: int | None) -> None:
        err.print(text("http", app.language, count=count, url=f"http://{shown}:{bound or port}/mcp"), markup=False)
        if created:
            err.print(text("new_token", app.language, path=token_file, token=token), markup=False)
        if token:
            err.print(text("token", app.language), markup=False)

    try:
        anyio.run(server.serve_http, host, port, token, started)
    except KeyboardInterrupt:
        pass
