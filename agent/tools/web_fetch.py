"""``web_fetch``: GET a web page and return it as readable text.

Only plain ``http`` and ``https`` URLs are fetched, through the guard in :mod:`agent.toolkit.net`:
the URL is parsed once and the request built from its parts (ambiguous URLs are refused), the host
is resolved once and every address it has must be public (loopback, private, link-local, shared,
reserved and multicast addresses are refused, also inside IPv6 forms), the connection goes to a
checked address and is checked again once made, each redirect goes through the same steps, and one
time limit covers the whole fetch, body included. So a page cannot steer the agent to the user's
router, a cloud metadata service or a local admin page. HTML is turned into text with BeautifulSoup
(scripts, styles and navigation dropped; the title and headings kept).

Settings (``tools.web_fetch``): ``allow_private`` (default false: allow every address),
``allow_hosts`` (host names allowed even though their addresses are private, e.g. ``[nas.local]``),
``request_timeout`` (seconds for the whole fetch, default 10), ``max_bytes`` (bytes read, default
2 MB), ``max_chars`` (characters returned, default 6000), ``max_redirects`` (default 5).
"""

from __future__ import annotations

import re
from typing import Any

from bs4 import BeautifulSoup

from agent import __version__
from agent.toolkit import net
from agent.toolkit.net import Refused
from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, manifest_from, pick
from agent.toolkit.paths import decode
from agent.toolkit.tool_settings import positive, positive_int, switch

REQUEST_TIMEOUT = 10.0
MAX_BYTES = 2_000_000
MAX_CHARS = 6000
MAX_REDIRECTS = 5
USER_AGENT = f"Riverse/{__version__} (personal agent; web_fetch)"

_DROPPED = ["script", "style", "nav", "noscript", "template", "svg", "iframe", "head"]
_BLOCKS = ["p", "div", "section", "article", "main", "header", "footer", "aside", "li", "ul", "ol", "tr",
           "table", "pre", "blockquote", "dd", "dt", "figure", "figcaption", "h1", "h2", "h3", "h4", "h5", "h6"]
_HEADING = re.compile(r"^h[1-6]$")
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/xhtml+xml")

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "Fetch a web page by its URL and return its readable text (title, headings, paragraphs).",
        "url": "The full http(s) address, e.g. https://example.com/article",
        "examples": ["Read https://example.com/news/today for me", "What does the page at https://docs.python.org/3/ say?", "Summarize this article: https://example.org/post"],
        "extra_examples": [
            "Can you read https://news.ycombinator.com and tell me the top story?",
            "What's on https://example.com/pricing?",
            "Check https://status.example.net, is anything down?",
            "Open this link and give me the main points: https://en.wikipedia.org/wiki/Kyoto",
            "https://blog.example.org/2024/05/launch tl;dr?",
            "Summarize https://www.bbc.com/news/technology-68000000",
            "what does the readme at https://github.com/torvalds/linux say",
            "Can you read this for me? https://arxiv.org/abs/2303.08774",
            "Give me the key points from https://www.theverge.com/2024/1/10/ces-recap",
            "Open https://developer.mozilla.org/en-US/docs/Web/HTTP/Status and list the 4xx codes",
            "Is https://www.githubstatus.com reporting any outages?",
            "My friend sent me https://medium.com/@someone/why-i-quit-coffee-1a2b3c, what's the gist?",
        ],
    },
    "zh": {
        "description": "按网址获取网页，并返回其可读的正文（标题、小标题、段落）。",
        "url": "完整的 http(s) 网址，例如 https://example.com/article",
        "examples": ["帮我读一下 https://example.com/news/today", "https://docs.python.org/3/ 这个页面写了什么？", "总结这篇文章：https://example.org/post"],
        "extra_examples": [
            "帮我看看 https://news.example.cn 今天的头条是什么",
            "https://example.com/pricing 上的价格是多少？",
            "打开 https://status.example.net 看看有没有故障",
            "https://zh.wikipedia.org/wiki/京都 这页主要讲了什么？",
            "这个链接说了啥 https://blog.example.org/2024/05/launch",
            "帮我看看这个网页讲了什么：https://www.zhihu.com/question/123456789",
            "总结一下这篇文章 https://36kr.com/p/2712345678901",
            "打开 https://docs.python.org/zh-cn/3/tutorial/index.html 给我讲讲主要内容",
            "https://example.com/pricing 上的价格是多少？",
            "读一下 https://en.wikipedia.org/wiki/Great_Wall_of_China 然后用中文概括",
            "这个链接说的是啥 https://mp.weixin.qq.com/s/AbCdEf123456",
            "请帮我抓取 https://news.ycombinator.com 的首页，看看今天有哪些热门帖子。",
            "https://blog.example.org/2025/03/release-notes 帮我 tl;dr 一下",
        ],
    },
    "ja": {
        "description": "URL のウェブページを取得し、読めるテキスト（タイトル・見出し・本文）にして返す。",
        "url": "http(s) で始まる完全な URL。例: https://example.com/article",
        "examples": ["https://example.com/news/today を読んで", "https://docs.python.org/3/ のページには何が書いてある？", "この記事を要約して: https://example.org/post"],
        "extra_examples": [
            "https://news.example.jp を読んで今日のトップニュースを教えて",
            "https://example.com/pricing の料金はいくら？",
            "https://status.example.net を開いて障害が出てないか確認して",
            "https://ja.wikipedia.org/wiki/京都 には何が書いてある？",
            "このリンクの内容を教えて https://blog.example.org/2024/05/launch",
            "この記事を要約して：https://www3.nhk.or.jp/news/html/20250301/k10014000000000.html",
            "https://qiita.com/example/items/abc123def456 の内容を教えて",
            "https://ja.wikipedia.org/wiki/富士山 を読んで要点をまとめてください",
            "このページ開いてみて https://example.com/news/2025/04",
            "https://zenn.dev/someone/articles/abcdef のポイントを3つ教えて",
            "https://status.example.net を見て、障害が出てないか確認してほしい",
            "友達から https://note.com/user/n/n1234abcd が送られてきたんだけど、ざっくり何の話？",
        ],
    },
}

_TEXT: dict[str, dict[str, str]] = {
    "no_url": {
        "en": "No URL was given. Pass a full address such as url=\"https://example.com\".",
        "zh": "没有提供网址。请传入完整的网址，例如 url=\"https://example.com\"。",
        "ja": "URL が指定されていません。url=\"https://example.com\" のように完全なアドレスを渡してください。",
    },
    "scheme": {
        "en": "Refused: '{url}' is not an http or https address; only web pages can be fetched.",
        "zh": "已拒绝：“{url}”不是 http 或 https 地址；只能获取网页。",
        "ja": "拒否しました: 「{url}」は http / https のアドレスではありません。取得できるのはウェブページだけです。",
    },
    "no_host": {
        "en": "'{url}' has no host name. Write a full address such as https://example.com/page.",
        "zh": "“{url}”中没有主机名。请写完整的网址，例如 https://example.com/page。",
        "ja": "「{url}」にはホスト名がありません。https://example.com/page のような完全なアドレスを書いてください。",
    },
    "private": {
        "en": "Refused: {host} resolves to {address}, a {kind} address, which web_fetch does not visit. "
              "To allow it, add the host to tools.web_fetch.allow_hosts (or set tools.web_fetch.allow_private: true) in settings.yaml.",
        "zh": "已拒绝：{host} 解析为 {address}，这是{kind}地址，web_fetch 不会访问。"
              "如需允许，请在 settings.yaml 中把该主机加入 tools.web_fetch.allow_hosts（或设置 tools.web_fetch.allow_private: true）。",
        "ja": "拒否しました: {host} は {address}（{kind}アドレス）に解決されるため、web_fetch はアクセスしません。"
              "許可するには settings.yaml の tools.web_fetch.allow_hosts にホストを追加してください（または tools.web_fetch.allow_private: true）。",
    },
    "ambiguous": {
        "en": "Refused: '{url}' is ambiguous: {reason}. Write it as a plain address such as https://example.com/page.",
        "zh": "已拒绝：“{url}”有歧义：{reason}。请写成普通的网址，例如 https://example.com/page。",
        "ja": "拒否しました: 「{url}」は曖昧です: {reason}。https://example.com/page のような普通のアドレスで書いてください。",
    },
    "peer": {
        "en": "Refused: the connection to {host} reached {address}, a {kind} address, which web_fetch does not visit. "
              "To allow it, add the host to tools.web_fetch.allow_hosts (or set tools.web_fetch.allow_private: true) in settings.yaml.",
        "zh": "已拒绝：到 {host} 的连接到达了 {address}，这是{kind}地址，web_fetch 不会访问。"
              "如需允许，请在 settings.yaml 中把该主机加入 tools.web_fetch.allow_hosts（或设置 tools.web_fetch.allow_private: true）。",
        "ja": "拒否しました: {host} への接続が {address}（{kind}アドレス）につながったため、web_fetch はアクセスしません。"
              "許可するには settings.yaml の tools.web_fetch.allow_hosts にホストを追加してください（または tools.web_fetch.allow_private: true）。",
    },
    "redirected": {
        "en": "(after a redirect from {url}) ",
        "zh": "（由 {url} 重定向后）",
        "ja": "（{url} からのリダイレクト後）",
    },
    "unresolvable": {
        "en": "The host {host} could not be found. Check the address.",
        "zh": "找不到主机 {host}。请检查网址。",
        "ja": "ホスト {host} が見つかりません。アドレスを確認してください。",
    },
    "too_many_redirects": {
        "en": "'{url}' redirected more than {limit} times; giving up.",
        "zh": "“{url}”重定向超过 {limit} 次，已放弃。",
        "ja": "「{url}」のリダイレクトが {limit} 回を超えたため中止しました。",
    },
    "timeout": {
        "en": "'{url}' did not answer within {timeout} seconds. Try again later.",
        "zh": "“{url}”在 {timeout} 秒内没有响应，请稍后再试。",
        "ja": "「{url}」が {timeout} 秒以内に応答しませんでした。しばらくしてから再試行してください。",
    },
    "slow_body": {
        "en": "'{url}' was still sending its page when the {timeout}-second limit ran out, so the page was not read. "
              "Try again later, or raise tools.web_fetch.request_timeout in settings.yaml.",
        "zh": "“{url}”在 {timeout} 秒的时限用完时仍在发送页面，因此没有读取该页面。"
              "请稍后再试，或在 settings.yaml 中调高 tools.web_fetch.request_timeout。",
        "ja": "「{url}」は {timeout} 秒の制限時間が切れてもページを送り続けていたため、読み込みませんでした。"
              "しばらくしてから再試行するか、settings.yaml の tools.web_fetch.request_timeout を増やしてください。",
    },
    "unreachable": {
        "en": "'{url}' could not be reached: {reason}.",
        "zh": "无法访问“{url}”：{reason}。",
        "ja": "「{url}」にアクセスできませんでした: {reason}。",
    },
    "status": {
        "en": "'{url}' answered HTTP {status} {reason}.",
        "zh": "“{url}”返回了 HTTP {status} {reason}。",
        "ja": "「{url}」は HTTP {status} {reason} を返しました。",
    },
    "not_text": {
        "en": "'{url}' is not a text page (its type is {kind}); web_fetch only reads HTML and text.",
        "zh": "“{url}”不是文本页面（类型为 {kind}）；web_fetch 只读取 HTML 和文本。",
        "ja": "「{url}」はテキストのページではありません（種類: {kind}）。web_fetch が読めるのは HTML とテキストだけです。",
    },
    "cut": {
        "en": "[the page is longer; only the first {count} characters are shown]",
        "zh": "[页面更长；只显示了前 {count} 个字符]",
        "ja": "[ページには続きがあります。最初の {count} 文字だけを表示しています]",
    },
    "empty": {
        "en": "(the page has no readable text)",
        "zh": "（该页面没有可读的文字）",
        "ja": "（このページには読めるテキストがありません）",
    },
}

_KINDS = {
    "loopback": {"en": "loopback", "zh": "本机回环", "ja": "ループバック"},
    "private": {"en": "private-network", "zh": "私有网络", "ja": "プライベートネットワーク"},
    "link-local": {"en": "link-local", "zh": "链路本地", "ja": "リンクローカル"},
    "reserved": {"en": "reserved or non-public", "zh": "保留或非公网", "ja": "予約済みまたは非公開"},
    "multicast": {"en": "multicast", "zh": "组播", "ja": "マルチキャスト"},
}
_NAMED_AS = {"unspecified": "reserved", "shared": "reserved"}  # kinds the messages call "reserved"


def resolve_addresses(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (tests replace this to stay off the network)."""
    return net.resolve_addresses(host, port)


def address_kind(text: str) -> str | None:
    """Why an address is not public, as a key of :data:`_KINDS`; None when it is public."""
    kind = net.classify(text)
    return _NAMED_AS.get(kind, kind) if kind else None


def _shown(url: str) -> str:
    """A URL for a message: control and invisible characters written as escapes."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in url)


def html_to_text(markup: bytes, encoding: str | None = None) -> tuple[str, str]:
    """(title, text) of an HTML page: navigation and scripts dropped, headings marked with ``#``."""
    soup = BeautifulSoup(markup, "html.parser", from_encoding=encoding)
    title = " ".join(soup.title.get_text(" ").split()) if soup.title else ""
    for tag in soup.find_all(_DROPPED):
        tag.decompose()
    for heading in soup.find_all(_HEADING):
        heading.insert(0, "#" * int(heading.name[1]) + " ")  # h1..h6
    for tag in soup.find_all(_BLOCKS):
        tag.insert_before("\n")
        tag.insert_after("\n")
    for br in soup.find_all("br"):
        br.replace_with("\n")
    lines = (" ".join(line.split()) for line in soup.get_text().splitlines())
    return title, "\n".join(line for line in lines if line)


class WebFetchTool(BaseTool):
    """Fetches public web pages as text; never a private address unless the settings allow it."""


    @property
    def _section(self) -> Any:
        return self.tool_config("web_fetch")

    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="web_fetch",
            parameter_types={"url": {"type": "string", "format": "uri"}},
            required=["url"],
            timeout=positive(self._section, "request_timeout", REQUEST_TIMEOUT) + 5,
            risk="network",
        )

    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        url = str(params.get("url") or "").strip()
        if not url:
            return failure(_TEXT["no_url"], lang)
        section = self._section
        timeout = positive(section, "request_timeout", REQUEST_TIMEOUT)  # for the whole fetch, body included
        hosts = section.get("allow_hosts") or []
        try:
            with net.open_guarded(
                url, timeout=timeout, allow_private=switch(section, "allow_private"),
                allow_hosts=[str(hosts)] if isinstance(hosts, str) else [str(host) for host in hosts],
                max_redirects=positive_int(section, "max_redirects", MAX_REDIRECTS),
                headers={"User-Agent": USER_AGENT, "Accept": "text/html,text/plain;q=0.9,*/*;q=0.5"},
                resolver=lambda host, port: resolve_addresses(host, port),  # looked up when called
            ) as response:
                return self._read(response)
        except Refused as exc:
            return self._refusal(exc, url)
        except net.FetchTimeout as exc:
            key = "slow_body" if exc.stage == "body" else "timeout"
            return failure(_TEXT[key], lang, url=exc.url, timeout=f"{timeout:g}")
        except net.FetchFailed as exc:
            return failure(_TEXT["unreachable"], lang, url=exc.url, reason=exc.reason)

    def _refusal(self, exc: Refused, url: str) -> ToolResult:
        lang = self.language
        values = dict(exc.values)
        if "kind" in values:
            kind = str(values["kind"])
            values["kind"] = pick(_KINDS[_NAMED_AS.get(kind, kind)], lang)
        if "reason" in values:
            values["reason"] = pick(net.AMBIGUITIES[str(values["reason"])], lang)
        values["url"] = _shown(str(values.get("url", url)))
        message = pick(_TEXT[exc.key], lang, **values)
        if exc.hop:
            message = pick(_TEXT["redirected"], lang, url=_shown(url)) + message
        return ToolResult(success=False, data="", error=message)

    def _read(self, response: net.Response) -> ToolResult:
        """The page's text; the body is read within the fetch's time limit (net.FetchTimeout if not)."""
        lang = self.language
        url = response.url
        if response.status >= 400:
            return failure(_TEXT["status"], lang, url=url, status=response.status, reason=response.reason or "")
        kind = response.content_type.split(";")[0].strip().lower() or "text/html"
        if not kind.startswith(_TEXT_TYPES) and not kind.endswith(("+xml", "+json")):
            return failure(_TEXT["not_text"], lang, url=url, kind=kind)
        data, cut = response.read(positive_int(self._section, "max_bytes", MAX_BYTES))
        charset = response.headers.get_content_charset()
        if "html" in kind:
            title, text = html_to_text(data, charset)
        else:
            title, text = "", _decode(data, charset)
        return ToolResult(success=True, data=self._format(url, title, text, cut=cut))

    def _format(self, url: str, title: str, text: str, cut: bool) -> str:
        max_chars = positive_int(self._section, "max_chars", MAX_CHARS)
        head = [f"URL: {url}"] + ([f"Title: {title}"] if title else [])
        text = text.strip() or pick(_TEXT["empty"], self.language)
        shown = min(len(text), max_chars)
        if len(text) > max_chars:
            text, cut = text[:max_chars].rstrip(), True
        if cut:
            text += "\n" + pick(_TEXT["cut"], self.language, count=shown)
        return "\n".join(head) + "\n\n" + text


def _decode(data: bytes, charset: str | None) -> str:
    """A text response's body: in the charset its header names, else as a text file would be read."""
    if charset:
        try:
            return data.decode(charset, errors="replace")
        except LookupError:  # a charset name Python does not know
            pass
    return decode(data)
