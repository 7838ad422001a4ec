"""``web_search``: search the web. Off by default, because the queries leave the machine.

When enabled (``tools.web_search.enabled: true``) it asks the SearXNG instance named by
``tools.web_search.searxng_url`` (its JSON API, which must be enabled in SearXNG's ``settings.yml``
under ``search.formats``), or else uses the key-free ``ddgs`` metasearch library, an optional extra:
``pip install 'riverse[search]'``.

Settings (``tools.web_search``): ``enabled``, ``searxng_url``, ``max_results`` (default 5),
``request_timeout`` (seconds, default 10).
"""

from __future__ import annotations

import importlib
from typing import Any
from urllib.parse import urljoin

import requests

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, manifest_from, pick
from agent.toolkit.tool_settings import positive, positive_int, switch

MAX_RESULTS = 5
REQUEST_TIMEOUT = 10.0
SNIPPET_CHARS = 300

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "Search the web for current information and return the top results (title, link, snippet).",
        "query": "What to search for, e.g. python 3.13 release date",
        "examples": ["Search the web for the latest Python release", "Look up reviews of the Kindle Paperwhite", "Find news about the Tokyo marathon"],
        "extra_examples": [
            "Search the web for the best budget laptops of 2025",
            "Google the opening hours of the Louvre",
            "Look up the latest news about the Mars mission",
            "Find reviews of the Sony WH-1000XM5 online",
            "What's the latest version of Kubernetes? Look it up online",
            "Search for cheap flights from London to Lisbon in June",
            "Can you find recent reviews of the iPhone 16 Pro camera?",
            "What's the latest news on the SpaceX Starship launch? Search online",
            "google best ramen in Osaka",
            "Find the current opening hours of the British Museum online",
            "Search the web for Python libraries that parse PDF files",
            "Is there a new version of Node.js out? Check the web",
        ],
    },
    "zh": {
        "description": "在网上搜索最新信息，返回排名靠前的结果（标题、链接、摘要）。",
        "query": "要搜索的内容，例如 python 3.13 发布日期",
        "examples": ["上网搜一下 Python 最新版本", "查一查 Kindle Paperwhite 的评价", "搜索东京马拉松的新闻"],
        "extra_examples": [
            "上网搜一下 2025 年性价比高的笔记本电脑",
            "百度一下卢浮宫的开放时间",
            "查查火星任务的最新消息",
            "在网上找找索尼 WH-1000XM5 的评测",
            "搜索一下 Kubernetes 最新版本是多少",
            "帮我 google 一下最新的 iPhone 价格",
            "搜一下今天的科技新闻",
            "上网查一下故宫的开放时间和门票",
            "查查最近有什么好看的电影上映",
            "搜索一下 Rust 最新版本有哪些新特性",
            "在网上找一下小米 SU7 的评测",
            "帮我搜索一下从上海到成都最便宜的机票",
            "最新版的 Ubuntu 是哪个版本？帮我网上搜一下",
        ],
    },
    "ja": {
        "description": "ウェブを検索して最新の情報を調べ、上位の結果（タイトル・リンク・抜粋）を返す。",
        "query": "検索する語句。例: python 3.13 リリース日",
        "examples": ["Python の最新リリースをウェブで検索して", "Kindle Paperwhite のレビューを調べて", "東京マラソンのニュースを探して"],
        "extra_examples": [
            "2025年のコスパのいいノートパソコンをネットで検索して",
            "ルーブル美術館の開館時間をググって",
            "火星探査の最新ニュースを調べて",
            "ソニー WH-1000XM5 のレビューをネットで探して",
            "Kubernetes の最新バージョンをウェブで調べて",
            "最新の iPhone の値段を調べて",
            "今日のニュースを検索して",
            "東京ディズニーランドの今日の営業時間をググって",
            "Switch 2 の発売日を web で調べてもらえますか？",
            "最近の円相場のニュースを検索してください",
            "Python 3.13 の新機能についてネットで検索して",
            "京都の紅葉の見頃、今年はいつ頃かネットで調べて",
        ],
    },
}

_TEXT: dict[str, dict[str, str]] = {
    "off": {
        "en": "off by default, because search queries leave this computer; to enable it set tools.web_search.enabled: true "
              "in settings.yaml, with tools.web_search.searxng_url for your SearXNG instance or pip install 'riverse[search]'",
        "zh": "默认关闭，因为搜索内容会发送到这台电脑之外；如需启用，请在 settings.yaml 中设置 tools.web_search.enabled: true，"
              "并用 tools.web_search.searxng_url 指定你的 SearXNG，或运行 pip install 'riverse[search]'",
        "ja": "検索語がこのコンピューターの外に送られるため既定ではオフです。有効にするには settings.yaml で tools.web_search.enabled: true "
              "を設定し、tools.web_search.searxng_url に SearXNG を指定するか pip install 'riverse[search]' を実行してください",
    },
    "no_query": {
        "en": "No search query was given. Pass what to search for, e.g. query=\"python release\".",
        "zh": "没有提供搜索内容。请传入要搜索的内容，例如 query=\"python 发布\"。",
        "ja": "検索語が指定されていません。query=\"python リリース\" のように渡してください。",
    },
    "no_backend": {
        "en": "web_search has no search backend: set tools.web_search.searxng_url in settings.yaml, "
              "or install the ddgs library with: pip install 'riverse[search]'",
        "zh": "web_search 没有可用的搜索后端：请在 settings.yaml 中设置 tools.web_search.searxng_url，"
              "或用 pip install 'riverse[search]' 安装 ddgs 库",
        "ja": "web_search の検索バックエンドがありません。settings.yaml で tools.web_search.searxng_url を設定するか、"
              "pip install 'riverse[search]' で ddgs ライブラリを入れてください",
    },
    "unreachable": {
        "en": "The search service ({where}) could not be reached: {reason}.",
        "zh": "无法连接搜索服务（{where}）：{reason}。",
        "ja": "検索サービス（{where}）に接続できませんでした: {reason}。",
    },
    "status": {
        "en": "The SearXNG instance answered HTTP {status}. If it is 403, enable the JSON format in its settings.yml (search: formats: [html, json]).",
        "zh": "SearXNG 返回了 HTTP {status}。如果是 403，请在它的 settings.yml 中启用 JSON 格式（search: formats: [html, json]）。",
        "ja": "SearXNG が HTTP {status} を返しました。403 なら、その settings.yml で JSON 形式を有効にしてください（search: formats: [html, json]）。",
    },
    "bad_reply": {
        "en": "The SearXNG instance did not answer with search results in JSON; check tools.web_search.searxng_url.",
        "zh": "SearXNG 没有返回 JSON 格式的搜索结果；请检查 tools.web_search.searxng_url。",
        "ja": "SearXNG が JSON の検索結果を返しませんでした。tools.web_search.searxng_url を確認してください。",
    },
    "none": {
        "en": "No results for '{query}'.",
        "zh": "没有找到“{query}”的结果。",
        "ja": "「{query}」の検索結果はありません。",
    },
    "header": {
        "en": "Web results for '{query}':",
        "zh": "“{query}”的网页搜索结果：",
        "ja": "「{query}」のウェブ検索結果:",
    },
}


def _result_lines(index: int, title: str, url: str, snippet: str) -> str:
    snippet = " ".join(snippet.split())
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[:SNIPPET_CHARS] + "…"
    return f"{index}. {' '.join(title.split()) or url}\n   {url}" + (f"\n   {snippet}" if snippet else "")


class WebSearchTool(BaseTool):
    """Searches through SearXNG or ddgs, only when the user enabled it."""


    @property
    def _section(self) -> Any:
        return self.tool_config("web_search")

    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="web_search",
            parameter_types={"query": "string"},
            required=["query"],
            timeout=positive(self._section, "request_timeout", REQUEST_TIMEOUT) + 5,
            risk="network",
        )

    def is_available(self) -> bool:
        return switch(self._section, "enabled")

    def unavailable_reason(self) -> str:
        return pick(_TEXT["off"], self.language)

    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        query = " ".join(str(params.get("query") or "").split())
        if not query:
            return failure(_TEXT["no_query"], lang)
        limit = positive_int(self._section, "max_results", MAX_RESULTS)
        searxng = str(self._section.get("searxng_url") or "").strip()
        if searxng:
            found = self._searxng(searxng, query, limit)
        else:
            found = self._ddgs(query, limit)
        if isinstance(found, ToolResult):
            return found
        if not found:
            return ToolResult(success=True, data=pick(_TEXT["none"], lang, query=query))
        lines = [_result_lines(i, *item) for i, item in enumerate(found, 1)]
        return ToolResult(success=True, data="\n".join([pick(_TEXT["header"], lang, query=query), *lines]))

    def _searxng(self, base: str, query: str, limit: int) -> list[tuple[str, str, str]] | ToolResult:
        lang = self.language
        url = urljoin(base.rstrip("/") + "/", "search")
        try:
            response = requests.get(
                url, params={"q": query, "format": "json"},
                timeout=positive(self._section, "request_timeout", REQUEST_TIMEOUT),
            )
        except requests.RequestException as exc:
            return failure(_TEXT["unreachable"], lang, where=base, reason=type(exc).__name__)
        if response.status_code != 200:
            return failure(_TEXT["status"], lang, status=response.status_code)
        try:
            results = response.json().get("results")
        except (ValueError, AttributeError):
            results = None
        if not isinstance(results, list):
            return failure(_TEXT["bad_reply"], lang)
        return [
            (str(r.get("title") or ""), str(r.get("url") or ""), str(r.get("content") or ""))
            for r in results if isinstance(r, dict) and r.get("url")
        ][:limit]

    def _ddgs(self, query: str, limit: int) -> list[tuple[str, str, str]] | ToolResult:
        lang = self.language
        try:
            ddgs = importlib.import_module("ddgs")
        except ImportError:
            return failure(_TEXT["no_backend"], lang)
        try:
            results = ddgs.DDGS(timeout=int(positive(self._section, "request_timeout", REQUEST_TIMEOUT))).text(
                query, max_results=limit
            )
        except Exception as exc:  # noqa: BLE001 - the library raises its own error types for network trouble
            return failure(_TEXT["unreachable"], lang, where="ddgs", reason=f"{type(exc).__name__}: {exc}")
        return [
            (str(r.get("title") or ""), str(r.get("href") or ""), str(r.get("body") or ""))
            for r in results or [] if isinstance(r, dict) and r.get("href")
        ][:limit]
