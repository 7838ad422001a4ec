"""``grep``: find lines matching a regular expression or plain text in the files under a folder,
inside the folders the settings allow (``file_roots``).

The search is case-insensitive. A pattern that is not a valid regular expression is searched as
plain text; one with a nested repetition such as ``(a+)+``, which can take exponential time on an
unlucky line, is refused. Hidden files and folders, binary files, files larger than
``max_file_bytes``, links leading out of the allowed folders and named pipes, devices and sockets are
skipped (the result says how many files were skipped for their size or kind).

The walk goes through descriptors: each folder is listed and each file opened relative to the
already opened folder, never through a link (``agent.toolkit.descriptors``); a link met on the way is
followed only when its real path lies inside a root, and is then opened from that root in the same
way. A folder or file swapped for a link during the search is skipped, never followed, and no file
is read past ``max_file_bytes``, even one that grows while it is read.

Settings (``tools.grep``): ``max_files`` (files scanned, default 2000), ``max_matches`` (default
100), ``max_line_chars`` (characters shown of a matching line, default 200), ``max_file_bytes``
(default 1 MB).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, manifest_from, pick
from agent.toolkit.descriptors import LinkMet, NotRegular, Opened, open_at, read_at_most, walk
from agent.toolkit.paths import PathRefused, Roots, decode, looks_binary, printable, refusal
from agent.toolkit.tool_settings import positive_int

MAX_FILES = 2000
MAX_MATCHES = 100
MAX_LINE_CHARS = 200
MAX_FILE_BYTES = 1_000_000
MAX_PATTERN = 500
MATCHED_CHARS = 10_000  # a line is matched on its first characters only, to bound the regex's work

_REPEAT = re.compile(r"[+*]|\{\d*,")  # a repetition without a small fixed bound

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "Search the text files in the user's allowed folders for lines containing a word, phrase or regular expression.",
        "pattern": "Text or regular expression to look for (case-insensitive), e.g. invoice or TODO|FIXME",
        "path": "Folder or file to search, relative to the first allowed folder or absolute; empty for all allowed folders",
        "examples": ["Which of my notes mention the dentist?", "Find TODO in the projects folder", "Search my documents for 'passport number'"],
        "extra_examples": [
            "Which files in src mention DATABASE_URL?",
            "Search the docs folder for 'refund policy'",
            "Where did I write about the Kyoto trip in my journal folder?",
            "Find every file under projects/app that contains 'TODO: fix'",
            "Look for the word 'invoice' in my Documents",
            "Which of my notes mention 'wifi password'?",
            "Search all my files for the word 'mortgage'",
            "grep FIXME in src",
            "Find any file in the recipes folder that mentions garlic",
            "Where did I write down the plumber's number? Search my documents for 'plumber'",
            "Look through my journal folder for anything about Lisbon",
            "Which files under projects/api contain 'api_key'?",
            "Search notes/meetings for lines matching 'deadline|due date'",
        ],
    },
    "zh": {
        "description": "在用户允许访问的文件夹的文本文件中，查找包含某个词、短语或正则表达式的行。",
        "pattern": "要查找的文字或正则表达式（不区分大小写），例如 发票 或 TODO|FIXME",
        "path": "要搜索的文件夹或文件，相对于第一个允许的文件夹或绝对路径；留空则搜索所有允许的文件夹",
        "examples": ["我的笔记里哪些提到了牙医？", "在 projects 文件夹里查找 TODO", "在文档里搜索“护照号码”"],
        "extra_examples": [
            "src 里哪些文件提到了 DATABASE_URL？",
            "在 docs 文件夹里搜索“退款政策”",
            "我的日记文件夹里哪里写过京都旅行？",
            "projects/app 下哪些文件包含 'TODO: fix'",
            "在文档里找一下“发票”这个词",
            "在我的文档里搜一下“发票”",
            "哪些笔记里提到了牙医？",
            "帮我在 projects 文件夹里找 TODO",
            "src 目录下哪些文件用到了 API_KEY？",
            "我日记里哪里写过去成都玩的事？在 journal 文件夹里搜一下",
            "grep 一下 docs 里的 'refund'",
            "在所有文件中查找包含“合同编号”的行",
            "请在 work/reports 目录中搜索所有提到“预算”的地方。",
        ],
    },
    "ja": {
        "description": "許可されたフォルダー内のテキストファイルから、語句や正規表現を含む行を探す。",
        "pattern": "探す文字列または正規表現（大文字小文字を区別しない）。例: 請求書、TODO|FIXME",
        "path": "検索するフォルダーかファイル。最初の許可フォルダーからの相対パスか絶対パス。空ならすべての許可フォルダー",
        "examples": ["歯医者について書いたメモはどれ？", "projects フォルダーで TODO を探して", "ドキュメントから「パスポート番号」を検索して"],
        "extra_examples": [
            "src の中で DATABASE_URL を使っているファイルは？",
            "docs フォルダーから「返金ポリシー」を検索して",
            "日記のフォルダーで京都旅行について書いたのはどこ？",
            "projects/app 以下で 'TODO: fix' を含むファイルを探して",
            "ドキュメントの中から「請求書」という言葉を探して",
            "メモの中で「歯医者」って書いてあるのはどれ？",
            "Documents フォルダから「パスポート番号」を検索して",
            "journal フォルダで沖縄旅行について書いた箇所を探してください",
            "全部のファイルから「請求書」って単語を grep して",
            "projects/web の中で DATABASE_URL を使ってるファイルはどれ？",
            "議事録フォルダの中で「締め切り」が出てくる行を見せて",
            "どのファイルに Wi-Fi のパスワードを書いたか、検索して見つけて",
        ],
    },
}

_TEXT: dict[str, dict[str, str]] = {
    "no_pattern": {
        "en": "No search text was given. Pass what to look for, e.g. pattern=\"invoice\".",
        "zh": "没有提供要查找的内容。请传入要找的文字，例如 pattern=\"发票\"。",
        "ja": "検索する文字列が指定されていません。pattern=\"請求書\" のように渡してください。",
    },
    "too_long": {
        "en": "The pattern has {length} characters; the limit is {limit}. Search for something shorter.",
        "zh": "查找内容有 {length} 个字符，超过了 {limit} 的上限。请用更短的内容查找。",
        "ja": "検索パターンが {length} 文字あり、上限の {limit} 文字を超えています。短くしてください。",
    },
    "nested": {
        "en": "The pattern '{pattern}' repeats a group that itself repeats (like (a+)+), which can take exponential time. "
              "Simplify it, e.g. a+ instead of (a+)+.",
        "zh": "模式“{pattern}”对本身带重复的分组再次重复（如 (a+)+），可能耗费指数级时间。请简化，例如用 a+ 代替 (a+)+。",
        "ja": "パターン「{pattern}」は繰り返しを含むグループをさらに繰り返しており（(a+)+ など）、指数的に時間がかかることがあります。"
              "(a+)+ の代わりに a+ のように簡単にしてください。",
    },
    "none": {
        "en": "No lines match '{pattern}' in {where} ({scanned} files searched).",
        "zh": "在 {where} 中没有与“{pattern}”匹配的行（搜索了 {scanned} 个文件）。",
        "ja": "{where} に「{pattern}」に一致する行はありません（{scanned} ファイルを検索）。",
    },
    "header": {
        "en": "{count} matching lines for '{pattern}' in {where} ({scanned} files searched):",
        "zh": "在 {where} 中找到 {count} 行与“{pattern}”匹配（搜索了 {scanned} 个文件）：",
        "ja": "{where} で「{pattern}」に一致する行が {count} 行見つかりました（{scanned} ファイルを検索）:",
    },
    "match_cap": {
        "en": "[stopped at {limit} matches; search a smaller folder or a more precise pattern for the rest]",
        "zh": "[已达到 {limit} 条匹配的上限；请缩小文件夹范围或使用更精确的模式]",
        "ja": "[一致は {limit} 件で打ち切りました。続きはフォルダーを絞るか、より具体的なパターンで検索してください]",
    },
    "file_cap": {
        "en": "[stopped after searching {limit} files; search a smaller folder for the rest]",
        "zh": "[已搜索 {limit} 个文件，达到上限；请缩小文件夹范围]",
        "ja": "[{limit} ファイルを検索したところで打ち切りました。続きはフォルダーを絞ってください]",
    },
    "skipped": {
        "en": "[{count} files larger than {limit} bytes were skipped]",
        "zh": "[跳过了 {count} 个大于 {limit} 字节的文件]",
        "ja": "[{limit} バイトを超える {count} 個のファイルは飛ばしました]",
    },
    "unreadable": {
        "en": "'{path}' cannot be searched: {reason}.",
        "zh": "无法搜索“{path}”：{reason}。",
        "ja": "「{path}」を検索できません: {reason}。",
    },
    "special": {
        "en": "[{count} special files (named pipes, devices or sockets) were skipped]",
        "zh": "[跳过了 {count} 个特殊文件（命名管道、设备或套接字）]",
        "ja": "[特殊ファイル（名前付きパイプ、デバイス、ソケット）{count} 個は飛ばしました]",
    },
}


def has_nested_repetition(pattern: str) -> bool:
    """Whether a repeated group contains a repetition, as in ``(a+)+``, ``((ab)*c)*`` or ``(x|y+){2,}``:
    the shape that makes a backtracking regex engine take exponential time."""
    groups: list[bool] = []  # for each open group: does it contain a repetition?
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            groups.append(False)
        elif ch == ")" and groups:
            inner = groups.pop()
            repeated = bool(_REPEAT.match(pattern, i + 1))
            if inner and repeated:
                return True
            if groups and inner:
                groups[-1] = True
        elif groups and _REPEAT.match(pattern, i):
            groups[-1] = True
        i += 1
    return False


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """The pattern as a case-insensitive regex; plain text when it is not a valid regular expression."""
    try:
        return re.compile(pattern, re.IGNORECASE)
    except re.error:
        return re.compile(re.escape(pattern), re.IGNORECASE)


def _files(starts: list[Opened], roots: Roots) -> Iterator[tuple[Path, Opened | str]]:
    """The files to search under ``starts`` in a stable order: each an opened regular file, or the
    kind of a named pipe, device or socket met on the way (to count it). Hidden names and links out
    of the roots are left out. The caller closes each opened file; ``starts`` stay open."""
    for start in starts:
        if not start.is_dir:
            yield start.path, start
            continue
        entries = walk(start.fd, start.path)
        try:
            for path, folder_fd, name in entries:
                found = _open_entry(roots, folder_fd, name, path)
                if isinstance(found, Opened) and found.is_dir:  # a link to a folder: not descended
                    found.close()
                elif found is not None:
                    yield path, found
        finally:
            entries.close()


def _open_entry(roots: Roots, folder_fd: int, name: str, path: Path) -> Opened | str | None:
    """The entry ``name`` of an open folder: opened, or its kind when it is special, or None when it
    is a link out of the roots, vanished or was swapped. A link inside is opened from its root."""
    try:
        return open_at(folder_fd, name, path)
    except NotRegular as exc:
        return exc.kind
    except LinkMet:
        pass
    except OSError:
        return None
    real = roots.follow(path)
    if real is None:
        return None
    try:
        return roots.open_inside(real)
    except NotRegular as exc:
        return exc.kind
    except OSError:
        return None


def _excerpt(line: str, match: re.Match[str], limit: int) -> str:
    """The part of ``line`` around ``match``, at most ``limit`` characters."""
    if len(line.strip()) <= limit:
        return line.strip()
    begin = max(0, min(match.start() - limit // 3, len(line) - limit))
    return ("…" if begin else "") + line[begin : begin + limit] + ("…" if begin + limit < len(line) else "")


class GrepTool(BaseTool):
    """Searches text files, with caps on files, matches and line length."""

    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="grep",
            parameter_types={"pattern": "string", "path": "string"},
            required=["pattern"],
            risk="read",
        )

    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        pattern = str(params.get("pattern") or "")
        if not pattern.strip():
            return failure(_TEXT["no_pattern"], lang)
        if len(pattern) > MAX_PATTERN:
            return failure(_TEXT["too_long"], lang, length=len(pattern), limit=MAX_PATTERN)
        if has_nested_repetition(pattern):
            return failure(_TEXT["nested"], lang, pattern=pattern)
        given = str(params.get("path") or "").strip()
        try:
            roots = Roots.from_config(self.config)
            starts = [roots.open(given)] if given else _open_roots(roots)
        except PathRefused as exc:
            return refusal(exc, lang)
        except OSError as exc:
            return failure(_TEXT["unreadable"], lang, path=given, reason=exc.strerror or exc)
        try:
            return self._search(compile_pattern(pattern), pattern, starts, roots, given or roots.describe())
        finally:
            for start in starts:
                start.close()

    def _search(self, regex: re.Pattern[str], pattern: str, starts: list[Opened], roots: Roots, where: str) -> ToolResult:
        lang = self.language
        section = self.tool_config("grep")
        max_files = positive_int(section, "max_files", MAX_FILES)
        max_matches = positive_int(section, "max_matches", MAX_MATCHES)
        max_line = positive_int(section, "max_line_chars", MAX_LINE_CHARS)
        max_bytes = positive_int(section, "max_file_bytes", MAX_FILE_BYTES)
        found: list[str] = []
        scanned = large = special = 0
        notes: list[str] = []
        files = _files(starts, roots)
        try:
            for path, item in files:
                if scanned + special >= max_files:
                    notes.append(pick(_TEXT["file_cap"], lang, limit=max_files))
                    break
                if isinstance(item, str):  # a named pipe, device or socket: never read
                    special += 1
                    continue
                scanned += 1
                with item:
                    data = _contents(item, max_bytes)
                if data is None:
                    large += 1
                    continue
                if looks_binary(data[:8192]):
                    continue
                found += _matches(regex, data, printable(roots.relative(path)), max_line, max_matches - len(found))
                if len(found) >= max_matches:
                    notes.append(pick(_TEXT["match_cap"], lang, limit=max_matches))
                    break
        finally:
            files.close()
        if large:
            notes.append(pick(_TEXT["skipped"], lang, count=large, limit=max_bytes))
        if special:
            notes.append(pick(_TEXT["special"], lang, count=special))
        if not found:
            return ToolResult(success=True, data="\n".join([pick(_TEXT["none"], lang, pattern=pattern, where=where, scanned=scanned), *notes]))
        header = pick(_TEXT["header"], lang, count=len(found), pattern=pattern, where=where, scanned=scanned)
        return ToolResult(success=True, data="\n".join([header, *found, *notes]))


def _open_roots(roots: Roots) -> list[Opened]:
    """Every root, opened; one that cannot be opened (permissions) is left out, as an unreadable
    folder met while walking is."""
    opened = []
    for root in roots.folders:
        try:
            opened.append(roots.open_real(root.real, str(root.shown)))
        except (PathRefused, OSError):
            continue
    return opened


def _contents(opened: Opened, limit: int) -> bytes | None:
    """The bytes of an opened file, or None when it has more than ``limit`` (it is then not read
    further, even if it grew after its size was checked); empty when it cannot be read."""
    if opened.info.st_size > limit:
        return None
    try:
        data = read_at_most(opened.fd, limit + 1)
    except OSError:
        return b""
    return None if len(data) > limit else data


def _matches(regex: re.Pattern[str], data: bytes, shown: str, max_line: int, limit: int) -> list[str]:
    """At most ``limit`` matching lines of a file's text, as ``path:number: excerpt``."""
    found: list[str] = []
    for number, line in enumerate(decode(data).splitlines(), 1):
        match = regex.search(line, 0, MATCHED_CHARS)
        if match:
            found.append(f"{shown}:{number}: {_excerpt(line, match, max_line)}")
            if len(found) >= limit:
                break
    return found
