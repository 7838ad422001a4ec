"""The web page's layout in Chromium: the drawer on a phone, the tools panel, the model's state while
the server prepares it, keyboard and focus, scrolling, and the README's screenshots.

UPDATE_DOCS_SCREENSHOT=1 also writes docs/screenshots/{desktop,phone}-{en,zh,ja}.png (Chinese and
Japanese need ``fonts-noto-cjk``).
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.app import App
from agent.loop import Event
from agent.loop.protocols import NativeProtocol
from agent.providers.fake import ScriptedProvider, ToolCall
from agent.router.texts import PREPARING
from agent.server.readiness import Readiness
from tests.helpers.live_server import serving
from tests.helpers.slow import SlowProvider
from tests.test_server_browser import CHROMIUM, FLAGS, NOTE_TOOL, browser_page  # noqa: F401 - the fixture

pytestmark = pytest.mark.browser

SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
ANSWER = ".msg.assistant:not(.pending) .bubble"


@pytest.fixture
def phone_page(tmp_path) -> Iterator:
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed (pip install playwright)")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's Chromium is not installed: apt-get update && apt-get install -y chromium")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-phone"), executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="en-US",
        )
        try:
            yield context.pages[0] if context.pages else context.new_page()
        finally:
            context.close()


def open_page(page, base: str, failures: list[str] | None = None) -> None:
    if failures is not None:
        page.on("response", lambda r: r.status >= 400 and failures.append(f"{r.status} {r.url}"))
        page.on("pageerror", lambda e: failures.append(f"script error: {e}"))
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready]")


def ask(page, text: str) -> None:
    page.fill("#input", text)
    page.keyboard.press("Enter")


# ------------------------------------------------------------------------------ phones
def test_the_drawer_on_a_phone_holds_everything_the_sidebar_does(phone_page, riverse_home):
    provider = ScriptedProvider(["Tea is ready.", "Coffee too."])
    app = App(home=str(riverse_home), provider=provider)
    app.agent().ask("Make tea")
    page = phone_page
    failures: list[str] = []
    with serving(app) as base:
        open_page(page, base, failures)
        assert not page.locator("#sidebar").is_visible() and page.locator("#menu").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
        page.tap("#menu")
        page.wait_for_function("getComputedStyle(document.getElementById('sidebar')).transform === 'none'")
        for control in ("#new-chat", ".conversations li[data-id] .name", ".conversations .delete", "#language"):
            box = page.locator(control).first.bounding_box()
            assert page.locator(control).first.is_visible(), control
            assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["height"] >= 32, (control, box)
        assert page.locator("#menu").get_attribute("aria-expanded") == "true"
        page.tap(".conversations li[data-id] .name")  # opening a conversation closes the drawer
        page.wait_for_selector(f"{ANSWER} >> text=Tea is ready.")
        page.wait_for_function("!document.body.classList.contains('drawer-open')")
        assert not page.locator("#sidebar").is_visible()
        page.tap("#menu")
        page.select_option("#language", "ja")
        assert page.locator("#new-chat").inner_text() == "新しいチャット"
        page.tap("#backdrop", position={"x": 370, "y": 400})  # a tap beside the drawer closes it
        page.wait_for_function("!document.body.classList.contains('drawer-open')")
        page.tap("#menu")
        page.keyboard.press("Escape")
        page.wait_for_function("!document.body.classList.contains('drawer-open')")
        page.tap("#menu")
        page.on("dialog", lambda d: d.accept())
        page.tap(".conversations .delete")
        page.wait_for_selector(".conversations .none", state="attached")  # it was open: a new chat begins
        assert app.store.conversations() == []
        ask(page, "coffee?")
        page.wait_for_selector(f"{ANSWER} >> text=Coffee too.")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert failures == []


# --------------------------------------------------------------------------- tools panel
def test_the_tools_panel_lists_every_tool_and_why_one_is_unavailable(browser_page, riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "note.py").write_text(NOTE_TOOL, encoding="utf-8")
    app = App(home=str(riverse_home), provider=ScriptedProvider(default="ok"),
              overrides={"tools": {"web_search": {"enabled": False}}})
    described = {t["name"]: t for t in app.registry.describe()["tools"]}
    page = browser_page
    with serving(app) as base:
        open_page(page, base)
        page.wait_for_selector("#model-state[data-state='ready']")
        assert page.locator("#model-name").inner_text() == "fake"
        assert page.locator("#model-note").inner_text() == "ready"
        page.click("#tools-button")
        page.wait_for_selector(".tool-item")
        items = page.locator(".tool-item")
        assert sorted(items.evaluate_all("nodes => nodes.map(n => n.dataset.tool)")) == sorted(described)
        note = page.locator(".tool-item[data-tool='save_note']")
        assert note.locator(".description").inner_text() == "Save a note"
        assert note.locator(".risk").inner_text() == "write"
        assert note.locator(".source").inner_text() == f"Source: {described['save_note']['source']}"
        off = page.locator(".tool-item[data-tool='web_search']")
        assert off.get_attribute("class") == "tool-item off"
        assert off.locator(".availability").inner_text() == "unavailable"
        assert "tools.web_search.enabled: false" in off.locator(".why").inner_text()
        assert off.locator(".example").first.is_disabled()
        assert page.locator("#panel-model").inner_text().split() == ["Model:", "fake", "ready"]
        note.locator(".example", has_text="remember to call Bob").click()  # an example to try
        assert page.locator("#tools-panel").is_hidden()
        assert page.locator("#input").input_value() == "remember to call Bob"
        assert page.evaluate("document.activeElement.id") == "input"
        page.select_option("#language", "zh")
        page.click("#tools-button")
        assert off.locator(".availability").inner_text() == "不可用"
        page.keyboard.press("Escape")
        assert page.locator("#tools-panel").is_hidden()


def test_the_page_shows_the_tool_prompts_being_prepared(browser_page, riverse_home, monkeypatch):
    gates = {language: threading.Event() for language in ("en", "zh", "ja")}

    def gated(self):
        self._set("loading")
        return lambda language: gates[language].wait(30)

    monkeypatch.setattr(Readiness, "_preparer", gated)
    app = App(home=str(riverse_home), provider=ScriptedProvider(default="ok"))
    page = browser_page
    note = "#model-note"
    with serving(app) as base:
        open_page(page, base)
        page.wait_for_function(f"document.querySelector('{note}').textContent === 'preparing tool prompts 0/3'")
        assert page.locator("#model-state").get_attribute("data-state") == "preparing"
        gates["en"].set()
        page.wait_for_function(f"document.querySelector('{note}').textContent === 'preparing tool prompts 1/3'")
        page.select_option("#language", "ja")
        assert page.locator(note).inner_text() == "ツールプロンプトを準備中 1/3"
        gates["zh"].set()
        gates["ja"].set()
        page.wait_for_function(f"document.querySelector('{note}').textContent === '準備完了'")
        assert page.locator("#model-state").get_attribute("data-state") == "ready"


# --------------------------------------------------------------- focus, scrolling, faults
def test_new_chat_focus_approval_placement_and_no_missing_files(browser_page, riverse_home):
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "note.py").write_text(NOTE_TOOL, encoding="utf-8")
    provider = ScriptedProvider(["Hi!", ToolCall("save_note", {"text": "tea"}), "Saved."])
    app = App(home=str(riverse_home), provider=provider)
    page = browser_page
    failures: list[str] = []
    with serving(app) as base:
        open_page(page, base, failures)
        assert page.evaluate("document.activeElement.id") == "input"
        page.fill("#input", "hello")
        page.click("#send")
        assert page.evaluate("document.activeElement.id") == "input"  # focus stays in the input
        page.wait_for_selector(f"{ANSWER} >> text=Hi!")
        page.click("#new-chat")
        assert page.locator("#welcome h2").inner_text() == "What can I do for you?"
        assert page.locator("#messages > *").count() == 1  # the welcome only, nothing empty left behind
        assert page.evaluate("document.activeElement.id") == "input"
        ask(page, "note tea")
        approval = page.locator(".tool[data-tool='save_note'] .approval")  # inside the card it is about
        approval.wait_for()
        approval.locator("button.yes").click()
        assert page.evaluate("document.activeElement.id") == "input"
        page.wait_for_selector(f"{ANSWER} >> text=Saved.")
        assert page.locator("#messages > .msg").count() == 2 and page.locator("#welcome").count() == 0
        favicon = page.request.get(base + "/favicon.ico")
        assert favicon.status == 200 and favicon.headers["content-type"].startswith("image/svg+xml")
    assert failures == []


def test_streaming_does_not_pull_a_reader_back_down(browser_page, riverse_home):
    lines = "".join(f"Line {n} of a long answer that keeps coming.\n\n" for n in range(200))
    provider = SlowProvider([lines], pause=0.02, piece=12)
    app = App(home=str(riverse_home), provider=provider)
    page = browser_page
    with serving(app) as base:
        open_page(page, base)
        ask(page, "write a lot")
        box = "document.getElementById('messages')"
        page.wait_for_function(f"{box}.scrollHeight > {box}.clientHeight + 400")
        page.wait_for_function(f"{box}.scrollHeight - {box}.scrollTop - {box}.clientHeight < 100")  # it follows
        page.mouse.move(640, 300)
        page.mouse.wheel(0, -2000)  # the reader scrolls up
        page.wait_for_function(f"{box}.scrollTop < 200")
        grown = page.evaluate(f"{box}.scrollHeight") + 300
        page.wait_for_function(f"{box}.scrollHeight > {grown}")
        assert page.evaluate(f"{box}.scrollTop") < 200  # it stays where the reader is
        page.keyboard.press("Escape")
        page.wait_for_selector(".note.stopped")


# --------------------------------------------------------------------------- screenshots
def shoot(page, path: Path) -> None:
    page.screenshot(path=str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000
    if os.environ.get("UPDATE_DOCS_SCREENSHOT"):  # refresh the README's pictures on purpose only
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SHOTS / path.name)


QUESTIONS = {
    "en": ("What is 15% of 80, and what time is it in Tokyo?", "**15% of 80 is 12.** In Tokyo it is `{time}`."),
    "zh": ("80 的 15% 是多少？东京现在几点？", "**80 的 15% 是 12。** 东京现在是 `{time}`。"),
    "ja": ("80 の 15% はいくつ？東京は今何時？", "**80 の 15% は 12 です。** 東京は今 `{time}` です。"),
}


@pytest.mark.parametrize("language", ["en", "zh", "ja"])
def test_screenshots_at_desktop_and_phone_width(browser_page, riverse_home, tmp_path, language):
    question, answer = QUESTIONS[language]

    def reply(messages, tools) -> str:
        results = [m["content"] for m in messages if m["role"] == "tool"]
        found = re.search(r"\d{1,2}:\d{2}", results[1])
        return answer.format(time=found.group(0) if found else results[1])

    provider = ScriptedProvider([
        [ToolCall("calculator", {"expression": "15% of 80"}), ToolCall("current_time", {"timezone": "Tokyo"})], reply])
    app = App(home=str(riverse_home), provider=provider, overrides={"language": language})
    page = browser_page
    with serving(app) as base:
        page.goto(base + "/")
        page.evaluate(f"localStorage.setItem('riverse.lang', '{language}')")
        open_page(page, base)
        ask(page, question)
        page.wait_for_selector(f"{ANSWER} strong")
        page.wait_for_selector("#model-state[data-state='ready']")
        page.locator("#input").blur()
        shoot(page, tmp_path / f"desktop-{language}.png")
        page.set_viewport_size({"width": 390, "height": 844})
        page.evaluate("(box => { box.scrollTop = box.scrollHeight; })(document.getElementById('messages'))")
        shoot(page, tmp_path / f"phone-{language}.png")
        page.click("#menu")
        page.wait_for_function("getComputedStyle(document.getElementById('sidebar')).transform === 'none'")
        assert page.locator("#new-chat").is_visible()
        if language == "en":
            shoot(page, tmp_path / "phone-menu-en.png")


def test_notes_follow_the_pages_language_not_the_messages(browser_page, riverse_home, monkeypatch):
    """The router says it is preparing a tool prompt in the message's language; the page words it in its own."""
    original = NativeProtocol.next

    def next_with_notice(self, agent, messages, manifests, emit):
        emit(Event("notice", text=PREPARING["en"]))  # as the router does for an English message
        return original(self, agent, messages, manifests, emit)

    monkeypatch.setattr(NativeProtocol, "next", next_with_notice)
    app = App(home=str(riverse_home), provider=ScriptedProvider(default="Hello."))
    page = browser_page
    with serving(app) as base:
        open_page(page, base)
        page.select_option("#language", "zh")
        ask(page, "hello in English")
        page.wait_for_selector(f"{ANSWER} >> text=Hello.")
        assert page.locator(".msg.assistant .note").inner_text() == "正在为这种语言准备工具提示（只需一次，之后的消息会立即开始）。"
