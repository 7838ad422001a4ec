"""With the embedded model, the server prepares the tool prompts when it starts: the page shows the
progress, and the first message starts at once, without the preparing note.

Uses the real model (``-m model``) and Chromium (``-m browser``).
"""

from __future__ import annotations

import time

import pytest

from agent.app import App
from agent.providers.llama.model_files import ensure_default_model
from tests.helpers.live_server import serving
from tests.test_server_browser import browser_page  # noqa: F401 - the fixture

pytestmark = [pytest.mark.browser, pytest.mark.model]


def test_the_first_message_does_not_wait_for_a_tool_prompt(browser_page, riverse_home):
    ensure_default_model(riverse_home / "models", progress=False)
    app = App(home=str(riverse_home))
    page = browser_page
    with serving(app) as base:
        page.goto(base + "/")
        page.wait_for_selector("body[data-ready]")
        page.evaluate("""() => {
          const node = document.getElementById('model-state');
          window.__states = [node.dataset.state];
          new MutationObserver(() => window.__states.push(node.dataset.state)).observe(node, { attributes: true });
        }""")
        page.wait_for_selector("#model-state[data-state='ready']", timeout=600_000)
        states = set(page.evaluate("window.__states"))
        assert states & {"loading", "preparing"}, states  # the progress was in view
        assert page.locator("#model-note").inner_text() == "ready"
        status = page.request.get(base + "/api/status").json()
        assert status["prepared"] == ["en", "zh", "ja"] and status["error"] == ""
        started = time.monotonic()
        page.fill("#input", "What is 17 * 23?")
        page.keyboard.press("Enter")
        page.wait_for_selector(".msg.assistant .tool", timeout=60_000)
        first_tool = time.monotonic() - started
        page.wait_for_selector(".msg.assistant:not(.pending) .bubble", timeout=120_000)
        notes = page.locator(".msg.assistant .note").all_inner_texts()
        assert page.locator(".tool .tool-name").first.inner_text() == "calculator"
        assert "391" in page.locator(".tool .preview").first.inner_text()
    assert not [n for n in notes if "Preparing" in n], notes
    print(f"first message: the tool card after {first_tool:.1f} s")
