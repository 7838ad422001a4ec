"""``riverse serve``: an OpenAI-compatible API and a web chat page over the Riverse agent."""

from agent.server.access import ServerAccessError, check_bind, is_loopback
from agent.server.asgi import build_server, create_app

__all__ = ["ServerAccessError", "build_server", "check_bind", "create_app", "is_loopback"]
