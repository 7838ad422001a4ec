"""``riverse tools new``: a ready tool file and its test, from the templates in ``agent/toolkit/templates``.

The tool file follows the contract's template (docs/tools.md) (one ``BaseTool`` subclass with ``manifest()`` and
``execute()``); its manifest texts and comments are in the chosen language. The test goes into a
``tests`` folder next to the tool, where the registry does not look (it only scans ``*.py`` files at
the top of a tools folder), and uses the shipped scripted provider.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template

from agent.errors import RiverseError
from agent.i18n import t
from agent.toolkit.validate import NAME_RE

# Texts of the generated files; ``{name}`` is the tool's name.
TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "module_doc": "{name}: a Riverse tool. Edit manifest() and execute(), then run 'riverse tools check'.",
        "description": "Handle a request about {name} (rewrite this: one sentence saying when the model should use this tool)",
        "param_text": "The text the user wants {name} to work on",
        "example_1": "Use {name} on: good morning",
        "example_2": "Run {name} with the text 'hello world'",
        "optional_comment": "Optional extensions (see docs/tools.md):",
        "missing_text": "No text was given; pass the 'text' parameter.",
        "logic_comment": "Your logic goes here...",
        "test_doc": "Tests of the {name} tool: run directly, and called by a scripted model.",
        "load_doc": "Load the tool file the way Riverse does, and fail on any load error.",
        "direct_doc": "execute() works on its own, and fails clearly without text.",
        "model_doc": "The model sees the manifest, calls the tool, and gets its result back.",
        "sample": "good morning",
        "answer": "Done.",
    },
    "zh": {
        "module_doc": "{name}：一个 Riverse 工具。修改 manifest() 和 execute() 后运行 'riverse tools check'。",
        "description": "处理与 {name} 有关的请求（请改写成一句话：模型什么时候应该使用这个工具）",
        "param_text": "需要 {name} 处理的文本",
        "example_1": "用 {name} 处理：早上好",
        "example_2": "请用 {name} 处理这段文字：你好世界",
        "optional_comment": "可选扩展（见 docs/tools.zh.md）：",
        "missing_text": "没有提供文本，请传入 text 参数。",
        "logic_comment": "在这里实现你的逻辑...",
        "test_doc": "{name} 工具的测试：直接运行，以及由脚本化的模型调用。",
        "load_doc": "像 Riverse 一样加载工具文件，有任何加载错误就失败。",
        "direct_doc": "execute() 可以单独运行；没有文本时明确地失败。",
        "model_doc": "模型看到清单，调用工具，并拿到工具的结果。",
        "sample": "早上好",
        "answer": "完成了。",
    },
    "ja": {
        "module_doc": "{name}：Riverse のツール。manifest() と execute() を書き換えてから 'riverse tools check' を実行してください。",
        "description": "{name} に関する依頼を処理する（書き換えてください：モデルがいつこのツールを使うべきかを一文で）",
        "param_text": "{name} で処理するテキスト",
        "example_1": "{name} で「おはよう」を処理して",
        "example_2": "{name} を使ってこの文を処理して：こんにちは世界",
        "optional_comment": "任意の拡張（docs/tools.ja.md を参照）：",
        "missing_text": "テキストがありません。text パラメータを渡してください。",
        "logic_comment": "ここに処理を書きます...",
        "test_doc": "{name} ツールのテスト：直接実行と、スクリプト化したモデルからの呼び出し。",
        "load_doc": "Riverse と同じ方法でツールファイルを読み込み、読み込みエラーがあれば失敗する。",
        "direct_doc": "execute() は単独で動き、テキストがなければはっきり失敗する。",
        "model_doc": "モデルがマニフェストを見てツールを呼び、その結果を受け取る。",
        "sample": "おはよう",
        "answer": "できました。",
    },
}

# Placeholders that go into the code as string literals (the rest are comment or docstring text).
LITERALS = ("description", "param_text", "example_1", "example_2", "missing_text", "sample", "answer")


class ScaffoldError(RiverseError):
    """The tool cannot be created: a bad name, or a file that already exists."""


@dataclass
class Scaffold:
    tool_path: Path
    test_path: Path


def class_name(name: str) -> str:
    """``my_tool`` -> ``MyTool``, ``hello`` -> ``HelloTool``."""
    camel = "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)
    return camel if camel.endswith("Tool") else camel + "Tool"


def _render(template: str, values: dict[str, str]) -> str:
    text = resources.files("agent.toolkit").joinpath("templates", template).read_text(encoding="utf-8")
    return Template(text).substitute(values)


def create_tool(name: str, folder: Path, language: str = "en", ui_language: str = "en") -> Scaffold:
    """Write ``folder/NAME.py`` and ``folder/tests/test_NAME.py``; never overwrite either.

    ``language`` is the language of the generated texts, ``ui_language`` that of the error messages.
    """
    if not NAME_RE.match(name):
        raise ScaffoldError(t("new.bad_name", ui_language, name=name))
    folder = Path(folder).expanduser()
    tool_path = folder / f"{name}.py"
    test_path = folder / "tests" / f"test_{name}.py"
    for path in (tool_path, test_path):
        if path.exists():
            raise ScaffoldError(t("new.exists", ui_language, path=path))
    texts = {key: value.format(name=name) for key, value in TEXTS[language].items()}
    values = {key: json.dumps(value, ensure_ascii=False) if key in LITERALS else value for key, value in texts.items()}
    values.update(
        name=name,
        name_repr=json.dumps(name),
        class_name=class_name(name),
        language=language,
        test_path=test_path.as_posix(),
    )
    tool_source = _render("tool.py.tmpl", values)
    test_source = _render("test_tool.py.tmpl", values)
    test_path.parent.mkdir(parents=True, exist_ok=True)
    tool_path.write_text(tool_source, encoding="utf-8")
    test_path.write_text(test_source, encoding="utf-8")
    return Scaffold(tool_path, test_path)
