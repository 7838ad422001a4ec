"""Typed parameters through the whole loop: coerced before ``execute``, a violation shown to the model
naming the parameter, one chance to correct it, and the JSON schema that native calling receives."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from agent.loop import Agent
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.tools import ToolRegistry

TOOL = '''
from agent.tools import BaseTool, ToolManifest, ToolResult

class Repeat(BaseTool):
    received = []
    def manifest(self):
        return ToolManifest(
            name="repeat",
            description="Repeat a word",
            parameters={"word": "the word", "count": "how many times", "ratio": "a ratio", "loud": "shout it",
                        "style": "how to join"},
            examples=["say hi 3 times", "repeat yes twice"],
            parameter_types={"word": "string", "count": "int", "ratio": "float", "loud": "bool",
                             "style": ["spaces", "commas"]},
            required=["word", "count"],
        )
    def execute(self, params):
        Repeat.received.append(params)
        sep = ", " if params.get("style") == "commas" else " "
        text = sep.join([params["word"]] * params["count"])
        return ToolResult(success=True, data=text.upper() if params.get("loud") else text)
'''


@pytest.fixture
def registry(tmp_path: Path) -> ToolRegistry:
    """In-process (isolation: thread): the tests read what the tool class recorded of each call."""
    (tmp_path / "repeat.py").write_text(textwrap.dedent(TOOL), encoding="utf-8")
    reg = ToolRegistry({"language": "en", "tools": {}}, folders=[tmp_path], builtin=False, packages=False,
                       isolation="thread")
    assert reg.errors == []
    return reg


def received(registry: ToolRegistry) -> list[dict]:
    return type(registry.get("repeat")).received


def test_original_riverse_type_names_are_accepted_and_coerced(registry):
    provider = ScriptedProvider([
        ToolCall("repeat", {"word": "hi", "count": "3", "ratio": "0.5", "loud": "yes", "style": "Commas"}), "done",
    ])
    turn = Agent(provider, registry).ask("say hi 3 times")
    assert received(registry) == [{"word": "hi", "count": 3, "ratio": 0.5, "loud": True, "style": "commas"}]
    assert [type(v) for v in received(registry)[0].values()] == [str, int, float, bool, str]
    assert turn.tool_calls[0].data == "HI, HI, HI"
    assert turn.answer == "done"


def test_a_wrong_type_is_shown_to_the_model_which_corrects_it(registry):
    def correct_it(messages, tools):
        shown = messages[-1]
        assert shown["role"] == "tool"
        assert shown["content"] == (
            "ERROR: repeat: parameter 'count': must be an integer, got 'three'; fix it and call the tool again"
        )
        return ToolCall("repeat", {"word": "hi", "count": 3})

    provider = ScriptedProvider([ToolCall("repeat", {"word": "hi", "count": "three"}), correct_it, "hi hi hi"])
    turn = Agent(provider, registry).ask("say hi three times")
    assert [(o.status, o.success) for o in turn.tool_calls] == [("invalid", False), ("ok", True)]
    assert received(registry) == [{"word": "hi", "count": 3}]  # execute() never saw "three"
    assert turn.tool_calls[1].data == "hi hi hi"
    assert turn.answer == "hi hi hi" and len(provider.requests) == 3


def test_a_missing_required_parameter_names_it(registry):
    provider = ScriptedProvider([ToolCall("repeat", {"word": "hi"}), "sorry"])
    turn = Agent(provider, registry).ask("say hi")
    assert turn.tool_calls[0].error == "repeat: parameter 'count': is required but was not given; fix it and call the tool again"
    assert received(registry) == []


def test_the_json_schema_sent_for_native_calling_has_types_enums_and_required(registry):
    provider = ScriptedProvider(["hello"])
    Agent(provider, registry).ask("hi")
    (tool,) = provider.requests[0]["tools"]
    assert tool["function"]["name"] == "repeat"
    assert tool["function"]["parameters"] == {
        "type": "object",
        "properties": {
            "word": {"type": "string", "description": "the word"},
            "count": {"type": "integer", "description": "how many times"},
            "ratio": {"type": "number", "description": "a ratio"},
            "loud": {"type": "boolean", "description": "shout it"},
            "style": {"type": "string", "enum": ["spaces", "commas"], "description": "how to join"},
        },
        "required": ["word", "count"],
    }
