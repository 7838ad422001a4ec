"""``riverse ask`` through a real model server: llama-cpp-python's own OpenAI-compatible server
(``python -m llama_cpp.server``, chat format ``chatml-function-calling``) running the embedded model.

One server for the module, on a free loopback port; only the calculator is enabled, at temperature 0,
so that each question costs a few short requests. A proxy in front of the server (``FaultProxy``)
empties a reply, cuts a stream and holds a request past ``llm.request_timeout``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.app import App
from agent.cli import cli
from agent.providers.llama.model_files import ensure_default_model
from tests.helpers.fault_proxy import FaultProxy
from tests.helpers.llama_server import llama_server

pytestmark = [pytest.mark.model, pytest.mark.server]

CALC = "What is 17*23?"
SMALL_TALK = "Hello, how are you?"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("llama-server")
    model = ensure_default_model(folder / "models", progress=False)
    with llama_server(model, folder / "server.log") as base:
        yield base


def use(home: Path, base_url: str, protocol: str, **llm: object) -> None:
    """Settings for ``home``: the server, the protocol, temperature 0 and only the calculator."""
    others = [m.name for m in App(home=str(home)).registry.manifests() if m.name != "calculator"]
    settings = {
        "llm": {"provider": "llamacpp", "base_url": base_url, "model": "local", "tool_protocol": protocol,
                "temperature": 0, "request_timeout": 300, "max_tokens": 128, **llm},
        "tools": {name: {"enabled": False} for name in others},
    }
    (home / "settings.yaml").write_text(json.dumps(settings), encoding="utf-8")


def ask(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(cli, ["ask", "--json", *args])
    assert result.exit_code in (0, 4), result.output
    return result.exit_code, json.loads(result.stdout)


def calls(out: dict) -> list[tuple[str, str]]:
    return [(c["name"], c["data"]) for c in out["tool_calls"]]


def test_the_check_finds_the_router_and_auto_uses_it(server, riverse_home):
    use(riverse_home, server, "auto")
    checked = CliRunner().invoke(cli, ["model", "--check", "--json"])
    assert checked.exit_code == 0, checked.output
    report = json.loads(checked.stdout)
    # with this chat format the model never calls a tool natively; it follows the router's schema
    assert report["checks"]["native"]["ok"] is False
    assert report["checks"]["schema"]["ok"] is True and report["protocol"] == "router"
    status, out = ask(CALC)
    assert status == 0 and calls(out) == [("calculator", "17 * 23 = 391")] and "391" in out["answer"]


def test_router_calls_the_calculator_and_answers_small_talk_without_a_tool(server, riverse_home):
    use(riverse_home, server, "router")
    status, out = ask(CALC)
    assert status == 0 and [name for name, _ in calls(out)] == ["calculator"]
    assert out["tool_calls"][0]["data"].endswith("= 391") and "391" in out["answer"]
    status, out = ask(SMALL_TALK)
    assert status == 0 and out["tool_calls"] == [] and out["answer"].strip() and out["notices"] == []


def test_json_calls_the_calculator_and_answers_small_talk_without_a_tool(server, riverse_home):
    use(riverse_home, server, "json")
    status, out = ask(CALC)
    # one call: a call the model asks for again is not run again, and the answer comes from its result
    assert status == 0 and [name for name, _ in calls(out)] == ["calculator"]
    assert out["tool_calls"][0]["data"].endswith("= 391") and "391" in out["answer"]
    assert "tool_calls" not in out["answer"] and "&#34;" not in out["answer"]
    status, out = ask(SMALL_TALK)
    assert status == 0 and out["tool_calls"] == [] and out["answer"].strip()


def test_native_answers_in_words_where_the_server_garbles_a_message(server, riverse_home):
    use(riverse_home, server, "native")
    for question in (SMALL_TALK, CALC):
        status, out = ask(question)
        assert status == 0 and out["tool_calls"] == []
        assert out["answer"].strip() and not out["answer"].startswith("functions.")


def test_empty_cut_and_slow_replies_are_reported(server, riverse_home):
    with FaultProxy(server.removesuffix("/v1"), mode="empty") as proxy:
        use(riverse_home, proxy.base_url, "json")
        status, out = ask(SMALL_TALK)
        assert status == 4 and out["notices"] and out["notices"][0].startswith("The model returned an empty reply")
        proxy.mode = "cut"
        result = CliRunner().invoke(cli, ["ask", SMALL_TALK])
        assert result.exit_code == 1 and "was cut off before it finished" in result.stderr
        assert len(proxy.requests) == 2
        proxy.mode, proxy.delay_s = "delay", 60
        use(riverse_home, proxy.base_url, "json", request_timeout=2)
        result = CliRunner().invoke(cli, ["ask", SMALL_TALK])
        assert result.exit_code == 1 and "did not answer within 2 s (llm.request_timeout)" in result.stderr
        assert len(proxy.requests) == 3  # a timeout is not sent again
