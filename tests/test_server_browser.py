"""The web page in a real browser: Playwright drives Debian's Chromium, headless, against ``riverse serve``.

Needs ``apt-get install -y chromium`` (and ``fonts-noto-cjk`` for Chinese and Japanese text in the
screenshot) and the ``playwright`` Python package; no browser is downloaded. Select with ``-m browser``.
The README's screenshots come from tests/test_web_layout.py.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.app import App
from agent.providers.fake import ScriptedProvider, ToolCall
from tests.helpers.live_server import serving

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]

NOTE_TOOL = '''
from agent.tools import BaseTool, ToolManifest, ToolResult

class NoteTool(BaseTool):
    def manifest(self):
        return ToolManifest(name="save_note", description="Save a note", parameters={"text": "the note"},
                            examples=["note that I like tea", "remember to call Bob"], risk="write")

    def execute(self, params):
        return ToolResult(success=True, data="saved: " + params.get("text", ""))
'''


@pytest.fixture
def browser_page(tmp_path) -> Iterator:
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed (pip install playwright)")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's Chromium is not installed: apt-get update && apt-get install -y chromium")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport={"width": 1280, "height": 820}, locale="en-US",
        )
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


def answer_from_results(messages, tools) -> str:
    """The scripted model's answer, written from the tool results it was given."""
    results = [m["content"] for m in messages if m["role"] == "tool"]
    return f"`2**10` is 1024 ({results[0]}). The time in Tokyo: {results[1].split(': ', 1)[1]}."  # Markdown


def test_page_streams_an_answer_and_shows_each_tool_call(browser_page, riverse_home, tmp_path):
    provider = ScriptedProvider([
        "Good morning! Ask me anything.",
        "Noted: Bob's number is saved.",
        [ToolCall("calculator", {"expression": "2**10"}), ToolCall("current_time", {"timezone": "Tokyo"})],
        answer_from_results,
    ])
    app = App(home=str(riverse_home), provider=provider)
    app.agent().ask("Good morning")  # earlier conversations, for the sidebar
    app.agent().ask("Remember Bob's number")
    page = browser_page
    with serving(app) as base:
        page.goto(base + "/")
        page.wait_for_selector("body[data-ready]")
        page.wait_for_selector(".conversations li[data-id]")
        assert page.locator(".conversations li[data-id]").count() == 2
        page.fill("#input", "What is 2**10, and what time is it in Tokyo?")
        page.keyboard.press("Enter")
        answer = page.locator(".msg.assistant:not(.pending) .bubble").last
        answer.wait_for(timeout=15000)
        assert answer.inner_text().startswith("2**10 is 1024 (2**10 = 1024). The time in Tokyo:")
        assert answer.locator("code").inner_text() == "2**10"
        tools = page.locator(".msg.assistant .tool")
        assert tools.count() == 2
        calc = tools.nth(0)
        assert calc.locator(".tool-name").inner_text() == "calculator"
        assert "expression=2**10" in calc.locator(".params").inner_text()
        assert calc.locator(".preview").inner_text() == "2**10 = 1024"
        assert calc.locator(".pill").inner_text() == "done" and "ms" in calc.locator(".duration").inner_text()
        assert "Asia/Tokyo" in tools.nth(1).locator(".preview").inner_text()
        page.wait_for_selector(".conversations li.active")
        assert page.locator(".conversations li[data-id]").count() == 3
        assert page.locator("#title").inner_text() == "What is 2**10, and what time is it in Tokyo?"
        shot = tmp_path / "screenshot-web.png"
        page.screenshot(path=str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        # Past conversations open with their messages.
        page.locator(".conversations li[data-id]", has_text="Remember Bob").click()
        page.wait_for_selector(".msg.assistant .bubble >> text=Noted: Bob's number is saved.")
        assert page.locator(".msg.user .bubble").inner_text() == "Remember Bob's number"


def test_page_asks_for_approval_and_switches_language(browser_page, riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "note.py").write_text(NOTE_TOOL, encoding="utf-8")
    provider = ScriptedProvider([ToolCall("save_note", {"text": "buy tea"}), "I saved your note."])
    app = App(home=str(riverse_home), provider=provider)
    page = browser_page
    with serving(app) as base:
        page.goto(base + "/")
        page.wait_for_selector("body[data-ready]")
        page.select_option("#language", "ja")
        assert page.locator("#send").inner_text() == "送信"
        page.select_option("#language", "zh")
        assert page.locator("#send").inner_text() == "发送"
        assert page.locator("#input").get_attribute("placeholder") == "给 Riverse 发消息…"
        page.fill("#input", "记一下：买茶")
        page.click("#send")
        approval = page.locator(".approval")
        approval.wait_for(timeout=15000)
        assert approval.locator("div").first.inner_text() == "允许运行 save_note（写入）吗？"
        approval.locator("button.yes").click()
        answer = page.locator(".msg.assistant:not(.pending) .bubble").last
        answer.wait_for(timeout=15000)
        assert answer.inner_text() == "I saved your note."
        tool = page.locator(".tool.ok")
        assert tool.locator(".pill").inner_text() == "完成"
        assert tool.locator(".preview").inner_text() == "saved: buy tea"
        page.reload()
        page.wait_for_selector("body[data-ready]")  # the page sets the language after it has read /api/info
        assert page.locator("#language").input_value() == "zh"  # the choice is remembered
    stored = app.store.tool_calls(tool="save_note")
    assert [(c["success"], c["approval"]) for c in stored] == [(True, "approved")]
