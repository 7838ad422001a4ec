"""Which of several tools of one name is used: one rule in the registry (``precedence``), applied by
``ToolRegistry.would_win`` to a file not yet written, and said the same way by ``riverse tools new``
and by the registry once the file exists."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.toolkit.discovery import BUILTIN_DIR
from agent.toolkit.registry import precedence
from agent.tools import ToolRegistry

TOOL = '''from agent.tools import BaseTool, ToolManifest, ToolResult


class {cls}(BaseTool):
    def manifest(self):
        return ToolManifest("{name}", "Look up a stock price", {{"symbol": "ticker"}}, ["price of AAPL", "MSFT quote"])

    def execute(self, params):
        return ToolResult(True, "42")
'''


def write(folder: Path, filename: str, cls: str, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / filename
    path.write_text(TOOL.format(cls=cls, name=name), encoding="utf-8")
    return path.resolve()


def registry(user: Path, settings_folder: Path | None = None, builtin: bool = False) -> ToolRegistry:
    return ToolRegistry({"language": "en", "tools": {}}, folders=[settings_folder] if settings_folder else [],
                        user_folder=user, builtin=builtin, packages=False, isolation="thread")


def problem_of(reg: ToolRegistry, path: Path):
    [found] = [p for p in reg.problems if Path(p.path) == path]
    return found


def test_the_rule_a_higher_source_then_the_first_file_then_the_first_class():
    contenders = [(0, "/b/x.py", 1), (3, "/u/b.py", 9), (3, "/u/a.py", 20), (3, "/u/a.py", 4), (2, "/s/a.py", 1)]
    assert sorted(contenders, key=lambda c: precedence(*c)) == [
        (3, "/u/a.py", 4), (3, "/u/a.py", 20), (3, "/u/b.py", 9), (2, "/s/a.py", 1), (0, "/b/x.py", 1)]


def test_a_name_nobody_else_has_wins_quietly(tmp_path):
    reg = registry(tmp_path / "user")
    assert reg.would_win(tmp_path / "user" / "stock_price.py", "stock_price") == (True, "")


def test_a_later_file_in_the_same_folder_is_ignored_and_both_say_so(tmp_path):
    user = tmp_path / "user"
    first = write(user, "a_stock.py", "AStock", "stock_price")
    reg = registry(user)
    new = (user / "stock_price.py").resolve()
    expected = (f"duplicate tool name 'stock_price': already defined in {first}:4 (AStock); this one is ignored; "
                "give one of them another name")
    assert reg.would_win(new, "stock_price") == (False, expected)
    write(user, "stock_price.py", "StockPrice", "stock_price")
    reg.refresh()
    assert reg.entry("stock_price").class_name == "AStock"
    assert problem_of(reg, new).message == expected and problem_of(reg, new).level == "error"
    zh = "工具名“stock_price”重复：" + f"{first}:4（AStock）中已经定义了它；这一个会被忽略；请给其中一个换个名字"
    assert reg.would_win(new, "stock_price", "zh") == (False, zh)


def test_an_earlier_file_in_the_same_folder_wins_and_the_other_is_ignored(tmp_path):
    user = tmp_path / "user"
    later = write(user, "zz_stock.py", "ZzStock", "stock_price")
    reg = registry(user)
    new = (user / "stock_price.py").resolve()
    assert reg.would_win(new, "stock_price") == (True, (
        f"tool name 'stock_price' is also defined in {later}:4 (ZzStock), in the same folder; this file comes first "
        "by name, so that one will be ignored; give one of them another name"))
    write(user, "stock_price.py", "StockPrice", "stock_price")
    reg.refresh()
    assert reg.entry("stock_price").class_name == "StockPrice"
    assert problem_of(reg, later).message.startswith(f"duplicate tool name 'stock_price': already defined in {new}:4")


def test_a_user_file_overrides_a_built_in_one_and_both_say_so(tmp_path):
    user = tmp_path / "user"
    reg = registry(user, builtin=True)
    new = (user / "weather.py").resolve()
    expected = f"user tool 'weather' overrides the built-in one from {BUILTIN_DIR / 'weather.py'}"
    assert reg.would_win(new, "weather") == (True, expected)
    write(user, "weather.py", "MyWeather", "weather")
    reg.refresh()
    assert reg.entry("weather").class_name == "MyWeather"
    assert problem_of(reg, new).message == expected and problem_of(reg, new).level == "info"
    assert reg.would_win(new, "weather", "ja") == (
        True, f"ユーザーツール「weather」が {BUILTIN_DIR / 'weather.py'} の組み込みツールを上書きします")


def test_a_settings_folder_file_loses_to_the_users_folder(tmp_path):
    user, shared = tmp_path / "user", tmp_path / "shared"
    mine = write(user, "quotes.py", "Quotes", "stock_price")
    shared.mkdir()
    reg = registry(user, shared)
    new = (shared / "stock_price.py").resolve()
    assert reg.would_win(new, "stock_price") == (
        False, f"the user tool 'stock_price' from {mine} overrides this one, so this one is not used; give it another name")
    write(shared, "stock_price.py", "Shared", "stock_price")
    reg.refresh()
    assert reg.entry("stock_price").path == str(mine)
    assert problem_of(reg, mine).message == f"user tool 'stock_price' overrides the settings folder one from {new}"


def test_a_file_in_a_folder_riverse_does_not_scan_is_not_used(tmp_path):
    reg = registry(tmp_path / "user")
    elsewhere = tmp_path / "elsewhere"
    assert reg.source_rank(elsewhere / "stock_price.py") is None
    assert reg.would_win(elsewhere / "stock_price.py", "stock_price") == (
        False, f"Riverse does not scan {elsewhere}, so this tool is not loaded; add the folder to tool_dirs in settings.yaml")
    assert reg.source_rank(tmp_path / "user" / "_helper.py") is None  # skipped by name


@pytest.mark.parametrize("language,note", [
    ("en", "Note: duplicate tool name 'stock_price': already defined in {first}:4 (AStock); this one is ignored"),
    ("ja", "注意：ツール名「stock_price」が重複しています：{first}:4（AStock）ですでに定義されているため、こちらは無視されます。"),
])
def test_tools_new_says_what_the_registry_will_say(riverse_home, language, note):
    first = write(riverse_home / "tools", "a_stock.py", "AStock", "stock_price")
    made = CliRunner().invoke(cli, ["-l", language, "tools", "new", "stock_price"])
    assert made.exit_code == 0, made.output
    assert note.format(first=first) in made.stderr
    checked = CliRunner().invoke(cli, ["-l", language, "tools", "check"])
    new = riverse_home / "tools" / "stock_price.py"
    [said] = [line for line in checked.stdout.splitlines() if line.startswith(f"{new}:")]
    level = {"en": "error", "ja": "エラー"}[language]  # the one problem format, its level word translated
    assert f": {level}: " in said and f"duplicate tool name 'stock_price': already defined in {first}:4 (AStock); " in said
