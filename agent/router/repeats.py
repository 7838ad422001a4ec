"""A call asked again of other values: of each number of a list of numbered things ("メモの5番と8番を削除して"),
or of another path or address ("在 ~/notes 里搜“发票”，也在 ~/mail 里搜一下"). Used by
:mod:`agent.router.requests`."""

from __future__ import annotations

import re

from agent.router.context import Context
from agent.router.prompt import Decision
from agent.router.references import folded as _folded


#: numbered things listed ("5番と8番", "#3 and #7", "第2、第5条", "notes 4, 6 and 9"): each number with what may
#: mark it as a number of a thing, joined by a coordinator
_NUMBERED = re.compile(r"(?<![\d.])(?:#|No\.?\s*|第)?\d+\s*(?:番|号|號|条|條|件|個|个|項)?"
                       r"(?:\s*(?:と|和|及|与|或|、|，|,|&|\band\b|\bor\b)\s*(?:#|No\.?\s*|第)?\d+(?![\d.])\s*(?:番|号|號|条|條|件|個|个|項)?)+(?!\s*[*×x+/^-])",
                       re.IGNORECASE)


def numbered(decisions: list[Decision], whole: Decision, text: str) -> list[Decision]:
    """The whole message's call made again of each other number of a list of numbered things it names one of
    ("メモの5番と8番を削除して", "delete notes 3 and 7": the note to delete is 5, then 8), when the parts' calls are
    of its tool (a part "メモの5番" alone asks nothing of its own); else ``decisions`` as they are."""
    listed = _NUMBERED.search(text) if whole.tool and not whole.error else None
    numbers = list(dict.fromkeys(re.findall(r"\d+", listed.group(0)))) if listed else []
    key = next((k for k, v in whole.params.items() if str(v).strip() in numbers), None) if len(numbers) > 1 else None
    if key is None or any(d.tool not in (None, whole.tool) for d in decisions):
        return decisions
    return [whole, *(Decision(whole.tool, {**whole.params, key: n}, whole.scores, whole.logprobs, whole.nearest, carried=True)
                     for n in numbers if n != str(whole.params[key]).strip())]


#: a part that asks the same again of something else ("也在 ~/mail 里搜一下", "~/mail でも探して", "search ~/mail too")
_ALSO = re.compile(r"\b(?:also|too|as well)\b|也|同样|[でにの]も", re.IGNORECASE)
#: a value whose shape tells what it is: a path or a web address
_SHAPED = re.compile(r"(?<![\w/~.])(?:https?://\S+|(?:~|\.{1,2})?/[^\s\"'“”「」，,、。]*)")


def also_asked(decision: Decision, part: str, so_far: Context) -> Decision:
    """A part that asks the previous part's call again of another path or address ("在 ~/notes 里搜“发票”，也在
    ~/mail 里搜一下"): that call with the part's path in place of its own; what else the part states is kept
    (its values within the path, such as "mail" written as the pattern, are not)."""
    previous = so_far.exchanges[-1].calls[-1] if so_far and so_far.exchanges[-1].calls else None
    shaped = _SHAPED.findall(part)
    if previous is None or decision.tool != previous.tool or len(shaped) != 1 or not _ALSO.search(part):
        return decision
    keys = [k for k, v in previous.params.items() if isinstance(v, str) and _SHAPED.fullmatch(v.strip())]
    if len(keys) != 1:
        return decision
    own = {k: v for k, v in decision.params.items()
           if _folded(str(v)) and _folded(str(v)) in _folded(part) and _folded(str(v)) not in _folded(shaped[0])}
    return Decision(decision.tool, {**previous.params, **own, keys[0]: shaped[0]}, decision.scores, decision.logprobs,
                    decision.nearest, carried=True)
