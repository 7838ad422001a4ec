"""The web chat in Chromium: Stop, copy, answer again, edit, and Markdown that nothing hostile survives.

Playwright drives Debian's Chromium, headless (see tests/test_server_browser.py); select with ``-m browser``.
"""

from __future__ import annotations

import json

import pytest

from agent.app import App
from agent.providers.fake import ScriptedProvider, ToolCall
from tests.helpers.live_server import serving
from tests.helpers.slow import SlowProvider
from tests.test_server_browser import browser_page  # noqa: F401 - the fixture

pytestmark = pytest.mark.browser

LONG = "Once upon a time there was a river that ran all the way to the sea. " * 30
ANSWER = ".msg.assistant:not(.pending) .bubble"


def open_page(page, base: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready]")


def ask(page, text: str) -> None:
    page.fill("#input", text)
    page.keyboard.press("Enter")


def stored(app: App, cid: str | None = None) -> list[tuple[str, str]]:
    cid = cid or app.store.latest_conversation()
    return [(m.role, m.content) for m in app.store.messages(cid)]


# ---------------------------------------------------------------------------------- stop
@pytest.mark.parametrize("how", ["button", "escape"])
def test_stop_mid_answer_keeps_what_was_said(browser_page, riverse_home, how):
    provider = SlowProvider([LONG], pause=0.03)
    app = App(home=str(riverse_home), provider=provider)
    page = browser_page
    with serving(app) as base:
        open_page(page, base)
        ask(page, "tell me a long story")
        page.wait_for_function("document.querySelector('.msg.assistant .bubble').textContent.length > 40")
        shown = page.evaluate("document.querySelector('.msg.assistant .bubble').textContent")  # before the stop
        assert page.locator("#stop").is_visible() and not page.locator("#send").is_visible()
        if how == "button":
            page.click("#stop")
        else:
            page.keyboard.press("Escape")
        page.wait_for_selector(".msg.assistant .note.stopped")
        said = page.locator(ANSWER).inner_text()
        assert page.locator(".note.stopped").inner_text() == "Stopped. What was said so far is kept."
        assert page.locator("#send").is_visible() and not page.locator("#stop").is_visible()
        assert page.evaluate("document.activeElement.id") == "input"
    assert provider.cut.is_set() and provider.written < len(LONG) // provider.piece
    [(_, question), (role, answer)] = stored(app)
    assert (question, role) == ("tell me a long story", "assistant")
    assert " ".join(answer.split()).startswith(" ".join(shown.split())), (shown, answer)  # all that was shown is kept
    # what was shown (more than 40 characters with the bubble's own whitespace) and no more than was written
    assert len(" ".join(shown.split())) <= len(answer) < len(LONG) and LONG.startswith(answer)
    assert said.split() == answer.split()


# ------------------------------------------------------------------- copy, again, edit
def test_copy_an_answer_a_tool_result_and_a_code_block(browser_page, riverse_home):
    provider = ScriptedProvider([ToolCall("calculator", {"expression": "2**10"}),
                                 "It is **1024**.\n\n```python\nprint(2 ** 10)\n```"])
    app = App(home=str(riverse_home), provider=provider)
    page = browser_page
    with serving(app) as base:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
        open_page(page, base)
        ask(page, "what is 2**10?")
        page.wait_for_selector(ANSWER)
        clipboard = "navigator.clipboard.readText()"
        page.click(".msg.assistant > .actions .copy")
        assert page.evaluate(clipboard) == "It is **1024**.\n\n```python\nprint(2 ** 10)\n```"
        assert page.locator(".msg.assistant > .actions .copy").inner_text() == "Copied"
        page.click(".tool .actions .copy")
        assert page.evaluate(clipboard) == "2**10 = 1024"
        page.click(".markdown .code .copy")
        assert page.evaluate(clipboard) == "print(2 ** 10)"
        page.click(".msg.user .actions .copy")
        assert page.evaluate(clipboard) == "what is 2**10?"


def test_answer_again_replaces_the_last_answer(browser_page, riverse_home):
    provider = ScriptedProvider(["Hello there.", "A first answer.", "A better answer."])
    app = App(home=str(riverse_home), provider=provider)
    page = browser_page
    with serving(app) as base:
        open_page(page, base)
        ask(page, "hi")
        page.wait_for_selector(f"{ANSWER} >> text=Hello there.")
        ask(page, "explain rivers")
        page.wait_for_selector(f"{ANSWER} >> text=A first answer.")
        assert page.locator(".act.regenerate").count() == 1  # on the last answer only
        page.click(".msg.assistant >> nth=1 >> .act.regenerate")
        page.wait_for_selector(f"{ANSWER} >> text=A better answer.")
        assert page.locator(".msg.user .bubble").all_inner_texts() == ["hi", "explain rivers"]
        assert page.locator(".msg.assistant .bubble").all_inner_texts() == ["Hello there.", "A better answer."]
        page.reload()
        page.wait_for_selector("body[data-ready]")
        page.click(".conversations li[data-id] .name")
        page.wait_for_selector(f"{ANSWER} >> text=A better answer.")
        assert page.locator(".msg.assistant .bubble").all_inner_texts() == ["Hello there.", "A better answer."]
    assert stored(app) == [("user", "hi"), ("assistant", "Hello there."),
                           ("user", "explain rivers"), ("assistant", "A better answer.")]
    assert [m["content"] for m in provider.last_messages if m["role"] == "user"] == ["hi", "explain rivers"]


def test_edit_a_message_and_send_it_again(browser_page, riverse_home):
    provider = ScriptedProvider(["Paris is in France.", "It rains a lot.", "Tokyo is in Japan."])
    app = App(home=str(riverse_home), provider=provider)
    page = browser_page
    with serving(app) as base:
        open_page(page, base)
        ask(page, "where is Paris?")
        page.wait_for_selector(f"{ANSWER} >> text=Paris is in France.")
        ask(page, "and the weather?")
        page.wait_for_selector(f"{ANSWER} >> text=It rains a lot.")
        page.click(".msg.user >> nth=0 >> .act.edit")
        editor = page.locator(".msg.user .editor textarea")
        assert editor.input_value() == "where is Paris?"
        assert page.evaluate("document.activeElement.closest('.editor') !== null")
        editor.fill("where is Tokyo?")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{ANSWER} >> text=Tokyo is in Japan.")
        assert page.locator(".msg.user .bubble").all_inner_texts() == ["where is Tokyo?"]
        assert page.locator(".msg.assistant .bubble").all_inner_texts() == ["Tokyo is in Japan."]
        # Cancel leaves the message as it was.
        page.click(".msg.user .act.edit")
        page.locator(".msg.user .editor textarea").fill("something else")
        page.click(".msg.user .editor .act.cancel")
        assert page.locator(".msg.user .editor").count() == 0
        assert page.locator(".msg.user .bubble").inner_text() == "where is Tokyo?"
    assert stored(app) == [("user", "where is Tokyo?"), ("assistant", "Tokyo is in Japan.")]


# --------------------------------------------------------------------------- markdown
HOSTILE = [
    '<img src=x onerror="window.__pwned=1">',
    '<script>window.__pwned=2</script>',
    '<svg onload="window.__pwned=3"><circle r="1"/></svg>',
    '<iframe src="javascript:window.__pwned=4"></iframe>',
    '[click me](javascript:window.__pwned=5)',
    '[encoded](jav&#x09;ascript:window.__pwned=6)',
    '[upper](JAVASCRIPT:window.__pwned=7)',
    '[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD04PC9zY3JpcHQ+)',
    '<a href="javascript:window.__pwned=9">raw link</a>',
    '![pic](x" onerror="window.__pwned=10)',
    '<details open ontoggle="window.__pwned=11">x</details>',
    '<style>body{display:none}</style>',
    '[vb](vbscript:msgbox)',
    '<form action="javascript:window.__pwned=12"><button>go</button></form>',
    '<math><mi xlink:href="javascript:window.__pwned=13">m</mi></math>',
    '`<img src=x onerror=window.__pwned=14>` and ``<b onclick="window.__pwned=15">``',
    '<div style="background:url(javascript:window.__pwned=16)" onmouseover="window.__pwned=17">hover</div>',
    '[ok](https://example.com/a?b=1) and **bold** and\n\n- item one\n- item two',
]

INSPECT = """(root) => {
  const bad = [];
  for (const node of root.querySelectorAll('*')) {
    for (const attr of node.attributes) {
      if (/^on/i.test(attr.name) || attr.name === 'style' || attr.name === 'src') bad.push(node.tagName + ' ' + attr.name);
    }
    if (['SCRIPT', 'IMG', 'SVG', 'IFRAME', 'STYLE', 'FORM', 'MATH', 'DETAILS', 'OBJECT', 'EMBED'].includes(node.tagName.toUpperCase()))
      bad.push(node.tagName);
    if (node.tagName === 'A' && node.hasAttribute('href') && !/^(https?|mailto):/.test(node.getAttribute('href')))
      bad.push('A ' + node.getAttribute('href'));
  }
  return bad;
}"""


def test_markdown_renders_and_hostile_answers_stay_inert(browser_page, riverse_home, attack_report):
    answer = "\n\n".join(HOSTILE)
    (riverse_home / "tools").mkdir()
    (riverse_home / "tools" / "echo.py").write_text(ECHO_TOOL, encoding="utf-8")
    provider = ScriptedProvider([ToolCall("echo_html", {"text": "x"}), answer])
    app = App(home=str(riverse_home), provider=provider)
    page = browser_page
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    with serving(app) as base:
        open_page(page, base)
        ask(page, "show me")
        page.wait_for_selector(ANSWER)
        bubble = page.locator(".msg.assistant .bubble")
        for link in bubble.locator("a").all():  # clicking what is left of every link runs nothing
            link.click(modifiers=["Shift"]) if link.get_attribute("href") else link.click()
        bad = bubble.evaluate(INSPECT)
        tool_bad = page.locator(".tool").evaluate(INSPECT)
        pwned = page.evaluate("window.__pwned || 0")
        assert bubble.locator("strong").inner_text() == "bold"
        assert bubble.locator("li").all_inner_texts() == ["item one", "item two"]
        assert bubble.locator("a[href='https://example.com/a?b=1']").get_attribute("rel") == "noopener noreferrer nofollow"
        assert "<img src=x onerror=window.__pwned=14>" in bubble.locator("code").first.inner_text()
        assert '<img src=x onerror="window.__pwned=1">' in bubble.inner_text()  # shown as text
        # A tool's result is text on the page, never markup.
        assert page.locator(".tool .preview").inner_text() == ECHO_OUTPUT
        assert page.locator(".tool .preview *").count() == 0
        links = bubble.locator("a").count()
    escaped = [bool(bad), bool(tool_bad), bool(pwned), bool(dialogs)]
    attack_report.record("web page: hostile Markdown and HTML in an answer or a tool result", len(HOSTILE) + 1,
                         len(bad) + len(tool_bad) + (1 if pwned else 0) + len(dialogs))
    assert not any(escaped), (bad, tool_bad, pwned, dialogs)
    assert links >= 6


ECHO_OUTPUT = '<img src=x onerror="window.__pwned=99"><script>window.__pwned=98</script>**not bold**'
ECHO_TOOL = f'''
from agent.tools import BaseTool, ToolManifest, ToolResult

class Echo(BaseTool):
    def manifest(self):
        return ToolManifest(name="echo_html", description="Echo", parameters={{"text": "what"}})

    def execute(self, params):
        return ToolResult(success=True, data={json.dumps(ECHO_OUTPUT)})
'''
