"""A Chinese or Japanese message glossed word by word in English, for retrieval among many tools."""

from __future__ import annotations

import logging

import pytest

from agent.router import Router, RouterOptions
from agent.router import glossary as glossary_module
from agent.router.candidates import ToolIndex, narrowed
from agent.router.glossary import AFTER_A_NUMBER, RETRIEVAL_SENSES, Glossary, parse_cedict, parse_edict
from bench.scale.tools import generated
from agent.providers.base import Capabilities
from tests.test_candidates import MANY, listed
from tests.test_encoder import TopicEncoder
from tests.test_routing import ScoringProvider

CEDICT = """\
# CC-CEDICT
保險 保险 [bao3 xian3] /insurance/to insure/safe/
保險單 保险单 [bao3 xian3 dan1] /insurance policy/
單 单 [dan1] /bill/list/form/
刪除 删除 [shan1 chu2] /to delete/to cancel/
我 我 [wo3] /I/me/my/
的 的 [di4] /aim/clear/
的 的 [de5] /of/~'s (possessive particle)/(used after an attribute)/(used to form a nominal expression)/
張 张 [Zhang1] /surname Zhang/
張 张 [zhang1] /to open up/classifier for flat objects, sheet/
工單 工单 [gong1 dan1] /work order (Tw)/variant of 工作單/
新建 新建 [Xin1 jian4] /Xinjian county in Nanchang/
新建 新建 [xin1 jian4] /to build/newly built/
東京 东京 [Dong1 jing1] /Tokyo, capital of Japan/
告訴 告诉 [gao4 su4] /to press charges/to file a complaint against sb/
告訴 告诉 [gao4 su5] /to tell/to inform/to let know/
沒 没 [mo4] /drowned/to end/to die/to inundate/
沒 没 [mei2] /(negative prefix for verbs)/have not/not/
沒有 没有 [mei2 you3] /haven't/hasn't/
沒事 没事 [mei2 shi4] /it's not important/
沒用 没用 [mei2 yong4] /useless/
沒錯 没错 [mei2 cuo4] /that's right/
淹沒 淹没 [yan1 mo4] /to submerge/
歳 歳 [sui4] /Japanese variant of 歲|岁/
"""

EDICT = """\
　？？？ /EDICT, EDICT_SUB(P), EDICT2 Japanese-English Electronic Dictionary Files/Copyright/
削除 [さくじょ] /(n,vs) deletion/elimination/erasure/(P)/EntL1298120X/
ファイル /(n,vs) file/(P)/EntL1107800X/
会議 [かいぎ] /(n,vs) (1) meeting/conference/(2) council/EntL1197860X/
手管 [てくだ] /(n) wiles/trick/EntL1437490X/
株価 [かぶか] /(n) stock prices/(P)/EntL1213780X/
送る [おくる] /(v5r,vt) (1) to send/to dispatch/(2) to see off/EntL1401180X/
教え [おしえ] /(n) teaching/instruction/EntL1234750X/
教える [おしえる] /(v1,vt) (1) to teach/to instruct/(2) to tell/EntL1234760X/
書 [しょ] /(n) (1) book/document/EntL1344250X/
書く [かく] /(v5k,vt) (1) to write/to compose/EntL1344270X/
高い [たかい] /(adj-i) (1) high/tall/EntL1280640X/
見る [みる] /(v1,vt) (1) to see/to look/EntL1259290X/
消す [けす] /(v5s,vt) (1) to erase/to delete/to cross out/(2) to turn off power/(3) to extinguish/to put out/(P)/EntL1350110X/
年 [ねん] /(n) (1) year (e.g. AD)/(ctr) (2) counter for years/(P)/EntL2084840/
縁;因;便 [よすが] /(n) (1) something to rely on/aid/EntL1171240X/
便 [びん] /(n,n-suf) (1) flight (e.g. airline flight)/trip/(2) mail/post/(P)/EntL1512360X/
便 [べん] /(n,adj-na) (1) convenience/service/(P)/EntL1512350X/
月 [がつ] /(n-suf) month (of the year)/used after number or question word (e.g. nan or nani)/EntL2104230X/
月 [げつ] /(n) (abbr) (See 月曜) Monday/EntL2153740X/
月 [つき] /(n) (1) moon/(n-t) (2) month/(P)/EntL1255430X/
分 [ふん] /(n) (1) minute (unit of time)/(P)/EntL1502840X/
分 [ぶん] /(n,n-suf,pref) (1) part/segment/(2) rate/(P)/EntL1502990X/
"""


@pytest.fixture
def small() -> Glossary:
    return Glossary(parse_cedict(CEDICT), parse_edict(EDICT))


def test_cedict_senses_are_meanings_without_asides_or_a_verb_to():
    words = parse_cedict(CEDICT)
    assert words["删除"] == ["delete", "cancel"] and words["刪除"] == ["delete", "cancel"]  # simplified and traditional
    assert words["保险"] == ["insurance", "insure", "safe"]  # three senses kept (retrieval's gloss gives three)
    assert words["张"] == ["open up"]  # the surname's entry and a classifier say no meaning
    assert words["工单"] == ["work order"]  # "(Tw)" left out, a variant's pointer too
    assert words["新建"] == ["build", "newly built"]  # the common word before the place of that name
    assert words["东京"] == ["Tokyo, capital of Japan"]  # a name that is no common word means the name
    # a word read two ways means what its reading with more senses means, grammar's counted too
    assert words["告诉"] == ["tell", "inform", "let know"] and words["告訴"] == ["tell", "inform", "let know"]
    assert words["的"] == ["of"]  # "of" (four senses, grammar's included) before "aim/clear", which is listed first
    # ... and that more of the dictionary's words read so: 没 is "mei2" in four words, "mo4" in one
    assert words["没"] == ["have not", "not"] and words["沒"] == ["have not", "not"]


def test_edict_gives_each_sense_in_turn_and_katakana_readings_not_hiragana_ones():
    words = parse_edict(EDICT)
    # a word's distinct senses before more words for its first: each sense's first meaning, then their second
    assert words["会議"] == ["meeting", "council", "conference"]
    assert words["消す"] == ["erase", "turn off power", "extinguish"]  # "(2) to turn off" before "to delete"
    assert words["年"] == ["year"]  # "counter for years" says what the word is, not what it means


def test_a_word_written_as_others_are_means_its_common_entry_and_after_a_number_its_suffix(small):
    words = parse_edict(EDICT)
    assert words["便"] == ["flight", "mail", "trip"]  # the first entry marked "(P)", not the first listed
    assert words["月"] == ["moon", "month"] and words[AFTER_A_NUMBER + "月"] == ["month"]
    assert words["分"] == ["minute"] and AFTER_A_NUMBER + "分" not in words  # "part" is a word of its own too
    assert small.gloss("NH7便の状況") == "NH7 flight mail"
    assert small.gloss("12月の会議") == "12 month meeting council"  # "month" after a number, not "moon"
    assert small.gloss("１２月の会議") == "１２ month meeting council"  # a full-width number too
    assert small.gloss("月と30分") == "30 moon month minute" and small.gloss("月曜の") == "moon month"
    assert "歳" not in parse_cedict(CEDICT)  # "Japanese variant of 歲" says what it is, not what it means
    assert words["削除"] == ["deletion", "elimination", "erasure"] and words["ファイル"] == ["file"]
    assert "さくじょ" not in words and "てくだ" not in words  # a reading in hiragana is many words
    assert not any(key.startswith("　") for key in words)  # the header line is no word


def test_a_message_is_glossed_by_its_longest_known_words(small):
    assert small.gloss("我的保险单") == "me my of insurance policy"  # 保险单 before 保险 and 单; "I" is too short
    assert small.gloss("删除 ticket st_31") == "ticket st_31 delete cancel"  # what is not Chinese is kept
    assert small.gloss("Delete ticket st_31") == ""  # nothing to gloss


def test_a_gloss_for_retrieval_gives_a_word_more_of_its_senses(small):
    assert small.gloss("保险") == "insurance insure"  # two senses: what the decision reads
    assert small.gloss("保险", RETRIEVAL_SENSES) == "insurance insure safe"  # what finds the candidates
    assert small.gloss("ファイルを削除して", RETRIEVAL_SENSES) == "file deletion elimination erasure"


def test_a_japanese_message_reads_the_japanese_dictionary_first_and_skips_hiragana(small):
    # "てくだ" of "してください" is a word in hiragana: left out, as particles and endings are
    assert small.gloss("ファイルを削除してください") == "file deletion elimination"
    assert small.gloss("アップルの株価は？") == "？ stock prices"


def test_a_japanese_verb_or_adjective_is_glossed_by_the_form_the_dictionary_lists(small):
    # "送って" is no entry, and "教えて" would be "教え" (a noun) and "書いて" the kanji "書" (a book) without it
    assert small.gloss("このファイルを送って") == "file send see off"
    assert small.gloss("会議を教えてください") == "meeting council teach tell"
    assert small.gloss("メモを書いて") == "write compose" and small.gloss("書きました") == "write compose"
    assert small.gloss("見たい") == "see look" and small.gloss("高くて") == "high tall" and small.gloss("高かった") == "high tall"
    assert small.gloss("教え") == "teaching instruction"  # a word the dictionary has is read as it is
    assert small.gloss("送って", RETRIEVAL_SENSES) == "send see off dispatch"  # each sense in turn
    assert small.gloss("消して") == "erase turn off power"  # "turn the light off" is a switch, not a deletion


def test_a_chinese_message_reaches_a_tool_described_in_english_by_its_gloss(small, monkeypatch):
    said = "我的保险单写了什么？"
    assert "insurance_get_insurance_policy" not in [m.name for m in narrowed(generated(200), said)]  # its own words miss it
    monkeypatch.setattr(glossary_module, "_LOADED", [small])
    monkeypatch.delenv("RIVERSE_GLOSSARY")
    assert "insurance_get_insurance_policy" in [m.name for m in narrowed(generated(200), said)]
    index = ToolIndex(MANY)
    assert "insurance_get_insurance_policy" in index.candidates(said, 4, glossed=[glossary_module.gloss(said)])
    assert "insurance_get_insurance_policy" not in index.candidates(said, 4)


def test_the_router_retrieves_by_the_gloss_unless_it_is_turned_off(small, monkeypatch):
    monkeypatch.setattr(glossary_module, "_LOADED", [small])
    monkeypatch.delenv("RIVERSE_GLOSSARY")
    said = "删除我的保险单 ip_7"
    for options, found in ((RouterOptions(candidates=8, retrieved=4), True),
                           (RouterOptions(candidates=8, retrieved=4, gloss=False), False)):
        provider = ScoringProvider({"none": 0.0}, [])
        Router(options).decide(provider, MANY, said, "zh")
        assert ("insurance_delete_insurance_policy" in listed(provider.opened[0][0][-1]["content"])) is found, options
    monkeypatch.setenv("RIVERSE_GLOSSARY", "off")
    assert glossary_module.gloss(said) == ""


class ReadingVectors(TopicEncoder):
    """The chat model's sentence vectors, as a stand-in that records what it read."""

    capabilities = Capabilities(scored_decoding=True, sentence_vectors=True)


def test_the_chat_models_vectors_read_the_message_not_its_gloss(small, monkeypatch):
    """A gloss is a list of dictionary words: its words and the encoder read it, the chat model's vectors
    read the message (and a translation, which is a sentence), not the gloss."""
    said, gloss = "我的保险单写了什么？", "my insurance policy write what"
    index = ToolIndex(MANY)
    vectors, encoder = ReadingVectors(), TopicEncoder()
    index.ranked(said, vectors, "what does my insurance policy say?", encoder=encoder, glossed=[gloss])
    assert any(said in text for text in vectors.read) and any("what does my" in text for text in vectors.read)
    assert not any(gloss in text for text in vectors.read)
    assert encoder.read[-2:] == ["what does my insurance policy say?", gloss]  # after the tools' descriptions
    by_words = index.ranked(said, None, glossed=[gloss])  # words read a gloss as they read a translation
    assert by_words == index.ranked(said, None, gloss) and by_words[0].endswith("_insurance_policy")
    # the router hands its gloss over as one
    monkeypatch.setattr(glossary_module, "_LOADED", [small])
    monkeypatch.delenv("RIVERSE_GLOSSARY")
    monkeypatch.setattr("agent.router.decision.encoder_for", lambda cache_dir=None: encoder)
    provider, encoder.read = ReadingVectors(), []
    provider.open_reply = ScoringProvider({"none": 0.0}, []).open_reply  # type: ignore[method-assign]
    Router(RouterOptions(candidates=8, retrieved=4)).candidates(provider, MANY, said, language="zh")
    glossed = glossary_module.gloss(said, RETRIEVAL_SENSES)
    assert glossed and glossed in encoder.read and any(said in text for text in provider.read)
    assert not any(glossed in text for text in provider.read)


def test_dictionaries_that_are_not_the_known_files_are_refused(tmp_path, caplog):
    """A dictionary changed on disk (or another version) is not read: no gloss, and the log says why."""
    (tmp_path / "cedict_ts.u8").write_text(CEDICT, encoding="utf-8")
    (tmp_path / "edict2").write_bytes(EDICT.encode("euc_jp"))
    with caplog.at_level(logging.WARNING, logger="agent.router.glossary"):
        assert glossary_module.load(tmp_path) is None
    assert "is not the known file" in caplog.text and "riverse[retrieval]" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="agent.router.glossary"):
        assert glossary_module.load(tmp_path / "missing") is None
    assert "cannot be read" in caplog.text


def test_the_packaged_dictionaries_gloss_chinese_and_japanese():
    """The real package (riverse[retrieval], installed with the dev extra)."""
    if glossary_module._folder() is None:
        pytest.skip("riverse[retrieval] is not installed")
    real = glossary_module.load()
    assert real is not None and len(real.chinese) > 100_000 and len(real.japanese) > 100_000
    assert {"document", "file", "delete"} <= set(real.gloss("把这个文件删掉").split())
    assert {"invitation", "consent"} <= set(real.gloss("evt_5521 の招待を承諾して").split())
    assert real.gloss("evt_5521 の招待を承諾して").startswith("evt_5521")

