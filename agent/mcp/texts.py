"""What ``riverse mcp serve`` tells the user and MCP clients, in English, Chinese and Japanese."""

from __future__ import annotations

from agent.i18n import pick

TEXTS: dict[str, dict[str, str]] = {
    "stdio": {
        "en": "Riverse serves its {count} tools to an MCP client over standard input and output · "
              "every call runs and is logged as in riverse · Ctrl-C to stop",
        "zh": "Riverse 正通过标准输入输出向 MCP 客户端提供 {count} 个工具 · 每次调用都像在 riverse 中一样运行并记录 · Ctrl-C 停止",
        "ja": "Riverse は標準入出力で MCP クライアントに {count} 個のツールを提供中 · 各呼び出しは riverse と同じく実行・記録されます · Ctrl-C で停止",
    },
    "http": {
        "en": "Riverse serves its {count} tools to MCP clients at {url} (streamable HTTP) · Ctrl-C to stop",
        "zh": "Riverse 正在 {url}（streamable HTTP）向 MCP 客户端提供 {count} 个工具 · Ctrl-C 停止",
        "ja": "Riverse は {url}（streamable HTTP）で MCP クライアントに {count} 個のツールを提供中 · Ctrl-C で停止",
    },
    "token": {
        "en": "MCP clients must send 'Authorization: Bearer <token>' (the token of --token-file, server.token or RIVERSE_SERVER_TOKEN).",
        "zh": "MCP 客户端必须发送 'Authorization: Bearer <token>'（--token-file、server.token 或 RIVERSE_SERVER_TOKEN 中的令牌）。",
        "ja": "MCP クライアントは 'Authorization: Bearer <token>'（--token-file、server.token または RIVERSE_SERVER_TOKEN のトークン）を送る必要があります。",
    },
    "new_token": {
        "en": "A new token was written to {path} (readable by you only); give it to your MCP clients: {token}",
        "zh": "新令牌已写入 {path}（仅你可读）；请把它交给你的 MCP 客户端：{token}",
        "ja": "新しいトークンを {path} に書き込みました（あなただけが読めます）；MCP クライアントに渡してください：{token}",
    },
    "refused": {
        "en": "tool '{name}' ({risk}) needs the user's approval, and Riverse does not run such tools for MCP clients "
              "unless its settings allow it: set mcp.serve.approval: allow (or ask, for clients that can ask "
              "their user), or approval.tools.{name}: never, in settings.yaml",
        "zh": "工具 '{name}'（{risk}）需要用户批准，而 Riverse 默认不为 MCP 客户端运行此类工具：在 settings.yaml 中设置 "
              "mcp.serve.approval: allow（或 ask，适用于能询问其用户的客户端），或 approval.tools.{name}: never",
        "ja": "ツール '{name}'（{risk}）はユーザーの承認が必要で、Riverse は設定で許可されない限り MCP クライアントのためにこの種の"
              "ツールを実行しません：settings.yaml で mcp.serve.approval: allow（ユーザーに確認できるクライアントには ask）、"
              "または approval.tools.{name}: never を設定してください",
    },
    "cannot_ask": {
        "en": "tool '{name}' ({risk}) needs the user's approval, and this MCP client cannot ask its user "
              "(it does not offer elicitation); set mcp.serve.approval: allow in settings.yaml to run it anyway",
        "zh": "工具 '{name}'（{risk}）需要用户批准，而此 MCP 客户端无法询问其用户（不支持 elicitation）；"
              "若仍要运行，请在 settings.yaml 中设置 mcp.serve.approval: allow",
        "ja": "ツール '{name}'（{risk}）はユーザーの承認が必要ですが、この MCP クライアントはユーザーに確認できません"
              "（elicitation 非対応）；それでも実行するには settings.yaml で mcp.serve.approval: allow を設定してください",
    },
    "declined": {
        "en": "the user of MCP client '{client}' did not approve running tool '{name}'",
        "zh": "MCP 客户端 '{client}' 的用户未批准运行工具 '{name}'",
        "ja": "MCP クライアント '{client}' のユーザーはツール '{name}' の実行を承認しませんでした",
    },
    "ask": {
        "en": "Riverse: run tool '{name}' ({risk}) with {params}? Accept to run it once.",
        "zh": "Riverse：以 {params} 运行工具 '{name}'（{risk}）？接受即运行一次。",
        "ja": "Riverse：ツール '{name}'（{risk}）を {params} で実行しますか？承諾すると一度だけ実行します。",
    },
    "not_this_call": {
        "en": "the approval sent for tool '{name}' was not asked for this call (its tool or parameters differ); call it again",
        "zh": "为工具 '{name}' 发送的批准不是针对这次调用的（工具或参数不同）；请重新调用",
        "ja": "ツール '{name}' に送られた承認はこの呼び出しに対するものではありません（ツールかパラメータが異なります）；もう一度呼び出してください",
    },
    "unknown": {
        "en": "Riverse has no tool '{name}'; list the tools again (tools/list)",
        "zh": "Riverse 没有工具 '{name}'；请重新列出工具（tools/list）",
        "ja": "Riverse にツール '{name}' はありません；ツールを一覧し直してください（tools/list）",
    },
}


def text(key: str, language: str, **values: object) -> str:
    return pick(TEXTS[key], language, **values)
