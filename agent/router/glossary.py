"""Chinese and Japanese messages glossed word by word in English, for retrieval among many tools.

Most tools are described in English. A Chinese or Japanese message shares no words with such a
description, and the sentence encoder (:mod:`agent.router.encoder`) reads English only, so among a
thousand tools retrieval found the right one for far fewer Chinese and Japanese messages than for
English ones (``bench/scale/recall.py``). Translating the message with the chat model closes much of
that gap but costs a second or more per message. A gloss costs a millisecond: the message is cut
into the longest words two free dictionaries know (CC-CEDICT for Chinese, EDICT2 for Japanese) and
each word is replaced by the English meanings the dictionary gives first ("把这个文件删掉" → "hold
contain this this one document file delete"); what is not Chinese or Japanese (identifiers, numbers,
addresses) is kept as it is. Retrieval compares the gloss where it would compare a translation
(:meth:`~agent.router.candidates.ToolIndex.ranked`'s ``also``).

The dictionaries come with the pinned package ``edictreader`` (``pip install 'riverse[retrieval]'``),
checked against their known SHA-256 before they are read; without the package, or on a mismatch,
there is no gloss and retrieval works as before (``RIVERSE_GLOSSARY=off`` turns it off). They are
read once per process on first use (about 5 s and 130 MB), only when a Chinese or Japanese message
meets more tools than one prompt holds.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import math
import os
import re
import threading
from collections import Counter
from pathlib import Path

from agent.i18n import CJK, detect_language
from agent.router.encoder import installed_state

log = logging.getLogger(__name__)

#: the package that carries the dictionaries (pinned in ``pyproject.toml``)
PACKAGE = "edictreader"
#: its files, with their SHA-256: CC-CEDICT (UTF-8) and EDICT2 (EUC-JP), both CC BY-SA
FILES = {
    "cedict_ts.u8": "0edf05f0347d41d8191ab7da9aa429eed39ceb1bf94b21343fa4e7619ab18c5a",
    "edict2": "1375e509a9cce487f98a73e2aa30ea0edc0ed2dd5cdcb144f9e7215230fffb83",
}
INSTALL_HINT = "pip install 'riverse[retrieval]'"
#: English senses a gloss gives per word
SENSES = 2
#: ... and a gloss for retrieval, whose words only find candidates (the decision still chooses among them):
#: more of a word's senses find more tools (chosen on the tune split of ``bench/scale/recall.py``'s messages)
RETRIEVAL_SENSES = 3
#: senses kept per word when the dictionaries are read
_KEPT = max(SENSES, RETRIEVAL_SENSES)
#: the longest word looked up, in characters
LONGEST = 8

_HIRAGANA = re.compile(r"^[\u3040-\u309f]+$")
_ASIDE = re.compile(r"\([^)]*\)|\[[^\]]*\]|\{[^}]*\}")
# senses that say what a word is rather than what it means
_NOT_A_MEANING = ("variant of", "old variant", "cl:", "surname", "abbr. for", "see ", "used in", "used after",
                  "used before", "entl", "(p)", "counter for", "kanji radical", "japanese variant")
# ... or what a word does in a sentence ("~'s (possessive particle)")
_GRAMMAR = re.compile(r"\b(?:particle|marker|classifier)\b", re.IGNORECASE)
# a sense's number in EDICT2: "(2)", maybe after a part of speech, "(n) (2)"
_SENSE = re.compile(r"^(?:\([^)]*\) ?)*\((\d+)\)")
# a line of CC-CEDICT: traditional, simplified, pinyin, senses; of EDICT2: written forms, readings, senses
_CEDICT_LINE = re.compile(r"(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
_EDICT_LINE = re.compile(r"(\S+)(?: \[([^\]]*)\])? /(.*)/\s*$")
_TO = re.compile(r"^to ")
_LETTERS = re.compile(r"[A-Za-z]{2}")
_TAG = re.compile(r"[\w-]+")
_PARTS_OF_SPEECH = re.compile(r"^(?:\([^)]*\) ?)+")
# the parts of speech of an entry that only follows another word (月 [がつ] "(n-suf) month"; 時 [じ] "(suf)
# hour"), and of one that also stands alone (分 [ぶん] "(n,n-suf,pref) part", not "minute" after a number)
_SUFFIX = {"suf", "n-suf", "ctr"}
_ALONE = {"n", "num", "pref", "n-pref", "adv", "n-adv", "n-t", "adj-no", "adj-na", "adj-i", "vs", "pn"}
#: what marks a Japanese word's meaning after a number in :func:`parse_edict`'s words (no text looks it up)
AFTER_A_NUMBER = "#"


def _meanings(senses: list[str]) -> list[str]:
    """The first :data:`_KEPT` of ``senses`` that say a meaning, without asides and a verb's "to"."""
    out: list[str] = []
    for sense in senses:
        if sense.casefold().startswith(_NOT_A_MEANING) or _GRAMMAR.search(sense):
            continue
        sense = _TO.sub("", " ".join(_ASIDE.sub(" ", sense).split()))
        if _LETTERS.search(sense) and len(sense) < 40:
            out.append(sense)
        if len(out) >= _KEPT:
            break
    return out


# A Japanese verb or adjective as a request says it ("送って", "教えてください", "見せました", "高くて"),
# and the endings that lead back to the form a dictionary lists ("送る", "教える", "見せる", "高い"):
# ending → what replaces it, for godan verbs (by the consonant of the stem), ichidan verbs (る after
# the stem), する and 来る, and i-adjectives. Only a form the dictionary knows is taken.
_I_ROW_TO_U = {"い": "う", "き": "く", "ぎ": "ぐ", "し": "す", "ち": "つ", "に": "ぬ", "び": "ぶ", "み": "む", "り": "る"}
_A_ROW_TO_U = {"わ": "う", "か": "く", "が": "ぐ", "さ": "す", "た": "つ", "な": "ぬ", "ば": "ぶ", "ま": "む", "ら": "る"}
_ENDINGS: dict[str, tuple[str, ...]] = {
    **{f"{p}{t}": forms for t in ("て", "た") for p, forms in
       (("い", ("く",)), ("っ", ("う", "つ", "る", "く")), ("し", ("す", "する")), ("", ("る",)))},
    **{f"{p}{t}": forms for t in ("で", "だ") for p, forms in (("い", ("ぐ",)), ("ん", ("む", "ぶ", "ぬ")))},
    **{f"{i}{polite}": (u,) for i, u in _I_ROW_TO_U.items() for polite in ("ます", "ました", "ません", "たい")},
    **{polite: ("る",) for polite in ("ます", "ました", "ません", "たい")},
    **{f"{a}ない": (u,) for a, u in _A_ROW_TO_U.items()},
    "ない": ("る",), "くて": ("い",), "かった": ("い",), "くない": ("い",), "く": ("い",),
}
_LONGEST_ENDING = max(map(len, _ENDINGS))


def dictionary_forms(word: str) -> list[str]:
    """The forms a dictionary may list for ``word`` ("送って" → "送う", "送つ", "送る", "送く", …; the
    caller keeps one the dictionary knows), longest ending first; [] when it has no such ending or
    nothing before it."""
    forms: list[str] = []
    for length in range(min(_LONGEST_ENDING, len(word) - 1), 0, -1):
        stem, ending = word[:-length], word[-length:]
        forms += [stem + form for form in _ENDINGS.get(ending, ())]
    return forms


def parse_cedict(text: str) -> dict[str, list[str]]:
    """CC-CEDICT's lines (``traditional simplified [pinyin] /sense/sense/``): word → meanings. A
    word that is also a name (its pinyin capitalised, "Xin1 jian4 /Xinjian county/") means its common
    sense ("xin1 jian4 /to build/"); the name only when it has none.

    A word read several ways means what its common reading means. The dictionary does not say which
    that is; two of its own signs do: the common reading has more senses (grammar's included), and
    more of the dictionary's longer words read the character that way. A reading counts its senses
    times the logarithm of 2 + those words (:func:`_readings_in_words`), the first on a tie: "gao4 su5
    /to tell/…/" before "gao4 su4 /to press charges/…/", "ji3 /how many/…/" before "ji1 /small
    table/", "mei2 /have not/…/" (in 116 words) before "mo4 /drowned/to end/…/" (in 29)."""
    lines = [(m.group(1), m.group(2), m.group(3), m.group(4).split("/"))
             for m in map(_CEDICT_LINE.match, text.splitlines()) if m]
    readings: dict[str, set[str]] = {}
    for traditional, simplified, pinyin, _ in lines:
        for word in (simplified, traditional):
            readings.setdefault(word, set()).add(pinyin.casefold())
    ambiguous = {word for word, read in readings.items() if len(read) > 1}
    used = _readings_in_words(lines, {word for word in ambiguous if len(word) <= 2})
    words: dict[str, tuple[float, list[str]]] = {}
    names: dict[str, tuple[float, list[str]]] = {}
    for traditional, simplified, pinyin, senses in lines:
        if not (meanings := _meanings(senses)):
            continue
        kept = names if pinyin[:1].isupper() else words
        for word in (simplified, traditional):
            weight = _weight(word, pinyin, senses, used) if word in ambiguous else 0.0
            if word not in kept or kept[word][0] < weight:
                kept[word] = (weight, meanings)
    return {word: meanings for word, (_, meanings) in {**names, **words}.items()}


def _weight(word: str, pinyin: str, senses: list[str], used: Counter[tuple[str, str]]) -> float:
    return len(senses) * math.log(2 + used[(word, pinyin.casefold())])


def _readings_in_words(lines: list[tuple[str, str, str, list[str]]], ambiguous: set[str]) -> Counter[tuple[str, str]]:
    """(one of the ``ambiguous`` characters or pairs of them, a reading) → how many longer words read it
    so: ("没", "mei2") is read so in 没有, 没事, …"""
    used: Counter[tuple[str, str]] = Counter()
    for traditional, simplified, pinyin, _ in lines:
        reading = pinyin.casefold().split()
        for word in {traditional, simplified}:
            if len(word) > 1 and len(word) == len(reading):
                for length in range(1, min(3, len(word))):
                    for at in range(len(word) - length + 1):
                        if word[at:at + length] in ambiguous:
                            used[(word[at:at + length], " ".join(reading[at:at + length]))] += 1
    return used


def _edict_senses(fields: list[str]) -> list[list[str]]:
    """The meanings of each of an EDICT2 entry's numbered senses that says some, until their first
    meanings make :data:`_KEPT` different ones (a later sense's would come after them)."""
    each: list[list[str]] = []
    sense: list[str] = []
    for field in [*fields, "(0)"]:  # "(0)" ends the last sense
        if not field.startswith("("):  # most are plain meanings: no regex
            sense.append(field)
            continue
        number = _SENSE.match(field)
        if number and number.group(1) != "1":
            if meanings := _meanings(sense):
                each.append(meanings)
                if len({m[0] for m in each}) >= _KEPT:
                    break
            sense = []
        sense.append(_PARTS_OF_SPEECH.sub("", field))
    return each


def parse_edict(text: str) -> dict[str, list[str]]:
    """EDICT2's lines (``漢字;漢字 [かな;カナ] /(pos) (1) sense/sense/(2) sense/EntL…/``): word → its
    meanings, a word's distinct senses first: the first meaning of each numbered sense in the order the
    dictionary lists them, then each one's second, … ("消す": "(1) to erase/to delete
    (2) to turn off" → "erase", "turn off", "delete"). Written forms are words, and readings in katakana
    (loanwords such as ファイル); readings in hiragana are not, as many words share one.

    A word written the same as others (便: "something to rely on", "flight", "convenience") means its
    first entry the dictionary marks common, "(P)" ("flight"); and after a number ("12月", "4日") what
    its first entry that only follows another word (a suffix or a counter) means ("month", "day of
    month"), kept under :data:`AFTER_A_NUMBER` + the word."""
    words: dict[str, list[str]] = {}
    common_words: set[str] = set()
    for line in text.splitlines():
        match = _EDICT_LINE.match(line)
        if not match:
            continue
        fields = match.group(3).split("/")
        each = _edict_senses(fields)
        in_turn = [meanings[i] for i in range(_KEPT) for meanings in each if i < len(meanings)]
        if not (meanings := list(dict.fromkeys(in_turn))[:_KEPT]):
            continue
        heads = [h.split("(")[0] for h in match.group(1).split(";")]
        heads += [h.split("(")[0] for h in (match.group(2) or "").split(";") if h and not _HIRAGANA.match(h.split("(")[0])]
        tags = _PARTS_OF_SPEECH.match(fields[0])
        parts = set(_TAG.findall(tags.group(0))) if tags else set()
        suffix = bool(parts & _SUFFIX) and not parts & _ALONE
        common = "(P)" in line
        for key in heads + ([AFTER_A_NUMBER + head for head in heads] if suffix else []):
            if key not in words or (common and key not in common_words):
                words[key] = meanings
                if common:
                    common_words.add(key)
    return words


class Glossary:
    """Word → English meanings, for Chinese (first) and Japanese (first when the text has kana)."""

    def __init__(self, chinese: dict[str, list[str]], japanese: dict[str, list[str]]):
        self.chinese, self.japanese = chinese, japanese

    def gloss(self, text: str, senses: int = SENSES) -> str:
        """``text`` with its Chinese and Japanese words replaced by their first ``senses`` meanings (the
        longest word a dictionary knows first; in Japanese, words written in hiragana alone are left
        out: particles and endings); "" when it has none."""
        if not CJK.search(text):
            return ""
        japanese = detect_language(text) == "ja"
        dictionaries = (self.japanese, self.chinese) if japanese else (self.chinese, self.japanese)
        meanings: list[str] = []
        for place in CJK.finditer(text):
            run, at = place.group(0), 0
            after_a_number = japanese and place.start() > 0 and text[place.start() - 1].isdigit()
            while at < len(run):
                for length in range(min(LONGEST, len(run) - at), 0, -1):
                    word = run[at:at + length]
                    found = self.japanese.get(AFTER_A_NUMBER + word) if after_a_number and at == 0 else None
                    found = found or next((d[word] for d in dictionaries if word in d), None)
                    if found is None and japanese:  # a verb or adjective as the message says it
                        found = next((self.japanese[form] for form in dictionary_forms(word) if form in self.japanese), None)
                    if found is not None and not (japanese and _HIRAGANA.match(word)):
                        meanings.extend(found[:senses])
                        at += length
                        break
                else:
                    at += 1
        rest = " ".join(CJK.sub(" ", text).split())
        return " ".join(filter(None, [rest, *meanings]))


def _folder() -> Path | None:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "database"


def _texts(folder: Path) -> dict[str, str] | None:
    """The dictionaries' texts, or None when one is missing or not the known file (logged with what to do)."""
    texts: dict[str, str] = {}
    for name, sha256 in FILES.items():
        path = folder / name
        try:
            data = path.read_bytes()
        except OSError as e:
            log.warning("the glossary's dictionary %s cannot be read (%s); reinstall it: %s", path, e, INSTALL_HINT)
            return None
        if hashlib.sha256(data).hexdigest() != sha256:
            log.warning("the glossary's dictionary %s is not the known file (SHA-256 differs); it is not used. "
                        "Reinstall the pinned package: %s", path, INSTALL_HINT)
            return None
        texts[name] = data.decode("utf-8" if name.endswith(".u8") else "euc_jp", errors="replace")
    return texts


def load(folder: Path | None = None) -> Glossary | None:
    """The glossary from the package's files (or ``folder``), or None when they are missing or not
    the known ones."""
    folder = folder or _folder()
    texts = _texts(folder) if folder is not None else None
    if texts is None:
        return None
    return Glossary(parse_cedict(texts["cedict_ts.u8"]), parse_edict(texts["edict2"]))


def glossary_status(verify: bool = False) -> tuple[str, Path | None]:
    """What ``riverse model`` says of the glossary (as of the encoder, see
    :func:`~agent.router.encoder.installed_state`), and the dictionaries' folder."""
    return installed_state(turned_off(), _folder, verify, lambda folder: _texts(folder) is not None)


_LOCK = threading.Lock()
_LOADED: list[Glossary | None] = []


def glossary() -> Glossary | None:
    """The process's glossary, read on first use; None when it is not installed."""
    with _LOCK:
        if not _LOADED:
            _LOADED.append(load())
        return _LOADED[0]


def turned_off() -> bool:
    """``RIVERSE_GLOSSARY=off`` (or 0, false, no)."""
    return os.environ.get("RIVERSE_GLOSSARY", "").strip().lower() in ("off", "0", "false", "no")


def gloss(text: str, senses: int = SENSES) -> str:
    """``text`` glossed in English with ``senses`` meanings per word (see :class:`Glossary`), or ""
    without the dictionaries or with ``RIVERSE_GLOSSARY=off``."""
    if turned_off() or not CJK.search(text):
        return ""
    found = glossary()
    return found.gloss(text, senses) if found is not None else ""
