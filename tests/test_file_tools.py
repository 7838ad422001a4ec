"""file_list, file_read and grep against a temporary folder tree: roots, caps, encodings, messages.

The attacks on the roots (``..``, absolute paths, symbolic links, look-alike characters) are in
tests/test_robustness.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.toolkit.paths import Roots
from agent.tools.file_list import FileListTool
from agent.tools.file_read import FileReadTool
from agent.tools.grep import GrepTool


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "projects" / "riverse").mkdir(parents=True)
    (root / "empty").mkdir()
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("TODO hidden\n", encoding="utf-8")
    (root / "todo.txt").write_text("buy milk\nTODO call the dentist\nwater the plants\n", encoding="utf-8")
    (root / ".secret-notes").write_text("TODO hidden file\n", encoding="utf-8")
    (root / "projects" / "riverse" / "plan.md").write_text("# Plan\n- todo: ship notes\n", encoding="utf-8")
    (root / "中文笔记.txt").write_bytes("我的护照五月到期\n记得续签\n".encode("gbk"))
    (root / "メモ.txt").write_bytes("パスポートの期限は五月\n".encode("shift_jis"))
    (root / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    return root


def config(*roots: Path, language: str = "en", **sections: dict) -> dict:
    return {"language": language, "file_roots": [str(r) for r in roots], "tools": dict(sections)}


# ----------------------------------------------------------------------------- roots
def test_default_root_is_the_documents_folder_of_home(tmp_path):
    documents = Path(os.environ["HOME"]) / "Documents"
    documents.mkdir()
    (documents / "letter.txt").write_text("Dear Ana,\n", encoding="utf-8")
    cfg = {"language": "en", "tools": {}}
    listed = FileListTool(cfg).execute({})
    assert listed.success and "letter.txt" in listed.data
    read = FileReadTool(cfg).execute({"path": "letter.txt"})
    assert read.success and "Dear Ana," in read.data


@pytest.mark.parametrize(
    "language,expected",
    [("en", "Add the folders they may read to file_roots"), ("zh", "请在 settings.yaml 的 file_roots 中"), ("ja", "settings.yaml の file_roots に")],
)
def test_without_documents_folder_nothing_is_readable_and_the_message_says_how_to_configure(language, expected):
    cfg = {"language": language, "tools": {}}
    for tool, params in ((FileListTool, {}), (FileReadTool, {"path": "x.txt"}), (GrepTool, {"pattern": "x"})):
        result = tool(cfg).execute(params)
        assert not result.success
        assert expected in result.error and "~/Documents" in result.error


def test_configured_roots_that_do_not_exist_are_reported(tmp_path):
    result = FileListTool(config(tmp_path / "missing")).execute({})
    assert not result.success
    assert "None of the folders in file_roots exists" in result.error and "missing" in result.error


def test_roots_resolve_relative_paths_against_the_first_root(docs, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    roots = Roots.from_config(config(docs, other))
    assert roots.resolve("todo.txt") == docs.resolve() / "todo.txt"
    assert roots.resolve(str(other / "x")) == other.resolve() / "x"
    assert roots.resolve("") == docs.resolve()


# --------------------------------------------------------------------------- file_list
def test_file_list_shows_folders_first_sizes_and_skips_hidden(docs):
    result = FileListTool(config(docs)).execute({"path": ""})
    assert result.success
    lines = result.data.splitlines()
    assert lines[0] == f"{docs} (6 entries):"
    assert lines[1:3] == ["empty/", "projects/"]
    assert "todo.txt (48 B)" in lines and "photo.png (216 B)" in lines
    assert ".git" not in result.data and ".secret-notes" not in result.data


def test_file_list_shows_hidden_entries_when_configured(docs):
    result = FileListTool(config(docs, file_list={"show_hidden": True})).execute({})
    assert ".git/" in result.data and ".secret-notes" in result.data


def test_file_list_of_subfolder_empty_folder_and_file(docs):
    assert FileListTool(config(docs)).execute({"path": "projects/riverse"}).data.endswith("plan.md (26 B)")
    assert FileListTool(config(docs)).execute({"path": "empty"}).data == f"{docs / 'empty'} is empty."
    result = FileListTool(config(docs)).execute({"path": "todo.txt"})
    assert not result.success and "is a file, not a folder. Use file_read" in result.error


def test_file_list_caps_entries(docs):
    result = FileListTool(config(docs, file_list={"max_entries": 2})).execute({})
    assert result.data.splitlines()[1:] == [
        "empty/",
        "projects/",
        "... and 4 more (the listing stops at 2 entries; list a subfolder to see them)",
    ]


def test_file_list_with_several_roots_lists_the_roots(docs, tmp_path):
    other = tmp_path / "music"
    other.mkdir()
    result = FileListTool(config(docs, other, language="ja")).execute({})
    assert result.data.splitlines() == ["読み取りできるフォルダー:", f"{docs}/", f"{other}/"]


# --------------------------------------------------------------------------- file_read
def test_file_read_returns_the_lines(docs):
    result = FileReadTool(config(docs)).execute({"path": "todo.txt"})
    assert result.success
    assert result.data == "todo.txt, lines 1-3:\nbuy milk\nTODO call the dentist\nwater the plants"


def test_file_read_caps_lines_and_says_how_to_continue(docs):
    (docs / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)), encoding="utf-8")
    tool = FileReadTool(config(docs, file_read={"max_lines": 4}))
    first = tool.execute({"path": "long.txt"})
    assert first.data.splitlines() == [
        "long.txt, lines 1-4:", "line 1", "line 2", "line 3", "line 4",
        "[the file continues; call file_read again with start_line=5 for the next part]",
    ]
    second = tool.execute({"path": "long.txt", "start_line": 9})
    assert second.data.splitlines() == ["long.txt, lines 9-10:", "line 9", "line 10"]
    past = tool.execute({"path": "long.txt", "start_line": 40})
    assert not past.success and "has only 10 lines; start_line 40 is past the end" in past.error


def test_file_read_caps_bytes_without_splitting_a_line(docs):
    (docs / "big.txt").write_text("".join(f"{i:04d} " + "x" * 45 + "\n" for i in range(1000)), encoding="utf-8")
    result = FileReadTool(config(docs, file_read={"max_bytes": 175})).execute({"path": "big.txt"})
    lines = result.data.splitlines()
    assert lines[1:4] == ["0000 " + "x" * 45, "0001 " + "x" * 45, "0002 " + "x" * 45]
    assert lines[-1] == "[the file continues; call file_read again with start_line=4 for the next part]"
    assert len(result.data.encode()) < 175 + 200


def test_file_read_shows_the_start_of_a_single_huge_line(docs):
    (docs / "one-line.json").write_text("[" + "1," * 100_000 + "1]", encoding="utf-8")
    result = FileReadTool(config(docs, file_read={"max_bytes": 100})).execute({"path": "one-line.json"})
    assert result.success
    assert result.data.splitlines()[1] == "[" + "1," * 49 + "1"  # the first 100 bytes
    assert "[line 1 is longer than 100 bytes and was cut]" in result.data
    assert len(result.data) < 500


@pytest.mark.parametrize("name,expected", [("中文笔记.txt", "我的护照五月到期"), ("メモ.txt", "パスポートの期限は五月")])
def test_file_read_decodes_gbk_and_shift_jis(docs, name, expected):
    result = FileReadTool(config(docs)).execute({"path": name})
    assert result.success and expected in result.data


def test_file_read_refuses_binary_folders_and_missing_files_in_each_language(docs):
    binary = FileReadTool(config(docs)).execute({"path": "photo.png"})
    assert not binary.success and "is a binary file (216 bytes), not text" in binary.error
    folder = FileReadTool(config(docs, language="zh")).execute({"path": "projects"})
    assert not folder.success and folder.error == "“projects”是文件夹。请用 file_list 查看其中的内容。"
    missing = FileReadTool(config(docs, language="ja")).execute({"path": "nope.txt"})
    assert not missing.success and missing.error.startswith("「nope.txt」は存在しません。")
    empty = FileReadTool(config(docs)).execute({"path": " "})
    assert not empty.success and "No file was given" in empty.error


def test_file_read_of_an_empty_file(docs):
    (docs / "blank.txt").write_bytes(b"")
    assert FileReadTool(config(docs)).execute({"path": "blank.txt"}).data == "'blank.txt' is empty."


def test_file_read_accepts_full_width_letters_for_a_plain_name(docs):
    result = FileReadTool(config(docs)).execute({"path": "ｔｏｄｏ.txt"})
    assert result.success and "buy milk" in result.data


# -------------------------------------------------------------------------------- grep
def test_grep_finds_lines_case_insensitively_and_skips_hidden_and_binary(docs):
    result = GrepTool(config(docs)).execute({"pattern": "todo"})
    assert result.success
    assert result.data.splitlines() == [
        f"2 matching lines for 'todo' in {docs} (5 files searched):",
        "todo.txt:2: TODO call the dentist",  # a folder's own files come before its subfolders'
        "projects/riverse/plan.md:2: - todo: ship notes",
    ]


def test_grep_takes_regular_expressions_and_falls_back_to_plain_text(docs):
    regex = GrepTool(config(docs)).execute({"pattern": r"^(buy|water)\b"})
    assert regex.data.splitlines()[1:] == ["todo.txt:1: buy milk", "todo.txt:3: water the plants"]
    (docs / "math.txt").write_text("f(x = 1\nnothing\n", encoding="utf-8")
    plain = GrepTool(config(docs)).execute({"pattern": "f(x"})
    assert plain.data.splitlines()[1:] == ["math.txt:1: f(x = 1"]


def test_grep_finds_chinese_and_japanese_in_other_encodings(docs):
    result = GrepTool(config(docs, language="zh")).execute({"pattern": "护照|パスポート"})
    assert "中文笔记.txt:1: 我的护照五月到期" in result.data
    assert "メモ.txt:1: パスポートの期限は五月" in result.data
    assert result.data.startswith("在 ")


def test_grep_results_can_be_read_back_with_file_read(docs):
    found = GrepTool(config(docs)).execute({"pattern": "ship notes", "path": "projects"})
    path = found.data.splitlines()[1].split(":")[0]
    assert path == "projects/riverse/plan.md"
    assert "ship notes" in FileReadTool(config(docs)).execute({"path": path}).data


def test_grep_caps_matches_files_and_line_length(docs):
    many = docs / "many"
    many.mkdir()
    for i in range(30):
        (many / f"f{i:02d}.txt").write_text("needle\n" * 3, encoding="utf-8")
    capped = GrepTool(config(docs, grep={"max_matches": 5})).execute({"pattern": "needle", "path": "many"})
    assert len([l for l in capped.data.splitlines() if ": needle" in l]) == 5
    assert capped.data.endswith("[stopped at 5 matches; search a smaller folder or a more precise pattern for the rest]")
    files = GrepTool(config(docs, grep={"max_files": 4})).execute({"pattern": "needle", "path": "many"})
    assert "(4 files searched)" in files.data
    assert files.data.endswith("[stopped after searching 4 files; search a smaller folder for the rest]")
    (docs / "wide.txt").write_text("a" * 5000 + " needle " + "b" * 5000 + "\n", encoding="utf-8")
    wide = GrepTool(config(docs, grep={"max_line_chars": 60})).execute({"pattern": "needle", "path": "wide.txt"})
    shown = wide.data.splitlines()[1].split(": ", 1)[1]
    assert "needle" in shown and len(shown) <= 62


def test_grep_skips_files_over_the_size_limit_and_says_so(docs):
    (docs / "huge.log").write_text("needle\n" * 1000, encoding="utf-8")
    result = GrepTool(config(docs, grep={"max_file_bytes": 1000})).execute({"pattern": "needle"})
    assert result.data.splitlines()[0] == f"No lines match 'needle' in {docs} (6 files searched)."
    assert result.data.splitlines()[1] == "[1 files larger than 1000 bytes were skipped]"


@pytest.mark.parametrize("pattern", ["(a+)+b", r"(\w*x)*", "(a|b+){2,}", "((ab)*c+)*"])
def test_grep_refuses_patterns_with_nested_repetition(docs, pattern):
    result = GrepTool(config(docs)).execute({"pattern": pattern})
    assert not result.success and "can take exponential time" in result.error


def test_grep_needs_a_pattern_of_reasonable_length(docs):
    assert "No search text was given" in GrepTool(config(docs)).execute({"pattern": "  "}).error
    long = GrepTool(config(docs)).execute({"pattern": "x" * 501})
    assert not long.success and "has 501 characters; the limit is 500" in long.error


def test_manifests_are_typed_read_only_and_in_three_languages(docs):
    for tool_class in (FileListTool, FileReadTool, GrepTool):
        descriptions = set()
        for language in ("en", "zh", "ja"):
            manifest = tool_class(config(docs, language=language)).manifest()
            assert manifest.risk == "read"
            assert 2 <= len(manifest.examples) <= 3
            assert set(manifest.parameter_types) == set(manifest.parameters)
            descriptions.add(manifest.description)
        assert len(descriptions) == 3
