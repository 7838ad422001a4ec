"""Stand-in manifests for built-in tools whose files do not exist yet.

The routing benchmark prefers the real manifests from ``agent/tools/``; a tool listed here is only
used while its file is missing (see ``run.py``). Delete an entry once the tool's file exists.
"""

from __future__ import annotations

from agent.tools._base import ToolManifest

# name -> language -> fields
_TEXT: dict[str, dict[str, dict]] = {
    "file_list": {
        "en": {
            "description": "List the files and folders in a folder on this computer.",
            "parameters": {"path": "The folder, e.g. ~/Downloads or docs/"},
            "examples": ["What is in my Pictures folder?", "List the files in ~/src", "Show me the folder contents of build/"],
        },
        "zh": {
            "description": "列出本机某个文件夹里的文件和子文件夹。",
            "parameters": {"path": "文件夹路径，例如 ~/Downloads 或 docs/"},
            "examples": ["我的图片文件夹里有什么？", "列出 ~/src 里的文件", "build/ 目录下都有什么"],
        },
        "ja": {
            "description": "このコンピューターのフォルダにあるファイルとフォルダを一覧表示する。",
            "parameters": {"path": "フォルダのパス。例: ~/Downloads、docs/"},
            "examples": ["写真フォルダに何が入ってる？", "~/src のファイルを一覧して", "build/ の中身を見せて"],
        },
    },
    "file_read": {
        "en": {
            "description": "Read the text of a file on this computer.",
            "parameters": {"path": "The file, e.g. ~/notes.txt or README.md"},
            "examples": ["Open ~/plan.txt and tell me what it says", "Read CHANGELOG.md", "Show me the contents of setup.cfg"],
        },
        "zh": {
            "description": "读取本机上某个文件的文本内容。",
            "parameters": {"path": "文件路径，例如 ~/notes.txt 或 README.md"},
            "examples": ["打开 ~/plan.txt 看看写了什么", "读一下 CHANGELOG.md", "显示 setup.cfg 的内容"],
        },
        "ja": {
            "description": "このコンピューター上のファイルの中身（テキスト）を読む。",
            "parameters": {"path": "ファイルのパス。例: ~/notes.txt、README.md"},
            "examples": ["~/plan.txt を開いて中身を教えて", "CHANGELOG.md を読んで", "setup.cfg の内容を表示して"],
        },
    },
    "grep": {
        "en": {
            "description": "Search the files in a folder for lines containing a word or pattern.",
            "parameters": {"pattern": "The text or regular expression to find", "path": "The folder or file to search, e.g. ~/code"},
            "examples": ["Find FIXME in ~/work", "Which files in ~/letters mention 'budget'?", "Search lib for parse_args"],
        },
        "zh": {
            "description": "在文件夹的文件中搜索包含某个词或模式的行。",
            "parameters": {"pattern": "要查找的文字或正则表达式", "path": "要搜索的文件夹或文件，例如 ~/code"},
            "examples": ["在 ~/work 里找 FIXME", "~/信件 里哪些文件提到了“预算”？", "在 lib 中搜索 parse_args"],
        },
        "ja": {
            "description": "フォルダ内のファイルから、語やパターンを含む行を検索する。",
            "parameters": {"pattern": "探す文字列または正規表現", "path": "検索するフォルダまたはファイル。例: ~/code"},
            "examples": ["~/work で FIXME を探して", "~/letters で「予算」が出てくるファイルは？", "lib から parse_args を検索して"],
        },
    },
    "web_fetch": {
        "en": {
            "description": "Download a web page (an http/https URL) and return its text.",
            "parameters": {"url": "The full address, e.g. https://example.com/page"},
            "examples": ["Summarize https://example.com/article", "What does https://example.org/pricing say?", "Open this link: https://news.example.com"],
        },
        "zh": {
            "description": "下载一个网页（http/https 地址）并返回其中的文字。",
            "parameters": {"url": "完整网址，例如 https://example.com/page"},
            "examples": ["总结一下 https://example.com/article", "https://example.org/pricing 上写了什么？", "打开这个链接：https://news.example.com"],
        },
        "ja": {
            "description": "ウェブページ（http/https の URL）をダウンロードして本文を返す。",
            "parameters": {"url": "完全な URL。例: https://example.com/page"},
            "examples": ["https://example.com/article を要約して", "https://example.org/pricing には何が書いてある？", "このリンクを開いて: https://news.example.com"],
        },
    },
    "notes": {
        "en": {
            "description": "The user's personal notes: add a note, search notes, list them or delete one.",
            "parameters": {
                "action": "add, search, list or delete",
                "text": "The note to add, or the words to search for",
                "id": "The number of the note to delete",
            },
            "examples": ["Remember that my locker code is 4512", "What did I note about the dentist?", "What notes do I have?"],
            "parameter_types": {"action": ["add", "search", "list", "delete"], "text": "string", "id": "integer"},
            "required": ["action"],
        },
        "zh": {
            "description": "用户的个人笔记：添加、搜索、列出或删除笔记。",
            "parameters": {"action": "add、search、list 或 delete", "text": "要记下的内容，或要搜索的词", "id": "要删除的笔记编号"},
            "examples": ["记一下：储物柜密码是 4512", "我记过牙医的什么事？", "我存了哪些笔记？"],
            "parameter_types": {"action": ["add", "search", "list", "delete"], "text": "string", "id": "integer"},
            "required": ["action"],
        },
        "ja": {
            "description": "ユーザーの個人メモ：メモの追加・検索・一覧・削除。",
            "parameters": {"action": "add、search、list、delete のいずれか", "text": "追加するメモ、または検索する語", "id": "削除するメモの番号"},
            "examples": ["ロッカーの番号は4512だと覚えておいて", "歯医者についてメモしたことある？", "どんなメモが保存されてる？"],
            "parameter_types": {"action": ["add", "search", "list", "delete"], "text": "string", "id": "integer"},
            "required": ["action"],
        },
    },
    "shell_exec": {
        "en": {
            "description": "Run a shell command on this computer and return its output (asks for approval first).",
            "parameters": {"command": "The command line, e.g. ls -la or git status"},
            "examples": ["Run git status", "Execute df -h", "Run the tests with pytest"],
        },
        "zh": {
            "description": "在本机运行一条 shell 命令并返回输出（运行前需要确认）。",
            "parameters": {"command": "命令行，例如 ls -la 或 git status"},
            "examples": ["运行 git status", "执行 df -h", "用 pytest 跑一下测试"],
        },
        "ja": {
            "description": "このコンピューターでシェルコマンドを実行して出力を返す（実行前に確認あり）。",
            "parameters": {"command": "コマンドライン。例: ls -la、git status"},
            "examples": ["git status を実行して", "df -h を実行して", "pytest でテストを走らせて"],
        },
    },
    "web_search": {
        "en": {
            "description": "Search the web for recent news, facts or pages, and return the top results.",
            "parameters": {"query": "What to search for"},
            "examples": ["Search online for the best budget headphones", "Look up who won the match yesterday", "Find news about the election"],
        },
        "zh": {
            "description": "在网上搜索最新消息、事实或网页，返回前几条结果。",
            "parameters": {"query": "要搜索的内容"},
            "examples": ["上网搜一下性价比高的耳机", "查一下昨天比赛谁赢了", "搜索关于选举的新闻"],
        },
        "ja": {
            "description": "ウェブで最新のニュース・事実・ページを検索し、上位の結果を返す。",
            "parameters": {"query": "検索する内容"},
            "examples": ["安いおすすめのイヤホンをネットで検索して", "昨日の試合の勝者を調べて", "選挙のニュースを探して"],
        },
    },
}

_RISK = {"file_list": "read", "file_read": "read", "grep": "read", "web_fetch": "network",
         "notes": "write", "shell_exec": "execute", "web_search": "network"}


def fallback_manifests(language: str) -> dict[str, ToolManifest]:
    """The stand-in manifests in ``language`` (en, zh or ja), by tool name."""
    out: dict[str, ToolManifest] = {}
    for name, texts in _TEXT.items():
        text = texts.get(language) or texts["en"]
        params = dict(text["parameters"])
        out[name] = ToolManifest(
            name=name,
            description=text["description"],
            parameters=params,
            examples=list(text["examples"]),
            parameter_types=dict(text.get("parameter_types") or {p: "string" for p in params}),
            required=list(text.get("required") or list(params)[:1]),
            risk=_RISK[name],
        )
    return out
