"""``shell_exec``: run a command on the user's computer. Off by default.

When enabled (``tools.shell_exec.enabled: true``) its risk is ``execute``, whose default approval
policy asks the user before every command. A command is split with ``shlex`` and run without a
shell (no pipes, redirections or ``$VARS``) unless ``shell: true``; it runs in a working folder, with
a timeout after which the whole process group is killed, with stdin closed, its output capped
(the start and the end are kept), and without the environment variables that look like secrets
(``*KEY*``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``).

Settings (``tools.shell_exec``): ``enabled`` (default false), ``cwd`` (default the Riverse home's
``workspace/``), ``command_timeout`` (seconds, default 20), ``max_output_chars`` (default 4000),
``shell`` (default false).
"""

from __future__ import annotations

import io
import os
import re
import shlex
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any, cast

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, manifest_from, pick
from agent.toolkit.paths import decode
from agent.toolkit.tool_settings import positive, positive_int, switch

COMMAND_TIMEOUT = 20.0
MAX_OUTPUT_CHARS = 4000
TAIL_BYTES = 1000
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL", re.IGNORECASE)

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "Run a command on the user's computer and return its output (the user approves each command).",
        "command": "The command line, e.g. ls -la or git status",
        "examples": ["Run git status in my workspace", "What does `df -h` show?", "Execute python --version"],
        "extra_examples": [
            "Run `ls -la` for me",
            "Can you run npm test?",
            "execute uptime",
            "Check free memory with free -m",
            "Run ./backup.sh",
            "Can you execute `docker ps` and show me what's running?",
            "run pip list",
            "Run ip addr and tell me my local IP",
            "Please run `du -sh ~/Downloads` so I can see how big it is",
            "execute `node -v`",
            "Check which process is using port 8080 with `lsof -i :8080`",
            "Run make build in the project folder",
        ],
    },
    "zh": {
        "description": "在用户的电脑上运行一条命令并返回输出（每条命令都需用户批准）。",
        "command": "命令行，例如 ls -la 或 git status",
        "examples": ["在工作目录里运行 git status", "执行 df -h 看看磁盘空间", "运行 python --version"],
        "extra_examples": [
            "帮我跑一下 npm test",
            "执行 uptime",
            "运行 free -m 看看内存",
            "运行 ./backup.sh",
            "在终端里执行 ls -la",
            "帮我运行一下 git diff --stat",
            "执行 `ls -la ~/Downloads`",
            "跑一下 npm run build",
            "运行 du -sh ~/Videos 看看占了多少空间",
            "运行 python3 --version 看看我装的是哪个版本",
            "帮我跑一下 ./deploy.sh",
            "执行 top -b -n 1 看看哪个进程最占 CPU",
        ],
    },
    "ja": {
        "description": "ユーザーのコンピューターでコマンドを実行し、出力を返す（コマンドごとにユーザーの承認が必要）。",
        "command": "コマンドライン。例: ls -la、git status",
        "examples": ["ワークスペースで git status を実行して", "df -h を実行してディスクの空きを見せて", "python --version を実行して"],
        "extra_examples": [
            "npm test を実行して",
            "uptime を実行して",
            "free -m でメモリの空きを確認して",
            "./backup.sh を動かして",
            "ターミナルで ls -la を実行して",
            "git branch -a を実行して",
            "`ls -lh ~/Downloads` を走らせて結果を見せて",
            "npm run lint を実行してもらえますか？",
            "du -sh * でフォルダごとのサイズを見せて",
            "python --version を叩いてみて",
            "`docker ps` を実行して、動いてるコンテナを教えて",
            "./cleanup.sh を実行してください",
            "ps aux | grep nginx を実行して",
        ],
    },
}

_TEXT: dict[str, dict[str, str]] = {
    "off": {
        "en": "off by default, because it runs commands on this computer; to enable it set tools.shell_exec.enabled: true "
              "in settings.yaml (every command then asks for your approval)",
        "zh": "默认关闭，因为它会在这台电脑上运行命令；如需启用，请在 settings.yaml 中设置 tools.shell_exec.enabled: true（之后每条命令都会请你批准）",
        "ja": "このコンピューターでコマンドを実行するため既定ではオフです。有効にするには settings.yaml で tools.shell_exec.enabled: true "
              "を設定してください（以後、コマンドごとに承認を求めます）",
    },
    "no_command": {
        "en": "No command was given. Pass the command line, e.g. command=\"ls -la\".",
        "zh": "没有提供命令。请传入命令行，例如 command=\"ls -la\"。",
        "ja": "コマンドが指定されていません。command=\"ls -la\" のようにコマンドラインを渡してください。",
    },
    "bad_quotes": {
        "en": "The command '{command}' cannot be split into words ({reason}); check its quotes.",
        "zh": "无法把命令“{command}”拆分成参数（{reason}）；请检查引号。",
        "ja": "コマンド「{command}」を引数に分けられません（{reason}）。引用符を確認してください。",
    },
    "no_folder": {
        "en": "The working folder {folder} cannot be used: {reason}. Set tools.shell_exec.cwd in settings.yaml.",
        "zh": "无法使用工作目录 {folder}：{reason}。请在 settings.yaml 中设置 tools.shell_exec.cwd。",
        "ja": "作業フォルダー {folder} を使えません: {reason}。settings.yaml で tools.shell_exec.cwd を設定してください。",
    },
    "no_cwd": {
        "en": "No working folder is known: set tools.shell_exec.cwd in settings.yaml.",
        "zh": "不知道该在哪个工作目录运行：请在 settings.yaml 中设置 tools.shell_exec.cwd。",
        "ja": "作業フォルダーが分かりません。settings.yaml で tools.shell_exec.cwd を設定してください。",
    },
    "not_found": {
        "en": "The program '{program}' was not found. (Pipes, redirections and shell built-ins need tools.shell_exec.shell: true.)",
        "zh": "找不到程序“{program}”。（管道、重定向和 shell 内置命令需要设置 tools.shell_exec.shell: true。）",
        "ja": "プログラム「{program}」が見つかりません。（パイプ、リダイレクト、シェルの組み込みコマンドには tools.shell_exec.shell: true が必要です。）",
    },
    "cannot_start": {
        "en": "The command could not be started: {reason}.",
        "zh": "命令无法启动：{reason}。",
        "ja": "コマンドを開始できませんでした: {reason}。",
    },
    "timeout": {
        "en": "The command did not finish within {timeout} seconds and was stopped. Output so far:\n{output}",
        "zh": "命令在 {timeout} 秒内没有结束，已被终止。已有的输出：\n{output}",
        "ja": "コマンドが {timeout} 秒以内に終わらなかったため停止しました。それまでの出力:\n{output}",
    },
    "failed": {
        "en": "The command exited with status {status}. Output:\n{output}",
        "zh": "命令以状态 {status} 退出。输出：\n{output}",
        "ja": "コマンドは終了ステータス {status} で終わりました。出力:\n{output}",
    },
    "done": {
        "en": "$ {command}\n(exit status 0, in {folder})\n{output}",
        "zh": "$ {command}\n（退出状态 0，目录 {folder}）\n{output}",
        "ja": "$ {command}\n（終了ステータス 0、フォルダー {folder}）\n{output}",
    },
    "no_output": {"en": "(no output)", "zh": "（没有输出）", "ja": "（出力なし）"},
    "cut": {
        "en": "[... {count} bytes of output cut ...]",
        "zh": "[……省略了 {count} 字节的输出……]",
        "ja": "[……出力 {count} バイトを省略……]",
    },
}


class _Capture:
    """At most ``limit`` bytes of a stream: its start and its last quarter (up to :data:`TAIL_BYTES`),
    where errors usually are; what lies between is only counted."""

    def __init__(self, limit: int):
        self.tail_limit = min(TAIL_BYTES, limit // 4)
        self.head_limit = limit - self.tail_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def drain(self, stream: io.BufferedReader) -> None:
        for chunk in iter(lambda: stream.read1(65536), b""):
            self.total += len(chunk)
            room = max(0, self.head_limit - len(self.head))
            self.head += chunk[:room]
            if len(chunk) > room and self.tail_limit:
                self.tail = (self.tail + chunk[room:])[-self.tail_limit :]

    def text(self, language: str) -> str:
        cut = self.total - len(self.head) - len(self.tail)
        if cut <= 0:
            return decode(bytes(self.head + self.tail))
        return "\n".join([decode(bytes(self.head)), pick(_TEXT["cut"], language, count=cut), decode(bytes(self.tail))])


def _child_environment() -> dict[str, str]:
    """The environment for the command: Riverse's own, minus variables that look like secrets."""
    return {name: value for name, value in os.environ.items() if not _SECRET_NAME.search(name)}


def _stop(process: subprocess.Popen) -> None:
    """Kill the command and everything it started (it leads its own process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()


class ShellExecTool(BaseTool):
    """Runs one command, after the user approved it."""


    @property
    def _section(self) -> Any:
        return self.tool_config("shell_exec")

    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="shell_exec",
            parameter_types={"command": "string"},
            required=["command"],
            timeout=positive(self._section, "command_timeout", COMMAND_TIMEOUT) + 5,
            risk="execute",
        )

    def is_available(self) -> bool:
        return switch(self._section, "enabled")

    def unavailable_reason(self) -> str:
        return pick(_TEXT["off"], self.language)

    def working_folder(self) -> Path | None:
        """``tools.shell_exec.cwd``, else ``workspace/`` in the Riverse home (None when neither is known)."""
        configured = self._section.get("cwd")
        if configured:
            return Path(str(configured)).expanduser()
        home = self.config.get("home")
        return Path(str(home)).expanduser() / "workspace" if home else None

    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        command = str(params.get("command") or "").strip()
        if not command:
            return failure(_TEXT["no_command"], lang)
        use_shell = switch(self._section, "shell")
        try:
            args: str | list[str] = command if use_shell else shlex.split(command)
        except ValueError as exc:
            return failure(_TEXT["bad_quotes"], lang, command=command, reason=exc)
        folder = self.working_folder()
        if folder is None:
            return failure(_TEXT["no_cwd"], lang)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return failure(_TEXT["no_folder"], lang, folder=folder, reason=exc.strerror or exc)
        try:
            process = subprocess.Popen(
                args, shell=use_shell, cwd=folder, env=_child_environment(), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
            )
        except FileNotFoundError:
            return failure(_TEXT["not_found"], lang, program=args[0] if isinstance(args, list) else command)
        except OSError as exc:
            return failure(_TEXT["cannot_start"], lang, reason=exc.strerror or exc)
        return self._wait(process, command, folder)

    def _wait(self, process: subprocess.Popen, command: str, folder: Path) -> ToolResult:
        lang = self.language
        timeout = positive(self._section, "command_timeout", COMMAND_TIMEOUT)
        capture = _Capture(positive_int(self._section, "max_output_chars", MAX_OUTPUT_CHARS))
        stdout = cast(io.BufferedReader, process.stdout)  # a pipe: it was opened with stdout=PIPE
        reader = threading.Thread(target=capture.drain, args=(stdout,), name="riverse-shell-output", daemon=True)
        reader.start()
        try:
            status = process.wait(timeout)
        except subprocess.TimeoutExpired:
            _stop(process)
            process.wait()
            status = None
        reader.join(2.0)  # a background child that kept the pipe open must not hold the answer
        if not reader.is_alive():
            stdout.close()
        output = capture.text(lang).strip() or pick(_TEXT["no_output"], lang)
        if status is None:
            return failure(_TEXT["timeout"], lang, timeout=f"{timeout:g}", output=output)
        if status != 0:
            return failure(_TEXT["failed"], lang, status=status, output=output)
        return ToolResult(success=True, data=pick(_TEXT["done"], lang, command=command, folder=folder, output=output))
