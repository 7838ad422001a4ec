"""``riverse serve`` for real: uvicorn on 127.0.0.1, the official ``openai`` client, tokens and addresses."""

from __future__ import annotations

import httpx
import openai
import pytest
from click.testing import CliRunner

from agent.app import App
from agent.cli import cli
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.server import ServerAccessError, build_server
from tests.helpers.live_server import serving

TOKEN = "live-token-0123456789abcdef"


def calc_script() -> list:
    return [ToolCall("calculator", {"expression": "2**10"}), "2 to the 10th is 1024."]


def test_official_openai_client_without_streaming(riverse_home):
    app = App(home=str(riverse_home), provider=ScriptedProvider(calc_script()))
    with serving(app) as base:
        client = openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0)
        models = [m.id for m in client.models.list()]
        completion = client.chat.completions.create(
            model="riverse", messages=[{"role": "user", "content": "what is 2**10?"}]
        )
        with pytest.raises(openai.NotFoundError, match="'gpt-9' does not exist"):
            client.chat.completions.create(model="gpt-9", messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(openai.BadRequestError, match="'messages' must be a non-empty list"):
            client.chat.completions.create(model="riverse", messages=[])
    assert models[0] == "riverse"
    message = completion.choices[0].message
    assert message.content == "2 to the 10th is 1024."
    assert completion.choices[0].finish_reason == "stop"
    [call] = message.model_extra["riverse_tool_calls"]
    assert (call["name"], call["data"], call["success"]) == ("calculator", "2**10 = 1024", True)


def test_official_openai_client_streaming(riverse_home):
    app = App(home=str(riverse_home), provider=ScriptedProvider(calc_script()))
    with serving(app) as base:
        client = openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0)
        stream = client.chat.completions.create(
            model="riverse", messages=[{"role": "user", "content": "what is 2**10?"}], stream=True
        )
        chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == "2 to the 10th is 1024."
    events = [c.model_extra["riverse_event"]["type"] for c in chunks if "riverse_event" in c.model_extra]
    assert events == ["tool_start", "tool_end"]
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert [t["name"] for t in chunks[-1].model_extra["riverse_tool_calls"]] == ["calculator"]


def test_with_a_token_a_request_without_it_gets_401(riverse_home):
    app = App(home=str(riverse_home), provider=ScriptedProvider(default="hello"), overrides={"server.token": TOKEN})
    with serving(app) as base:
        bare = httpx.get(f"{base}/v1/models")
        wrong = openai.OpenAI(base_url=f"{base}/v1", api_key="not-the-token-0123456789", max_retries=0)
        with pytest.raises(openai.AuthenticationError, match="needs its token"):
            wrong.models.list()
        right = openai.OpenAI(base_url=f"{base}/v1", api_key=TOKEN, max_retries=0)
        answer = right.chat.completions.create(model="riverse", messages=[{"role": "user", "content": "hi"}])
    assert bare.status_code == 401
    assert bare.json()["error"]["type"] == "authentication_error"
    assert TOKEN not in bare.text
    assert answer.choices[0].message.content == "hello"


@pytest.mark.parametrize("host", ["0.0.0.0", "192.0.2.10", "::", "my-laptop.local"])
def test_binding_beyond_loopback_without_a_token_refuses_to_start(riverse_home, host):
    app = App(home=str(riverse_home), provider=ScriptedProvider())
    with pytest.raises(ServerAccessError, match=f"refusing to serve on {host} without a token"):
        build_server(app, host=host, port=0)


def test_binding_beyond_loopback_needs_a_long_enough_token(riverse_home):
    short = App(home=str(riverse_home), provider=ScriptedProvider(), overrides={"server.token": "abc"})
    with pytest.raises(ServerAccessError, match="at least 16 characters"):
        build_server(short, host="0.0.0.0", port=0)
    good = App(home=str(riverse_home), provider=ScriptedProvider(), overrides={"server.token": TOKEN})
    assert build_server(good, host="0.0.0.0", port=0).config.host == "0.0.0.0"  # built, never started


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "localhost", "::1"])
def test_loopback_addresses_need_no_token(riverse_home, host):
    app = App(home=str(riverse_home), provider=ScriptedProvider())
    assert build_server(app, host=host, port=0).config.host == host


def test_cli_refuses_a_public_address_without_a_token(riverse_home):
    result = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0", "--port", "8799"])
    assert result.exit_code == 1
    assert "refusing to serve on 0.0.0.0 without a token" in result.output
    assert "RIVERSE_SERVER_TOKEN" in result.output


def test_cli_token_comes_from_the_environment(riverse_home, monkeypatch):
    monkeypatch.setenv("RIVERSE_SERVER_TOKEN", "abc")
    result = CliRunner().invoke(cli, ["-l", "zh", "serve", "--host", "0.0.0.0"])
    assert result.exit_code == 1
    assert "服务器令牌太短" in result.output
    assert "abc" not in result.output  # the token itself is never printed


def test_usage_is_counted_when_the_provider_reports_none(riverse_home):
    app = App(home=str(riverse_home), provider=ScriptedProvider(calc_script() + calc_script()))
    with serving(app) as base:
        client = openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0)
        completion = client.chat.completions.create(
            model="riverse", messages=[{"role": "user", "content": "what is 2**10?"}]
        )
        chunks = list(client.chat.completions.create(
            model="riverse", messages=[{"role": "user", "content": "what is 2**10?"}], stream=True
        ))
    usage = completion.usage
    # "what is 2**10?" -> what, is, 2, *, *, 10, ? ; "2 to the 10th is 1024." -> 2, to, the, 10, th, is, 102, 4, .
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (7, 9, 16)
    assert usage.model_extra["riverse_counted"] is True
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens == 16


def test_usage_is_the_providers_own_when_it_reports_it(riverse_home):
    from agent.providers.openai_compat import OpenAICompatProvider
    from tests.helpers.openai_server import FakeOpenAIServer

    replies = [{"tool_calls": [{"name": "calculator", "arguments": {"expression": "2**10"}}]}, {"content": "1024."}]
    with FakeOpenAIServer(replies) as model_server:
        provider = OpenAICompatProvider(model="test-model", base_url=model_server.base_url, native_tools=True)
        app = App(home=str(riverse_home), provider=provider)
        with serving(app) as base:
            client = openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0)
            completion = client.chat.completions.create(
                model="riverse", messages=[{"role": "user", "content": "what is 2**10?"}]
            )
    assert completion.choices[0].message.content == "1024."
    # two requests to the model server, each reported as 1 prompt + 1 completion token
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (2, 2)
    assert completion.usage.model_extra["riverse_counted"] is False


def test_client_side_tools_are_refused_with_a_clear_400(riverse_home):
    app = App(home=str(riverse_home), provider=ScriptedProvider(calc_script()))
    tool = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}
    with serving(app) as base:
        client = openai.OpenAI(base_url=f"{base}/v1", api_key="unused", max_retries=0)
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(model="riverse", messages=[{"role": "user", "content": "hi"}], tools=[tool])
    assert refused.value.body["param"] == "tools"
    assert "'tools' is not supported: Riverse runs its own tools on the server" in refused.value.body["message"]
