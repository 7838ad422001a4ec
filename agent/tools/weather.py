"""``weather``: the current weather of a city, from wttr.in's JSON format (``?format=j1``).

Settings (``tools.weather``): ``base_url`` (default ``https://wttr.in``), ``timeout`` in seconds
(default 10), ``enabled``.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import requests

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, manifest_from, pick

DEFAULT_BASE_URL = "https://wttr.in"
DEFAULT_TIMEOUT = 10.0

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "Look up the current weather (temperature, conditions, humidity, wind) in a city.",
        "city": "City name, e.g. Tokyo, London or New York",
        "examples": ["What's the weather like in Tokyo today?", "Is it raining in London?", "How cold is it in Chicago right now?"],
        "extra_examples": [
            "Do I need an umbrella in Seattle this afternoon?",
            "Will it be windy in Sydney tomorrow?",
            "Going to Madrid next week, how hot is it there?",
            "Check the forecast for Vancouver",
            "Should I wear a coat in Boston today?",
            "Is it snowing in Denver right now?",
            "whats the weather in paris rn",
            "Could you tell me the current temperature and humidity in Singapore, please?",
            "I'm heading out for a run in Melbourne, is it too hot outside?",
            "How windy is it in Wellington today?",
            "weather rome",
            "Should I bring a jacket for dinner in San Francisco tonight?",
            "Is it sunny in Barcelona at the moment? Thinking of going to the beach.",
        ],
    },
    "zh": {
        "description": "查询某个城市当前的天气（气温、天气状况、湿度、风速）。",
        "city": "城市名，例如 东京、伦敦、上海",
        "examples": ["东京今天天气怎么样？", "伦敦在下雨吗？", "北京现在多少度？"],
        "extra_examples": [
            "上海明天会下雨吗？要不要带伞",
            "成都现在冷不冷？",
            "深圳这几天天气预报怎么说",
            "周末去青岛玩，那边天气如何",
            "悉尼现在湿度大吗？",
            "上海现在下雨吗？要不要带伞",
            "明天去成都出差，那边冷不冷？",
            "深圳 weather 怎么样",
            "请问一下哈尔滨现在的气温和风力如何？我担心穿得不够。",
            "西安今天适合出门跑步吗？看看天气",
        ],
    },
    "ja": {
        "description": "指定した都市の現在の天気（気温・天候・湿度・風速）を調べる。",
        "city": "都市名。例: 東京、ロンドン、大阪",
        "examples": ["東京の今日の天気はどう？", "ロンドンは雨が降っていますか？", "札幌は今何度ですか？"],
        "extra_examples": [
            "明日の名古屋は雨が降りそう？傘いるかな",
            "那覇って今暑い？",
            "来週ソウルに行くんだけど、向こうの天気はどう？",
            "横浜の天気予報を調べて",
            "パリは今風が強い？",
            "これから福岡に行くんだけど、傘いるかな？",
            "今の New York の天気どう？",
            "名古屋、今日は暑い？",
            "週末に京都へ行く予定なのですが、現地の天気を調べていただけますか。",
            "那覇の風の強さと湿度を知りたい",
        ],
    },
}

_TEXT: dict[str, dict[str, str]] = {
    "report": {
        "en": "{city}: {temp}°C (feels like {feels}°C), {desc}, humidity {humidity}%, wind {wind} km/h",
        "zh": "{city}: {temp}°C (体感 {feels}°C), {desc}, 湿度 {humidity}%, 风速 {wind} km/h",
        "ja": "{city}: {temp}°C (体感 {feels}°C)、{desc}、湿度 {humidity}%、風速 {wind} km/h",
    },
    "no_city": {
        "en": "No city was given. Pass the name of a city, e.g. city=\"Tokyo\".",
        "zh": "没有提供城市名。请传入城市名，例如 city=\"东京\"。",
        "ja": "都市名が指定されていません。city=\"東京\" のように都市名を渡してください。",
    },
    "unreachable": {
        "en": "The weather service ({url}) could not be reached: {reason}. Check the network connection or try again later.",
        "zh": "无法连接天气服务（{url}）：{reason}。请检查网络连接或稍后再试。",
        "ja": "天気サービス（{url}）に接続できませんでした: {reason}。ネットワーク接続を確認するか、しばらくしてから再試行してください。",
    },
    "timeout": {
        "en": "The weather service ({url}) did not answer within {timeout} seconds. Try again later.",
        "zh": "天气服务（{url}）在 {timeout} 秒内没有响应，请稍后再试。",
        "ja": "天気サービス（{url}）が {timeout} 秒以内に応答しませんでした。しばらくしてから再試行してください。",
    },
    "unknown_city": {
        "en": "The weather service does not know the location \"{city}\". Check the spelling or try a larger nearby city.",
        "zh": "天气服务找不到地点“{city}”。请检查拼写，或换一个附近的较大城市。",
        "ja": "天気サービスは「{city}」という場所を見つけられませんでした。綴りを確認するか、近くの大きな都市で試してください。",
    },
    "bad_status": {
        "en": "The weather service answered with HTTP status {status}. Try again later.",
        "zh": "天气服务返回了 HTTP 状态码 {status}，请稍后再试。",
        "ja": "天気サービスが HTTP ステータス {status} を返しました。しばらくしてから再試行してください。",
    },
    "not_json": {
        "en": "The weather service sent something that is not weather data (not JSON). Check tools.weather.base_url or try again later.",
        "zh": "天气服务返回的不是天气数据（不是 JSON）。请检查 tools.weather.base_url 设置或稍后再试。",
        "ja": "天気サービスの応答が天気データ（JSON）ではありませんでした。tools.weather.base_url の設定を確認するか、しばらくしてから再試行してください。",
    },
}


def _reason(exc: requests.RequestException) -> str:
    """The root cause of a connection failure, e.g. ``[Errno 111] Connection refused``."""
    text = str(exc)
    errno = re.search(r"\[Errno -?\d+\][^'\")]+", text)
    if errno:
        return errno.group(0).strip()
    return text[:200] if text else type(exc).__name__


def _value(current: dict, key: str) -> str:
    value = current.get(key)
    return str(value) if value not in (None, "") else "?"


def _description(current: dict, language: str) -> str:
    """The condition text, in ``language`` when wttr.in sent a ``lang_xx`` translation."""
    for key in (f"lang_{language}", "weatherDesc"):
        entries = current.get(key)
        if isinstance(entries, list) and entries and isinstance(entries[0], dict):
            text = str(entries[0].get("value") or "").strip()
            if text:
                return text
    return "?"


class WeatherTool(BaseTool):
    """Current weather from wttr.in (or a compatible service at ``tools.weather.base_url``)."""

    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="weather",
            parameter_types={"city": "string"},
            required=["city"],
            risk="network",
        )


    def _settings(self) -> tuple[str, float]:
        section = self.tool_config("weather")
        base_url = str(section.get("base_url") or DEFAULT_BASE_URL).rstrip("/")
        try:
            timeout = float(section.get("timeout", DEFAULT_TIMEOUT))
        except (TypeError, ValueError):
            timeout = DEFAULT_TIMEOUT
        return base_url, timeout if timeout > 0 else DEFAULT_TIMEOUT

    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        city = str(params.get("city") or "").strip()
        if not city:
            return failure(_TEXT["no_city"], lang)
        base_url, timeout = self._settings()
        query = {"format": "j1"}
        if lang in ("zh", "ja"):
            query["lang"] = lang
        try:
            response = requests.get(f"{base_url}/{quote(city, safe='')}", params=query, timeout=timeout)
        except requests.Timeout:
            return failure(_TEXT["timeout"], lang, url=base_url, timeout=f"{timeout:g}")
        except requests.RequestException as exc:
            return failure(_TEXT["unreachable"], lang, url=base_url, reason=_reason(exc))
        if response.status_code == 404:
            return failure(_TEXT["unknown_city"], lang, city=city)
        if response.status_code != 200:
            return failure(_TEXT["bad_status"], lang, status=response.status_code)
        try:
            payload = response.json()
        except ValueError:
            return failure(_TEXT["not_json"], lang)
        conditions = payload.get("current_condition") if isinstance(payload, dict) else None
        current = conditions[0] if isinstance(conditions, list) and conditions else None
        if not isinstance(current, dict) or current.get("temp_C") in (None, ""):
            return failure(_TEXT["unknown_city"], lang, city=city)
        report = pick(
            _TEXT["report"], lang,
            city=city,
            temp=_value(current, "temp_C"),
            feels=_value(current, "FeelsLikeC"),
            desc=_description(current, lang),
            humidity=_value(current, "humidity"),
            wind=_value(current, "windspeedKmph"),
        )
        return ToolResult(success=True, data=report)
