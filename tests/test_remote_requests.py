"""What Riverse sends to an OpenAI-compatible server and how it reports what comes back, against local
stand-ins: a scripted server, and a proxy that empties, cuts or holds replies."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.providers.base import ProviderError
from agent.providers.endpoints import FILENAME, EndpointMemory, endpoint_key
from agent.providers.openai_compat import OpenAICompatProvider
from tests.helpers.fault_proxy import FaultProxy
from tests.helpers.openai_server import FakeOpenAIServer

CALC = {"name": "calculator", "arguments": {"expression": "6*7"}}
VALIDATION_PAGE = "\n".join(
    ["7 validation errors:"]
    + [f"  {{'type': 'string_type', 'loc': ('body', 'messages', {i}, 'content'), 'msg': 'Input should be a valid "
       f"string', 'input': None}}" for i in range(7)]
    + ["", '  File "/srv/llama_cpp/server/errors.py", line 171, in custom_route_handler']
)


def write_settings(home: Path, base_url: str, protocol: str, **llm: object) -> None:
    extra = "".join(f"  {key}: {value}\n" for key, value in llm.items())
    (home / "settings.yaml").write_text(
        f"llm:\n  provider: openai_compatible\n  base_url: {base_url}\n  model: test-model\n"
        f"  tool_protocol: {protocol}\n{extra}", encoding="utf-8")


def ask(*args: str):
    return CliRunner().invoke(cli, ["ask", *args])


def test_tools_go_with_an_explicit_tool_choice_and_the_tool_turn_with_empty_content(riverse_home):
    with FakeOpenAIServer([{"tool_calls": [CALC]}, {"content": "42."}]) as server:
        write_settings(riverse_home, server.base_url, "native")
        result = ask("--json", "what is 6*7?")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["answer"] == "42."
    first, second = server.requests
    assert first["tool_choice"] == "auto" and [t["function"]["name"] for t in first["tools"]].count("calculator") == 1
    [assistant] = [m for m in second["messages"] if m["role"] == "assistant" and m.get("tool_calls")]
    assert assistant["content"] == ""


def test_the_schema_goes_in_the_response_format_the_endpoint_takes_and_is_remembered(riverse_home):
    refused = {"status": 500, "error": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
               "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}"}
    replies = [refused, {"content": '{"tool": "none"}'}, {"content": "Hello!"}, {"content": '{"tool": "none"}'},
               {"content": "Hi again."}]
    with FakeOpenAIServer(replies) as server:
        write_settings(riverse_home, server.base_url, "router")
        first = ask("hello")
        second = ask("hi")
    assert (first.exit_code, second.exit_code) == (0, 0), first.output + second.output
    assert "Hello!" in first.output and "Hi again." in second.output
    formats = [r.get("response_format", {}).get("type") for r in server.requests]
    # json_schema refused (not retried), json_object with the schema taken; the next run asks that at once
    assert formats == ["json_schema", "json_object", None, "json_object", None]
    assert server.requests[1]["response_format"]["schema"]["anyOf"][-1]["properties"]["tool"] == {"const": "none"}
    remembered = json.loads((riverse_home / FILENAME).read_text())
    assert remembered[endpoint_key(server.base_url, "test-model")]["response_format"] == "json_object"


def test_an_entity_escaped_decision_is_read(riverse_home):
    escaped = "{&#34;tool&#34;: &#34;calculator&#34;, &#34;params&#34;: {&#34;expression&#34;: &#34;6*7&#34;}}"
    with FakeOpenAIServer([{"content": escaped}, {"content": "6*7 is 42."}]) as server:
        write_settings(riverse_home, server.base_url, "router")
        result = ask("--json", "what is 6*7?")
    out = json.loads(result.output)
    assert [(c["name"], c["params"], c["data"]) for c in out["tool_calls"]] == [
        ("calculator", {"expression": "6*7"}, "6*7 = 42")]
    assert out["answer"] == "6*7 is 42." and out["notices"] == []


@pytest.mark.parametrize("protocol", ["json", "native"])
def test_an_empty_reply_is_a_notice_and_exit_status_4(riverse_home, protocol):
    replies = [{"content": '{"tool_calls": []}'}] if protocol == "json" else [{"content": ""}]
    with FakeOpenAIServer(replies) as server:
        write_settings(riverse_home, server.base_url, protocol)
        as_json = ask("--json", "hello")
        with FaultProxy(server.base_url.removesuffix("/v1"), mode="empty") as proxy:
            write_settings(riverse_home, proxy.base_url, protocol)
            plain = ask("hello")
    assert as_json.exit_code == 4 and plain.exit_code == 4
    out = json.loads(as_json.stdout)
    assert out["answer"].startswith("The model returned an empty reply: no text and no tool call.")
    assert out["notices"] == [out["answer"]]
    assert "The model returned an empty reply" in plain.stdout


def test_a_cut_stream_is_an_error_not_an_answer(riverse_home):
    with FakeOpenAIServer([{"content": "The answer is forty-two, as computed."}]) as server:
        with FaultProxy(server.base_url.removesuffix("/v1"), mode="cut") as proxy:
            write_settings(riverse_home, proxy.base_url, "json")
            result = ask("hello")
    assert result.exit_code == 1
    assert "was cut off before it finished (it ended without a finish_reason)" in result.stderr


def test_an_answer_cut_at_max_tokens_says_so(riverse_home):
    class Truncating(FakeOpenAIServer):
        def chunks(self, reply):
            out = super().chunks(reply)
            out[-1]["choices"][0]["finish_reason"] = "length"
            return out

    with Truncating([{"content": "A long answer that goes on and"}]) as server:
        write_settings(riverse_home, server.base_url, "json")
        result = ask("--json", "tell me a story")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["notices"] == [
        "The answer was cut off at the length limit (llm.max_tokens); raise it for longer answers."]


def test_a_timeout_is_named_and_not_sent_twice(riverse_home):
    with FakeOpenAIServer([]) as server:
        with FaultProxy(server.base_url.removesuffix("/v1"), mode="delay", delay_s=30) as proxy:
            write_settings(riverse_home, proxy.base_url, "json", request_timeout=1)
            result = ask("hello")
            sent = len(proxy.requests)
    assert result.exit_code == 1
    assert "did not answer within 1 s (llm.request_timeout)" in result.stderr
    assert "is it running" not in result.stderr
    assert sent == 1 and server.requests == []


def test_a_page_of_validation_errors_is_one_line_and_all_of_it_with_verbose(riverse_home):
    with FakeOpenAIServer([{"status": 500, "error": VALIDATION_PAGE}] * 2) as server:
        write_settings(riverse_home, server.base_url, "json")
        short = ask("hello")
        verbose = ask("--verbose", "hello")
    assert short.exit_code == 1
    assert short.stderr.strip().splitlines() == [
        f"Error: {server.base_url} answered HTTP 500: 7 validation errors; first: messages.0.content: Input should "
        "be a valid string (riverse ask --verbose shows all of it)"]
    assert "custom_route_handler" in verbose.stderr and "messages', 6, 'content'" in verbose.stderr
    assert len(server.requests) == 2  # a 500 is not sent again


def test_native_tools_rejected_suggest_the_protocol_setting(riverse_home):
    with FakeOpenAIServer([{"status": 400, "error": "tools are not supported"}]) as server:
        write_settings(riverse_home, server.base_url, "native")
        result = ask("what is 6*7?")
    assert result.exit_code == 1
    assert "rejected a request with native tools (400: tools are not supported); set llm.tool_protocol to json" \
        in result.stderr


def test_retries_only_where_they_help_with_growing_pauses():
    pauses: list[float] = []
    with FakeOpenAIServer([{"status": 503, "error": "loading"}, {"status": 429, "error": "busy"},
                           {"content": "ok"}]) as server:
        provider = OpenAICompatProvider(model="m", base_url=server.base_url, wait=pauses.append)
        assert provider.complete([{"role": "user", "content": "hi"}]).text == "ok"
    assert pauses == [0.5, 1.0] and len(server.requests) == 3
    with FakeOpenAIServer([{"status": 500, "error": "bad"}, {"content": "never"}]) as server:
        provider = OpenAICompatProvider(model="m", base_url=server.base_url, wait=pauses.append)
        with pytest.raises(ProviderError, match="answered HTTP 500: bad"):
            provider.complete([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 1


def test_a_refused_connection_is_tried_three_times_then_named():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    pauses: list[float] = []
    provider = OpenAICompatProvider(model="m", base_url=f"http://127.0.0.1:{port}/v1", wait=pauses.append)
    with pytest.raises(ProviderError, match="cannot reach the model server at .* is it running"):
        provider.complete([{"role": "user", "content": "hi"}])
    assert pauses == [0.5, 1.0]


def test_a_checked_protocol_is_what_auto_uses(riverse_home):
    from agent.app import App

    EndpointMemory(riverse_home, endpoint_key("http://127.0.0.1:9/v1", "test-model")).remember(protocol="router")
    write_settings(riverse_home, "http://127.0.0.1:9/v1", "auto")
    assert App(home=str(riverse_home)).agent().protocol.name == "router"
    write_settings(riverse_home, "http://127.0.0.1:9/v1", "json")
    assert App(home=str(riverse_home)).agent().protocol.name == "json"


def test_a_reply_that_is_only_a_function_name_is_asked_again_without_tools(riverse_home):
    # llama-cpp-python's chatml-function-calling: the model chose a message, the grammar let it write only this
    with FakeOpenAIServer([{"content": "functions.calculator:"}, {"content": "Hello! I am fine."}]) as server:
        write_settings(riverse_home, server.base_url, "native")
        result = ask("hello, how are you?")
    assert result.exit_code == 0 and result.stdout == "Hello! I am fine.\n"
    assert [r["tool_choice"] for r in server.requests] == ["auto", "none"]


def test_double_escaped_json_is_read():
    from agent.loop.replies import parse_reply

    parsed = parse_reply("{&amp;#34;tool&amp;#34;: &amp;#34;calculator&amp;#34;, &amp;#34;params&amp;#34;: "
                         "{&amp;#34;expression&amp;#34;: &amp;#34;1+1&amp;#34;}}")
    assert [(c.name, c.arguments) for c in parsed.calls] == [("calculator", {"expression": "1+1"})]
    assert parse_reply("Tom &amp; Jerry").text == "Tom &amp; Jerry"  # text is left as the model wrote it


def test_a_tool_call_where_an_answer_was_due_is_not_printed_as_the_answer(riverse_home):
    call = '{"tool_calls": [{"name": "calculator", "params": {"expression": "6*7"}}]}'
    with FakeOpenAIServer([{"content": call}] * 3) as server:
        write_settings(riverse_home, server.base_url, "json", max_steps=1)
        result = ask("--json", "what is 6*7?")
    out = json.loads(result.stdout)
    assert out["answer"].startswith("I stopped after 1 rounds of tool calls")
    assert "tool_calls" not in out["answer"]


def test_a_server_that_cannot_stream_tool_calls_is_asked_without_a_stream_and_remembered(riverse_home):
    refused = {"status": 500, "error": "Automatic streaming tool choice is not supported"}
    with FakeOpenAIServer([refused, {"tool_calls": [CALC]}, {"content": "6*7 is 42."}]) as server:
        write_settings(riverse_home, server.base_url, "native")
        result = ask("what is 6*7?")
    assert result.exit_code == 0 and result.stdout == "6*7 is 42.\n"
    assert [bool(r.get("stream")) for r in server.requests] == [True, False, False]
    remembered = json.loads((riverse_home / FILENAME).read_text())
    assert remembered[endpoint_key(server.base_url, "test-model")]["streams_tools"] is False


def test_an_answer_written_as_json_where_an_answer_was_due_is_read(riverse_home):
    call = '{"tool_calls": [{"name": "calculator", "params": {"expression": "6*7"}}]}'
    with FakeOpenAIServer([{"content": call}, {"content": '{"answer": "6*7 is 42."}'}]) as server:
        write_settings(riverse_home, server.base_url, "json", max_steps=1)
        result = ask("what is 6*7?")
    assert result.exit_code == 0 and result.stdout == "6*7 is 42.\n"


@pytest.mark.parametrize("native_reply, protocol", [
    ({"tool_calls": [{"name": "calculator", "arguments": {"expression": "17*23"}}]}, "native"),
    ({"content": "17*23 is 391."}, "router"),
])
def test_model_check_probes_and_remembers_the_best_protocol(riverse_home, native_reply, protocol):
    replies = [
        native_reply,
        {"content": '{"tool": "calculator", "params": {"expression": "17*23"}}'},
        {"content": '{"tool": "none"}'},
        {"content": '{"tool_calls": [{"name": "calculator", "params": {"expression": "17*23"}}]}'},
        {"content": "17*23 is 391."},
    ]
    with FakeOpenAIServer(replies) as server:
        write_settings(riverse_home, server.base_url, "auto")
        result = CliRunner().invoke(cli, ["model", "--check", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {name: c["ok"] for name, c in report["checks"].items()} == {
        "native": protocol == "native", "schema": True, "json": True, "results": True}
    assert report["protocol"] == protocol
    remembered = json.loads((riverse_home / FILENAME).read_text())[endpoint_key(server.base_url, "test-model")]
    assert remembered["protocol"] == protocol
    assert server.requests[0]["tool_choice"] == "auto" and server.requests[1]["response_format"]["type"] == "json_schema"
