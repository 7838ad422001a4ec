"""Retrieval's sentence encoder (agent/router/encoder.py): checked weights, kept vectors, English only; and what
`riverse model` says of it and of the glossary (agent/router/glossary.py)."""

from __future__ import annotations

import json
import logging
from dataclasses import replace

import numpy
import pytest

from agent.router import Router, RouterOptions
from agent.router import encoder as encoder_module
from agent.router import glossary as glossary_module
from agent.router.candidates import ToolIndex, narrowed
from agent.router.context import Call, Context, Exchange
from agent.router.encoder import EncoderError, SentenceEncoder, check_weights, encoder_for
from agent.tools import ToolManifest
from bench.scale.tools import generated
from tests.test_routing import CALC, NOTES, WEATHER, ScoringProvider

CHARGES = ToolManifest("search_transactions", "Full-text search of transaction descriptions and merchant names.",
                       {"query": "Merchant or description text"})


class TopicEncoder:
    """A stand-in encoder: a text's vector is which of a few topics its words name; records what it read."""

    TOPICS = (("uber", "charge", "merchant", "transaction"), ("weather", "rain"), ("ticket", "support"))

    def __init__(self):
        self.read: list[str] = []

    def embed(self, texts, *, keep=False):
        self.read.extend(texts)
        rows = []
        for text in texts:
            row = numpy.array([sum(w in text.lower() for w in topic) for topic in self.TOPICS] + [0.1], dtype=numpy.float32)
            rows.append(row / numpy.linalg.norm(row))
        return numpy.stack(rows)

    def has_embedded(self, texts):
        return False


@pytest.fixture
def fresh_encoders(monkeypatch):
    monkeypatch.setattr(encoder_module, "_ENCODERS", {})
    monkeypatch.delenv("RIVERSE_ENCODER", raising=False)


def test_weights_that_are_not_the_expected_file_are_refused_and_retrieval_goes_on_without(tmp_path, monkeypatch, fresh_encoders, caplog):
    (tmp_path / "model.safetensors").write_bytes(b"not the weights")
    with pytest.raises(EncoderError, match=r"not the expected all-MiniLM-L6-v2 file.*riverse\[retrieval\]"):
        check_weights(tmp_path)
    with pytest.raises(EncoderError, match="cannot read"):
        check_weights(tmp_path / "missing")
    monkeypatch.setattr(encoder_module, "weights_dir", lambda: tmp_path)
    with caplog.at_level(logging.WARNING):
        assert encoder_for(tmp_path / "cache") is None
    assert "not the expected" in caplog.text
    # a tampered file swapped in after the check is caught at load, before sentence-transformers reads it
    encoder = SentenceEncoder(tmp_path)
    with pytest.raises(EncoderError):
        encoder.embed(["hello"])


def test_the_encoder_is_off_when_not_installed_or_turned_off(monkeypatch, fresh_encoders):
    monkeypatch.setattr(encoder_module, "weights_dir", lambda: None)
    assert encoder_for() is None
    monkeypatch.setenv("RIVERSE_ENCODER", "off")
    monkeypatch.setattr(encoder_module, "weights_dir", lambda: pytest.fail("not looked for when turned off"))
    assert encoder_for() is None


def test_kept_vectors_come_back_from_disk_without_encoding_again(tmp_path, monkeypatch):
    encoded: list[str] = []

    def fake_encode(self, texts):
        encoded.extend(texts)
        return numpy.eye(384, dtype=numpy.float32)[[len(t) % 384 for t in texts]]

    monkeypatch.setattr(SentenceEncoder, "_encode", fake_encode)
    first = SentenceEncoder(tmp_path, tmp_path / "cache")
    rows = first.embed(["a tool", "another tool"], keep=True)
    assert encoded == ["a tool", "another tool"] and rows.shape == (2, 384)
    first.embed(["a message"])
    second = SentenceEncoder(tmp_path, tmp_path / "cache")
    assert second.has_embedded(["a tool", "another tool"]) and not second.has_embedded(["a message"])
    numpy.testing.assert_array_equal(second.embed(["another tool"], keep=True), rows[1:])
    assert encoded == ["a tool", "another tool", "a message"]  # adding a tool costs that tool's vector only
    second.embed(["a tool", "a third tool"], keep=True)
    assert encoded[-1] == "a third tool" and len(encoded) == 4


def test_more_texts_at_once_than_the_encoder_remembers_are_all_embedded(tmp_path, monkeypatch):
    def fake_encode(self, texts):
        return numpy.eye(384, dtype=numpy.float32)[[int(t.split()[-1]) for t in texts]]

    monkeypatch.setattr(SentenceEncoder, "_encode", fake_encode)
    encoder = SentenceEncoder(tmp_path)
    texts = [f"text {i}" for i in range(encoder_module.RECENT + 8)]  # more than it keeps in memory
    rows = encoder.embed(texts)
    assert rows.shape == (len(texts), 384) and [int(row.argmax()) for row in rows] == list(range(len(texts)))
    again = encoder.embed(texts[:3] + texts[-3:])  # the first were forgotten, the last remembered
    assert [int(row.argmax()) for row in again] == [0, 1, 2, *range(len(texts) - 3, len(texts))]


def test_the_encoder_reads_english_only_the_translation_of_a_chinese_message():
    index = ToolIndex([CHARGES, WEATHER, *generated(60)])
    topic = TopicEncoder()
    assert index.ranked("find all my Uber charges", None, encoder=topic)[0] == "search_transactions"
    assert topic.read[-1] == "find all my Uber charges"
    topic.read.clear()
    index.ranked("查一下我的优步消费", None, encoder=topic)
    assert all("优步" not in text for text in topic.read)  # a message in another script is not read as English
    ranked = index.ranked("查一下我的优步消费", None, "show my Uber charges", encoder=topic)
    assert topic.read[-1] == "show my Uber charges" and ranked[0] == "search_transactions"


def test_the_router_and_a_remote_model_retrieve_with_the_encoder_when_it_is_on(monkeypatch):
    topic = TopicEncoder()
    monkeypatch.setattr("agent.router.decision.encoder_for", lambda cache_dir=None: topic)
    many = [WEATHER, NOTES, CALC, *generated(300), CHARGES]  # last: an order that ranks nothing misses it
    provider = ScoringProvider({"none": 0.0}, [])
    # the provider's own vectors are not weighed here (vector_weight=0): words and the encoder only
    names = [m.name for m in Router(RouterOptions(candidates=8, retrieved=4, vector_weight=0)).candidates(provider, many, "what did I spend at Uber?")]
    assert "search_transactions" in names and "what did I spend at Uber?" in topic.read
    topic.read.clear()
    off = [m.name for m in Router(RouterOptions(candidates=8, retrieved=4, vector_weight=0, encoder=False)).candidates(provider, many, "what did I spend at Uber?")]
    assert topic.read == [] and "search_transactions" not in off  # the words alone miss it
    assert "search_transactions" in [m.name for m in narrowed(many, "what did I spend at Uber?", 8, encoder=topic)]
    assert "search_transactions" not in [m.name for m in narrowed(many, "what did I spend at Uber?", 8)]


def test_a_retrieved_tool_the_encoder_finds_unlike_the_message_is_not_listed(monkeypatch):
    topic = TopicEncoder()
    monkeypatch.setattr("agent.router.decision.encoder_for", lambda cache_dir=None: topic)
    kanji = ToolManifest("kaikei_search", "取引の明細を検索します", {"query": "検索語"})  # the encoder reads English only
    many = [WEATHER, NOTES, CALC, *generated(300), kanji, CHARGES]
    provider = ScoringProvider({"none": 0.0}, [])
    options = RouterOptions(candidates=8, retrieved=4, vector_weight=0)
    router = Router(options)
    core, rest = router.split(many, provider)
    text = "what did I spend at Uber? the merchant charge"
    listed = router.extras(provider, rest, text)
    every = Router(replace(options, list_unmeant=True)).extras(provider, rest, text)
    similar = router._similar(provider, router.index(rest).described, text)
    assert len(every) == 4 and "search_transactions" in [m.name for m in listed]
    assert {m.name for m in listed} < {m.name for m in every}
    # what is left out is what the encoder finds below the floor past the likeliest, and nothing else
    for rank, m in enumerate(every):
        assert (m in listed) == (rank < options.listed_first or similar[m.name] >= options.meant_floor or m is kanji), m.name
    # the likeliest retrieved tool is listed however unlike the encoder finds it (it reads a terse message poorly)
    ticket = ToolManifest("open_ticket", "Open a support ticket with the helpdesk", {"subject": "What is wrong"})
    rest = router.split([*many, ticket], provider)[1]
    terse = "open a helpdesk case: printer broken"
    assert router._similar(provider, router.index(rest).described, terse)["open_ticket"] < options.meant_floor
    assert [m.name for m in router.extras(provider, rest, terse)][0] == "open_ticket"
    assert "open_ticket" not in [m.name for m in Router(replace(options, listed_first=0)).extras(provider, rest, terse)]
    prompt = router.decision_prompt(provider, many, text, "en")
    assert prompt.listed == {m.name for m in listed} and prompt.more.count("\n- ") == len(listed)
    # a tool the message names, or one of the previous exchange, is listed however unlike it is
    named = generated(300)[7].name
    earlier = Context([Exchange("and the forecast?", [Call(generated(300)[9].name, {})])])
    kept = {m.name for m in router.extras(provider, rest, f"{text} with {named}", earlier)}
    assert {named, generated(300)[9].name} <= kept and similar[named] < options.meant_floor
    # a Chinese or Japanese message is judged by its gloss; with nothing English to compare, nothing is left out
    monkeypatch.setattr("agent.router.decision.gloss", lambda text, *args: "")
    assert len(router.extras(provider, rest, "優步の支払いを探して")) == 4


def test_the_real_encoder_matches_a_request_to_a_description_that_shares_no_words(tmp_path, fresh_encoders):
    """all-MiniLM-L6-v2 from the pinned package (riverse[retrieval], installed with the dev extra)."""
    if encoder_module.weights_dir() is None:
        pytest.skip("riverse[retrieval] is not installed")
    encoder = encoder_for(tmp_path / "cache")
    assert encoder is not None
    index = ToolIndex([CHARGES, WEATHER, NOTES, CALC, *generated(120)])
    for said in ("list what I paid to Starbucks", "which merchants did I pay last week"):
        nearest = index.described.scores(encoder, said)
        assert max(nearest, key=nearest.get) == "search_transactions", said
    vectors = encoder.embed(["find all my Uber charges", "Full-text search of transaction descriptions", "Set the thermostat"])
    assert numpy.allclose(numpy.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.1


def _forged_weights(folder):
    (folder / "model.safetensors").write_bytes(b"not the weights")


def _forged_dictionaries(folder):
    from tests.test_glossary import CEDICT, EDICT

    (folder / "cedict_ts.u8").write_text(CEDICT, encoding="utf-8")
    (folder / "edict2").write_bytes(EDICT.encode("euc_jp"))


# the optional parts of riverse[retrieval]: module, its folder's finder, how to forge its files, what riverse model says
RETRIEVAL_PARTS = {
    "encoder": (encoder_module, "installed_weights", _forged_weights, "Retrieval encoder",
                "are not the expected all-MiniLM-L6-v2 file", ("检索编码器", "不是预期的 all-MiniLM-L6-v2 文件")),
    "glossary": (glossary_module, "_folder", _forged_dictionaries, "Retrieval glossary",
                 "are not the expected files and are not read", ("检索词典", "不是预期的文件")),
}


@pytest.mark.parametrize("part", sorted(RETRIEVAL_PARTS))
def test_riverse_model_says_whether_each_retrieval_part_is_there_and_checks_it_with_verify(part, riverse_home, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from agent.cli import cli

    module, finder, forge, label, refused, (label_zh, refused_zh) = RETRIEVAL_PARTS[part]
    variable = f"RIVERSE_{part.upper()}"

    def shown(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(cli, ["model", *args])
        return result.exit_code, result.output

    assert f"{label}: off ({variable}=off)" in shown()[1]
    monkeypatch.delenv(variable)
    monkeypatch.setattr(module, finder, lambda: None)
    code, output = shown()
    assert code == 0 and f"{label}: not installed" in output and "pip install 'riverse[retrieval]'" in output
    assert json.loads(CliRunner().invoke(cli, ["model", "--json"]).output)[part] == {"state": "missing", "path": None}
    forged = tmp_path / "forged"
    forged.mkdir()
    forge(forged)
    monkeypatch.setattr(module, finder, lambda: forged)
    code, output = shown()
    assert code == 0 and "installed in" in output and "--verify checks them now" in output  # not hashed by default
    code, output = shown("--verify")
    assert code == 1 and refused in output and "--force-reinstall" in output
    zh = CliRunner().invoke(cli, ["-l", "zh", "model", "--verify"])
    assert zh.exit_code == 1 and label_zh in zh.output and refused_zh in zh.output


def test_riverse_model_verify_passes_the_packaged_weights(riverse_home, monkeypatch):
    """The real package (riverse[retrieval], installed with the dev extra)."""
    from click.testing import CliRunner

    from agent.cli import cli

    if encoder_module.installed_weights() is None:
        pytest.skip("riverse[retrieval] is not installed")
    monkeypatch.delenv("RIVERSE_ENCODER")
    result = CliRunner().invoke(cli, ["-l", "ja", "model", "--verify"])
    assert result.exit_code == 0, result.output
    assert "検索用エンコーダー: all-MiniLM-L6-v2" in result.output and "重みを確認しました（SHA-256）" in result.output
