"""User-facing messages of the command line and the server, in English, Chinese and Japanese."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "chat.welcome": {
        "en": "Riverse chat · model: {model} · {count} tools · /tools /new /exit (Ctrl-D to quit)",
        "zh": "Riverse 对话 · 模型：{model} · {count} 个工具 · /tools /new /exit（Ctrl-D 退出）",
        "ja": "Riverse チャット · モデル：{model} · ツール {count} 個 · /tools /new /exit（Ctrl-D で終了）",
    },
    "chat.prompt": {"en": "you", "zh": "你", "ja": "あなた"},
    "chat.new": {
        "en": "Started a new conversation ({id}).",
        "zh": "已开始新对话（{id}）。",
        "ja": "新しい会話を始めました（{id}）。",
    },
    "chat.resumed": {
        "en": "Continuing conversation {id}.",
        "zh": "继续对话 {id}。",
        "ja": "会話 {id} を続けます。",
    },
    "chat.bye": {"en": "Bye.", "zh": "再见。", "ja": "さようなら。"},
    "chat.unknown_command": {
        "en": "Unknown command {cmd}; try /tools, /new or /exit.",
        "zh": "未知命令 {cmd}；可用 /tools、/new 或 /exit。",
        "ja": "不明なコマンド {cmd}。/tools、/new、/exit が使えます。",
    },
    "chat.reloaded": {
        "en": "Tools reloaded: {changes}",
        "zh": "工具已重新加载：{changes}",
        "ja": "ツールを再読み込みしました：{changes}",
    },
    "approval.ask": {
        "en": "Allow tool '{name}' ({risk}) with {params}? [y]es / [n]o / [a]lways this session",
        "zh": "允许运行工具“{name}”（{risk}），参数 {params}？[y] 是 / [n] 否 / [a] 本次会话总是允许",
        "ja": "ツール「{name}」（{risk}）をパラメータ {params} で実行しますか？ [y] はい / [n] いいえ / [a] このセッション中は常に許可",
    },
    "approval.undeclared": {
        "en": "risk not declared",
        "zh": "未声明风险",
        "ja": "リスク未宣言",
    },
    "tools.none": {
        "en": "No tools found.",
        "zh": "没有找到工具。",
        "ja": "ツールが見つかりません。",
    },
    "tools.unknown": {
        "en": "unknown tool '{name}'; available tools: {names}",
        "zh": "未知工具“{name}”；可用工具：{names}",
        "ja": "不明なツール「{name}」。使えるツール：{names}",
    },
    "tools.bad_param": {
        "en": "parameters are written key=value, got {arg!r}",
        "zh": "参数应写成 key=value，收到的是 {arg!r}",
        "ja": "パラメータは key=value の形で書いてください（{arg!r} を受け取りました）",
    },
    "tools.problems": {
        "en": "Problems found while loading tools:",
        "zh": "加载工具时发现的问题：",
        "ja": "ツールの読み込み中に見つかった問題：",
    },
    "logs.none": {
        "en": "No tool calls recorded yet.",
        "zh": "还没有工具调用记录。",
        "ja": "ツール呼び出しの記録はまだありません。",
    },
    "error.prefix": {"en": "Error", "zh": "错误", "ja": "エラー"},
}


def t(key: str, language: str = "en", **values: object) -> str:
    """The message ``key`` in ``language`` (English when missing), filled with ``values``."""
    table = MESSAGES[key]
    text = table.get(language) or table["en"]
    return text.format(**values) if values else text
