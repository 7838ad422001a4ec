"""The agent loop: one turn from the user's message through tool calls to the answer.

- :mod:`agent.loop.agent`: :class:`Agent`, the loop itself.
- :mod:`agent.loop.protocols`: how tools are put to a model (native function calling, JSON in the prompt).
- :mod:`agent.loop.replies`: reading tool calls out of a model's text.
- :mod:`agent.loop.prompts`: the loop's prompt texts in English, Chinese and Japanese.
- :mod:`agent.loop.events`: what a turn reports while it runs.
"""

from agent.loop.agent import Agent
from agent.loop.events import Event, EventCallback, Reply, TurnResult
from agent.loop.protocols import PROTOCOLS, JsonProtocol, NativeProtocol, ToolProtocol, make_protocol

__all__ = ["Agent", "Event", "EventCallback", "Reply", "TurnResult", "PROTOCOLS", "JsonProtocol", "NativeProtocol", "ToolProtocol", "make_protocol"]
