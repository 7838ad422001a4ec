"""Every request of a message: "the weather in Oslo and the time there", "东京几点了？顺便算一下 17*23",
"大阪と札幌の天気" each ask for two calls.

The message is decided whole first. When it reads as several requests (sentences, or parts joined by
"also", "顺便", "ついでに", "and", "和", "と" …), each part is decided in turn, reading the parts decided
before it as a conversation (so "and in Bergen" after the weather in Oslo is the weather again); a
short part that got no tool ("Paris" of "Paris and London weather") is decided once more after the
others. The parts win only when they make two or more different calls; otherwise the whole message's
decision stands, so a single request that happens to contain "and" is decided as before.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from agent.router.context import Call, Context, Exchange
from agent.router.followups import (
    compared_other, compares, converted_request, difference_request, renumbered, restated, unit_dropped,
)
from agent.router.forms import UNIT, place_names, takes_place, value_form
from agent.router.prompt import Decision, value_schema
from agent.router.repeats import also_asked as _also, numbered as _numbered
from agent.router.references import (
    carried,
    folded as _folded,
    is_follow_up,
    previous_number,
    refers_back,
    there_named,
    with_result,
    works_on_result,
)
from agent.router.spoken import multiplied, with_digits, with_powers

if TYPE_CHECKING:
    from agent.providers.base import Provider
    from agent.router.decision import Router
    from agent.toolkit.base import ToolManifest

#: the most parts a message is decided in (each part costs a decision)
MAX_PARTS = 4
#: a part this short (in characters, after trimming) that got no tool is decided again after the others
FRAGMENT_CHARS = 16

# Between requests: a sentence end followed by more, or a word that adds a request.
_SENTENCES = re.compile(r"(?<=[？！。])\s*|(?<=[?!.;；])\s+")  # "item?id=3912" is one
_CONNECTORS = re.compile(
    r"\s*(?:,\s*)?\b(?:and also|also|as well as|and then|then|after that)\b\s*"
    r"|\s*[,，、]?\s*(?:顺便(?:再)?(?:帮我)?|还有|另外|以及|然后|并且|同时|ついでに|それと|それから|あと(?=[、,，])|あと、)\s*[,，、]?\s*"
    r"|(?:\s*[,，]\s*|\s+)再(?![见見说說次])(?:帮我)?\s*"  # "记一条笔记：…，再查一下成都的天气", "打开 … 再在笔记里搜"
    r"|(?<!について)(?<!として)(?<!によって)(?<!に関して)(?<!に対して)(?<=て)、\s*",  # "ネットで調べて、メモ6番を削除して" (not "について、")
    re.IGNORECASE,
)
# Between parts of one sentence that may each be a request ("Paris and London", "东京和大阪", "大阪と札幌"; not the
# と of "完了として", "休みとする", "という").
_COORDINATORS = re.compile(r"\s*(?:,\s*)?\band\b\s*|\s*[和与及]\s*|(?<=[\u3040-\u30ff\u3400-\u9fff])と(?!して|する|した|なる|なっ|いう|言|思|一緒|共に)|\s+と\s+"
                           r"|\s*(?:[、，]|,(?!\d))\s*|(?<![\d)\s])\s+\+\s+(?![\d(])", re.IGNORECASE)
# "2,340" is one number, "3.5 + 2" one sum; "weather in Kraków plz + sqrt(2025)" two requests
_WORD = re.compile(r"[0-9]+(?:\.[0-9]+)?|[A-Za-z][\w.-]{2,}|[\u3040-\u30ff\u3400-\u9fff]{2,}")
# a part that is a clause of its own ("it's outdated"), not a bare name ("London") left over from the others
_CLAUSE = re.compile(r"^\s*(?:it|it's|its|that|that's|this|they|they're|he|she|i|i'm|we|you|there|there's)\b", re.IGNORECASE)
_EDGE = re.compile(r"^[\s,，、.;；]+|[\s,，、;；]+$")


# the "and" of a span: "between 10:00 and 12:00", "between May 3 and May 9" (one value's two ends, not two requests)
_BETWEEN = re.compile(r"\b(between\s+(?:\S+\s+){0,3}?\S+?)\s+and\s+", re.IGNORECASE)
_KEPT_AND = "\ue000"


def split_requests(text: str) -> list[str]:
    """The parts of ``text`` that may each be a request: by sentences and connectors, and when that
    gives one part, by coordinators (not the "and" of "between … and …"). A single part when nothing
    divides it."""
    kept = _BETWEEN.sub(lambda m: f"{m.group(1)} {_KEPT_AND} ", text)
    parts = _pieces(_SENTENCES, [kept])
    parts = _pieces(_CONNECTORS, parts)
    parts = [part.replace(_KEPT_AND, "and") for part in _pieces(_COORDINATORS, parts)]
    return parts[:MAX_PARTS] if len(parts) > 1 else [text.strip()]


def _pieces(pattern: re.Pattern, parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        out.extend(piece for piece in (_EDGE.sub("", p) for p in pattern.split(part)) if _meaningful(piece))
    return out


def _meaningful(piece: str) -> bool:
    return bool(re.search(r"[0-9A-Za-z\u3040-\u30ff\u3400-\u9fff]", piece))


def decide_requests(
    router: "Router", provider: "Provider", manifests: list["ToolManifest"], text: str, language: str, context: Context
) -> list[Decision]:
    """The decisions for every request of ``text`` (see the module docstring): one decision, or
    one per part when the parts make two or more different calls. A follow-up is decided written out
    with what it refers to (see :mod:`agent.router.followups`)."""
    again = renumbered(text, context, manifests)
    if again is not None:  # "now 90": the previous call with that number
        return [again]
    said = restated(text, context, manifests, language)
    text = with_powers(said.text)  # "2の20乗" as 2**20, the expression it is copied as
    whole = _first_of_chain(router.decide(provider, manifests, text, language, context), router, provider, manifests,
                            text, language, context)
    whole = there_named(whole, text, _manifest(manifests, whole.tool or whole.declined))  # "シドニー…、向こうは今何時？"
    margin = getattr(getattr(router, "options", None), "chain_margin", 3.0)
    decisions = _compared(_requests(router, provider, manifests, text, language, context, whole, parted=not said.whole),
                          text, manifests)
    decisions = _numbered(decisions, whole, multiplied(with_digits(text)))
    # a further call may follow this turn's results: a part works on them, the whole message's decision
    # had another tool close behind, it asks for a unit no call holds, or how far apart two calls' results are
    decisions[0].follows = bool(decisions[0].then) or may_chain(whole, margin) or _other_unit(text, decisions) \
        or compares(text) and sum(1 for d in decisions if d.tool) >= 2
    return decisions


def _first_of_chain(whole: Decision, router: "Router", provider: "Provider", manifests: list["ToolManifest"], text: str,
                    language: str, context: Context) -> Decision:
    """``whole``, or when it was declined for a number to convert that the message does not give while it
    asks for a unit ("芝加哥的风速换成英里每小时是多少"), the decision of the message without that unit: the
    quantity is a result to come, converted in a second step."""
    manifest = _manifest(manifests, whole.declined) if whole.tool is None else None
    if manifest is None or value_schema(manifest, whole.missing).get("type") not in ("number", "integer") \
            or re.search(r"\d", with_digits(text)) or (rest := unit_dropped(text)) is None:
        return whole
    first = router.decide(provider, manifests, rest, language, context)
    return first if first.tool is not None and first.tool != whole.declined else whole


def _compared(decisions: list[Decision], text: str, manifests: list["ToolManifest"]) -> list[Decision]:
    """``decisions`` with the call asked of the other side of a comparison too, when they make one call
    of a place ("how much warmer is it in Bangkok than in Helsinki", "曼谷比哈尔滨热多少度": the weather
    in both)."""
    calls = [d for d in decisions if d.tool]
    manifest = _manifest(manifests, calls[0].tool) if len(calls) == 1 else None
    key = next((k for k in calls[0].params if takes_place(manifest, k)), None) if manifest else None
    other = compared_other(text, str(calls[0].params[key])) if key else None
    also = _asked_of(calls[0], other, manifests) if other else None
    return [*decisions, also] if also else decisions


def _unit_only(part: str) -> bool:
    """Whether ``part`` (after a message's first) only asks for a unit, with no number or place of its own
    ("再换算成英里", "give it to me in km", "合計何ガロン？"): the earlier part's result converted, a second step."""
    return len(part.strip()) <= 24 and bool(UNIT.stated(part)) and not re.search(r"\d", with_digits(part)) \
        and not place_names(part)


def _other_unit(text: str, decisions: list[Decision]) -> bool:
    """Whether ``text`` asks for a unit that none of its calls' values holds ("how warm is it in Lima in
    Fahrenheit", "芝加哥的风速换成英里每小时", "リマの気温を華氏で"): the answer is a result converted, a
    further call after the results."""
    if not any(d.tool for d in decisions):
        return False
    asked = UNIT.stated(text)
    held = {UNIT.normal(str(v)) for d in decisions for v in d.params.values()}
    return bool(asked - held)


def _requests(router: "Router", provider: "Provider", manifests: list["ToolManifest"], text: str, language: str,
              context: Context, whole: Decision, parted: bool = True) -> list[Decision]:
    if whole.tool is not None and context:
        keys = next((list(m.parameters) for m in manifests if m.name == whole.tool), list(whole.params))
        whole.params = carried(whole.tool, whole.params, keys, text, context, is_follow_up(text))
    parts = split_requests(text) if parted else [text]
    if len(parts) < 2 or whole.error:
        return [whole]
    later = [part for part in parts[1:] if works_on_result(part) or _unit_only(part)]  # decided once the others returned
    if later:
        parts = [part for part in parts if part not in later]
    decided = _decided_parts(router, provider, manifests, parts, language, context)
    if any(d.tool for _, d in decided):
        for i, (part, decision) in enumerate(decided):
            if decision.tool is None and len(part.strip()) <= FRAGMENT_CHARS and not _CLAUSE.match(part):
                others = Context([*context.exchanges, *(_exchange(p, d) for j, (p, d) in enumerate(decided) if j != i and d.tool)])
                decided[i] = (part, router.decide(provider, manifests, part, language, others))
    items = _items(decided, text)
    decided = items or decided
    manifest = _manifest(manifests, whole.tool)
    calls = _distinct([d for i, (part, d) in enumerate(decided) if d.tool is not None and not d.error and _own(d, part)
                       and not _asked_again(part, d, [e for _, e in decided[:i]])])
    worked_on = [part for part in later if works_on_result(part)]  # not only a unit asked for ("一共多少磅？")
    if _covers(whole, [part for part, _ in decided], manifest) and not worked_on and not items and not _mixed(whole, text, parts, calls):
        return [whole]  # one call that takes values from several parts: "sqrt of 1849 plus 2**10", "8500, up 12%"
    listed = _listed(calls, manifests)  # one call of its own, when the parts only listed items
    if later and listed or len(listed) < len(calls):
        listed[0].then = later
        return listed
    return calls if len(calls) >= 2 else [whole]


def _decided_parts(router: "Router", provider: "Provider", manifests: list["ToolManifest"], parts: list[str],
                   language: str, context: Context) -> list[tuple[str, Decision]]:
    """Each part decided in turn, reading the parts decided before it. A part that is only a name
    ("ロンドン、パリ、ニューヨークの今の時間は？", "Tokyo, London and New York time") is decided after the
    others, reading the nearest of them that asks something (which comes later in the message as often as
    before). A part's "there" is the place of the part before it, and a short part with no value of
    its own for a place ("莫斯科几点，天气如何") takes that place."""
    bare = [_bare(part) for part in parts]
    if all(bare):
        bare = [False] * len(parts)
    decided: dict[int, Decision] = {}
    so_far = context
    for i, part in enumerate(parts):
        if not bare[i]:
            decision = _also(_completed_part(router.decide(provider, manifests, part, language, so_far), part, so_far, manifests),
                             part, so_far)
            decided[i] = decision
            so_far = so_far.then(_exchange(part, decision))
    for i, part in enumerate(parts):
        if bare[i]:
            j = min((j for j in decided if not bare[j]), key=lambda j: (abs(j - i), j < i))
            decided[i] = _asked_of(decided[j], part.strip(), manifests) or router.decide(
                provider, manifests, part, language, Context([*context.exchanges, _exchange(parts[j], decided[j])]))
    return [(part, decided[i]) for i, part in enumerate(parts)]


_LIST = re.compile(r"[:：]\s*(?P<items>[^:：]+)$")
_QUOTES = "'\"“”‘’「」『』 "


def _items(decided: list[tuple[str, Decision]], text: str) -> list[tuple[str, Decision]] | None:
    """The parts of a list after a colon whose count the message gives ("添加两条笔记：买鸡蛋、给花浇水", "add two
    notes: call mom, buy milk") as calls of their own: the first item's call, which holds that item as a
    value, made again of each other item (the count is no value of theirs). None: no such list."""
    listed = _LIST.search(text)
    if listed is None:
        return None
    first_part, first = decided[0]
    items = [item.strip(_QUOTES) for item in split_requests(listed["items"])]
    head = with_digits(text[:listed.start()])
    if len(items) < 2 or first.tool is None or not first_part.strip(_QUOTES).endswith(items[0]) or str(len(items)) not in _NUMBER.findall(head):
        return None
    key = next((k for k, v in first.params.items() if _folded(str(v)) == _folded(items[0])), None)
    if key is None:
        return None
    common = {k: v for k, v in first.params.items() if str(v) != str(len(items))}  # "两条" counts the notes: no id
    return [(part, d if i and part not in listed["items"]
             else Decision(first.tool, {**common, key: part.strip(_QUOTES) if i else items[0]}, first.scores, first.logprobs, first.nearest,
                           carried=bool(i)))
            for i, (part, d) in enumerate(decided)]


def _manifest(manifests: list["ToolManifest"], name: str | None) -> "ToolManifest | None":
    return next((m for m in manifests if m.name == name), None)


def _asked_of(decision: Decision, place: str, manifests: list["ToolManifest"]) -> Decision | None:
    """The call ``decision`` makes, asked of ``place`` instead of the place it names (or would name: "今それぞれ
    何時？" leaves the time's place out); None when its tool takes no place."""
    manifest = _manifest(manifests, decision.tool)
    keys = [*decision.params, *(manifest.parameters if manifest is not None else [])]  # "今それぞれ何時？" states none
    key = next((k for k in keys if manifest is not None and takes_place(manifest, k)), None)
    if key is None:
        return None
    return Decision(decision.tool, {**decision.params, key: place}, decision.scores, decision.logprobs, decision.nearest,
                    carried=True)


def _bare(part: str) -> bool:
    """Whether ``part`` is only the name of a place (a city, a country), asking nothing of its own."""
    name = re.sub(r"[?？!！。.\s]+$", "", part)
    return bool(name.strip()) and _folded(name) in {_folded(found) for found in place_names(name)}


def _completed_part(decision: Decision, part: str, so_far: Context, manifests: list["ToolManifest"]) -> Decision:
    """A part's decision with the place of the part before it where it says "there" or names none
    (see :func:`_decided_parts`)."""
    tool = decision.tool or decision.declined
    manifest = _manifest(manifests, tool)
    previous = so_far.exchanges[-1].calls if so_far else []
    if manifest is None or not previous or not previous[-1].params:
        return decision
    if decision.tool is not None and refers_back(part):
        decision.params = carried(decision.tool, decision.params, list(manifest.parameters), part, so_far, False)
    before = _manifest(manifests, previous[-1].tool)
    place = next((v for k, v in previous[-1].params.items() if isinstance(v, str) and before and takes_place(before, k)), "")
    key = next((k for k in manifest.parameters if takes_place(manifest, k)), None)
    said = decision.params.get(key) if decision.tool and key else None
    if said and place and (refers_back(part) or UNIT.normal(str(said))) and not place_names(part) and not place_names(str(said)):
        decision.params[key], decision.carried = place, True  # "the local time there", "華氏で何度": no place
        return decision
    if not place or key is None or place_names(part) or not is_follow_up(part):
        return decision
    if decision.tool is None and decision.missing == key and set(manifest.required) <= {key}:
        return Decision(manifest.name, {key: place}, decision.scores, decision.logprobs, decision.nearest, carried=True)
    own_words = _folded(f"{manifest.name} {manifest.description} {' '.join(manifest.examples or [])}")
    if decision.tool is not None and (not said or _folded(said) == _folded(place)
                                      or _folded(said) in _folded(part) and _folded(said) in own_words):
        decision.params[key] = place  # nothing, or the tool's own word ("天気はどう？" wrote "天気" as the city)
        decision.carried = True
    return decision


def _mixed(whole: Decision, text: str, parts: list[str], calls: list[Decision]) -> bool:
    """Whether the whole message's call mixes requests that the parts' calls of different tools keep
    apart: one of its values holds the message across the seam of two parts (the whole sentence copied
    as a search's query, "… release date and list ~/projects"; not "8500*1.12" of "8500，涨了12%"), or it
    gives a number other than the one the part that calls the same tool gives ("算一下 1280*0.85，把 5 英尺换成米":
    1280 feet), or a value of another part's call where that part gives its own ("~/code で TODO を検索して、2の20乗も
    計算して": the pattern 2**20)."""
    if len({c.tool for c in calls}) < 2:
        return False
    if any(seam in _folded(value) for value in map(str, whole.params.values()) for seam in _seams(text, parts)):
        return True
    same = [c for c in calls if c.tool == whole.tool]
    others = {_folded(v) for c in calls if c.tool != whole.tool for v in map(str, c.params.values())}
    return any(key in whole.params and _folded(value) != _folded(whole.params[key])
               and (_NUMBER.fullmatch(str(value)) and _NUMBER.fullmatch(str(whole.params[key]))
                    or _folded(whole.params[key]) in others)  # "2**20" of the calculation's part as grep's pattern
               for call in same for key, value in call.params.items())


def _seams(text: str, parts: list[str]) -> list[str]:
    """Where each part meets the next in ``text``: the last two characters of one, what is between
    them and the first two of the next, folded ("date and li" of "… release date and list ~/projects")."""
    spans, at = [], 0
    for part in parts:
        start = text.find(part, at)
        if start < 0:
            return []
        spans.append((start, start + len(part)))
        at = start + len(part)
    return [_folded(text[max(end - 2, 0):start + 2]) for (_, end), (start, _) in zip(spans, spans[1:])]


def _covers(whole: Decision, parts: list[str], manifest: "ToolManifest | None" = None) -> bool:
    """Whether the whole message's call states values from two or more of its parts: words of the
    parts, or values in the form a parameter asks for that a part names ("羽田から那覇まで" holds
    the airports HND and OKA, "2027年2月11日の便" the date)."""
    if whole.tool is None or whole.error:
        return False
    values = {_folded(t) for v in whole.params.values() for t in _WORD.findall(str(v))}
    words = [{_folded(w) for w in _WORD.findall(part)} for part in parts]
    own = [found - set().union(*(other for j, other in enumerate(words) if j != i)) for i, found in enumerate(words)]

    def held(word: str) -> bool:  # "12" of "涨了12%" is in 8500*1.12; "5" is not in 0.85
        return word in values or word.isdigit() and any(v.endswith("." + word) for v in values)

    forms = [(form, value) for key, value in whole.params.items()
             if manifest is not None and isinstance(value, str) and (form := value_form(manifest, key)) is not None]
    folded = [_folded(part) for part in parts]
    whole_values = [v for v in (_folded(str(value)) for value in whole.params.values()) if len(v) > 1]

    def stated_alone(i: int) -> bool:  # "東京駅" within "東京駅から新大阪まで", which has no spaces to find words by
        return any(v in folded[i] and not any(v in other for j, other in enumerate(folded) if j != i) for v in whole_values)

    return sum(1 for i, (found, part) in enumerate(zip(own, parts))
               if any(held(w) for w in found) or stated_alone(i) or any(value in form.stated(part) for form, value in forms)) >= 2


def _own(decision: Decision, part: str) -> bool:
    """Whether a part's call is its own request: a value of it is stated in the part, the part refers to
    an earlier one ("what time is it there?"), or the call takes no values."""
    words = {_folded(w) for w in _WORD.findall(f"{part} {multiplied(with_digits(part))}")}  # "1280 * 0.85" is stated in "1280×0.85 を計算して"
    return (not decision.params or decision.carried or any(_folded(str(v)) and _folded(str(v)) in _folded(part) for v in decision.params.values())
            or any(_folded(w) in words for v in decision.params.values() for w in _WORD.findall(str(v)))
            or refers_back(part))


def _asked_again(part: str, decision: Decision, before: list[Decision]) -> bool:
    """Whether ``part`` refers back to an earlier part that has a call of the same tool ("… lives in
    Nairobi. What's the time there?", "下周去杭州出差，帮我查下那边天气", "delete note 7, it's outdated"):
    that call is the request."""
    return (refers_back(part) or bool(_CLAUSE.match(part))) and any(d.tool == decision.tool for d in before)


def _exchange(part: str, decision: Decision) -> Exchange:
    return Exchange(part, [Call(decision.tool, decision.params)] if decision.tool else [])


def _distinct(decisions: list[Decision]) -> list[Decision]:
    """Each call once; a call whose values another call of the same tool holds too is that call."""
    out: list[Decision] = []
    for decision in decisions:
        if any(other.tool == decision.tool and _within(decision.params, other.params) for other in out):
            continue
        out = [o for o in out if not (o.tool == decision.tool and _within(o.params, decision.params))]
        out.append(decision)
    return out


def _listed(calls: list[Decision], manifests: list["ToolManifest"]) -> list[Decision]:
    """Calls of one tool that differ only in a list parameter are one call with the items listed:
    "find a slot with chen@corp.cn、liu@corp.cn" invites both to one meeting (the weather "in Oslo
    and in Bergen" takes a city, not a list, and stays two calls)."""
    if len(calls) < 2 or len({c.tool for c in calls}) > 1:
        return calls
    manifest = next((m for m in manifests if m.name == calls[0].tool), None)
    lists = {key for key in (manifest.parameters if manifest else {}) if value_schema(manifest, key).get("type") == "array"}
    varied = {key for c in calls for key in c.params if any(_folded(d.params.get(key, "")) != _folded(c.params[key]) for d in calls)}
    if not lists or not varied or not varied <= lists:
        return calls
    merged = calls[0]
    for key in varied:
        items = [str(c.params[key]) for c in calls if c.params.get(key) not in (None, "")]
        merged.params[key] = ", ".join(dict.fromkeys(items))
    return [merged]


def _within(small: dict, large: dict) -> bool:
    return all(key in large and _folded(large[key]) == _folded(value) for key, value in small.items())


def decide_next_step(
    router: "Router", provider: "Provider", manifests: list["ToolManifest"], text: str, language: str, context: Context
) -> Decision | None:
    """A further call that ``text`` needs once the calls of this turn returned (``context`` ends with
    this turn's exchange, results included): "how warm is it in Lima in Fahrenheit" converts the
    temperature the weather call gave. Only a call that takes a value from a result (one the message
    does not state) and that was not made already counts; else None, and the turn is answered.

    The parts of ``text`` that work on an earlier part's result ("… and save the result as a note",
    ``Decision.then``) are decided first, each with the result written in (see
    :func:`agent.router.references.with_result`)."""
    made = {_key(call.tool, call.params) for call in context.calls}
    results = " ".join(call.result for call in context.exchanges[-1].calls if call.ok) if context else ""
    number = previous_number(context)
    for part in [p for p in split_requests(text)[1:] if works_on_result(p)]:
        written = with_result(part, context)
        decision = router.decide(provider, manifests, written, language, context)
        if _repeats_result(decision, context, number):  # "并把391存到笔记" is no calculation of 391: decided
            decision = router.decide(provider, manifests, written, language, Context())  # without the turn's tools
            if _repeats_result(decision, context, number):
                continue  # "work out the total" once the total is in: no call of its own
        if decision.tool is not None and not decision.error and _key(decision.tool, decision.params) not in made \
                and (_from_result(decision, results, part) or number and any(number in str(v) for v in decision.params.values())):
            return decision
    # "the temperature difference" after two temperatures: their subtraction; "in Fahrenheit" after 18°C:
    # the result converted; each decided as a request of its own, which holds all it needs (with the turn
    # read too, its tools would weigh more for a short message: "19-14" would be the weather again)
    for request in (difference_request(text, context, language), converted_request(text, context, language)):
        if request is None:
            continue
        decision = router.decide(provider, manifests, request, language, Context())
        if decision.tool is not None and not decision.error and _key(decision.tool, decision.params) not in made \
                and _from_result(decision, results, text):
            return decision
    decision = router.decide(provider, manifests, text, language, context)
    if decision.tool is None or decision.error:
        return None
    if _key(decision.tool, decision.params) in made:
        return None
    return decision if _from_result(decision, results, text) else None


_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def _repeats_result(decision: Decision, context: Context, number: str | None) -> bool:
    """Whether ``decision`` calls a tool of this turn again with nothing but its result (``calculator``
    ``{"expression": "391"}`` after ``17*23 = 391``): read as the same tool's follow-up, not the request."""
    tools = {call.tool for call in context.exchanges[-1].calls} if context else set()
    return bool(number and decision.tool in tools and decision.params) and all(
        _folded(str(value)) == _folded(number) for value in decision.params.values())


def _from_result(decision: Decision, results: str, text: str) -> bool:
    """Whether a value of ``decision`` comes from ``results`` and not from ``text``: the value, or a
    number in it ("19-14" of the temperatures in Athens and Rome)."""
    said, found = set(_NUMBER.findall(_folded(text))), set(_NUMBER.findall(_folded(results)))
    for value in map(str, decision.params.values()):
        if _folded(value) and _folded(value) in _folded(results) and _folded(value) not in _folded(text):
            return True
        if any(n in found and n not in said for n in _NUMBER.findall(_folded(value))):
            return True
    return False


def _key(tool: str | None, params: dict) -> str:
    return json.dumps([tool, params], sort_keys=True, ensure_ascii=False, default=str)


def may_chain(decision: Decision, margin: float) -> bool:
    """Whether another tool scored within ``margin`` of the chosen one, and above no tool: the message
    may ask for a further call once this one returns ("in Fahrenheit" after the weather). Only
    decisions scored from the model's probabilities say so; others never chain."""
    scores = decision.scores
    if decision.tool is None or decision.tool not in scores:
        return False
    nones = [scores[name] for name in ("none", "no_tool") if name in scores and name != decision.tool]
    floor = max(nones) if nones else float("-inf")
    best = scores[decision.tool]
    # a tool above the chosen one was passed over for it (a number it had no place for): no chain from it
    return any(best - margin <= score <= best and score > floor for name, score in scores.items()
               if name != decision.tool and name not in ("none", "no_tool"))
