"""The HTTP server: one FastAPI application over the same agent, tools and storage as the CLI.

``create_app`` builds the application (tests drive it directly); ``build_server`` checks that the
address is safe to bind and wraps it in a uvicorn server (``riverse serve`` runs it).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import uvicorn
from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from agent import __version__
from agent.app import App
from agent.server.access import AccessGuard, check_bind, is_loopback
from agent.server.errors import install_error_handlers
from agent.server.limits import BodyLimit
from agent.server.openai_api import router as openai_router
from agent.server.owners import ClientSessions
from agent.server.readiness import Readiness
from agent.server.riverse_api import router as riverse_router
from agent.server.users_api import router as users_router
from agent.server.turns import TurnService

WEB_DIR = Path(__file__).resolve().parent.parent / "web"


def create_app(app: App, *, host: str | None = None) -> FastAPI:
    """The application for ``app``; ``host`` is the address it will be bound to (default: the settings')."""
    settings = app.settings
    turns = TurnService(app)
    readiness = Readiness(app, turns.gate)

    @asynccontextmanager
    async def lifespan(api: FastAPI) -> AsyncIterator[None]:
        readiness.start()
        yield
        turns.close()

    # No /docs: its assets would come from the network, and the API is documented in the README.
    api = FastAPI(title="Riverse", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    api.state.riverse = app
    api.state.turns = turns
    api.state.readiness = readiness
    install_error_handlers(api)
    api.include_router(openai_router)
    api.include_router(riverse_router)
    api.include_router(users_router)
    api.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

    @api.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    @api.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(WEB_DIR / "favicon.svg", media_type="image/svg+xml")

    # The last added runs first: the body limit, then who may talk at all, then which client this is.
    api.add_middleware(ClientSessions, token=settings.server.token)
    api.add_middleware(AccessGuard, token=settings.server.token, loopback_only=is_loopback(host or settings.server.host),
                       store=app.store)
    api.add_middleware(BodyLimit, max_bytes=settings.server.max_body_bytes)
    return api


def build_server(app: App, *, host: str | None = None, port: int | None = None, log_level: str = "info") -> uvicorn.Server:
    """A uvicorn server for ``app``, refusing a non-loopback address without a token (port 0: any free port)."""
    server = app.settings.server
    host = host or server.host
    check_bind(host, server.token, app.language, has_users=app.store.count_users() > 0)
    config = uvicorn.Config(
        create_app(app, host=host),
        host=host,
        port=server.port if port is None else port,
        log_level=log_level,
        lifespan="on",
        ws="none",
    )
    return uvicorn.Server(config)
