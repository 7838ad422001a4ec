"""``file_list``: what is in a folder, inside the folders the settings allow (``file_roots``).

Settings (``tools.file_list``): ``max_entries`` (default 200), ``show_hidden`` (default false).

The folder is checked by name, then opened from its root one name at a time without following links
(``Roots.open``) and listed through that descriptor (``os.scandir(fd)``), so a folder swapped for a
link after the check is refused, never listed. Each entry is described from ``lstat``; a link is
shown as a folder or file only when its real path lies inside a root (and is then opened from that
root), otherwise as a link out. Named pipes, devices and sockets are named as such, never opened.
Names are shown with control characters escaped, so a file name cannot forge lines of the listing.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from agent.toolkit.base import BaseTool, ToolManifest, ToolResult
from agent.toolkit.texts import failure, manifest_from, pick
from agent.toolkit.descriptors import NotRegular, kind_of
from agent.toolkit.paths import PathRefused, Roots, kind_name, printable, refusal
from agent.toolkit.tool_settings import positive_int, switch

MAX_ENTRIES = 200

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "List the files and folders in one of the user's folders (only inside the allowed folders).",
        "path": "Folder to list, relative to the first allowed folder or absolute; empty for the allowed folders themselves",
        "examples": ["What files are in my Documents folder?", "List the contents of the projects folder", "Show me what's in reports/2024"],
        "extra_examples": [
            "What's inside the Music folder?",
            "Show me the contents of the src directory",
            "Do I have anything in the backups folder?",
            "List everything under photos/2023",
            "Show the files in ~/projects/website",
            "Can you show me which files are in projects/blog/drafts?",
            "Is there anything in the invoices/2025 folder?",
            "list files in ~/Desktop pls",
            "I forgot what I put in the recipes folder, can you list it?",
            "Which folders do I have access to here?",
            "Show me the contents of work/clients/acme",
        ],
    },
    "zh": {
        "description": "列出用户某个文件夹中的文件和子文件夹（仅限允许访问的文件夹）。",
        "path": "要列出的文件夹，相对于第一个允许的文件夹或绝对路径；留空则列出允许的文件夹本身",
        "examples": ["我的文档文件夹里有哪些文件？", "列出 projects 文件夹的内容", "看看 reports/2024 里有什么"],
        "extra_examples": [
            "下载文件夹里有什么？",
            "看看 src 目录下有哪些文件",
            "backups 文件夹里有东西吗？",
            "列出 photos/2023 下面的所有文件",
            "~/projects/website 里都有些什么文件",
            "我的下载文件夹里有什么文件？",
            "列出 projects 目录下的所有文件",
            "帮我看看 photos/2024 里面有哪些东西",
            "Documents 文件夹里都有啥",
            "看一下 ~/work/reports 里有哪些文件",
            "backup 文件夹是空的吗？列一下内容",
            "请帮我列出 notes/meeting 这个目录下的文件和子文件夹。",
            "src 目录下有哪些 folder？",
        ],
    },
    "ja": {
        "description": "ユーザーのフォルダー内のファイルとフォルダーを一覧にする（許可されたフォルダー内のみ）。",
        "path": "一覧にするフォルダー。最初の許可フォルダーからの相対パスか絶対パス。空なら許可フォルダーそのもの",
        "examples": ["ドキュメントフォルダーにはどんなファイルがある？", "projects フォルダーの中身を見せて", "reports/2024 に何が入っているか教えて"],
        "extra_examples": [
            "ダウンロードフォルダーの中身は？",
            "src ディレクトリにはどんなファイルがある？",
            "backups フォルダーに何か入ってる？",
            "photos/2023 の下のファイルを一覧にして",
            "~/projects/website に何があるか見せて",
            "ダウンロードフォルダに何が入ってる？",
            "projects フォルダの中身を一覧で見せて",
            "photos/2022 の中を見せてください",
            "~/work の中身 list して",
            "backup フォルダって空っぽ？中身を確認して",
            "src ディレクトリにあるファイルとフォルダを全部表示してください。",
            "music フォルダに何のファイルがあったっけ？一覧にして",
        ],
    },
}

_TEXT: dict[str, dict[str, str]] = {
    "not_dir": {
        "en": "'{path}' is a file, not a folder. Use file_read to read it.",
        "zh": "“{path}”是文件，不是文件夹。请用 file_read 读取它。",
        "ja": "「{path}」はフォルダーではなくファイルです。file_read で読んでください。",
    },
    "unreadable": {
        "en": "The folder '{path}' cannot be read: {reason}.",
        "zh": "无法读取文件夹“{path}”：{reason}。",
        "ja": "フォルダー「{path}」を読めません: {reason}。",
    },
    "roots": {
        "en": "Folders you can read:",
        "zh": "可以读取的文件夹：",
        "ja": "読み取りできるフォルダー:",
    },
    "header": {
        "en": "{path} ({count} entries):",
        "zh": "{path}（{count} 项）：",
        "ja": "{path}（{count} 件）:",
    },
    "empty": {
        "en": "{path} is empty.",
        "zh": "{path} 是空的。",
        "ja": "{path} は空です。",
    },
    "more": {
        "en": "... and {count} more (the listing stops at {limit} entries; list a subfolder to see them)",
        "zh": "……还有 {count} 项（最多列出 {limit} 项；请列出子文件夹查看）",
        "ja": "……ほか {count} 件（一覧は {limit} 件までです。サブフォルダーを指定してください）",
    },
    "outside_link": {
        "en": "link outside the allowed folders",
        "zh": "指向允许的文件夹之外的链接",
        "ja": "許可フォルダーの外へのリンク",
    },
}


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    value, units = n / 1024, ["KB", "MB", "GB", "TB"]
    while value >= 1024 and len(units) > 1:
        value /= 1024
        units.pop(0)
    return f"{value:.1f} {units[0]}"


class FileListTool(BaseTool):
    """Lists a folder; never descends, never follows a link out of the allowed folders."""

    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="file_list",
            parameter_types={"path": "string"},
            required=[],
            risk="read",
        )

    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        given = str(params.get("path") or "")
        try:
            roots = Roots.from_config(self.config)
            if not given.strip() and len(roots.folders) > 1:
                lines = [pick(_TEXT["roots"], lang)] + [f"{r.shown}/" for r in roots.folders]
                return ToolResult(success=True, data="\n".join(lines))
            opened = roots.open(given)
        except PathRefused as exc:
            return refusal(exc, lang)
        except OSError as exc:
            return failure(_TEXT["unreadable"], lang, path=given or str(roots.first), reason=exc.strerror or exc)
        with opened:
            if not opened.is_dir:
                return failure(_TEXT["not_dir"], lang, path=given)
            section = self.tool_config("file_list")
            hidden = switch(section, "show_hidden")
            try:
                with os.scandir(opened.fd) as scan:
                    rows = [self._describe(e, opened.path, roots) for e in scan if hidden or not e.name.startswith(".")]
            except OSError as exc:
                return failure(_TEXT["unreadable"], lang, path=given or str(opened.path), reason=exc.strerror or exc)
        folder = printable(str(opened.path))
        if not rows:
            return ToolResult(success=True, data=pick(_TEXT["empty"], lang, path=folder))
        limit = positive_int(section, "max_entries", MAX_ENTRIES)
        rows.sort(key=lambda row: (not row[0], row[1].lower()))
        lines = [pick(_TEXT["header"], lang, path=folder, count=len(rows))]
        lines += [text for _, _, text in rows[:limit]]
        if len(rows) > limit:
            lines.append(pick(_TEXT["more"], lang, count=len(rows) - limit, limit=limit))
        return ToolResult(success=True, data="\n".join(lines))

    def _describe(self, entry: os.DirEntry, folder: Path, roots: Roots) -> tuple[bool, str, str]:
        """(is a folder, name, line) for an entry of the open folder, from its ``lstat``; a link is
        looked at through :meth:`Roots.open_inside` when it leads inside a root."""
        name = printable(entry.name)
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            return False, name, name
        if not stat.S_ISLNK(info.st_mode):
            return self._row(name, info)
        real = roots.follow(folder / entry.name)
        if real is None:
            return False, name, f"{name}@ ({pick(_TEXT['outside_link'], self.language)})"
        try:
            with roots.open_inside(real) as target:
                return self._row(name, target.info)
        except NotRegular as exc:
            return False, name, f"{name} ({kind_name(exc.kind, self.language)})"
        except OSError:
            return False, name, name

    def _row(self, name: str, info: os.stat_result) -> tuple[bool, str, str]:
        kind = kind_of(info.st_mode)
        if kind == "dir":
            return True, name, f"{name}/"
        if kind == "file":
            return False, name, f"{name} ({_size(info.st_size)})"
        return False, name, f"{name} ({kind_name(kind, self.language)})"
