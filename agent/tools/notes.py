"""``notes``: the user's own notes, remembered across sessions in the Riverse database.

Actions: ``add`` (text), ``search`` (text: a question or keywords), ``list`` (the latest), ``delete``
(id). The risk is per action (``risk_by_value``): ``list`` and ``search`` only read, ``add`` and
``delete`` write, so by default they ask first (``approval.risk.write``; ``approval.tools.notes: never``
lets every action run without asking). A deleted note's text stays in the tool-call log
(``riverse logs --tool notes``).

Settings (``tools.notes``): ``max_chars`` of a note (default 2000), ``list_limit`` (default 20),
``search_limit`` (default 5).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.storage import open_store
from agent.storage.note_store import Note, NoteStore
from agent.toolkit.base import BaseTool, ToolManifest, ToolResult, acting_owner
from agent.toolkit.texts import failure, manifest_from, pick
from agent.toolkit.tool_settings import positive_int

DB_NAME = "riverse.db"  # the database in the Riverse home (Settings.db_path)
MAX_CHARS = 2000
LIST_LIMIT = 20
SEARCH_LIMIT = 5
ACTIONS = ["add", "search", "list", "delete"]

_MANIFEST: dict[str, dict[str, Any]] = {
    "en": {
        "description": "Remember things for the user and look them up later: add a note, search notes "
                       "to answer a question about something the user told you, list or delete notes.",
        "action": "add (save text), search (find notes for a question or keywords), list (latest notes), delete (by id)",
        "text": "For add: what to remember, as a full sentence. For search: the question or keywords",
        "id": "For delete: the note's number, as shown by list or search",
        "examples": ["Remember that my passport expires in May", "When does my passport expire?", "What notes do I have?"],
        "extra_examples": [
            "Note down that the garage code is 4471",
            "Don't let me forget: renew the car insurance in June",
            "What did I tell you about my sister's flight?",
            "Do I have a note about the gym membership?",
            "Delete note 7",
            "Remember that my locker number at the gym is 218",
            "Save a note: Mom's birthday is on October 3rd",
            "What was the name of that restaurant I told you about?",
            "What's my bike lock code again? I told you before",
            "delete note 12",
        ],
    },
    "zh": {
        "description": "替用户记住事情并在之后查找：添加笔记；用户问起以前告诉过你的事时搜索笔记；列出或删除笔记。",
        "action": "add（保存）、search（按问题或关键词查找）、list（最近的笔记）、delete（按编号删除）",
        "text": "add 时：要记住的内容，写成完整的句子；search 时：问题或关键词",
        "id": "delete 时：笔记编号（list 或 search 显示的数字）",
        "examples": ["记住我的护照五月到期", "我的护照什么时候到期？", "我都记了哪些笔记？"],
        "extra_examples": [
            "记一下：车库密码是 4471",
            "别让我忘了六月要续车险",
            "我之前跟你说过我妹妹的航班是几点吗？",
            "我有没有关于健身卡的笔记？",
            "删除第 7 条笔记",
            "记一下：车停在 B2 层 37 号车位",
            "我之前跟你说过的 wifi 密码是多少？",
            "我妈的生日是哪天来着？我记得跟你说过",
            "请帮我保存一条备忘：房东的电话是 138 0013 8000",
        ],
    },
    "ja": {
        "description": "ユーザーのためにメモを記録し、後で調べる。メモの追加、以前聞いたことについての質問に答えるための検索、一覧、削除ができる。",
        "action": "add（保存）、search（質問やキーワードで検索）、list（最近のメモ）、delete（番号で削除）",
        "text": "add のとき: 覚えておく内容を文で。search のとき: 質問またはキーワード",
        "id": "delete のとき: メモの番号（list や search で表示される数字）",
        "examples": ["パスポートの期限は5月だと覚えておいて", "パスポートの期限はいつだっけ？", "メモの一覧を見せて"],
        "extra_examples": [
            "ガレージの暗証番号は4471だとメモして",
            "6月に車の保険を更新するのを忘れないように記録しておいて",
            "妹の飛行機の時間、前に言ったっけ？",
            "ジムの会員証についてのメモある？",
            "7番のメモはもういらないので消して",
            "覚えておいて：自転車の鍵の番号は 4821",
            "メモして、来週の金曜日に美容院の予約あり",
            "駐車場の番号ってメモしたっけ？",
            "前に教えた大家さんの電話番号、何番だった？",
            "母の誕生日は11月8日だって覚えといてね",
            "ジムの会員番号について何か記録してあったっけ？",
        ],
    },
}

_TEXT: dict[str, dict[str, str]] = {
    "no_home": {
        "en": "notes needs the Riverse home folder (config key 'home') to find its database.",
        "zh": "notes 需要 Riverse 主目录（配置项 home）来找到数据库。",
        "ja": "notes がデータベースを見つけるには Riverse のホームフォルダー（設定キー home）が必要です。",
    },
    "bad_action": {
        "en": "Unknown action '{action}'; use one of {actions}.",
        "zh": "未知的操作“{action}”；请使用 {actions} 之一。",
        "ja": "不明な操作「{action}」です。{actions} のいずれかを使ってください。",
    },
    "no_text": {
        "en": "Nothing to {action}: pass the note's text (or the question, for search) in text.",
        "zh": "没有可{action}的内容：请在 text 中传入笔记内容（search 时传入问题）。",
        "ja": "{action} する内容がありません。text にメモの内容（search なら質問）を渡してください。",
    },
    "too_long": {
        "en": "The note has {length} characters; the limit is {limit}. Save a shorter note.",
        "zh": "笔记有 {length} 个字符，超过 {limit} 的上限。请保存更短的笔记。",
        "ja": "メモが {length} 文字あり、上限の {limit} 文字を超えています。短くしてください。",
    },
    "no_id": {
        "en": "delete needs the note's number in id; use list or search to find it.",
        "zh": "delete 需要在 id 中给出笔记编号；可用 list 或 search 查找。",
        "ja": "delete には id にメモの番号が必要です。list か search で調べてください。",
    },
    "no_such_note": {
        "en": "There is no note #{id}; use list or search to see the notes and their numbers.",
        "zh": "没有编号为 #{id} 的笔记；可用 list 或 search 查看笔记及其编号。",
        "ja": "#{id} のメモはありません。list か search でメモと番号を確認してください。",
    },
    "added": {"en": "Saved note #{id}: {text}", "zh": "已保存笔记 #{id}：{text}", "ja": "メモ #{id} を保存しました: {text}"},
    "deleted": {"en": "Deleted note #{id}: {text}", "zh": "已删除笔记 #{id}：{text}", "ja": "メモ #{id} を削除しました: {text}"},
    "found": {
        "en": "Notes matching '{query}':",
        "zh": "与“{query}”相关的笔记：",
        "ja": "「{query}」に関係するメモ:",
    },
    "not_found": {
        "en": "No note matches '{query}' ({count} notes in all).",
        "zh": "没有与“{query}”相关的笔记（共 {count} 条笔记）。",
        "ja": "「{query}」に関係するメモはありません（メモは全部で {count} 件）。",
    },
    "listed": {
        "en": "Your notes ({count} in all, newest first):",
        "zh": "你的笔记（共 {count} 条，最新的在前）：",
        "ja": "あなたのメモ（全 {count} 件、新しい順）:",
    },
    "none_yet": {
        "en": "There are no notes yet. Add one with action=add.",
        "zh": "还没有笔记。可用 action=add 添加。",
        "ja": "メモはまだありません。action=add で追加できます。",
    },
}


def _line(note: Note) -> str:
    return f"#{note.id} ({datetime.fromtimestamp(note.created_at):%Y-%m-%d}): {note.text}"


_SHARED: dict[str, Any] = {}  # PostgreSQL stores kept open in this process, by address
_SHARED_LOCK = threading.Lock()


@contextmanager
def _opened(location: str | Path) -> Iterator[Any]:
    """The store at ``location``: a SQLite file is opened for the call and closed after it; a PostgreSQL
    database stays open in this process (one connection), so a call does not connect and check the schema."""
    where = str(location)
    if not where.startswith(("postgresql://", "postgres://")):
        with closing(open_store(location)) as store:
            yield store
        return
    with _SHARED_LOCK:
        store = _SHARED.get(where)
        if store is None:
            store = _SHARED[where] = open_store(where, pool_size=1)
    yield store


class NotesTool(BaseTool):
    """The user's notes in the Riverse database."""

    def manifest(self) -> ToolManifest:
        return manifest_from(
            _MANIFEST, self.language, name="notes",
            parameter_types={"action": list(ACTIONS), "text": "string", "id": "integer"},
            required=["action"],
            risk="write",
            risk_by_value={"action": {"list": "read", "search": "read", "add": "write", "delete": "write"}},
        )

    def execute(self, params: dict) -> ToolResult:
        lang = self.language
        home = self.config.get("home")
        if not home:
            return failure(_TEXT["no_home"], lang)
        action = str(params.get("action") or "")
        text = " ".join(str(params.get("text") or "").split())
        section = self.tool_config("notes")
        max_chars = positive_int(section, "max_chars", MAX_CHARS)
        if action not in ACTIONS:
            return failure(_TEXT["bad_action"], lang, action=action, actions=", ".join(ACTIONS))
        if action in ("add", "search") and not text:
            return failure(_TEXT["no_text"], lang, action=action)
        if action == "add" and len(text) > max_chars:
            return failure(_TEXT["too_long"], lang, length=len(text), limit=max_chars)
        if action == "delete" and not isinstance(params.get("id"), int):
            return failure(_TEXT["no_id"], lang)
        # The notes of the user whose message is being answered (on a server with users), else the machine's user's.
        with _opened(section.get("storage_url") or Path(home) / DB_NAME) as store:
            notes = NoteStore(store, acting_owner())  # type: ignore[arg-type]
            if action == "add":
                note = notes.add(text)
                return ToolResult(success=True, data=pick(_TEXT["added"], lang, id=note.id, text=note.text))
            if action == "delete":
                removed = notes.delete(params["id"])
                if removed is None:
                    return failure(_TEXT["no_such_note"], lang, id=params["id"])
                return ToolResult(success=True, data=pick(_TEXT["deleted"], lang, id=removed.id, text=removed.text))
            if action == "search":
                found = notes.search(text, positive_int(section, "search_limit", SEARCH_LIMIT))
                if not found:
                    return ToolResult(success=True, data=pick(_TEXT["not_found"], lang, query=text, count=notes.count()))
                return ToolResult(success=True, data="\n".join([pick(_TEXT["found"], lang, query=text), *map(_line, found)]))
            latest = notes.latest(positive_int(section, "list_limit", LIST_LIMIT))
            if not latest:
                return ToolResult(success=True, data=pick(_TEXT["none_yet"], lang))
            header = pick(_TEXT["listed"], lang, count=notes.count())
            return ToolResult(success=True, data="\n".join([header, *map(_line, latest)]))
