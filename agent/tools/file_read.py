"""``file_read``: the text of a file inside the folders the settings allow (``file_roots``).

A read returns at most ``max_lines`` lines and ``max_bytes`` bytes from ``start_line``; when the file
goes on, the result says which ``start_line`` reads the next part. Binary files are refused, and so
are named pipes, devices and sockets (checked on the opened descriptor, before anything is read).

The path is checked by name and then opened from its root one name at a time without following
links (``Roots.open``), so a file swapped for a link after the check is refused, never followed. A
hard link inside the allowed folders is a file inside them, wherever its other names are.

Settings (``tools.file_read``): ``max_bytes`` (default 65536), ``max_lines`` (default 400).
"""

from __future__ import annotations

import os
from typing import Any, BinaryIO

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, manifest_from, pick
from agent.toolkit.descriptors import Opened
from agent.toolkit.paths import PathRefused, Roots, decode, looks_binary, refusal
from agent.toolkit.tool_settings import positive_int

MAX_BYTES = 65536
MAX_LINES = 400
_SNIFF = 8192

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "Read a text file from the user's allowed folders (long files are returned in parts).",
        "path": "The file, relative to the first allowed folder or absolute, e.g. notes/todo.txt",
        "start_line": "Line number to start from (default 1); use it to read the next part of a long file",
        "examples": ["Read notes/todo.txt", "What does my shopping-list.md say?", "Show me the next part of report.txt from line 401"],
        "extra_examples": [
            "Open config.yaml and tell me what's in it",
            "What's written in ~/Documents/ideas.txt?",
            "Show me the README.md",
            "Print the first lines of logs/app.log",
            "Give me a summary of essay.txt",
            "Open notes/ideas.md and read it to me",
            "What does meeting-notes.txt say?",
            "cat todo.md",
            "Can you summarize the contents of reports/q3-summary.txt?",
            "Show me what's in ~/projects/app/.env.example",
            "Continue reading novel.txt from line 201",
            "Check package.json and tell me which version it's on",
            "What recipe did I save in recipes/lasagna.txt? Read it please",
        ],
    },
    "zh": {
        "description": "读取用户允许访问的文件夹中的文本文件（长文件分段返回）。",
        "path": "文件路径，相对于第一个允许的文件夹或绝对路径，例如 notes/todo.txt",
        "start_line": "从第几行开始读（默认 1）；读长文件的下一段时使用",
        "examples": ["读一下 notes/todo.txt", "我的 shopping-list.md 里写了什么？", "从第 401 行继续读 report.txt"],
        "extra_examples": [
            "打开 config.yaml 看看里面写了什么",
            "~/Documents/ideas.txt 的内容是什么？",
            "显示一下 README.md",
            "把 logs/app.log 的开头几行给我看看",
            "帮我总结一下 essay.txt",
            "打开 notes/todo.txt 给我看看",
            "帮我读一下 report.md 的内容",
            "config.json 里写了什么？",
            "把 ~/Documents/日记.txt 的内容念给我听",
            "总结一下 meeting/2025-03-10.md 这个文件",
            "从第 300 行开始继续读 log/server.log",
            "看看 README.md 里怎么说的安装步骤",
            "shopping_list.txt 里还有什么没买？读一下",
        ],
    },
    "ja": {
        "description": "許可されたフォルダー内のテキストファイルを読む（長いファイルは分割して返す）。",
        "path": "ファイルのパス。最初の許可フォルダーからの相対パスか絶対パス（例: notes/todo.txt）",
        "start_line": "読み始める行番号（既定は 1）。長いファイルの続きを読むときに使う",
        "examples": ["notes/todo.txt を読んで", "shopping-list.md には何が書いてある？", "report.txt の 401 行目から続きを読んで"],
        "extra_examples": [
            "config.yaml を開いて中身を教えて",
            "~/Documents/ideas.txt には何が書いてある？",
            "README.md を表示して",
            "logs/app.log の最初の数行を見せて",
            "essay.txt を要約して",
            "notes/todo.txt を読んで",
            "memo.md の中身を見せて",
            "config.yaml に何が書いてあるか教えてください",
            "~/Documents/日記.txt を開いて読み上げて",
            "report.txt の 501 行目から続きを表示して",
            "README.md を読んで、インストール手順を要約して",
            "shopping.txt って何て書いてあったっけ？開いてみて",
            "logs/error.log の最初のほうを見せてほしい",
        ],
    },
}

_TEXT: dict[str, dict[str, str]] = {
    "no_path": {
        "en": "No file was given. Pass the path of a text file, e.g. path=\"notes/todo.txt\".",
        "zh": "没有提供文件。请传入文本文件的路径，例如 path=\"notes/todo.txt\"。",
        "ja": "ファイルが指定されていません。path=\"notes/todo.txt\" のようにテキストファイルのパスを渡してください。",
    },
    "is_dir": {
        "en": "'{path}' is a folder. Use file_list to see what is in it.",
        "zh": "“{path}”是文件夹。请用 file_list 查看其中的内容。",
        "ja": "「{path}」はフォルダーです。file_list で中身を確認してください。",
    },
    "binary": {
        "en": "'{path}' is a binary file ({size} bytes), not text; it cannot be shown.",
        "zh": "“{path}”是二进制文件（{size} 字节），不是文本，无法显示。",
        "ja": "「{path}」はテキストではなくバイナリファイル（{size} バイト）なので表示できません。",
    },
    "unreadable": {
        "en": "'{path}' cannot be read: {reason}.",
        "zh": "无法读取“{path}”：{reason}。",
        "ja": "「{path}」を読めません: {reason}。",
    },
    "past_end": {
        "en": "'{path}' has only {count} lines; start_line {start} is past the end.",
        "zh": "“{path}”只有 {count} 行；start_line {start} 超出了文件末尾。",
        "ja": "「{path}」は {count} 行しかありません。start_line {start} は末尾より後です。",
    },
    "empty": {
        "en": "'{path}' is empty.",
        "zh": "“{path}”是空文件。",
        "ja": "「{path}」は空のファイルです。",
    },
    "header": {
        "en": "{path}, lines {first}-{last}:",
        "zh": "{path}，第 {first}-{last} 行：",
        "ja": "{path}、{first}〜{last} 行目:",
    },
    "more": {
        "en": "[the file continues; call file_read again with start_line={next} for the next part]",
        "zh": "[文件还有后续内容；用 start_line={next} 再次调用 file_read 读取下一段]",
        "ja": "[ファイルには続きがあります。次の部分は start_line={next} で file_read をもう一度呼んでください]",
    },
    "cut_line": {
        "en": "[line {line} is longer than {limit} bytes and was cut]",
        "zh": "[第 {line} 行超过 {limit} 字节，已截断]",
        "ja": "[{line} 行目は {limit} バイトを超えるため途中で切りました]",
    },
}


def _skip_lines(handle: BinaryIO, count: int, budget: int) -> int:
    """Move past ``count`` lines, reading in bounded pieces and at most about ``budget`` bytes (the
    file's size when it was opened, so a file that keeps growing cannot keep the read going);
    return how many lines there were."""
    skipped = 0
    while skipped < count and budget > 0:
        piece = handle.readline(MAX_BYTES)
        if not piece:
            break
        budget -= len(piece)
        if piece.endswith(b"\n"):
            skipped += 1
    return skipped


class FileReadTool(BaseTool):
    """Reads part of a text file, capped in bytes and lines."""

    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="file_read",
            parameter_types={"path": "string", "start_line": "integer"},
            required=["path"],
            risk="read",
        )

    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        given = str(params.get("path") or "").strip()
        if not given:
            return failure(_TEXT["no_path"], lang)
        try:
            opened = Roots.from_config(self.config).open(given)
        except PathRefused as exc:
            return refusal(exc, lang)
        except OSError as exc:
            return failure(_TEXT["unreadable"], lang, path=given, reason=exc.strerror or exc)
        with opened:
            if opened.is_dir:
                return failure(_TEXT["is_dir"], lang, path=given)
            return self._read(opened, given, params.get("start_line"))

    def _read(self, opened: Opened, given: str, start: Any) -> ToolResult:
        """The part of the opened regular file that ``start`` asks for, bounded by the settings."""
        lang = self.language
        section = self.tool_config("file_read")
        max_bytes = positive_int(section, "max_bytes", MAX_BYTES)
        max_lines = positive_int(section, "max_lines", MAX_LINES)
        start = start if isinstance(start, int) and start > 1 else 1
        size = opened.info.st_size
        try:
            with os.fdopen(opened.fd, "rb", closefd=False) as handle:
                if looks_binary(handle.read(_SNIFF)):
                    return failure(_TEXT["binary"], lang, path=given, size=size)
                handle.seek(0)
                skipped = _skip_lines(handle, start - 1, max(size, MAX_BYTES))
                chunk = handle.read(max_bytes)
                more = bool(handle.read(1))
        except OSError as exc:
            return failure(_TEXT["unreadable"], lang, path=given, reason=exc.strerror or exc)
        if skipped < start - 1 or (not chunk and start > 1):
            return failure(_TEXT["past_end"], lang, path=given, count=skipped, start=start)
        return ToolResult(success=True, data=self._show(given, decode(chunk), start, more, max_lines, max_bytes))

    def _show(self, given: str, text: str, start: int, more: bool, max_lines: int, max_bytes: int) -> str:
        lang = self.language
        lines = text.splitlines()
        notes = []
        if more and lines and not text.endswith("\n"):
            if len(lines) == 1:  # one line longer than the byte cap: show its start
                notes.append(pick(_TEXT["cut_line"], lang, line=start, limit=max_bytes))
            else:  # the cap fell inside a line: keep it for the next part
                lines.pop()
        if not lines:
            return pick(_TEXT["empty"], lang, path=given)
        if len(lines) > max_lines:
            lines, more = lines[:max_lines], True
        last = start + len(lines) - 1
        body = [pick(_TEXT["header"], lang, path=given, first=start, last=last), *lines, *notes]
        if more:
            body.append(pick(_TEXT["more"], lang, next=last + 1))
        return "\n".join(body)
