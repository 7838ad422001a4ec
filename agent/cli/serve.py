"""``riverse serve``: the OpenAI-compatible API and the web chat page."""

from __future__ import annotations

import click

from agent.cli.common import State, console, pass_state
from agent.i18n import t


@click.command()
@click.option("--host", metavar="ADDRESS", help="Address to bind (default: server.host, 127.0.0.1). Any other "
              "than a loopback address needs a token (server.token or RIVERSE_SERVER_TOKEN).")
@click.option("--port", type=click.IntRange(1, 65535), help="Port to listen on (default: server.port, 8787).")
@pass_state
def serve(state: State, host: str | None, port: int | None) -> None:
    """Serve the agent over HTTP: a chat page at / and an OpenAI-compatible API at /v1.

    \b
    Examples:
      riverse serve                              http://127.0.0.1:8787/
      RIVERSE_SERVER_TOKEN=... riverse serve --host 0.0.0.0
    \b
    Any OpenAI client works with base_url http://127.0.0.1:8787/v1 and model "riverse";
    tools run on the server and their calls come back in "riverse_tool_calls".
    """
    from agent.server import build_server  # FastAPI and uvicorn load only for this command

    state.overrides.update({"server.host": host, "server.port": port})
    app = state.app
    server = build_server(app)
    settings = app.settings.server
    shown = f"[{settings.host}]" if ":" in settings.host else settings.host
    url = f"http://{shown}:{settings.port}/"
    err = console(stderr=True)
    err.print(t("serve.listening", app.language, url=url, model=app.model_label()), markup=False)
    if settings.token:
        err.print(t("serve.token_needed", app.language, url=url), markup=False)
    server.run()
