"""The folders the file tools may read, and the checks every path goes through.

Roots come from the settings key ``file_roots`` (handed to tools as ``config["file_roots"]``). When it
is empty the default is the user's documents folder, ``~/Documents``, if it exists; otherwise nothing
is readable and the message says how to configure roots.

A path the model gives is accepted only when it stays inside a root both as written (no ``..`` or
absolute path leading elsewhere) and after ``resolve()`` (no symbolic link leading out). The NFKC
form of the path is checked too, so full-width or look-alike dots and slashes (``．．／``) cannot
smuggle an escape past a later normalisation; control and bidirectional-override characters, which
disguise what a path shows, lone surrogates, which are not text, and paths or names longer than the
system takes are refused outright. Relative paths start at the first root.

A checked path is then opened by :meth:`Roots.open`, which does not trust the name a second time: it
walks the real path from the root's descriptor one name at a time without following links
(:mod:`agent.toolkit.descriptors`), so a file or folder swapped for a link between the check and the
open is refused rather than followed, and only regular files and folders are ever opened. Links met
while walking a root are followed only when their real path lies inside a root, and then opened
from that root in the same way.

What a root cannot see: a hard link inside a root to a file outside it is, to the file system, a
file inside the root (the two names are the same file), so it is read like any other.

It also holds how the file tools turn a file's bytes into text, so they agree on what is binary,
and how they show names, so a file name cannot disguise a listing.
"""

from __future__ import annotations

import codecs
import errno
import os
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from bs4.dammit import UnicodeDammit

from agent.toolkit.base import ToolResult
from agent.toolkit.descriptors import NotRegular, Opened, open_beneath
from agent.toolkit.texts import failure, pick

DEFAULT_ROOT = "~/Documents"
MAX_PATH_BYTES = 4096  # PATH_MAX on Linux, counting the final NUL
MAX_NAME_BYTES = 255  # NAME_MAX
_SHOWN_CHARS = 200  # of a refused path, in a message

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
    "too_long": {
        "en": "Refused: the path '{path}' is {length} bytes long; the limit is {limit}. "
              "Use a shorter path inside the allowed folders ({roots}).",
        "zh": "已拒绝：路径“{path}”长 {length} 字节，超过了 {limit} 字节的上限。请使用允许的文件夹（{roots}）内更短的路径。",
        "ja": "拒否しました: パス「{path}」は {length} バイトあり、上限の {limit} バイトを超えています。"
              "許可されたフォルダー（{roots}）内の短いパスを使ってください。",
    },
    "long_name": {
        "en": "Refused: a name in '{path}' is {length} bytes long; a file or folder name can have at most {limit}. "
              "Check the path, inside the allowed folders ({roots}).",
        "zh": "已拒绝：“{path}”中有一个名称长 {length} 字节，而文件或文件夹名最多 {limit} 字节。请检查允许的文件夹（{roots}）内的路径。",
        "ja": "拒否しました: 「{path}」の中の名前が {length} バイトあります。ファイル名やフォルダー名は {limit} バイトまでです。"
              "許可されたフォルダー（{roots}）内のパスを確認してください。",
    },
    "encoding": {
        "en": "Refused: '{path}' contains characters that are not valid text (lone surrogates). "
              "Write the path as plain text, inside the allowed folders ({roots}).",
        "zh": "已拒绝：“{path}”含有不是有效文本的字符（孤立的代理项）。请用普通文本书写允许的文件夹（{roots}）内的路径。",
        "ja": "拒否しました: 「{path}」には有効な文字ではないもの（単独のサロゲート）が含まれています。"
              "許可されたフォルダー（{roots}）内のパスを通常の文字で書いてください。",
    },
    "special": {
        "en": "Refused: '{path}' is a {kind}, not a regular file or folder; the file tools read only regular files "
              "and folders, inside the allowed folders ({roots}).",
        "zh": "已拒绝：“{path}”是{kind}，不是普通文件或文件夹；文件工具只读取允许的文件夹（{roots}）内的普通文件和文件夹。",
        "ja": "拒否しました: 「{path}」は{kind}で、通常のファイルやフォルダーではありません。"
              "ファイルツールは許可されたフォルダー（{roots}）内の通常のファイルとフォルダーだけを読みます。",
    },
    "changed": {
        "en": "Refused: '{path}' changed while it was being opened (a file or folder in it was replaced by a "
              "symbolic link), so nothing was read. Try again once it stays put, inside the allowed folders ({roots}).",
        "zh": "已拒绝：“{path}”在打开过程中发生了变化（其中的文件或文件夹被替换成了符号链接），因此没有读取任何内容。"
              "等它不再变化后再试，路径须在允许的文件夹（{roots}）内。",
        "ja": "拒否しました: 「{path}」は開いている途中で変わりました（中のファイルやフォルダーがシンボリックリンクに置き換えられました）。"
              "何も読んでいません。変化が止まってから、許可されたフォルダー（{roots}）内でもう一度試してください。",
    },
}

# What a file that is neither regular nor a folder is, as the messages and listings name it.
KIND_NAMES: dict[str, dict[str, str]] = {
    "fifo": {"en": "named pipe (FIFO)", "zh": "命名管道（FIFO）", "ja": "名前付きパイプ（FIFO）"},
    "char": {"en": "character device", "zh": "字符设备", "ja": "キャラクターデバイス"},
    "block": {"en": "block device", "zh": "块设备", "ja": "ブロックデバイス"},
    "socket": {"en": "socket", "zh": "套接字", "ja": "ソケット"},
    "other": {"en": "special file", "zh": "特殊文件", "ja": "特殊ファイル"},
}


class PathRefused(Exception):
    """A path the file tools will not touch; ``key`` names the message in :data:`_TEXT`."""

    def __init__(self, key: str, **values: object):
        super().__init__(key)
        self.key = key
        if "path" in values:
            values["path"] = shown_path(str(values["path"]))
        self.values = values


def printable(text: str) -> str:
    """``text`` safe to show: control and text-direction characters as escapes (``\\n``, ``\\u202e``),
    bytes of a file name that are not UTF-8 (lone surrogates) as U+FFFD."""
    out = []
    for char in text:
        category = unicodedata.category(char)
        if category == "Cs":
            out.append("\ufffd")
        elif category == "Cc" or char in _BIDI:
            out.append(char.encode("unicode_escape").decode("ascii"))
        else:
            out.append(char)
    return "".join(out)


def shown_path(text: str) -> str:
    """A path as a message shows it: :func:`printable`, and cut after its first characters."""
    return printable(text[:_SHOWN_CHARS]) + ("…" if len(text) > _SHOWN_CHARS else "")


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


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

    def resolve(self, given: str) -> Path:
        """The real path of ``given`` inside a root; raises :class:`PathRefused` otherwise.

        An empty path is the first root.
        """
        text = given.strip()
        if not text:
            return self.first
        self._limit(text, given)
        if any(unicodedata.category(c) == "Cc" or c in _BIDI for c in text):
            raise PathRefused("control", path=given, roots=self.describe())
        if any(unicodedata.category(c) == "Cs" for c in text):
            raise PathRefused("encoding", path=given, roots=self.describe())
        real = self._check(text, given, lookalike=False)
        normalized = unicodedata.normalize("NFKC", text)
        if normalized != text:
            # Checked even when the path as written is fine: "．．／x" must not pass as a file name.
            alternative = self._check(normalized, given, lookalike=True)
            if not _exists(real) and _exists(alternative):  # "ｎｏｔｅｓ.txt" for notes.txt
                real = alternative
        return real

    def _limit(self, text: str, given: str) -> None:
        """Refuse a path the system would refuse as too long (``ENAMETOOLONG``), before any call."""
        size = len(text.encode("utf-8", "surrogatepass"))
        if size >= MAX_PATH_BYTES:
            raise PathRefused("too_long", path=given, length=size, limit=MAX_PATH_BYTES - 1, roots=self.describe())
        longest = max(len(part.encode("utf-8", "surrogatepass")) for part in text.split("/"))
        if longest > MAX_NAME_BYTES:
            raise PathRefused("long_name", path=given, length=longest, limit=MAX_NAME_BYTES, roots=self.describe())

    def _check(self, text: str, given: str, *, lookalike: bool) -> Path:
        path = _expand(text)
        joined = path if path.is_absolute() else self.first / path
        self._limit(str(joined), given)
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
        """Like :meth:`resolve`, and the path must exist. A check of the name only: to read or list,
        use :meth:`open`, which checks what it opened."""
        path = self.resolve(given)
        if not _exists(path):
            raise PathRefused("not_found", path=given, roots=self.describe())
        return path

    def open(self, given: str) -> Opened:
        """``given`` checked like :meth:`resolve`, then opened by descriptor (see :meth:`open_real`).

        Raises :class:`PathRefused` for a refused, missing, swapped or special path, ``OSError`` when
        the file or folder exists but cannot be opened (permissions).
        """
        return self.open_real(self.resolve(given), given)

    def open_real(self, real: Path, given: str) -> Opened:
        """The regular file or folder at ``real``, a real path inside a root, opened one name at a
        time from the root's descriptor without following links: a name swapped for a link since
        ``real`` was resolved is refused (``changed``), not followed."""
        try:
            return self.open_inside(real)
        except NotRegular as exc:
            raise PathRefused("special", path=given, kind=exc.kind, roots=self.describe()) from None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise PathRefused("changed", path=given, roots=self.describe()) from None
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                raise PathRefused("not_found", path=given, roots=self.describe()) from None
            if exc.errno == errno.ENAMETOOLONG:
                raise PathRefused("too_long", path=given, length=len(os.fsencode(real)),
                                  limit=MAX_PATH_BYTES - 1, roots=self.describe()) from None
            raise

    def open_inside(self, real: Path) -> Opened:
        """Like :meth:`open_real`, raising what :func:`~agent.toolkit.descriptors.open_beneath` raises
        (``LinkMet``, ``NotRegular``, ``OSError``); ``FileNotFoundError`` when no root holds ``real``."""
        for root in self.folders:
            if real.is_relative_to(root.real):
                return open_beneath(root.real, real.relative_to(root.real).parts, real)
        raise FileNotFoundError(errno.ENOENT, "not inside a root", str(real))

    def follow(self, path: Path) -> Path | None:
        """The real path of a link met while walking a root, when it lies inside a root; else None."""
        try:
            real = path.resolve()
        except (OSError, RuntimeError):
            return None
        return real if self.contains(real, resolved=True) else None

    def relative(self, path: Path) -> str:
        """``path`` as the file tools accept it back: relative to the first root, else in full."""
        return str(path.relative_to(self.first)) if path.is_relative_to(self.first) else str(path)


def refusal(exc: PathRefused, language: str) -> ToolResult:
    """The failed result that explains a refused path in the user's language."""
    values = dict(exc.values)
    if "kind" in values:
        values["kind"] = kind_name(str(values["kind"]), language)
    return failure(_TEXT[exc.key], language, **values)


def kind_name(kind: str, language: str) -> str:
    """What a pipe, device or socket is called in ``language`` (``kind`` as :func:`kind_of` names it)."""
    return pick(KIND_NAMES.get(kind, KIND_NAMES["other"]), language)


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
