"""``riverse serve``: the OpenAI-compatible API and the web chat page."""

from __future__ import annotations

from pathlib import Path

import click

from agent.cli.common import State, console, pass_state
from agent.cli.team_texts import text as team_text
from agent.i18n import t


@click.command()
@click.option("--host", metavar="ADDRESS", help="Address to bind (default: server.host, 127.0.0.1). Any other "
              "than a loopback address needs a token (server.token or RIVERSE_SERVER_TOKEN).")
@click.option("--port", type=click.IntRange(1, 65535), help="Port to listen on (default: server.port, 8787).")
@click.option("--token-file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Require the token kept in FILE, on 127.0.0.1 too (every user of this machine can reach a "
              "loopback port). A missing FILE is created, readable by you only, with a new token shown once.")
@pass_state
def serve(state: State, host: str | None, port: int | None, token_file: Path | None) -> None:
    """Serve the agent over HTTP: a chat page at / and an OpenAI-compatible API at /v1.

    \b
    Examples:
      riverse serve                              http://127.0.0.1:8787/
      riverse serve --token-file ~/.riverse/server-token   only token holders, even on 127.0.0.1
      RIVERSE_SERVER_TOKEN=... riverse serve --host 0.0.0.0
    \b
    Any OpenAI client works with base_url http://127.0.0.1:8787/v1 and model "riverse";
    tools run on the server and their calls come back in "riverse_tool_calls".
    """
    from agent.server import build_server  # FastAPI and uvicorn load only for this command
    from agent.server.access import token_from_file

    state.overrides.update({"server.host": host, "server.port": port})
    app = state.app
    settings = app.settings.server
    new_token = None
    if token_file is not None:
        settings.token, created = token_from_file(token_file.expanduser(), app.language)
        new_token = settings.token if created else None
    server = build_server(app)
    shown = f"[{settings.host}]" if ":" in settings.host else settings.host
    url = f"http://{shown}:{settings.port}/"
    err = console(stderr=True)
    err.print(t("serve.listening", app.language, url=url, model=app.model_label()), markup=False)
    if new_token:
        err.print(t("serve.token_file_new", app.language, path=token_file, token=new_token, url=url), markup=False)
    users = app.store.count_users()
    if users:
        err.print(team_text("serve_users", app.language, count=users, url=url), markup=False)
    elif settings.token:
        err.print(t("serve.token_needed", app.language, url=url), markup=False)
    server.run()
