"""The user's notes, kept in the Riverse database (table ``notes``, migration ``m002_notes``).

Search is by keywords, so a question finds the note that answers it: "when does my passport
expire?" finds "my passport expires in May". The keywords of a query are its words minus common
question and function words, lightly stemmed (``expires``, ``expiry`` → ``expir``). Chinese and
Japanese text, written without spaces, gives its two-character pieces (``护照到期`` → 护照, 照到,
到期) after the question words are cut out, with Japanese hiragana (particles, endings) left
aside. A note matches when it contains a keyword; notes with more keywords come first.

A SQLite full-text index with the trigram tokenizer was considered and left out: it cannot match
search terms shorter than three characters, and most Chinese and Japanese words are two.
"""

from __future__ import annotations

import math
import re
import time
import unicodedata
from dataclasses import dataclass

from agent.storage.sql import SQLStore

MAX_TERMS = 32

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KATAKANA = r"\u30a0-\u30ff\u31f0-\u31ff"
_HIRAGANA = r"\u3040-\u309f"
# Runs of one script: Han, katakana, hiragana, or other letters and digits.
_RUNS = re.compile(rf"[{_HAN}々]+|[{_KATAKANA}]+|[{_HIRAGANA}]+|[^\W_{_HAN}{_KATAKANA}{_HIRAGANA}]+")

_STOP_WORDS = frozenset(
    """a an the is are was were be been am do does did doing have has had i me my mine you your we our
    us they them their he she his her it its this that these those what when where which who whom why
    how of to in on at for from by with about as and or but if then so not no yes can could will would
    should shall may might must please remember remind note notes tell know say said again any some
    there here up out get got just also did""".split()
)
# Chinese and Japanese question and function words, cut out of Han and katakana runs.
_CJK_STOP = sorted(
    """什么时候 为什么 是不是 有没有 什么 时候 哪里 哪儿 怎么 多少 几时 记得 记住 提醒 请问 一下 告诉 知道
    我们 你们 我的 你的 他的 她的 这个 那个 何時 的 了 吗 呢 吧 是 我 你 他 她 几 私""".split(),
    key=len,
    reverse=True,
)
_CJK_STOP_RE = re.compile("|".join(map(re.escape, _CJK_STOP)))
_SUFFIXES = ("ing", "ed", "es", "s", "e", "y")


@dataclass
class Note:
    id: int
    text: str
    created_at: float


def fold(text: str) -> str:
    """The form notes and keywords are compared in: NFKC (full-width → ASCII) and case-folded."""
    return unicodedata.normalize("NFKC", text).casefold()


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _pieces(run: str) -> list[str]:
    """Two-character pieces of a Han or katakana run, question words cut out."""
    out: list[str] = []
    for part in _CJK_STOP_RE.split(run):
        if len(part) == 1 and re.match(rf"[{_HAN}]", part):
            out.append(part)
        out.extend(part[i : i + 2] for i in range(len(part) - 1))
    return out


def keywords(query: str) -> list[str]:
    """The search keywords of ``query`` (folded), most specific first, without repeats."""
    terms: list[str] = []
    hiragana: list[str] = []
    for run in _RUNS.findall(fold(query)):
        if re.match(rf"[{_HIRAGANA}]", run):
            hiragana.extend(run[i : i + 2] for i in range(len(run) - 1))
        elif re.match(rf"[{_HAN}{_KATAKANA}々]", run):
            terms.extend(_pieces(run))
        elif run not in _STOP_WORDS and (len(run) > 1 or run.isdigit()):
            terms.append(_stem(run))
    if not terms:  # a query written only in hiragana: its pieces are all there is
        terms = hiragana
    return list(dict.fromkeys(terms))[:MAX_TERMS]


class NoteStore:
    """Add, list, search and delete one owner's notes in a store (SQLite or PostgreSQL).

    ``owner`` is a user's key on a server with users (each sees only their own notes); None for the
    notes of the machine's own user."""

    def __init__(self, store: SQLStore, owner: str | None = None):
        self.store = store
        self.owner = owner
        self._mine = f"owner {store.IS_SAME} ?"

    def add(self, text: str) -> Note:
        now = time.time()
        rows = self.store.query("INSERT INTO notes (text, folded, created_at, owner) VALUES (?, ?, ?, ?) RETURNING id",
                                (text, fold(text), now, self.owner))
        return Note(int(rows[0]["id"]), text, now)

    def get(self, note_id: int) -> Note | None:
        rows = self.store.query(f"SELECT id, text, created_at FROM notes WHERE id = ? AND {self._mine}",
                                (note_id, self.owner))
        return Note(rows[0]["id"], rows[0]["text"], rows[0]["created_at"]) if rows else None

    def delete(self, note_id: int) -> Note | None:
        """Remove one of the owner's notes; return it (so its text can be shown and logged), or None
        when the owner has none with this id."""
        note = self.get(note_id)
        if note is not None:
            self.store.query(f"DELETE FROM notes WHERE id = ? AND {self._mine}", (note_id, self.owner))
        return note

    def count(self) -> int:
        return int(self.store.query(f"SELECT count(*) AS n FROM notes WHERE {self._mine}", (self.owner,))[0]["n"])

    def latest(self, limit: int) -> list[Note]:
        rows = self.store.query(f"SELECT id, text, created_at FROM notes WHERE {self._mine} ORDER BY id DESC LIMIT ?",
                                (self.owner, limit))
        return [Note(r["id"], r["text"], r["created_at"]) for r in rows]

    def search(self, query: str, limit: int) -> list[Note]:
        """Notes holding the query's keywords, best first; weak matches (fewer than half the best
        note's keywords) are left out."""
        terms = keywords(query)
        if not terms:
            return []
        hits = " + ".join(f"(CASE WHEN {self.store.INSTR}(folded, ?) > 0 THEN 1 ELSE 0 END)" for _ in terms)
        rows = self.store.query(
            f"SELECT id, text, created_at, hits FROM (SELECT id, text, created_at, {hits} AS hits FROM notes "
            f"WHERE {self._mine}) AS found WHERE hits > 0 ORDER BY hits DESC, id DESC",
            (*terms, self.owner),
        )
        if not rows:
            return []
        needed = max(1, math.ceil(rows[0]["hits"] / 2))
        return [Note(r["id"], r["text"], r["created_at"]) for r in rows if r["hits"] >= needed][:limit]
