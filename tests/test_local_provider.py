"""The embedded provider and ``riverse model``.

Tests marked ``model`` run the real embedded model (assembled once per module into a temporary
Riverse home, about 2 s): the acceptance questions about Tokyo's weather in Chinese, Japanese and
English against a local stand-in for wttr.in, and a corrupted model file. The others need no model.
"""

from __future__ import annotations

import json
import re
import math
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import numpy
import pytest
import yaml
from click.testing import CliRunner

from agent.cli import cli
from agent.config import load_settings
from agent.providers.llama.model_files import (
    DEFAULT_MODEL_FILENAME,
    ModelFileError,
    ensure_default_model,
)
from agent.providers import create_provider
from agent.providers.base import ProviderError
from agent.providers.llama import (
    BRANCH_SEQUENCES,
    INSTALL_HINT,
    LocalProvider,
    ReplyCursor,
    SentenceVectorContext,
)
from agent.providers.llama.adapter import LLAMA_CPP_VERSION, ChatTemplate, LlamaModel, import_llama_cpp, sequences_at_most
from tests.helpers.cost import cpu_seconds
from tests.helpers.cursor import longest_pieces
from tests.helpers.wttr import WttrStandIn

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------------------- no model needed
def test_importing_the_provider_or_listing_tools_does_not_import_llama_cpp(tmp_path):
    script = (
        "import sys\n"
        "import agent.providers.llama\n"
        "from click.testing import CliRunner\n"
        "from agent.cli import cli\n"
        "result = CliRunner().invoke(cli, ['tools', 'list'])\n"
        "assert result.exit_code == 0, result.output\n"
        "print('llama_cpp' in sys.modules)\n"
    )
    env = {**os.environ, "RIVERSE_HOME": str(tmp_path), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_missing_llama_cpp_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes `import llama_cpp` fail
    with pytest.raises(ProviderError, match="pip install 'llama-cpp-python==0.3.36'"):
        import_llama_cpp()
    assert "llama-cpp-python==0.3.36" in INSTALL_HINT


def test_another_llama_cpp_version_is_refused_when_the_model_is_loaded(monkeypatch, tmp_path):
    """Riverse uses internals of one llama-cpp-python release: another one is named, with the fix."""
    installed = types.ModuleType("llama_cpp")
    installed.__version__ = "0.3.20"
    monkeypatch.setitem(sys.modules, "llama_cpp", installed)
    expected = (
        "the embedded model needs llama-cpp-python 0.3.36, but 0.3.20 is installed (Riverse uses internals of that "
        "exact version). Install the supported version with: pip install 'llama-cpp-python==0.3.36'"
    )
    with pytest.raises(ProviderError, match=f"^{re.escape(expected)}$"):
        import_llama_cpp()
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"GGUF" + bytes(60))
    provider = LocalProvider(fake, models_dir=tmp_path)
    with pytest.raises(ProviderError, match=re.escape("but 0.3.20 is installed")):
        provider.load()
    assert provider._context is None
    installed.__version__ = LLAMA_CPP_VERSION
    assert import_llama_cpp() is installed
    assert LLAMA_CPP_VERSION == "0.3.36" and INSTALL_HINT == "pip install 'llama-cpp-python==0.3.36'"


def test_settings_make_a_local_provider_by_default(riverse_home):
    (riverse_home / "settings.yaml").write_text(yaml.safe_dump({"llm": {"n_ctx": 2048, "n_threads": 3}}), encoding="utf-8")
    provider = create_provider(load_settings())
    assert isinstance(provider, LocalProvider)
    assert provider.capabilities.preferred_protocol == "router" and provider.capabilities.concurrency == 1
    assert provider.n_ctx == 2048 and provider.n_threads == 3
    assert provider.models_dir == riverse_home / "models" and provider.cache_dir == riverse_home / "cache"
    assert provider._context is None  # nothing loaded yet
    assert LocalProvider(models_dir=riverse_home).n_threads == (os.cpu_count() or 1)


def test_a_configured_model_path_that_is_not_gguf_is_refused_before_loading(tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"<html>not a model</html>")
    provider = LocalProvider(fake, models_dir=tmp_path)
    with pytest.raises(ProviderError, match="is not a GGUF model file"):
        provider.complete([{"role": "user", "content": "hi"}])
    assert provider._context is None
    with pytest.raises(ProviderError, match="does not exist; check llm.model_path"):
        LocalProvider(tmp_path / "missing.gguf").complete([{"role": "user", "content": "hi"}])


def test_riverse_model_before_the_model_is_assembled(riverse_home):
    result = CliRunner().invoke(cli, ["model"])
    assert result.exit_code == 0, result.output
    assert "Qwen2.5-Coder-0.5B-Instruct Q4_K_M (the default model)" in result.output
    assert "not assembled yet" in result.output
    assert not (riverse_home / "models" / DEFAULT_MODEL_FILENAME).exists()


def test_riverse_model_with_a_model_path(tmp_path):
    custom = tmp_path / "other.gguf"
    custom.write_bytes(b"GGUF" + bytes(60))
    result = CliRunner().invoke(cli, ["-l", "zh", "model", "--json"], env={"RIVERSE_MODEL_PATH": str(custom)})
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["model"] == str(custom) and shown["size"] == 64 and shown["verified"] is None
    assert shown["message"].endswith("（没有已知校验值，未校验）。")
    repair = CliRunner().invoke(cli, ["model", "--repair"], env={"RIVERSE_MODEL_PATH": str(custom)})
    assert repair.exit_code == 1
    assert "--repair reassembles the default model, but llm.model_path is set" in repair.output
    custom.write_bytes(b"not gguf")
    bad = CliRunner().invoke(cli, ["model"], env={"RIVERSE_MODEL_PATH": str(custom)})
    assert bad.exit_code == 1 and "is not a GGUF model file" in bad.output


class _EmbeddingModel:
    """Stands in for a llama.cpp context in embedding mode (a :class:`LlamaModel`): one token per
    byte, and one 3-number vector per token, ``[position + 1, 1, 0]``. Records the texts whose
    vector was computed (their last token's output asked for)."""

    n_embd = 3

    def __init__(self):
        self.embedded: list[str] = []
        self.cache: list[int] = []  # the tokens in the KV cache
        self.embeddings = True
        self.outputs: dict[int, list[float]] = {}

    def tokenize(self, text: str, *, add_bos: bool, special: bool = False) -> list[int]:
        return list(text.encode("utf-8"))

    def token_eos(self) -> int:
        return 0

    def remove(self, sequence: int, start: int, end: int = -1) -> None:
        assert (sequence, end) == (-1, -1)
        del self.cache[start:]

    def set_embeddings(self, on: bool) -> None:
        self.embeddings = on

    def decode(self, entries: list[tuple[int, int, list[int], bool]]) -> list[int]:
        outputs = []
        for i, (token, position, owners, output) in enumerate(entries):
            assert position == len(self.cache) and owners == [0]  # right after what the cache holds
            self.cache.append(token)
            if output:
                assert self.embeddings
                self.outputs[i] = [float(position + 1), 1.0, 0.0]
                self.embedded.append(bytes(self.cache).decode("utf-8"))
                outputs.append(i)
        return outputs

    def embedding_at(self, output: int) -> Any:
        return numpy.array(self.outputs[output], dtype=numpy.float32)


def test_sentence_vectors_take_the_last_token_and_kept_ones_survive_a_restart(tmp_path):
    first = SentenceVectorContext(_EmbeddingModel(), tmp_path, "model-a")
    vectors = first.embed(["ab", "two words"], keep=True)
    assert vectors.shape == (2, 3)
    assert vectors[1] == pytest.approx([9 / math.sqrt(82), 1 / math.sqrt(82), 0.0])  # the last token's, unit length
    first.embed(["a message"], keep=False)  # not kept: messages do not come back
    assert first.has(["ab", "two words"]) and not first.has(["a message"])
    assert len(list(tmp_path.glob("vectors-*.npz"))) == 1
    model = _EmbeddingModel()
    again = SentenceVectorContext(model, tmp_path, "model-a")
    assert again.has(["ab", "two words"]) and again.embed(["two words"], keep=True)[0] == pytest.approx(vectors[1])
    assert model.embedded == []  # read from disk, not computed
    assert not SentenceVectorContext(_EmbeddingModel(), tmp_path, "model-b").has(["ab"])  # another model file: other vectors


def test_a_message_weighed_several_times_is_embedded_once_and_the_memory_of_messages_is_bounded(tmp_path):
    from agent.providers.llama.vectors import RECENT_VECTORS

    model = _EmbeddingModel()
    vectors = SentenceVectorContext(model, tmp_path, "model-a")
    first = vectors.embed(["a message"], keep=False)
    again = vectors.embed(["a message"], keep=False)  # the router weighs a message against several sets
    assert model.embedded == ["a message"] and again[0] == pytest.approx(first[0])
    assert not vectors.has(["a message"]) and not list(tmp_path.glob("vectors-*.npz"))  # still not kept
    others = [f"message {i}" for i in range(RECENT_VECTORS)]
    for text in others:
        vectors.embed([text], keep=False)
    vectors.embed(["a message"], keep=False)  # pushed out by newer messages: computed again
    assert model.embedded.count("a message") == 2 and len(model.embedded) == RECENT_VECTORS + 2


def test_shipped_vectors_are_used_and_not_copied_into_the_cache(tmp_path):
    shipped = tmp_path / "shipped.npz"
    numpy.savez(
        shipped, keys=numpy.array([SentenceVectorContext.key("ab")]), matrix=numpy.array([[0.0, 1.0, 0.0]], dtype=numpy.float16)
    )
    model = _EmbeddingModel()
    vectors = SentenceVectorContext(model, tmp_path / "cache", "model-a", shipped)
    assert vectors.has(["ab"]) and vectors.embed(["ab"], keep=True)[0] == pytest.approx([0.0, 1.0, 0.0])
    vectors.embed(["two words"], keep=True)
    assert model.embedded == ["two words"]
    (saved,) = (tmp_path / "cache").glob("vectors-*.npz")
    assert list(numpy.load(saved)["keys"]) == [SentenceVectorContext.key("two words")]
    wrong_width = tmp_path / "other.npz"  # vectors of another model are not used
    numpy.savez(wrong_width, keys=numpy.array([SentenceVectorContext.key("ab")]), matrix=numpy.zeros((1, 5)))
    assert not SentenceVectorContext(_EmbeddingModel(), None, "model-a", wrong_width).has(["ab"])


def test_an_unreadable_vector_file_is_dropped_and_computed_again(tmp_path):
    SentenceVectorContext(_EmbeddingModel(), tmp_path, "model-a").embed(["ab"], keep=True)
    (path,) = tmp_path.glob("vectors-*.npz")
    path.write_bytes(b"not a numpy file")
    model = _EmbeddingModel()
    vectors = SentenceVectorContext(model, tmp_path, "model-a")
    assert not vectors.has(["ab"]) and not path.exists()
    assert vectors.embed(["ab"], keep=True).shape == (1, 3) and model.embedded == ["ab"] and path.exists()


class _ScriptedModel:
    """Stands in for a llama.cpp context: a few real pieces (and filler), and the logits that come
    after each text written so far, as a table."""

    PIECES = [b" ", b' "', b"1", b"0", b'"', b"\xe5\x8d\x8e"] + [b"~"] * 300

    def __init__(self, table: dict[bytes, list[int]]):
        self.table = table  # text so far -> tokens, likeliest first
        self.history: list[int] = []

    @property
    def token_count(self) -> int:
        return len(self.history)

    def detokenize(self, tokens: list[int]) -> bytes:
        return b"".join(self.PIECES[t] for t in tokens)

    def piece(self, token: int) -> bytes:
        return self.PIECES[token]

    def logits(self) -> Any:
        ranked = self.table.get(self.detokenize(self.history), [])
        values = numpy.full(len(self.PIECES), -100.0)
        for rank, token in enumerate(ranked):
            values[token] = -float(rank)
        return values

    def feed(self, tokens: list[int]) -> Any:
        self.history += tokens
        return self.logits()

    def truncate(self, count: int) -> None:
        del self.history[count:]

    def is_control(self, token: int) -> bool:
        return False


def test_a_copied_value_does_not_begin_inside_a_word_or_a_number_of_the_message():
    """The model means "1" of an identifier it made up: copying it out of "pf_2231" would give a digit
    of the identifier, no value the message gives; a copy begins where a run of letters or digits does."""
    from agent.providers.llama.cursor import _substring_of

    model = _ScriptedModel({b"": [2, 4], b"1": [4, 3]})
    cursor = ReplyCursor(None, model, model.logits())  # type: ignore[arg-type]
    assert cursor.until('"', copy_from="fine pf_2231") == ""
    model = _ScriptedModel({b"": [2, 4], b"1": [4, 3]})
    cursor = ReplyCursor(None, model, model.logits())  # type: ignore[arg-type]
    assert cursor.until('"', copy_from="fine 1 of pf_2231") == "1"
    piece = _substring_of("駐車違反 pf_2231 の詳細, 5kg in Tokyo")
    assert all(piece(text.encode()) for text in ("", "pf_2231", "2231", "_2231", "kg", "Tokyo", "駐車", "の詳細", "5kg in"))
    assert not any(piece(text.encode()) for text in ("1", "231", "f_2231", "okyo", "g in", "Osaka"))


@pytest.mark.parametrize("run", ["a", "7"])
def test_a_copy_out_of_a_long_run_of_one_letter_or_digit_costs_its_length(run):
    """Attack: a message of one letter or digit repeated: whether a piece begins a run reads it once."""
    from agent.providers.llama.cursor import _substring_of

    lead = {"a": "b", "7": "1"}[run]

    def read(source: str) -> None:
        piece = _substring_of(source)
        for length in (1, 2, 8, 64):
            assert not piece((run * length).encode())  # inside the run, past its first character
            assert piece((lead + run * length).encode())  # where the run begins
    short, long = f"{lead}{run * 2000} y", f"{lead}{run * 16000} y"
    assert cpu_seconds(read, long) < 24 * max(cpu_seconds(read, short), 1e-4)


def test_an_opening_begun_by_a_lone_space_that_leads_nowhere_is_written_whole_instead():
    """The model's likeliest start of a number is `` `` (then an unquoted 100): that cannot open a
    quoted value, so the value starts again from `` "``, not empty."""
    model = _ScriptedModel({b"": [0, 1], b" ": [2, 3], b' "': [2], b' "1': [3], b' "10': [3], b' "100': [4]})
    cursor = ReplyCursor(None, model, model.logits())  # type: ignore[arg-type]
    number = lambda text: text.isdigit() or not text  # noqa: E731
    assert cursor.until('"', opening=' "', allowed=number, copy_from="华氏100度") == "100"
    assert model.detokenize(model.history) == b' "100'
    # a lone space that does lead on is kept (`` `` then ``"/etc`` is how paths often start)
    model = _ScriptedModel({b"": [0], b" ": [4], b' "': [2], b' "1': [4]})
    cursor = ReplyCursor(None, model, model.logits())  # type: ignore[arg-type]
    assert cursor.until('"', opening=' "') == "1" and model.history == [0, 4, 2]



class _TrieModel(_ScriptedModel):
    """A scripted context that also evaluates branches (one call, recorded), and a provider that
    tokenizes with its pieces, longest first."""

    PIECES = [b"msg", b'{"tool":', b' "', b"file", b"_list", b"_read", b"weather", b'"', b"~"]

    def __init__(self, table: dict[bytes, list[int]]):
        super().__init__(table)
        self.batches: list[tuple[list[int], list[list[int]]]] = []

    def evaluate_paths(self, shared: list[int], paths: list[list[int]]) -> tuple[Any, list[Any]]:
        self.batches.append((list(shared), [list(p) for p in paths]))
        logits = self.feed(shared) if shared else None
        held, after = len(self.history), []
        for path in paths:
            after.append(self.feed(path))
            self.truncate(held)
        return logits, after

    def tokenize(self, text: str) -> list[int]:
        return longest_pieces(self.PIECES, text)


def test_every_branch_point_of_the_options_is_evaluated_in_one_batch_with_the_pending_message():
    model = _TrieModel({b'msg{"tool": "': [3, 6], b'msg{"tool": "file': [5, 4]})  # file before weather; _read before _list
    cursor = ReplyCursor(model, model, None, [0])  # type: ignore[arg-type]  # the message token is pending
    cursor.extend('{"tool":')
    scores = cursor.option_logprobs([' "file_list"', ' "file_read"', ' "weather"'])
    # one forward pass: message, opening and the options' common start; the "file" branch beside it
    assert model.batches == [([0, 1, 2], [[3]])]
    assert sum(math.exp(v) for v in scores.values()) == pytest.approx(1.0)
    assert max(scores, key=scores.get) == ' "file_read"'
    # ranks -> logits 0, -1: P(file) = P(_read | file) = 1 / (1 + e^-1)
    assert scores[' "file_read"'] == pytest.approx(2 * math.log(1 / (1 + math.exp(-1))))
    assert scores[' "weather"'] == pytest.approx(math.log(1 / (1 + math.e)))
    # the reply keeps the message and its opening (the last token pending again), not the options' start
    assert model.history == [0]
    cursor.extend(' "weather"')
    cursor.until('"', max_tokens=1)
    assert model.detokenize(model.history).startswith(b'msg{"tool": "weather"')



def test_contexts_made_while_capped_ask_for_few_sequences_and_the_cap_is_lifted_after():
    """llama-cpp-python asks for llama.cpp's maximum (256) in embedding mode; each costs a row of logits."""
    from types import SimpleNamespace

    api = SimpleNamespace(llama_max_parallel_sequences=lambda: 256)
    lib = SimpleNamespace(llama=SimpleNamespace(llama_cpp=api))
    with sequences_at_most(lib, 16):
        assert api.llama_max_parallel_sequences() == 16
    assert api.llama_max_parallel_sequences() == 256
    with pytest.raises(RuntimeError), sequences_at_most(lib, 1):
        raise RuntimeError("the model did not load")
    assert api.llama_max_parallel_sequences() == 256
    with sequences_at_most(SimpleNamespace(), 1):  # another build of the bindings: nothing to cap
        pass


# ------------------------------------------------------------------------------ the real model
J1 = {
    "current_condition": [
        {
            "temp_C": "31", "FeelsLikeC": "34", "humidity": "62", "windspeedKmph": "7",
            "weatherDesc": [{"value": "Partly cloudy"}], "lang_zh": [{"value": "局部多云"}], "lang_ja": [{"value": "晴れ時々曇り"}],
        }
    ]
}


@pytest.fixture(scope="module")
def wttr():
    with WttrStandIn(J1) as server:
        yield server


@pytest.fixture(scope="module")
def model_home(tmp_path_factory, wttr):
    """A Riverse home with the default model assembled and the weather tool pointed at the stand-in."""
    home = tmp_path_factory.mktemp("model-home")
    ensure_default_model(home / "models", progress=False)
    settings = {"tools": {"weather": {"base_url": wttr.base_url, "timeout": 10}}}
    (home / "settings.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
    return home


@pytest.mark.model
@pytest.mark.parametrize(
    "question,city",
    [("东京今天天气怎么样？", "东京"), ("東京の天気は？", "東京"), ("What's the weather like in Tokyo right now?", "Tokyo")],
)
def test_ask_about_the_weather_calls_the_tool_and_quotes_its_temperature(model_home, wttr, question, city):
    wttr.clear()
    result = CliRunner().invoke(cli, ["--home", str(model_home), "ask", question])
    assert result.exit_code == 0, result.output
    assert wttr.cities == [city]
    assert "31" in result.stdout


@pytest.mark.model
def test_a_corrupted_model_file_is_detected_and_not_loaded(tmp_path):
    models = tmp_path / "models"
    path = ensure_default_model(models, progress=False)
    with path.open("r+b") as handle:  # change one byte in the middle
        handle.seek(path.stat().st_size // 2)
        byte = handle.read(1)
        handle.seek(-1, os.SEEK_CUR)
        handle.write(bytes([byte[0] ^ 0xFF]))
    provider = LocalProvider(models_dir=models)
    with pytest.raises(ModelFileError, match="is corrupt: its sha256 is"):
        provider.complete([{"role": "user", "content": "hi"}])
    assert provider._context is None
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "ask", "hi"])
    assert result.exit_code == 1
    assert "is corrupt" in result.output and "Delete it and Riverse will assemble it again" in result.output
    shown = CliRunner().invoke(cli, ["--home", str(tmp_path), "model", "--verify"])
    assert shown.exit_code == 1 and "✗" in shown.output
    repaired = CliRunner().invoke(cli, ["--home", str(tmp_path), "model", "--repair"])
    assert repaired.exit_code == 0 and "sha256 verified" in repaired.output


@pytest.fixture(scope="module")
def model_file(model_home) -> Path:
    return model_home / "models" / DEFAULT_MODEL_FILENAME


@pytest.mark.model
def test_cursor_scores_options_and_copies_values(model_file, tmp_path):
    provider = LocalProvider(model_file, cache_dir=tmp_path, n_ctx=1024)
    messages = [{"role": "system", "content": "Reply with JSON."}, {"role": "user", "content": "Weather in Kyoto, please"}]
    with provider.open_reply(messages) as cursor:
        cursor.extend('{"city": "')
        scores = cursor.option_logprobs(['Kyoto"', 'Osaka"', 'file_list"', 'file_read"'])
        assert sum(math.exp(v) for v in scores.values()) == pytest.approx(1.0, abs=1e-6)
        assert max(scores, key=scores.get) == 'Kyoto"'
        mark = cursor.mark()
        assert cursor.until('"', copy_from="Weather in Kyoto, please") == "Kyoto"
        cursor.rewind(mark)
        assert cursor.until('"', allowed=lambda text: text.isdigit() or not text) == ""


@pytest.mark.model
def test_a_tool_prompt_for_many_tools_is_cut_to_leave_room_in_the_context(model_file, tmp_path):
    """Thirty tools with three examples each fill more than a 1024-token context: the router's prompt
    keeps as many few-shot turns as leave ``reply_room`` tokens free, and a decision still runs."""
    from agent.router import Router, RouterOptions
    from agent.toolkit.base import ToolManifest

    provider = LocalProvider(model_file, cache_dir=tmp_path, n_ctx=1024)
    tools = [ToolManifest(f"tool_{i}", f"Looks up item {i}", {"q": "what to look up"},
                          [f"look up item {i} for me", f"find item {i}", f"item {i} please"]) for i in range(30)]
    router = Router(RouterOptions(reply_room=256))
    prompt = router.prompt(tools, "en", provider)
    assert prompt.cut_shots > 0
    assert len(provider.render(prompt.prefix, open_reply=False)) + 256 <= 1024
    assert provider.leaves_room(prompt.prefix, 256) and not provider.leaves_room(prompt.prefix, 1024)
    router.decide(provider, tools, "hello", "en")  # fits: no error about the context
    too_long = [{"role": "system", "content": " ".join(f"tool{i} does thing {i}." for i in range(400))}]
    with pytest.raises(ProviderError, match=r"the tool prompt \(\d+ tokens\) does not fit the model's context of 1024"):
        provider.prepare_prefix(too_long)


@pytest.mark.model
def test_a_restored_prefix_gives_the_same_scores_as_a_cold_one(model_file, tmp_path):
    messages = [{"role": "system", "content": "You route messages to tools: weather, calculator, or none."},
                {"role": "user", "content": "hello"}, {"role": "assistant", "content": '{"tool": "none"}'},
                {"role": "user", "content": "How hot is it in Rome?"}]
    options = ['weather"', 'calculator"', 'none"']

    def scores(provider: LocalProvider, keep: int) -> dict[str, float]:
        with provider.open_reply(messages, keep=keep) as cursor:
            cursor.extend('{"tool": "')
            return cursor.option_logprobs(options)

    fresh = scores(LocalProvider(model_file, n_ctx=1024), 3)  # prefix evaluated, then the rest
    first = LocalProvider(model_file, cache_dir=tmp_path, n_ctx=1024)
    saved = scores(first, 3)
    assert len(list(tmp_path.glob("prefix-*.kv"))) == 1
    first.complete([{"role": "user", "content": "Say hi"}], max_tokens=4)  # another prompt in between
    again = scores(first, 3)  # restored from memory
    from_disk = scores(LocalProvider(model_file, cache_dir=tmp_path, n_ctx=1024), 3)
    for other in (saved, again, from_disk):
        assert other == pytest.approx(fresh, abs=1e-4)
    # in one batch the arithmetic differs slightly, the decision does not
    cold = scores(LocalProvider(model_file, n_ctx=1024), 0)
    assert max(cold, key=cold.get) == max(fresh, key=fresh.get)
    assert cold == pytest.approx(fresh, abs=0.25)


@pytest.mark.model
def test_sentence_vectors_put_requests_for_the_same_tool_closer_together(model_file, tmp_path):
    from agent.router import ExampleVectors

    provider = LocalProvider(model_file, cache_dir=tmp_path, n_ctx=1024)
    index = ExampleVectors({"weather": ["What's the weather like in Tokyo?", "东京今天天气怎么样？"],
                            "calculator": ["What is 1234 * 5678?", "Calculate 15% of 80"],
                            "none": ["Write a short poem about the sea.", "Thanks, that helped a lot!"]})
    assert not index.is_ready(provider)
    index.prepare(provider)
    assert index.is_ready(provider) and len(list(tmp_path.glob("vectors-*.npz"))) == 1
    for message, nearest in [("Is it raining in Paris right now?", "weather"), ("北京现在多少度？", "weather"),
                             ("What's 17 times 23?", "calculator"), ("Tell me a joke about cats", "none")]:
        scores = index.scores(provider, message)
        assert max(scores, key=scores.get) == nearest, (message, scores)
        assert all(-1.0 <= value <= 1.0 + 1e-6 for value in scores.values())


@pytest.mark.model
def test_the_shipped_vectors_are_the_default_models_own(model_file, tmp_path):
    from agent.providers.llama import SHIPPED_VECTORS, read_vectors
    from agent.router.texts import NO_TOOL_SHOTS
    from agent.router.examples import VECTOR_TEMPLATE

    shipped = read_vectors(SHIPPED_VECTORS, 896)
    provider = LocalProvider(model_file, cache_dir=tmp_path, n_ctx=1024)  # by its path: computes them
    texts = [VECTOR_TEMPLATE.format(text=text) for text in NO_TOOL_SHOTS[:4]]
    for text, row in zip(texts, provider.embed(texts)):
        assert float(row @ shipped[SentenceVectorContext.key(text)]) > 0.995


@pytest.mark.model
def test_json_schema_constrains_the_answer(model_file):
    provider = LocalProvider(model_file, n_ctx=1024)
    schema = {"type": "object", "properties": {"city": {"enum": ["Paris", "Rome"]}}, "required": ["city"]}
    completion = provider.complete([{"role": "user", "content": "Which city is the capital of Italy? Answer in JSON."}],
                                   json_schema=schema, max_tokens=20)
    assert json.loads(completion.text)["city"] in ("Paris", "Rome")


@pytest.mark.model
def test_an_opening_quote_written_by_the_model_keeps_a_leading_slash(model_file, tmp_path):
    """After a forced ``"`` the model rarely writes ``/``: the ``"/`` token is what it knows."""
    provider = LocalProvider(model_file, cache_dir=tmp_path, n_ctx=1024)
    messages = [{"role": "system", "content": "Reply with the JSON call of the file reading tool."},
                {"role": "user", "content": "Read me the contents of /etc/hosts"}]
    with provider.open_reply(messages) as cursor:
        cursor.extend('{"tool": "file_read", "params": {"path":')
        mark = cursor.mark()
        assert cursor.until('"', opening=' "') == "/etc/hosts"
        cursor.rewind(mark)
        assert cursor.until('"', opening=' "', copy_from="Read me the contents of /etc/hosts") == "/etc/hosts"


@pytest.mark.model
def test_a_prepared_prefix_is_kept_on_disk_and_found_by_a_new_provider(model_file, tmp_path):
    prefix = [{"role": "system", "content": "You route messages to tools."},
              {"role": "user", "content": "hello"}, {"role": "assistant", "content": '{"tool": "none"}'}]
    first = LocalProvider(model_file, cache_dir=tmp_path, n_ctx=1024)
    assert not first.has_prefix(prefix)
    first.prepare_prefix(prefix)
    assert first.has_prefix(prefix) and len(list(tmp_path.glob("prefix-*.kv"))) == 1
    assert LocalProvider(model_file, cache_dir=tmp_path, n_ctx=1024).has_prefix(prefix)
    assert not LocalProvider(model_file, cache_dir=tmp_path, n_ctx=1024).has_prefix(prefix[:1])


def test_riverse_model_prepare_readies_the_tool_prompt_of_each_language(tmp_path, monkeypatch):
    """The command's wiring, with the model's work stubbed: English was prepared before, the others now."""
    custom = tmp_path / "other.gguf"
    custom.write_bytes(b"GGUF" + bytes(60))
    prepared: list[str] = []
    monkeypatch.setattr(LocalProvider, "load", lambda self: None)
    monkeypatch.setattr(LocalProvider, "has_prefix", lambda self, messages: messages[0]["content"].startswith("You are a router"))
    monkeypatch.setattr(LocalProvider, "prepare_prefix", lambda self, messages: prepared.append(messages[0]["content"]))
    monkeypatch.setattr(LocalProvider, "leaves_room", lambda self, messages, room: True)
    monkeypatch.setattr(LocalProvider, "has_embedded", lambda self, texts: True)
    monkeypatch.setattr(LocalProvider, "embed", lambda self, texts, keep=False: numpy.zeros((len(texts), 3)))
    env = {"RIVERSE_MODEL_PATH": str(custom)}
    shown = CliRunner().invoke(cli, ["model", "--prepare"], env=env)
    assert shown.exit_code == 0, shown.output
    assert "Tool prompt (en): already prepared." in shown.output
    assert re.search(r"Tool prompt \(zh\): prepared in \d+\.\d s", shown.output)
    assert [text[:6] for text in prepared] == ["你是一个路由", "あなたはルー"]
    as_json = json.loads(CliRunner().invoke(cli, ["model", "--prepare", "--json"], env=env).stdout)
    assert as_json["prepared"]["en"] is None and as_json["prepared"]["zh"] >= 0 and as_json["prepared"]["ja"] >= 0
    remote = CliRunner().invoke(cli, ["-p", "ollama", "model", "--prepare"], env=env)
    assert remote.exit_code == 0 and "there is no embedded model to prepare" in remote.output


@pytest.mark.model
def test_branches_evaluated_side_by_side_score_as_one_at_a_time(model_file):
    provider = LocalProvider(model_file, n_ctx=1024)
    context = provider.context
    assert context.parallel and context.model.sequences == 16
    assert provider.sentence_context.model.sequences == 1
    shared = provider.render([{"role": "user", "content": "Read notes/todo.txt"}]) + provider.tokenize('{"tool": "')
    paths = [provider.tokenize(name) for name in ("file", "web", "weather")]
    together, below = context.evaluate_paths(shared, paths)
    assert context.tokens == shared  # the shared part is kept, the paths are not
    context.truncate(0)
    context.parallel = False
    alone, below_alone = context.evaluate_paths(shared, paths)
    for a, b in zip([together, *below], [alone, *below_alone]):
        assert int(a.argmax()) == int(b.argmax())
        assert numpy.abs(a - b).max() < 0.5  # batched arithmetic differs slightly


@pytest.mark.model
def test_a_sentence_vector_is_the_same_after_another_text_with_the_same_opening(model_file):
    provider = LocalProvider(model_file, n_ctx=1024)
    cold = provider.embed(['This sentence : "Is it raining in Paris?" means in one word:"'])[0]
    other = LocalProvider(model_file, n_ctx=1024)
    other.embed(['This sentence : "What is 17 times 23?" means in one word:"'])  # shares the opening
    warm = other.embed(['This sentence : "Is it raining in Paris?" means in one word:"'])[0]
    assert float(cold @ warm) > 0.9999 and float(numpy.linalg.norm(warm)) == pytest.approx(1.0, abs=1e-5)


# ------------------------------------------------- the llama-cpp-python internals the adapter uses
def _chat_model(model_file: Path, sequences: int = BRANCH_SEQUENCES) -> LlamaModel:
    return LlamaModel.open_chat(model_file, n_ctx=512, n_threads=os.cpu_count() or 1, sequences=sequences)


@pytest.mark.model
def test_the_sequence_cap_is_patched_where_the_real_llama_reads_it(model_file):
    """``Llama`` reads ``llama_max_parallel_sequences`` from ``llama_cpp.llama.llama_cpp`` in embedding
    mode: if llama-cpp-python moves it, the cap silently stops working, and this fails."""
    lib = import_llama_cpp()
    api = lib.llama.llama_cpp
    original = api.llama_max_parallel_sequences
    assert callable(original) and original() > BRANCH_SEQUENCES
    with sequences_at_most(lib, 3):
        assert api.llama_max_parallel_sequences() == 3
    assert api.llama_max_parallel_sequences is original
    assert _chat_model(model_file, sequences=3).sequences == 3
    assert _chat_model(model_file).sequences == BRANCH_SEQUENCES
    assert LlamaModel.open_embedding(model_file, n_ctx=512, n_threads=1).sequences == 1


@pytest.mark.model
def test_a_real_llama_has_the_recurrent_and_hybrid_flags(model_file):
    model = _chat_model(model_file)
    llm = model._llm  # the llama-cpp-python object: its private flags are read with a default
    assert vars(llm)["_is_recurrent"] is False and vars(llm)["_is_hybrid"] is False
    assert model.recurrent is False


@pytest.mark.model
def test_the_embedding_mode_context_still_gives_logits_and_side_by_side_outputs(model_file):
    model = _chat_model(model_file)
    tokens = model.tokenize("The capital of France is", add_bos=False)
    model.evaluate(tokens)
    logits = model.logits()
    assert logits.shape == (model.n_vocab,) and numpy.isfinite(logits).all()
    assert model.detokenize([int(logits.argmax())]) == b" Paris"
    assert model.held_tokens == tokens and model.n_tokens == len(tokens)
    # two sequences that share what sequence 0 holds, one batch: the same logits as one at a time
    paths = [model.tokenize(" Paris. The capital of Italy is", add_bos=False), model.tokenize(" not", add_bos=False)]
    held = model.n_tokens
    for sequence in (1, 2):
        model.copy_sequence(0, sequence, 0, held)
    entries = [
        (token, held + k, [sequence], k == len(path) - 1)
        for sequence, path in zip((1, 2), paths)
        for k, token in enumerate(path)
    ]
    rows = [model.logits_at(output) for output in model.decode(entries)]
    for sequence in (1, 2):
        model.remove(sequence, -1)
    assert model.held_tokens == tokens  # sequence 0 is untouched
    alone = []
    for path in paths:
        model.evaluate(path)
        alone.append(model.logits())
        model.truncate(held)
    assert model.detokenize([int(rows[0].argmax())]) == b" Rome"
    for row, single in zip(rows, alone):
        assert int(row.argmax()) == int(single.argmax()) and numpy.abs(row - single).max() < 0.5


@pytest.mark.model
def test_held_tokens_written_back_continue_like_a_fresh_evaluation(model_file):
    """After the KV cache is filled directly (a batch) and the held tokens are written back
    (``n_tokens``, ``input_ids``), llama-cpp-python evaluates on at the right place."""
    model = _chat_model(model_file)
    tokens = model.tokenize("The capital of France is Paris. The capital of Italy is", add_bos=False)
    model.evaluate(tokens[:5])
    model.evaluate(tokens[5:-1])
    model.evaluate(tokens[-1:])
    fresh = model.logits()
    model.truncate(0)
    model.evaluate(tokens[:5])
    assert model.decode([(token, 5 + k, [0], False) for k, token in enumerate(tokens[5:-1])]) == []
    model.mark_held(tokens[5:-1], 5)
    assert model.held_tokens == tokens[:-1]
    model.evaluate(tokens[-1:])
    numpy.testing.assert_array_equal(model.logits(), fresh)
    model.truncate(5)  # forget, then evaluate the same again
    assert model.held_tokens == tokens[:5]
    model.evaluate(tokens[5:-1])
    model.evaluate(tokens[-1:])
    numpy.testing.assert_array_equal(model.logits(), fresh)


@pytest.mark.model
def test_a_kv_state_round_trips_in_memory_and_through_a_file(model_file, tmp_path):
    model = _chat_model(model_file)
    tokens = model.tokenize("The capital of France is Paris. The capital of Italy is", add_bos=False)
    prefix, last = tokens[:-1], tokens[-1:]
    model.evaluate(prefix)
    state = model.state()
    assert state and model.save_state(tmp_path / "prefix.kv", prefix)
    model.evaluate(last)
    expected = model.logits()
    for restore in ("memory", "file"):
        model.truncate(0)
        model.evaluate(model.tokenize("Something else entirely, to overwrite the cache.", add_bos=False))
        model.truncate(0)
        if restore == "memory":
            assert model.set_state(state)
        else:
            assert model.load_state(tmp_path / "prefix.kv", len(prefix)) == prefix
        model.mark_held(prefix)
        model.evaluate(last)
        numpy.testing.assert_array_equal(model.logits(), expected)
    model.truncate(0)
    assert model.load_state(tmp_path / "prefix.kv", len(prefix) - 1) is None  # more tokens than room for them
    assert model.load_state(tmp_path / "missing.kv", len(prefix)) is None
    assert model.set_state(b"not a state" * 10) is False


@pytest.mark.model
def test_tokens_control_tokens_and_the_chat_template_of_the_real_model(model_file):
    model = _chat_model(model_file)
    assert model.is_control(model.token_eos())
    assert not any(model.is_control(token) for token in model.tokenize("Hello there", add_bos=False))
    assert model.detokenize(model.tokenize("Hello there", add_bos=False)) == b"Hello there"
    assert model.tokenize("<|im_start|>", add_bos=False) != model.tokenize("<|im_start|>", add_bos=False, special=True)
    template = ChatTemplate(model)
    messages = [{"role": "user", "content": "hi"}]
    opened = template.tokens(messages, open_reply=True)
    closed = template.tokens(messages, open_reply=False)
    assert opened[: len(closed)] == closed and len(opened) > len(closed)
    assert model.detokenize(opened, special=True).endswith(b"<|im_start|>assistant\n")
    grammar = model.grammar(json.dumps({"type": "object", "properties": {"a": {"type": "integer"}}}))
    with model.completion(opened, max_tokens=3, temperature=0.0, grammar=grammar) as pieces:
        assert "".join(pieces).startswith("{")


# ------------------------------------------------------------------ CPUs with AMX
def test_amx_is_read_from_the_cpu_flags(tmp_path):
    from agent.providers.llama.adapter import has_amx

    info = tmp_path / "cpuinfo"
    info.write_text("flags\t\t: fpu avx512f amx_bf16 amx_tile amx_int8 avx512_vnni\n", encoding="utf-8")
    assert has_amx(info)
    info.write_text("flags\t\t: fpu avx2 avx512f avx512_vnni\n", encoding="utf-8")
    assert not has_amx(info)
    assert not has_amx(tmp_path / "missing")


def test_on_a_cpu_with_amx_models_load_without_extra_buffer_types(monkeypatch):
    """llama.cpp's AMX buffer type segfaults on the first evaluation (Q4_K_M, Xeon with amx_int8):
    models are loaded with ``use_extra_bufts`` off there, and only there, unless the user says."""
    import types

    from agent.providers.llama import adapter

    class Params:
        use_extra_bufts = True

    module = types.SimpleNamespace(llama_model_default_params=Params)
    lib = types.SimpleNamespace(llama=types.SimpleNamespace(llama_cpp=module))
    monkeypatch.delenv("RIVERSE_LLAMA_EXTRA_BUFFERS", raising=False)
    for amx, env, expected in [(True, None, False), (False, None, True), (True, "on", True), (False, "off", False)]:
        monkeypatch.setattr(adapter, "has_amx", lambda amx=amx: amx)
        if env is None:
            monkeypatch.delenv("RIVERSE_LLAMA_EXTRA_BUFFERS", raising=False)
        else:
            monkeypatch.setenv("RIVERSE_LLAMA_EXTRA_BUFFERS", env)
        with adapter.safe_buffers(lib):
            assert module.llama_model_default_params().use_extra_bufts is expected, (amx, env)
        assert module.llama_model_default_params is Params  # put back after loading
