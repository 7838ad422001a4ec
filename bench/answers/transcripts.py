"""Records ``riverse chat`` transcripts for ``docs/transcripts/``: the embedded model, a weather tool
that points at nothing reachable, four questions in each of English, Chinese and Japanese; once with
this checkout ("after") and once with an earlier commit ("before", extracted with ``git archive``).

The chat runs in a pseudo-terminal, as in a real terminal: each message is typed once the prompt
shows, and the terminal echoes it.

    .venv/bin/python -m bench.answers.transcripts --before 89edaa8 --models /tmp/models
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "transcripts"
UNREACHABLE = "http://127.0.0.1:9"

#: per language: the chat's prompt, then the messages typed (weather with no network, a follow-up no
#: tool answers, the time and a calculation at once, a calculation and a follow-up with a new result)
SESSIONS = {
    "en": ("you> ", ["What's the weather in Tokyo?", "So what should I wear?", "What time is it in Tokyo? Also, what is 17*23?",
                     "What is 17*23?", "And 19*23?"]),
    "zh": ("你> ", ["东京今天天气怎么样？", "那我该穿什么？", "东京现在几点？顺便算一下 17*23", "17*23 等于多少？", "那 19*23 呢？"]),
    "ja": ("あなた> ", ["東京の天気は？", "それなら何を着ればいい？", "東京は今何時？ついでに 17*23 も計算して", "17*23 はいくつ？", "じゃあ 19*23 は？"]),
}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def home_for(root: Path, language: str, models: Path, cache: Path | None) -> Path:
    home = root / f"home-{language}"
    home.mkdir(parents=True)
    (home / "models").symlink_to(models.resolve(), target_is_directory=True)
    if cache is not None:
        (home / "cache").symlink_to(cache.resolve(), target_is_directory=True)
    (home / "settings.yaml").write_text(
        f"language: {language}\ntools:\n  weather:\n    base_url: \"{UNREACHABLE}\"\n    timeout: 5\n", encoding="utf-8")
    return home


def _read_until(fd: int, marker: str, seen: str, timeout: float) -> str:
    """Read from the terminal until ``marker`` appears after what was ``seen``; all that was read."""
    buffer = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        buffer += chunk
        if marker and marker in _ANSI.sub("", buffer.decode("utf-8", "ignore")):
            break
    return buffer.decode("utf-8", "replace")


def record(code: Path, home: Path, prompt: str, messages: list[str], timeout: float = 900) -> str:
    """Run ``riverse chat`` of the code in ``code`` with ``home``; type ``messages``; the terminal's text."""
    env = {**os.environ, "RIVERSE_HOME": str(home), "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "150",
           "PYTHONPATH": str(code)}
    command = [sys.executable, "-c", "import sys; from agent.cli import main; sys.argv = ['riverse', 'chat']; main()"]
    pid, fd = pty.fork()
    if pid == 0:  # the child: the chat
        os.chdir(code)
        os.execve(sys.executable, command, env)
    text = _read_until(fd, prompt, "", timeout)
    for message in messages:
        os.write(fd, (message + "\n").encode())
        text += _read_until(fd, prompt, "", timeout)
    os.write(fd, b"/exit\n")
    text += _read_until(fd, "", "", 30)
    os.waitpid(pid, 0)
    return _ANSI.sub("", text.replace("\r\n", "\n").replace("\r", ""))


def _head() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() or "this checkout"


def header(language: str, version: str, commit: str, home: Path) -> str:
    settings = (home / "settings.yaml").read_text(encoding="utf-8")
    return (
        f"Riverse · answers in `riverse chat` ({language}, {version}: commit {commit})\n\n"
        "Produced by a real run of `riverse chat` with the embedded model (Qwen2.5-Coder-0.5B-Instruct Q4_K_M) in a\n"
        "pseudo-terminal, each message typed once the prompt showed (bench/answers/transcripts.py), in a fresh\n"
        "Riverse home whose weather tool points at nothing reachable. Its settings.yaml:\n"
        + "".join(f"    {line}\n" for line in settings.splitlines())
        + "Messages: the weather with no network; a follow-up that no tool answers; the time and a calculation\n"
        "at once; a calculation, then a follow-up whose new result differs from the last answer.\n\n"
        "---- riverse chat " + "-" * 82 + "\n"
    )


def extract(commit: str, target: Path) -> Path:
    archive = subprocess.run(["git", "archive", commit], cwd=ROOT, check=True, capture_output=True).stdout
    target.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", metavar="COMMIT", help="also record the chat of this commit")
    parser.add_argument("--models", type=Path, required=True, help="a folder holding the assembled default model")
    parser.add_argument("--cache", type=Path, help="a cache folder of prepared tool prompts to share")
    parser.add_argument("--lang", choices=list(SESSIONS), action="append", help="only these languages")
    parser.add_argument("--only", choices=["before", "after"], help="record only one of the two")
    args = parser.parse_args()
    versions = {"after": ROOT}
    with tempfile.TemporaryDirectory(prefix="riverse-transcripts-") as tmp:
        if args.before:
            versions = {"before": extract(args.before, Path(tmp) / "before"), **versions}
        if args.only:
            versions = {args.only: versions[args.only]}
        for language in args.lang or list(SESSIONS):
            prompt, messages = SESSIONS[language]
            for version, code in versions.items():
                home = home_for(Path(tmp) / version, language, args.models, args.cache)
                text = record(code, home, prompt, messages)
                path = OUT / f"answers-{language}-{version}.txt"
                head = header(language, version, args.before if version == "before" else _head(), home)
                path.write_text(head + text.replace(str(home), "~/.riverse").strip() + "\n", encoding="utf-8")
                print(f"wrote {path}", flush=True)


if __name__ == "__main__":
    main()
