"""Records ``riverse chat`` transcripts of conversations for ``docs/transcripts/``: a follow-up, a message
with two requests, a request that needs an earlier result, and arithmetic on an earlier result, in English, Chinese and Japanese, on
the embedded model. The weather tool points at a local stand-in for wttr.in that answers each city
with its own figures (so that a follow-up's new result differs from the last).

    .venv/bin/python -m bench.routing.transcripts --models /tmp/models
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bench.answers.transcripts import OUT, _head, record

SESSIONS = {
    "en": ("you> ", ["What's the weather in Lyon?", "And in Porto?", "What time is it there?",
                     "What's the weather in Oslo and in Bergen?", "How warm is it in Lima in Fahrenheit?",
                     "What is 1200/16?", "divide that by 4"]),
    "zh": ("你> ", ["里昂天气怎么样？", "那波尔图呢？", "那里现在几点？", "奥斯陆和卑尔根的天气怎么样？",
                    "利马现在多少华氏度？", "1200 除以 16 是多少？", "再除以4呢"]),
    "ja": ("あなた> ", ["リヨンの天気は？", "ポルトは？", "そこは今何時？", "オスロとベルゲンの天気を教えて",
                      "リマは華氏で何度？", "1200÷16 は？", "それを4で割って"]),
}


def report(city: str) -> dict:
    """A wttr.in ``format=j1`` document with figures of the city's own (from a hash of its name)."""
    seed = int(hashlib.sha256(city.encode()).hexdigest()[:8], 16)
    temp = seed % 30 - 2
    kinds = [("Sunny", "晴", "晴れ"), ("Light rain", "小雨", "小雨"), ("Partly cloudy", "局部多云", "晴れ時々曇り"),
             ("Overcast", "阴天", "曇り")]
    en, zh, ja = kinds[seed % len(kinds)]
    return {
        "current_condition": [{
            "temp_C": str(temp), "FeelsLikeC": str(temp - 2), "humidity": str(40 + seed % 50),
            "windspeedKmph": str(3 + seed % 25), "weatherDesc": [{"value": en}], "lang_zh": [{"value": zh}],
            "lang_ja": [{"value": ja}],
        }],
        "nearest_area": [{"areaName": [{"value": city}]}],
    }


class StandIn(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        city = unquote(urlsplit(self.path).path.lstrip("/"))
        body = json.dumps(report(city)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def home_for(root: Path, language: str, models: Path, cache: Path | None, weather_url: str) -> Path:
    home = root / f"home-{language}"
    home.mkdir(parents=True, mode=0o700)
    (home / "models").symlink_to(models.resolve(), target_is_directory=True)
    if cache is not None:
        (home / "cache").symlink_to(cache.resolve(), target_is_directory=True)
    settings = home / "settings.yaml"
    settings.write_text(f"language: {language}\ntools:\n  weather:\n    base_url: \"{weather_url}\"\n    timeout: 5\n",
                        encoding="utf-8")
    settings.chmod(0o600)
    return home


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, required=True, help="a folder holding the assembled default model")
    parser.add_argument("--cache", type=Path, help="a cache folder of prepared tool prompts to share")
    parser.add_argument("--lang", choices=list(SESSIONS), action="append")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    root = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory(prefix="riverse-conversations-") as tmp:
        for language in args.lang or list(SESSIONS):
            prompt, messages = SESSIONS[language]
            home = home_for(Path(tmp), language, args.models, args.cache, url)
            text = record(root, home, prompt, messages)
            path = OUT / f"conversation-{language}.txt"
            head = (f"Riverse · a conversation in `riverse chat` ({language}, commit {_head()})\n\n"
                    "A real run of `riverse chat` with the embedded model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M) in a\n"
                    "pseudo-terminal (bench/routing/transcripts.py): a follow-up, a follow-up to another tool, two\n"
                    "requests in one message, a request that needs an earlier result, and arithmetic on a result. The\n"
                    "weather tool points at"
                    " a local stand-in for wttr.in (each city its own figures).\n\n"
                    "---- riverse chat " + "-" * 82 + "\n")
            path.write_text(head + text.replace(url, "http://127.0.0.1:PORT").strip() + "\n", encoding="utf-8")
            print(f"wrote {path}", flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
