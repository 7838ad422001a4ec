"""Writing a call's values: the router as it is, against a baseline that writes them as it did before.

The baseline, put in for this run only: a rewind forgets the text that was pending at its mark (a value
written again evaluates its frame again, and every frame since the last value kept), no hints (a date the
message names is not guessed whole), and every optional parameter is written (also one that can only
come out empty). Both decide each case in the same process, in turn, the order swapped from case to case
(the second of a pair finds the message held); the decisions are compared.

    .venv/bin/python -m bench.routing.writing --set toolsets --split blind --every 2
    .venv/bin/python -m bench.routing.writing --set blind3 --every 2
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import yaml

import agent.router.decision as decision
from agent.providers.llama.cursor import ReplyCursor
from agent.router import Router
from bench.model import decision_model
from bench.routing.conversations import load, toolset_manifests
from bench.routing.run import manifests_for

HERE = Path(__file__).resolve().parent
NOW = {"rewind": ReplyCursor.rewind, "until": ReplyCursor.until, "skip": decision.nothing_to_write}


def _rewind_before(self: ReplyCursor, mark: Any) -> None:
    count, self._logits, tokens, self._pending = mark
    self._tokens = list(tokens)
    self._context.truncate(count)


def _until_before(self: ReplyCursor, stop: str, max_tokens: int = 48, **filters: Any) -> str:
    filters.pop("hint", None)
    return NOW["until"](self, stop, max_tokens, **filters)


def _use(now: bool) -> None:
    ReplyCursor.rewind = NOW["rewind"] if now else _rewind_before  # type: ignore[method-assign]
    ReplyCursor.until = NOW["until"] if now else _until_before  # type: ignore[method-assign]
    decision.nothing_to_write = NOW["skip"] if now else (lambda *args: False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=["toolsets", "blind3"], default="blind3")
    parser.add_argument("--split", default="blind", help="for toolsets: tune, holdout or blind")
    parser.add_argument("--every", type=int, default=1, help="every Nth case only")
    args = parser.parse_args()
    if args.set == "blind3":
        cases = [(c["message"], c["lang"], None) for c in yaml.safe_load((HERE / "cases_blind3.yaml").read_text(encoding="utf-8"))]
    else:
        cases = [(c["message"], c["lang"], c["toolset"]) for c in load("toolsets") if c["split"] == args.split]
    cases = cases[:: args.every]
    provider, router = decision_model(), Router()
    seconds: dict[bool, list[float]] = {False: [], True: []}
    differ = []
    for i, (message, language, toolset) in enumerate(cases):
        manifests = manifests_for(language) if toolset is None else toolset_manifests(toolset)[0]
        router.prepare(provider, manifests, language)
        got = {}
        for now in (False, True) if i % 2 else (True, False):
            _use(now)
            provider.sentence_context._recent.clear()
            started = time.perf_counter()
            made = router.decide(provider, manifests, message, language)
            got[now] = (time.perf_counter() - started, made.tool, made.params)
        _use(True)
        for now in (False, True):
            seconds[now].append(got[now][0])
        if got[False][1:] != got[True][1:]:
            differ.append((message, got[False][1:], got[True][1:]))
        print(f"{message[:40]:<40} before {got[False][0]:.2f} now {got[True][0]:.2f}", file=sys.stderr, flush=True)
    ratios = [b / a for a, b in zip(seconds[False], seconds[True])]
    print(f"{args.set} {args.split if args.set == 'toolsets' else ''} {len(cases)} cases: median before "
          f"{statistics.median(seconds[False]):.2f} s, now {statistics.median(seconds[True]):.2f} s; total before "
          f"{sum(seconds[False]):.1f} s, now {sum(seconds[True]):.1f} s ({sum(seconds[True]) / sum(seconds[False]):.2f}); "
          f"median ratio now/before {statistics.median(ratios):.2f}; decisions that differ: {len(differ)}")
    for message, before, now in differ:
        print(f"- {message!r}: before {before}, now {now}")


if __name__ == "__main__":
    main()
