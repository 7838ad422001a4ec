"""The router: tool decisions that a small local model gets right, then a short grounded answer.

A 0.5B model asked to write a JSON tool call picks the wrong tool, invents calls for small talk and
misspells parameter names. The router asks it a narrower question and reads the answer from its
probabilities instead of its prose (``bench/routing`` measures each of these levers):

1. **One fixed prompt, cached.** The system prompt lists the tools (name, description, parameters)
   and is followed by few-shot turns made from the manifests' ``examples`` and ``extra_examples``
   (plus built-in messages that need no tool, in three languages). The tools are described in the
   language of the message (:meth:`ToolRegistry.manifests` with a language). Only the user's
   message comes after the prompt, so its KV state is computed once per tool set and language,
   kept on disk, and restored for every decision (see
   :meth:`agent.providers.local.LocalProvider.open_reply`; ``riverse chat`` and
   ``riverse model --prepare`` compute it before the first message).
2. **A scored choice, not generated text.** After ``{"tool": "`` the model's log-probabilities of
   every real tool name and of ``none`` are compared (a token trie: one or two forward passes). The
   name is always a real tool; ``none`` gets a tuned bias, because small models over-call tools.
3. **Nearest examples as a second opinion.** The model's own sentence vector of the message (its
   hidden state at the end of a "this sentence means in one word" template, from a second llama.cpp
   context on the same weights) is compared with the vectors of every tool's examples and of the
   built-in no-tool messages; each option's best cosine similarity, weighted, is added to its
   score. The examples' vectors are computed with the prompt and kept on disk (those of the built-in
   tools ship with Riverse). A character n-gram index of the same texts can add lexical evidence
   (off by default: it fitted the tuning cases, not new ones), and a link in the message adds to
   the tools with a required ``"format": "uri"`` parameter.
4. **Parameters written into a fixed frame.** The reply continues as JSON whose keys are the
   tool's real parameters, in order; the model only writes the values (greedy, until the closing
   quote). Enum values are chosen like tool names, numbers can only be numbers, an optional value
   can only be copied from the message (it is stated there, or left out: never invented from the
   prompt's examples), a required number is copied from a message that has digits, and a value in
   another script than the message (Tokyo for 东京), or a Chinese or Japanese word the message does
   not contain, is copied from the message instead. The opening quote of each value is the model's
   to write, since ``"/`` and ``"(`` are single tokens (after a forced ``"`` the model drops the ``/``
   of ``/etc/hosts``). A tool whose required value comes out empty is not called.

Providers without :meth:`open_reply` (OpenAI-compatible endpoints, the scripted fake) get the same
prompt and a JSON schema built from the manifests (``complete(..., json_schema=...)``); what comes
back is validated, and bad output means answering without a tool, with a notice, never an exception.

After the tool ran, the answer is generated from a small prompt: the question, the tool results and
an instruction to answer briefly in the user's language (detected from the message) using only
those results; it is streamed as ``text`` events.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from difflib import SequenceMatcher
from typing import Any

from agent import prompts
from agent.prompts import detect_language
from agent.loop import Event, NativeProtocol, Reply
from agent.protocol import parse_reply
from agent.providers.base import Completion, ToolCallRequest
from agent.tools._base import ToolManifest
from agent.tools._schema import parameter_schema

EventCallback = Callable[[Event], None]


# ------------------------------------------------------------------------------------ levers
@dataclass(frozen=True)
class RouterOptions:
    """The decision's levers. The defaults are the values ``bench/routing/run.py`` supports."""

    few_shot: bool = True  # the manifests' examples (and built-in no-tool messages) as chat turns
    shots_per_tool: int = 4  # how many of each tool's examples become few-shot turns (retrieval uses all)
    none_bias: float = 0.5  # added to the log-probability of "no tool"
    lexical_weight: float = 0.0  # times the lexical similarity (0..1), added to each tool's score
    none_lexical_weight: float = 0.0  # the same for "no tool", from built-in messages that need none
    vector_weight: float = 80.0  # times the best cosine similarity of the message's and an example's vectors
    copy_optional: bool = True  # optional parameters: copy from the message (or leave out), never invent
    copy_foreign: bool = True  # a value in another script than the message: copy it from the message instead
    copy_numbers: bool = True  # a required number, when the message has digits: copied from the message
    max_value_tokens: int = 40  # per parameter value
    link_weight: float = 6.0  # added to tools with a required "format": "uri" parameter when the message has a link
    model_quotes: bool = True  # opening quotes written with what follows (``"(``, ``"/`` are single tokens)


# ------------------------------------------------------------------------------------- texts
_INSTRUCTIONS = {
    "en": (
        "You are a router. For each user message, reply with JSON that names the one tool that can do what "
        "the message asks, with its parameters, or the tool {none}.\n"
        "Tools:\n{tools}\n"
        "- {none}: no tool is needed; the assistant answers by itself (greetings, thanks, small talk, feelings, "
        "opinions, writing, translation, explanations, general knowledge, advice)."
    ),
    "zh": (
        "你是一个路由器。对每条用户消息，用 JSON 回复能完成该消息要求的那个工具及其参数，或者工具 {none}。\n"
        "工具：\n{tools}\n"
        "- {none}：不需要工具，助手自己回答（问候、感谢、闲聊、情绪、观点、写作、翻译、解释、常识、建议）。"
    ),
    "ja": (
        "あなたはルーターです。ユーザーのメッセージごとに、その依頼を実行できるツール 1 つとそのパラメータ、"
        "またはツール {none} を JSON で返してください。\n"
        "ツール：\n{tools}\n"
        "- {none}：ツール不要。アシスタントが自分で答える（挨拶、お礼、雑談、気持ち、意見、作文、翻訳、説明、一般知識、アドバイス）。"
    ),
}

# Messages that need no tool, shown as few-shot turns: written for Riverse, not taken from the benchmark.
_NO_TOOL_SHOTS = [
    "Hello there!",
    "你好，最近怎么样？",
    "ありがとう、助かりました！",
    "Write a short poem about the sea.",
    "帮我写一段生日祝福语",
    "この文を英語に訳して：おはようございます",
    "Why is the ocean salty?",
    "为什么月亮会有阴晴圆缺？",
    "デジタル温度計ってどういう仕組み？",
    "What does the cd command do in a terminal?",
    "你觉得学编程难吗？",
    "週末は何をするのが好き？",
    # messages about a tool's subject that still need no tool
    "How do weather forecasts actually work?",
    "什么是时区？为什么会有时差？",
    "電卓とパソコンの計算の違いは？",
    "Translate 'see you tomorrow' into Spanish.",
    "怎样整理电脑里的文件比较好？",
    "メモを上手に取るコツを教えて",
    "Thanks, that helped a lot!",
    "谢谢你，辛苦了",
    "おはよう！今日も頑張ろう",
    "How tall is Mount Everest?",
    "长城有多长？",
    "富士山の高さはどれくらい？",
]

# More messages that need no tool, for the lookup only (not shown as turns: the prompt stays short).
_NO_TOOL_LOOKUP = [
    "Hi there!",
    "How does a thermometer work?",
    "What's a good way to remember passwords?",
    "Can you help me write an email asking my boss for a day off?",
    "Explain how photosynthesis works",
    "What do you think makes a good leader?",
    "Any tips for falling asleep faster?",
    "How do time zones work?",
    "Give me some ideas for a birthday gift for my dad",
    "What is a regular expression?",
    "Explain the difference between weather and climate",
    "good night",
    "Can you suggest a name for my new puppy?",
    "What's the best way to learn a new language?",
    "Summarize the plot of Romeo and Juliet",
    "How do I politely decline a wedding invitation?",
    "Why do we have leap years?",
    "What's your favorite color?",
    "Help me brainstorm a title for my blog about hiking",
    "谢谢你，帮了大忙",
    "早上好！",
    "温度计是怎么工作的？",
    "最近工作压力好大，有点焦虑",
    "帮我写一封请假邮件给老板",
    "怎么才能早睡早起？",
    "什么是机器学习？简单解释一下",
    "李白是哪个朝代的诗人？",
    "怎样记住那么多密码比较安全？",
    "帮我想几句生日祝福的话",
    "晚安",
    "推荐几本适合入门的心理学书",
    "怎么跟室友沟通噪音问题比较好？",
    "解释一下什么是通货膨胀",
    "你是谁？",
    "帮我把这句话改得更礼貌一点：你赶紧把文件发我",
    "哈哈好的",
    "学编程应该先学哪门语言？",
    "给我的小狗起个名字吧",
    "如何做好一次面试的自我介绍？",
    "四季是怎么形成的？",
    "秋をテーマにした俳句を作って",
    "時差ボケの治し方は？",
    "最近ちょっと疲れてて、やる気が出ない",
    "上司に有給休暇をお願いするメールを書いて",
    "「お疲れさまです」を英語に訳すとどうなる？",
    "温度計ってどういう仕組みで温度を測ってるの？",
    "パスワードを覚えるいい方法ってある？",
    "日本で一番高い山は？",
    "読書を習慣にするコツを教えて",
    "光合成について簡単に説明して",
    "おやすみ",
    "猫と犬、どっちが飼いやすいと思う？",
    "彼女の誕生日プレゼント、何がいいかな？",
    "うるう年ってなんであるの？",
    "面接で緊張しないコツを教えて",
    "正規表現って何？",
    "このメール、もう少し丁寧な言い回しにしてくれる？「明日までに資料送ってください」",
    "あなたの名前は？",
    "プログラミング初心者におすすめの言語は？",
    "了解、ありがとう",
    "インフレってどういう意味？",
    "友達と喧嘩しちゃった。どうやって仲直りすればいい？",
    "一人旅がテーマのブログのタイトル案をいくつか考えて",
]

_NO_TOOL_ALL = [*_NO_TOOL_SHOTS, *_NO_TOOL_LOOKUP]

_ANSWER = {
    "en": "Answer in English.",
    "zh": "请用中文回答。",
    "ja": "日本語で答えてください。",
}

_GROUNDED = {
    "en": (
        "{question}\n\nTool results:\n{results}\n\n"
        "Answer the question in one or two short sentences, using only these results; quote their numbers as "
        "given and do not add facts they do not contain. If a tool failed, say so. Answer in English."
    ),
    "zh": (
        "{question}\n\n工具结果：\n{results}\n\n"
        "请只根据这些结果，用一两句简短的话回答上面的问题；数字照原样引用，不要添加结果里没有的内容。"
        "如果工具失败了，请说明。请用中文回答。"
    ),
    "ja": (
        "{question}\n\nツールの結果：\n{results}\n\n"
        "これらの結果だけを使って、上の質問に一、二文で短く答えてください。数値はそのまま引用し、結果にないことは"
        "付け加えないでください。ツールが失敗した場合はそう伝えてください。日本語で答えてください。"
    ),
}

_PREPARING = {
    "en": "preparing the tool prompt for this set of tools (once; later messages start at once)",
    "zh": "正在为当前这组工具准备工具提示（只需一次，之后的消息会立即开始）",
    "ja": "このツール構成用のツールプロンプトを準備しています（初回のみ。以降のメッセージはすぐに始まります）",
}

_UNREADABLE = {
    "en": "the model's tool decision could not be read ({error}); answering without a tool",
    "zh": "无法读取模型的工具决定（{error}），将不使用工具直接回答",
    "ja": "モデルのツール判断を読み取れませんでした（{error}）。ツールを使わずに答えます",
}


# ---------------------------------------------------------------------------------- retrieval
def _examples(m: ToolManifest) -> list[str]:
    """The spec's ``examples`` and then the optional ``extra_examples``."""
    return [*m.examples, *m.extra_examples]


def _features(text: str) -> Counter:
    """Words (Latin, digits) and CJK character uni- and bigrams, case- and width-folded."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    out: Counter = Counter(f"w:{word}" for word in re.findall(r"[a-z0-9_]+", folded))
    for run in re.findall(r"[\u3040-\u30ff\u3400-\u9fff]+", folded):
        out.update(f"c:{ch}" for ch in run)
        out.update(f"b:{run[i:i + 2]}" for i in range(len(run) - 1))
    return out


#: how a text is put to the model for its sentence vector: the model's state where it is about to
#: sum the text up in one word (the "PromptEOL" template), which separates requests far better than
#: the text alone or averaged token states (``bench/routing``)
_VECTOR_TEMPLATE = 'This sentence : "{text}" means in one word:"'


class ExampleVectors:
    """Nearest-example retrieval on the model's own sentence vectors (providers with ``embed``): an
    option's score is the best cosine similarity between the message and one of its texts (a tool's
    examples, or its description when it has none). The texts' vectors are computed once per model
    and kept by the provider."""

    def __init__(self, documents: dict[str, list[str]]):
        self.names = list(documents)
        self.texts = [_VECTOR_TEMPLATE.format(text=text) for name in self.names for text in documents[name]]
        self.owners = [name for name in self.names for _ in documents[name]]
        self._matrices: dict[int, Any] = {}  # per provider (id): the texts' vectors, one row each

    def is_ready(self, provider: Any) -> bool:
        return id(provider) in self._matrices or provider.has_embedded(self.texts)

    def prepare(self, provider: Any) -> Any:
        if id(provider) not in self._matrices:
            self._matrices[id(provider)] = provider.embed(self.texts, keep=True)
        return self._matrices[id(provider)]

    def scores(self, provider: Any, text: str) -> dict[str, float]:
        matrix = self.prepare(provider)
        similarity = matrix @ provider.embed([_VECTOR_TEMPLATE.format(text=text)])[0]
        best: dict[str, float] = {}
        for owner, value in zip(self.owners, similarity.tolist()):
            best[owner] = max(best.get(owner, -1.0), value)
        return best


class ToolIndex:
    """Lexical retrieval over the manifests: TF-IDF cosine of a message with each example and the
    description; a tool's score is its best match (0..1)."""

    def __init__(self, manifests: list[ToolManifest], extra: dict[str, list[str]] | None = None):
        documents = {m.name: [_features(text) for text in [*_examples(m), m.description]] for m in manifests}
        for name, texts in (extra or {}).items():  # other classes, e.g. messages that need no tool
            documents[name] = [_features(text) for text in texts]
        frequency: Counter = Counter()
        count = 0
        for docs in documents.values():
            for doc in docs:
                count += 1
                frequency.update(doc.keys())
        self._idf = {term: math.log(1 + count / (1 + n)) for term, n in frequency.items()}
        self._default_idf = math.log(1 + count)
        self._vectors = {name: [self._unit(doc) for doc in docs] for name, docs in documents.items()}

    def _unit(self, features: Counter) -> dict[str, float]:
        vector = {term: n * self._idf.get(term, self._default_idf) for term, n in features.items()}
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        return {term: v / norm for term, v in vector.items()}

    def scores(self, text: str) -> dict[str, float]:
        query = self._unit(_features(text))
        return {
            name: max((sum(query.get(term, 0.0) * v for term, v in doc.items()) for doc in docs), default=0.0)
            for name, docs in self._vectors.items()
        }

    def top(self, text: str, k: int) -> list[str]:
        scores = self.scores(text)
        return sorted(scores, key=lambda name: -scores[name])[:k]


# ------------------------------------------------------------------------------------ decision
@dataclass
class Decision:
    """Which tool (None: no tool) with which parameters, and the scores it was chosen by."""

    tool: str | None
    params: dict[str, Any] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)  # per option: what the choice compared
    logprobs: dict[str, float] = field(default_factory=dict)  # the model's part of it
    similarity: dict[str, float] = field(default_factory=dict)  # lexical retrieval's part of it
    vectors: dict[str, float] = field(default_factory=dict)  # the example vectors' part of it
    error: str = ""


class DecisionPrompt:
    """The router's prompt for one set of manifests: a fixed prefix (instructions and few-shot turns)
    followed by the user's message."""

    def __init__(self, manifests: list[ToolManifest], language: str, options: RouterOptions):
        self.manifests = {m.name: m for m in manifests}
        self.kept_by: set[int] = set()  # ids of providers known to keep this prompt's KV state
        self.none = "none" if "none" not in self.manifests else "no_tool"
        listing = "\n".join(_describe(m) for m in manifests)
        text = prompts.pick(_INSTRUCTIONS, language).format(tools=listing, none=self.none)
        self.prefix: list[dict[str, str]] = [{"role": "system", "content": text}]
        if options.few_shot:
            for message, tool in _shots(manifests, self.none, options.shots_per_tool):
                self.prefix.append({"role": "user", "content": message})
                self.prefix.append({"role": "assistant", "content": json.dumps({"tool": tool}, ensure_ascii=False)})
        self.vectors = ExampleVectors({**{m.name: _examples(m) or [m.description] for m in manifests}, self.none: _NO_TOOL_ALL})
        # tools that take a link: a message with one is evidence for them
        self.link_tools = {m.name for m in manifests if any(_is_link(m, key) for key in m.required)}

    @cached_property
    def index(self) -> ToolIndex:
        """Lexical retrieval over the same texts (built when a lexical weight is set)."""
        return ToolIndex(list(self.manifests.values()), {self.none: _NO_TOOL_ALL})

    def messages(self, text: str) -> list[dict[str, str]]:
        return [*self.prefix, {"role": "user", "content": text}]

    def schema(self) -> dict[str, Any]:
        """The JSON schema of a decision: a real tool with only its own parameters, or none."""
        choices: list[dict[str, Any]] = [
            {
                "type": "object",
                "properties": {
                    "tool": {"const": m.name},
                    "params": {
                        "type": "object",
                        "properties": {key: _value_schema(m, key) for key in m.parameters},
                        "additionalProperties": False,
                    },
                },
                "required": ["tool", "params"],
            }
            for m in self.manifests.values()
        ]
        choices.append({"type": "object", "properties": {"tool": {"const": self.none}}, "required": ["tool"]})
        return {"anyOf": choices}


def _describe(m: ToolManifest) -> str:
    """One line per tool: name, parameter names, description (longer listings scored worse)."""
    return f"- {m.name}({', '.join(m.parameters or {})}): {m.description}"


def _shots(manifests: list[ToolManifest], none: str, per_tool: int) -> list[tuple[str, str]]:
    """Few-shot turns, interleaved (first example of every tool, some no-tool messages, the second
    examples, ...) so that no tool sits closest to the question."""
    examples = {m.name: _examples(m) for m in manifests}
    rounds = min(max((len(e) for e in examples.values()), default=0), per_tool)
    per_round = math.ceil(len(_NO_TOOL_SHOTS) / max(rounds, 1))
    shots: list[tuple[str, str]] = []
    for i in range(rounds):
        shots.extend((examples[m.name][i], m.name) for m in manifests if i < len(examples[m.name]))
        shots.extend((text, none) for text in _NO_TOOL_SHOTS[i * per_round : (i + 1) * per_round])
    return shots


def _value_schema(m: ToolManifest, key: str) -> dict[str, Any]:
    schema = parameter_schema(m.parameter_types.get(key), str(m.parameters[key]))
    schema.pop("description", None)
    return schema


_LINK = re.compile(r"\bhttps?://\S+", re.IGNORECASE)


def _is_link(m: ToolManifest, key: str) -> bool:
    return key in m.parameters and _value_schema(m, key).get("format") in ("uri", "url", "iri")


def _enum(m: ToolManifest, key: str) -> list[str] | None:
    values = _value_schema(m, key).get("enum")
    if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
        return values
    return None


_NUMBER = re.compile(rb"-?[0-9][0-9,]*(\.[0-9]*)?|-?")


def _value_filters(manifest: ToolManifest, key: str, message: str, options: RouterOptions) -> dict[str, Any]:
    """How a parameter's value may be written: a number for numeric types, and for an optional
    parameter (with ``copy_optional``) a piece of the message, since it is stated there or left out."""
    filters: dict[str, Any] = {}
    numeric = _value_schema(manifest, key).get("type") in ("number", "integer")
    if numeric:
        filters["allowed"] = lambda text: _NUMBER.fullmatch(text) is not None
    if (options.copy_optional and key not in manifest.required) or (_is_link(manifest, key) and _LINK.search(message)):
        filters["copy_from"] = message
    elif numeric and options.copy_numbers and re.search(r"[0-9]", message):
        filters["copy_from"] = message  # a number the message states (not one from the examples)
    return filters


def _foreign(value: str, message: str) -> bool:
    """Whether ``value`` is written in another script than the message (Latin letters vs CJK)."""
    written, said = detect_language(value, default=""), detect_language(message, default="")
    return bool(written and said) and (written == "en") != (said == "en")


def _unstated(value: str, message: str) -> bool:
    """Whether a Chinese or Japanese ``value`` is missing from a message in the same script (the
    model wrote a word of its own, e.g. 英寸 for the message's 英尺): copied from the message instead.
    Not done for English, where a value may rightly be rewritten (sqrt(2) for "square root of 2")."""
    return detect_language(value, default="") in ("zh", "ja") and detect_language(message, default="") in ("zh", "ja") \
        and _fold(value) not in _fold(message)


_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]{4,}")


def _respelled(value: str, message: str) -> str:
    """``value`` with every Latin word that the message lacks but has in a close spelling written as
    the message writes it (Lisboa for the message's Lisbon): a name the model changed, not a value
    it composed (sqrt for "square root" stays)."""
    said = {word.casefold(): word for word in _LATIN_WORD.findall(message)}

    def respell(match: re.Match) -> str:
        word = match.group(0)
        if word.casefold() in said:
            return word
        ratio, closest = max(((SequenceMatcher(None, word.casefold(), key).ratio(), original)
                              for key, original in said.items()), default=(0.0, word))
        return closest if ratio >= 0.8 else word

    return _LATIN_WORD.sub(respell, value) if said else value


def _rewrite(cursor: Any, mark: Any, value: str, opening: bool) -> None:
    """Replace what was written for a value since ``mark`` by ``value`` (with its opening quote when
    the model was to write it)."""
    cursor.rewind(mark)
    written = json.dumps(value, ensure_ascii=False)
    cursor.extend(" " + written if opening else written[1:])


def _fold(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text)).casefold()


def _opening(forced: str) -> str:
    """The space and opening quote an option starts with when they were not forced before it."""
    return "" if forced else ' "'


def _clean_value(raw: str) -> str:
    """A value the model wrote inside JSON quotes, unescaped when it is valid JSON string content."""
    text = raw.strip()
    try:
        text = json.loads(f'"{text}"')
    except ValueError:
        text = text.rstrip("\\")
    return text.strip()


class Router:
    """Makes tool decisions for a message; caches one :class:`DecisionPrompt` per manifest set."""

    def __init__(self, options: RouterOptions | None = None):
        self.options = options or RouterOptions()
        self._prompts: dict[str, DecisionPrompt] = {}

    def prompt(self, manifests: list[ToolManifest], language: str) -> DecisionPrompt:
        key = json.dumps([language, [m.to_dict() for m in manifests]], sort_keys=True, ensure_ascii=False, default=str)
        if key not in self._prompts:
            if len(self._prompts) > 8:
                self._prompts.clear()
            self._prompts[key] = DecisionPrompt(manifests, language, self.options)
        return self._prompts[key]

    def prepare(self, provider: Any, manifests: list[ToolManifest], language: str) -> bool:
        """Evaluate and keep the fixed prompt for these manifests now (the embedded model only), so
        that the first decision is as fast as the others. Returns whether there was work to do."""
        if not hasattr(provider, "prepare_prefix") or self.is_prepared(provider, manifests, language):
            return False
        prompt = self.prompt(manifests, language)
        provider.prepare_prefix(prompt.prefix)
        if self._uses_vectors(provider):
            prompt.vectors.prepare(provider)
        prompt.kept_by.add(id(provider))
        return True

    def _uses_vectors(self, provider: Any) -> bool:
        return bool(self.options.vector_weight) and hasattr(provider, "embed")

    def is_prepared(self, provider: Any, manifests: list[ToolManifest], language: str) -> bool:
        """False when the first decision must evaluate the fixed prompt (several seconds on a small CPU).
        Asks the provider once; a prompt it has kept is remembered."""
        prompt = self.prompt(manifests, language)
        if id(provider) not in prompt.kept_by:
            if hasattr(provider, "has_prefix") and not provider.has_prefix(prompt.prefix):
                return False
            if self._uses_vectors(provider) and not prompt.vectors.is_ready(provider):
                return False
            prompt.kept_by.add(id(provider))
        return True

    def decide(self, provider: Any, manifests: list[ToolManifest], text: str, language: str) -> Decision:
        """The decision for ``text``. Provider errors propagate; unreadable output becomes ``Decision.error``."""
        prompt = self.prompt(manifests, language)
        if hasattr(provider, "open_reply"):
            return self._decide_scored(provider, prompt, text)
        return self._decide_schema(provider, prompt, text)

    def _decide_scored(self, provider: Any, prompt: DecisionPrompt, text: str) -> Decision:
        options = self.options
        with provider.open_reply(prompt.messages(text), keep=len(prompt.prefix)) as cursor:
            quote = "" if options.model_quotes else ' "'  # the opening quote: forced, or part of each option
            cursor.extend('{"tool":' + quote)
            labels = {f'{_opening(quote)}{name}"': name for name in [*prompt.manifests, prompt.none]}
            logprobs = cursor.option_logprobs(list(labels))
            similarity = prompt.index.scores(text) if options.lexical_weight or options.none_lexical_weight else {}
            vectors = prompt.vectors.scores(provider, text) if self._uses_vectors(provider) else {}
            scores = {
                name: logprobs[label]
                + options.vector_weight * vectors.get(name, 0.0)
                + (
                    options.none_bias + options.none_lexical_weight * similarity.get(name, 0.0)
                    if name == prompt.none
                    else options.lexical_weight * similarity.get(name, 0.0)
                    + (options.link_weight if name in prompt.link_tools and _LINK.search(text) else 0.0)
                )
                for label, name in labels.items()
            }
            chosen = max(scores, key=lambda name: scores[name])
            model = {name: logprobs[label] for label, name in labels.items()}
            no_tool = Decision(None, scores=scores, logprobs=model, similarity=similarity, vectors=vectors)
            if chosen == prompt.none:
                return no_tool
            manifest = prompt.manifests[chosen]
            cursor.extend(f'{_opening(quote)}{chosen}", "params": {{')
            params: dict[str, Any] = {}
            for i, key in enumerate(manifest.parameters):
                values = _enum(manifest, key)
                cursor.extend(("" if i == 0 else ", ") + json.dumps(key) + ":" + quote)
                if values:
                    value_scores = cursor.option_logprobs([f'{_opening(quote)}{v}"' for v in values])
                    value = max(values, key=lambda v: value_scores[f'{_opening(quote)}{v}"'])
                    cursor.extend(f'{_opening(quote)}{value}"')
                else:
                    value = self._value(cursor, manifest, key, text)
                if value:
                    params[key] = value
                elif key in manifest.required:  # nothing in the message for it: the tool cannot be what was meant
                    return no_tool
        return Decision(chosen, params, scores, model, similarity, vectors=vectors)

    def _value(self, cursor: Any, manifest: ToolManifest, key: str, text: str) -> str:
        value = self._written_value(cursor, manifest, key, text)
        if key not in manifest.required and len(value) == 1 and value.isalpha():
            return ""  # one letter picked out of a sentence (日 of 今日, e of "time") is not a value worth stating
        return value

    def _written_value(self, cursor: Any, manifest: ToolManifest, key: str, text: str) -> str:
        """Write one parameter value. A value in another script than the message (a name the model
        translated, e.g. Tokyo for 东京), or a Chinese/Japanese word the message does not contain, is
        written again, copied from the message."""
        options = self.options
        start = cursor.mark()
        filters = _value_filters(manifest, key, text, options)
        if options.model_quotes:
            filters["opening"] = ' "'
        value = _clean_value(cursor.until('"', options.max_value_tokens, **filters))
        if options.copy_foreign and "copy_from" not in filters and (_foreign(value, text) or _unstated(value, text)):
            cursor.rewind(start)
            copied = _clean_value(cursor.until('"', options.max_value_tokens, **filters, copy_from=text))
            if copied and (_foreign(value, copied) or not _foreign(copied, text)):  # the message's own words
                return copied
            _rewrite(cursor, start, value, "opening" in filters)
        elif options.copy_foreign and "allowed" not in filters and (respelled := _respelled(value, text)) != value:
            _rewrite(cursor, start, respelled, "opening" in filters)
            return respelled
        return value

    def _decide_schema(self, provider: Any, prompt: DecisionPrompt, text: str) -> Decision:
        completion = provider.complete(prompt.messages(text), json_schema=prompt.schema(), max_tokens=200)
        if completion.tool_calls:  # a provider may answer with a structured call anyway
            call = completion.tool_calls[0]
            return self._validated(prompt, call.name, call.arguments)
        parsed = parse_reply(completion.text)
        if parsed.kind == "calls":
            call = parsed.calls[0]
            return self._validated(prompt, call.name, call.arguments)
        if parsed.kind == "malformed":
            return Decision(None, error=parsed.error)
        return Decision(None)  # {"tool": "none"}, or plain text: no tool

    @staticmethod
    def _validated(prompt: DecisionPrompt, name: str, arguments: Any) -> Decision:
        if name == prompt.none:
            return Decision(None)
        manifest = prompt.manifests.get(name)
        if manifest is None:
            known = ", ".join(prompt.manifests)
            return Decision(None, error=f"unknown tool {name!r}; the tools are: {known}")
        if not isinstance(arguments, dict):
            return Decision(None, error=f"the parameters of {name} are not a JSON object: {str(arguments)[:80]!r}")
        params = {k: v for k, v in arguments.items() if k in manifest.parameters and v not in (None, "")}
        return Decision(name, params)


# ------------------------------------------------------------------------------------ protocol
class RouterProtocol:
    """The agent loop's protocol for small local models (``tool_protocol: router``).

    One tool decision per user message (see the module docstring), then one grounded answer; the
    answer never calls another tool (a 0.5B model does not chain tools reliably).
    """

    name = "router"

    def __init__(self, router: Router | None = None):
        self.router = router or Router()

    def system_prompt(self, language: str, manifests: list[ToolManifest]) -> str:
        return prompts.pick(prompts.SYSTEM, language)

    def prepare(self, agent: Any, languages: list[str]) -> dict[str, bool]:
        """Prepare the tool prompt of each language ahead of the first message (see
        :meth:`Router.prepare`); returns, per language, whether it had to be evaluated."""
        done = {}
        for language in languages:
            manifests = _in_language(agent, agent.registry.manifests(), language)
            done[language] = self.router.prepare(agent.provider, manifests, language) if manifests else False
        return done

    def next(self, agent: Any, messages: list[dict], manifests: list[ToolManifest], emit: EventCallback) -> Reply:
        question, position, tools_ran = _turn(messages)
        language = detect_language(question, agent.language)
        if tools_ran:
            return self._answer(agent, _grounded(messages, question, position, language), emit)
        if manifests:
            manifests = _in_language(agent, manifests, language)
            if not self.router.is_prepared(agent.provider, manifests, language):
                emit(Event("notice", text=prompts.pick(_PREPARING, language)))
            decision = self.router.decide(agent.provider, manifests, question, language)
            if decision.error:
                emit(Event("notice", text=prompts.pick(_UNREADABLE, agent.language).format(error=decision.error)))
            elif decision.tool is not None:
                call = ToolCallRequest(name=decision.tool, arguments=decision.params, id="call_router")
                return Reply(calls=[call], raw=Completion(tool_calls=[call]))
        answer_messages = list(messages)
        answer_messages[0] = {"role": "system", "content": f"{messages[0]['content']} {prompts.pick(_ANSWER, language)}"}
        return self._answer(agent, answer_messages, emit)

    @staticmethod
    def _answer(agent: Any, messages: list[dict], emit: EventCallback) -> Reply:
        completion = agent.provider.complete(messages, on_text=lambda piece: emit(Event("text", text=piece)))
        return Reply(text=completion.text, raw=completion, streamed=True)

    def inject(self, messages: list[dict], reply: Reply, outcomes: list[Any], language: str) -> None:
        """The calls and their results, as OpenAI-style assistant ``tool_calls`` and ``tool`` messages."""
        NativeProtocol().inject(messages, reply, outcomes, language)


def _in_language(agent: Any, manifests: list[ToolManifest], language: str) -> list[ToolManifest]:
    """``manifests`` as their tools write them for ``language``: a 0.5B model matches a Chinese
    message against Chinese descriptions and examples far better than against English ones.
    Unchanged in the agent's own language, or when the registry cannot say."""
    if language == agent.language:
        return manifests
    try:
        localized = {m.name: m for m in agent.registry.manifests(language)}
    except TypeError:  # a registry whose manifests() takes no language
        return manifests
    return [localized.get(m.name, m) for m in manifests]


def _turn(messages: list[dict]) -> tuple[str, int, bool]:
    """The user's question, its position, and whether tools already ran for it.

    Stored history holds only plain user/assistant messages, so an assistant message with
    ``tool_calls`` belongs to this turn and follows the question.
    """
    position = next((i for i in range(len(messages) - 1, 0, -1) if messages[i].get("tool_calls")), None)
    tools_ran = position is not None
    if position is None:
        position = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "user"), len(messages))
    else:
        position -= 1
    content = messages[position].get("content") if position < len(messages) else ""
    return (content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)), position, tools_ran


def _grounded(messages: list[dict], question: str, position: int, language: str) -> list[dict]:
    """The answer prompt after tools ran: system prompt, earlier turns, then question and results in one message."""
    calls: dict[str, tuple[str, str]] = {}
    for message in messages[position:]:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            calls[call.get("id", "")] = (function.get("name", "?"), function.get("arguments", "{}"))
    lines = []
    for message in messages[position + 1 :]:
        if message.get("role") == "tool":
            name, arguments = calls.get(message.get("tool_call_id", ""), ("?", "{}"))
            lines.append(f"- {name}({arguments}): {message.get('content', '')}")
    system = {"role": "system", "content": f"{messages[0]['content']} {prompts.pick(_ANSWER, language)}"}
    user = {
        "role": "user",
        "content": prompts.pick(_GROUNDED, language).format(question=question, results="\n".join(lines)),
    }
    return [system, *messages[1:position], user]
