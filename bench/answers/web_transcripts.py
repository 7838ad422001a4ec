"""Records the same conversations as ``transcripts.py`` in the web page of ``riverse serve``: Debian's
Chromium, driven by Playwright, types each message into the page once the previous answer is done;
the page's text (messages, tool cards, answers) is what the transcript shows.

    .venv/bin/python -m bench.answers.web_transcripts --before 89edaa8 --models /tmp/models
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.answers.transcripts import OUT, SESSIONS, _head, extract, home_for

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(code: Path, home: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "RIVERSE_HOME": str(home), "NO_COLOR": "1", "PYTHONPATH": str(code)}
    command = [sys.executable, "-c",
               f"import sys; from agent.cli import main; sys.argv = ['riverse', 'serve', '--port', '{port}']; main()"]
    server = subprocess.Popen(command, cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tools", timeout=2).read()
            return server
        except OSError:
            if server.poll() is not None:
                raise RuntimeError(f"riverse serve exited with status {server.returncode}")
            time.sleep(0.2)  # polling a starting server, not synchronising a test
    server.kill()
    raise RuntimeError("riverse serve did not answer within 120 s")


def page_text(page) -> str:
    """The conversation as the page shows it: each message, each tool card's head, parameters and result."""
    lines: list[str] = []
    for message in page.locator("#messages .msg").all():
        classes = message.get_attribute("class") or ""
        if "user" in classes:
            lines.append(f"[you] {message.locator('.bubble').inner_text().strip()}")
            continue
        for card in message.locator(".tool").all():
            head = " · ".join(part.strip() for part in card.locator(".tool-name, .pill, .duration").all_inner_texts() if part.strip())
            lines.append(f"  [tool card] {head}")
            for part in card.locator(".params, .preview, .reason").all_inner_texts():
                lines.extend(f"    {line}" for line in part.strip().splitlines() if line.strip())
        for note in message.locator(".notice, .note").all_inner_texts():
            if note.strip():
                lines.append(f"  [note] {note.strip()}")
        lines.append(f"[riverse] {message.locator('.bubble').inner_text().strip()}")
    return "\n".join(lines)


def record(page, base: str, language: str, messages: list[str], timeout_ms: int = 600_000) -> str:
    page.goto(base + "/")
    page.wait_for_selector("body[data-ready]")
    page.select_option("#language", language)
    for n, message in enumerate(messages, 1):
        page.fill("#input", message)
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"document.querySelectorAll('#messages .msg.assistant:not(.pending)').length >= {n}", timeout=timeout_ms)
    return page_text(page)


def header(language: str, version: str, commit: str, home: Path) -> str:
    settings = (home / "settings.yaml").read_text(encoding="utf-8")
    return (
        f"Riverse · answers in the web page of `riverse serve` ({language}, {version}: commit {commit})\n\n"
        "Produced by a real run: `riverse serve` with the embedded model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M), its\n"
        "page in Debian's Chromium driven by Playwright (bench/answers/web_transcripts.py), each message typed once\n"
        "the previous answer was done, the interface language set to the messages' language; below, the page's text.\n"
        "A fresh Riverse home whose weather tool points at nothing reachable. Its settings.yaml:\n"
        + "".join(f"    {line}\n" for line in settings.splitlines())
        + "\n---- web page " + "-" * 86 + "\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="COMMIT", help="also record the page of this commit")
    parser.add_argument("--models", type=Path, required=True, help="a folder holding the assembled default model")
    parser.add_argument("--cache", type=Path, help="a cache folder of prepared tool prompts to share")
    parser.add_argument("--lang", choices=list(SESSIONS), action="append", help="only these languages")
    parser.add_argument("--only", choices=["before", "after"], help="record only one of the two")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    root = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory(prefix="riverse-web-transcripts-") as tmp, sync_playwright() as p:
        versions = {"after": root}
        if args.before:
            versions = {"before": extract(args.before, Path(tmp) / "before"), **versions}
        if args.only:
            versions = {args.only: versions[args.only]}
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        for language in args.lang or list(SESSIONS):
            for version, code in versions.items():
                home = home_for(Path(tmp) / f"web-{version}", language, args.models, args.cache)
                port = free_port()
                server = start_server(code, home, port)
                try:
                    page = browser.new_page(viewport={"width": 1280, "height": 900})
                    text = record(page, f"http://127.0.0.1:{port}", language, SESSIONS[language][1])
                    page.close()
                finally:
                    server.terminate()
                    server.wait(timeout=30)
                path = OUT / f"answers-{language}-web-{version}.txt"
                head = header(language, version, args.before if version == "before" else _head(), home)
                path.write_text(head + text.replace(str(home), "~/.riverse").strip() + "\n", encoding="utf-8")
                print(f"wrote {path}", flush=True)
        browser.close()


if __name__ == "__main__":
    main()
