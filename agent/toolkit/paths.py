"""The folders the file tools may read, and the one check every path goes through.

Roots come from the settings key ``file_roots`` (handed to tools as ``config["file_roots"]``). When it
is empty the default is the user's documents folder, ``~/Documents``, if it exists; otherwise nothing
is readable and the message says how to configure roots.

A path the model gives is accepted only when it stays inside a root both as written (no ``..`` or
absolute path leading elsewhere) and after ``resolve()`` (no symbolic link leading out). The NFKC
form of the path is checked too, so full-width or look-alike dots and slashes (``．．／``) cannot
smuggle an escape past a later normalisation; control and bidirectional-override characters, which
disguise what a path shows, are refused outright. Relative paths start at the first root.

It also holds how the file tools turn a file's bytes into text, so they agree on what is binary.
"""

from __future__ import annotations

import codecs
import os
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bs4.dammit import UnicodeDammit

from agent.toolkit.base import ToolResult
from agent.toolkit.texts import failure

DEFAULT_ROOT = "~/Documents"

# Characters that change how a path is displayed without being visible.
_BIDI = {chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F)}

_TEXT: dict[str, dict[str, str]] = {
    "no_default_root": {
        "en": "No folder is open to the file tools: the default, {default}, does not exist. "
              "Add the folders they may read to file_roots in settings.yaml, e.g. file_roots: [~/notes, ~/projects].",
        "zh": "文件工具没有可读的文件夹：默认的 {default} 不存在。"
              "请在 settings.yaml 的 file_roots 中加入允许读取的文件夹，例如 file_roots: [~/notes, ~/projects]。",
        "ja": "ファイルツールが読めるフォルダーがありません。既定の {default} が存在しません。"
              "settings.yaml の file_roots に読み取りを許可するフォルダーを追加してください（例: file_roots: [~/notes, ~/projects]）。",
    },
    "no_root": {
        "en": "None of the folders in file_roots exists ({configured}). Fix file_roots in settings.yaml.",
        "zh": "file_roots 中的文件夹都不存在（{configured}）。请修改 settings.yaml 中的 file_roots。",
        "ja": "file_roots のフォルダーがどれも存在しません（{configured}）。settings.yaml の file_roots を直してください。",
    },
    "dotdot": {
        "en": "Refused: '{path}' uses '..' to leave the allowed folders ({roots}). Use a path inside them.",
        "zh": "已拒绝：“{path}”用“..”跳出了允许的文件夹（{roots}）。请使用这些文件夹内的路径。",
        "ja": "拒否しました: 「{path}」は「..」で許可されたフォルダー（{roots}）の外に出ています。その中のパスを使ってください。",
    },
    "outside": {
        "en": "Refused: '{path}' is outside the allowed folders ({roots}). "
              "Use a path inside them, or add its folder to file_roots in settings.yaml.",
        "zh": "已拒绝：“{path}”不在允许的文件夹内（{roots}）。请使用其中的路径，或把它所在的文件夹加入 settings.yaml 的 file_roots。",
        "ja": "拒否しました: 「{path}」は許可されたフォルダー（{roots}）の外にあります。"
              "その中のパスを使うか、settings.yaml の file_roots にそのフォルダーを追加してください。",
    },
    "symlink": {
        "en": "Refused: '{path}' is a symbolic link (or goes through one) that leads outside the allowed folders ({roots}).",
        "zh": "已拒绝：“{path}”是（或经过）指向允许的文件夹（{roots}）之外的符号链接。",
        "ja": "拒否しました: 「{path}」は許可されたフォルダー（{roots}）の外を指すシンボリックリンク（またはそれを経由するパス）です。",
    },
    "lookalike": {
        "en": "Refused: '{path}' contains look-alike characters (such as full-width dots or slashes) that would "
              "lead outside the allowed folders ({roots}). Write the path with plain characters.",
        "zh": "已拒绝：“{path}”含有形似的字符（例如全角的点或斜杠），规范化后会跳出允许的文件夹（{roots}）。请用普通字符书写路径。",
        "ja": "拒否しました: 「{path}」には全角のドットやスラッシュなどの紛らわしい文字が含まれ、正規化すると"
              "許可されたフォルダー（{roots}）の外を指します。通常の文字でパスを書いてください。",
    },
    "control": {
        "en": "Refused: '{path}' contains invisible control or text-direction characters. "
              "Write the path with visible characters only, inside the allowed folders ({roots}).",
        "zh": "已拒绝：“{path}”含有不可见的控制字符或文字方向字符。请只用可见字符书写允许的文件夹（{roots}）内的路径。",
        "ja": "拒否しました: 「{path}」には目に見えない制御文字や文字方向の制御文字が含まれています。"
              "許可されたフォルダー（{roots}）内のパスを見える文字だけで書いてください。",
    },
    "not_found": {
        "en": "'{path}' does not exist. Use file_list to see what is in the allowed folders ({roots}).",
        "zh": "“{path}”不存在。可用 file_list 查看允许的文件夹（{roots}）里有什么。",
        "ja": "「{path}」は存在しません。file_list で許可されたフォルダー（{roots}）の中身を確認してください。",
    },
}


class PathRefused(Exception):
    """A path the file tools will not touch; ``key`` names the message in :data:`_TEXT`."""

    def __init__(self, key: str, **values: object):
        super().__init__(key)
        self.key = key
        self.values = values


def _expand(text: str) -> Path:
    """``~`` and ``~user`` expanded; a ``~name`` that names no user stays as it is written."""
    try:
        return Path(text).expanduser()
    except RuntimeError:
        return Path(text)


@dataclass(frozen=True)
class Root:
    """An allowed folder, as configured (expanded) and as it really is (resolved)."""

    shown: Path
    real: Path


@dataclass(frozen=True)
class Roots:
    folders: tuple[Root, ...]

    @classmethod
    def from_config(cls, config: Mapping) -> Roots:
        """The existing folders of ``config["file_roots"]``, or ``~/Documents``; raises when there is none."""
        configured = [str(r) for r in (config.get("file_roots") or []) if str(r).strip()]
        wanted = configured or [DEFAULT_ROOT]
        folders = []
        for raw in wanted:
            shown = Path(os.path.normpath(_expand(raw).absolute()))
            if shown.is_dir():
                folders.append(Root(shown, shown.resolve()))
        if not folders:
            if configured:
                raise PathRefused("no_root", configured=", ".join(configured))
            raise PathRefused("no_default_root", default=DEFAULT_ROOT)
        return cls(tuple(folders))

    @property
    def first(self) -> Path:
        return self.folders[0].real

    def describe(self) -> str:
        return ", ".join(str(r.shown) for r in self.folders)

    def contains(self, path: Path, *, resolved: bool) -> bool:
        """Whether ``path`` is inside a root (compared with real roots only when it is resolved)."""
        for root in self.folders:
            if path.is_relative_to(root.real) or (not resolved and path.is_relative_to(root.shown)):
                return True
        return False

    def allows(self, path: Path) -> bool:
        """Whether an existing file or folder met while walking a root really lies inside a root."""
        try:
            return self.contains(path.resolve(), resolved=True)
        except (OSError, RuntimeError):
            return False

    def resolve(self, given: str) -> Path:
        """The real path of ``given`` inside a root; raises :class:`PathRefused` otherwise.

        An empty path is the first root.
        """
        text = given.strip()
        if not text:
            return self.first
        if any(unicodedata.category(c) == "Cc" or c in _BIDI for c in text):
            raise PathRefused("control", path=given, roots=self.describe())
        real = self._check(text, given, lookalike=False)
        normalized = unicodedata.normalize("NFKC", text)
        if normalized != text:
            # Checked even when the path as written is fine: "．．／x" must not pass as a file name.
            alternative = self._check(normalized, given, lookalike=True)
            if not real.exists() and alternative.exists():  # "ｎｏｔｅｓ.txt" for notes.txt
                real = alternative
        return real

    def _check(self, text: str, given: str, *, lookalike: bool) -> Path:
        path = _expand(text)
        joined = path if path.is_absolute() else self.first / path
        if not self.contains(Path(os.path.normpath(joined)), resolved=False):
            key = "lookalike" if lookalike else ("dotdot" if ".." in path.parts else "outside")
            raise PathRefused(key, path=given, roots=self.describe())
        try:
            real = joined.resolve()
        except (OSError, RuntimeError):  # a symlink loop
            raise PathRefused("symlink", path=given, roots=self.describe()) from None
        if not self.contains(real, resolved=True):
            raise PathRefused("lookalike" if lookalike else "symlink", path=given, roots=self.describe())
        return real

    def existing(self, given: str) -> Path:
        """Like :meth:`resolve`, and the path must exist."""
        path = self.resolve(given)
        if not path.exists():
            raise PathRefused("not_found", path=given, roots=self.describe())
        return path

    def relative(self, path: Path) -> str:
        """``path`` as the file tools accept it back: relative to the first root, else in full."""
        return str(path.relative_to(self.first)) if path.is_relative_to(self.first) else str(path)


def refusal(exc: PathRefused, language: str) -> ToolResult:
    """The failed result that explains a refused path in the user's language."""
    return failure(_TEXT[exc.key], language, **exc.values)


def looks_binary(head: bytes) -> bool:
    """Whether the first bytes of a file say it is not text (a NUL byte, as grep and git decide)."""
    return b"\0" in head


def decode(data: bytes) -> str:
    """A text file's bytes as text: UTF-8 (a multi-byte character cut at the end is dropped), else
    the detected encoding (GB18030, Shift-JIS, ...), else UTF-8 with replacement characters."""
    try:
        return codecs.getincrementaldecoder("utf-8-sig")().decode(data, final=False)
    except UnicodeDecodeError:
        return UnicodeDammit(data).unicode_markup or data.decode("utf-8", errors="replace")
