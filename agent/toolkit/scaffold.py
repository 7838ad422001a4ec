"""``riverse tools new``: a ready tool file and its test, from the templates in ``agent/toolkit/templates``.

The tool file follows the contract's template (docs/tools.md) (one ``BaseTool`` subclass with ``manifest()`` and
``execute()``); its manifest texts and comments are in the chosen language. The test goes into a
``tests`` folder next to the tool, where the registry does not look (it only scans ``*.py`` files at
the top of a tools folder). It reads the tool's manifest rather than assuming the template's
parameter, runs the tool through :mod:`agent.testing` (the runtime's checks, approval and timeout, in a
temporary Riverse home) and plays turns with the shipped scripted provider; ``riverse tools test`` runs it.
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
        "test_doc": "Tests of the {name} tool, run as Riverse runs it (types, approval, timeout) in a temporary Riverse home.",
        "fixture_doc": "The tool loaded from its file the way Riverse loads it; its calls are approved (test_approval shows what happens when nobody approves).",
        "manifest_doc": "What the model sees is complete: a description, a meaning for every parameter, 2-3 examples.",
        "sample_doc": "With values of the declared types the tool answers (a result, or a failure that says why), never an exception or a timeout.",
        "required_doc": "A call without a required parameter is refused before execute() runs, naming the parameter.",
        "expected_doc": "The results listed in EXPECTED.",
        "expected_comment": "Results you expect, as (parameters, text the result must contain); for example:",
        "no_expected": "no expected results yet: add (parameters, text) pairs to EXPECTED at the top of this file",
        "approval_doc": "As in 'riverse ask' without --yes: a tool whose risk needs approval is refused, any other runs.",
        "model_doc": "For each example, the model sees the manifest, calls the tool, and gets its result back.",
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
        "test_doc": "{name} 工具的测试：在临时的 Riverse 主目录中，像 Riverse 那样运行它（类型、批准、超时）。",
        "fixture_doc": "像 Riverse 一样从文件加载的工具；它的调用都会被批准（没有人批准时会怎样，见 test_approval）。",
        "manifest_doc": "模型看到的内容是完整的：有描述，每个参数都有说明，有 2-3 个示例。",
        "sample_doc": "传入符合声明类型的值时，工具会给出回答（结果，或说明原因的失败），不会抛出异常，也不会超时。",
        "required_doc": "缺少必填参数的调用在 execute() 运行之前就被拒绝，并指出是哪个参数。",
        "expected_doc": "EXPECTED 中列出的结果。",
        "expected_comment": "你期望的结果，写成（参数, 结果中必须包含的文本），例如：",
        "no_expected": "还没有期望的结果：请在本文件开头的 EXPECTED 中加入（参数, 文本）",
        "approval_doc": "和不带 --yes 的 'riverse ask' 一样：风险需要批准的工具会被拒绝，其他工具照常运行。",
        "model_doc": "对每个示例：模型看到清单，调用工具，并拿到工具的结果。",
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
        "test_doc": "{name} ツールのテスト：一時的な Riverse ホームで、Riverse と同じように実行する（型、承認、タイムアウト）。",
        "fixture_doc": "Riverse と同じ方法でファイルから読み込んだツール。呼び出しはすべて承認される（誰も承認しないときは test_approval を参照）。",
        "manifest_doc": "モデルが見る内容がそろっている：説明、すべてのパラメータの意味、2〜3 個の例。",
        "sample_doc": "宣言した型の値を渡すと、ツールは答える（結果か、理由を示した失敗）。例外もタイムアウトも起きない。",
        "required_doc": "必須パラメータのない呼び出しは execute() の前に拒否され、そのパラメータが示される。",
        "expected_doc": "EXPECTED に挙げた結果。",
        "expected_comment": "期待する結果を（パラメータ, 結果に含まれるべきテキスト）の形で書きます。例：",
        "no_expected": "期待する結果がまだありません：このファイルの先頭の EXPECTED に（パラメータ, テキスト）を加えてください",
        "approval_doc": "--yes なしの 'riverse ask' と同じく：承認が必要なリスクのツールは拒否され、それ以外は実行される。",
        "model_doc": "例ごとに：モデルがマニフェストを見てツールを呼び、その結果を受け取る。",
        "sample": "おはよう",
        "answer": "できました。",
    },
}

# Placeholders that go into the code as string literals (the rest are comment or docstring text).
LITERALS = ("description", "param_text", "example_1", "example_2", "missing_text", "sample", "answer", "no_expected")


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
    )
    tool_source = _render("tool.py.tmpl", values)
    test_source = _render("test_tool.py.tmpl", values)
    test_path.parent.mkdir(parents=True, exist_ok=True)
    tool_path.write_text(tool_source, encoding="utf-8")
    test_path.write_text(test_source, encoding="utf-8")
    return Scaffold(tool_path, test_path)
