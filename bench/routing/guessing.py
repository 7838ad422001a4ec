"""Writing values with guesses: the same decisions with the embedded model guessing ahead and not.

A value is mostly copied from the message, so :meth:`ReplyCursor.until` evaluates the message's next
tokens with the one just written, in one forward pass, and uses each while it is what the model writes
anyway (``LocalProvider.guess_ahead``). This runs every case of a split with guessing off and on, in
the same process and home: four passes in the order off, on, on, off (a drift of the machine's speed
cancels out), each case's time the mean of its two passes. Reported: median decision time per mode,
total time, the median of each case's ratio on/off, forward passes of the model per decision, and
the decisions that differ (batched and one-at-a-time evaluation round differently, so a near tie can
go the other way).

    .venv/bin/python -m bench.routing.guessing [--split blind3] [--every 1] [--write]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from agent.router import Router
from agent.router.context import Context
from agent.router.requests import decide_requests
from bench.model import decision_model
from bench.results import write_section
from bench.routing.run import manifests_for

HERE = Path(__file__).resolve().parent
ORDER = (False, True, True, False)


def _passes(provider: Any) -> dict[str, int]:
    """Count the model's forward passes (``evaluate`` and ``decode`` of the chat context)."""
    model, count = provider.context.model, {"n": 0}
    for name in ("evaluate", "decode"):
        method = getattr(model, name)

        def counted(*args: Any, _method: Any = method, **kwargs: Any) -> Any:
            count["n"] += 1
            return _method(*args, **kwargs)

        setattr(model, name, counted)
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="blind3", help="the case file cases_SPLIT.yaml (default blind3)")
    parser.add_argument("--every", type=int, default=1, help="every Nth case only")
    parser.add_argument("--write", action="store_true", help="replace the section of bench/RESULTS.md")
    args = parser.parse_args()
    cases = yaml.safe_load((HERE / f"cases_{args.split}.yaml").read_text(encoding="utf-8"))[:: args.every]
    provider, router = decision_model(), Router()
    passes = _passes(provider)
    for language in ("en", "zh", "ja"):
        router.prepare(provider, manifests_for(language), language)
    seconds: dict[bool, list[list[float]]] = {False: [], True: []}
    forward: dict[bool, list[int]] = {False: [], True: []}
    decided: dict[bool, list[Any]] = {False: [], True: []}
    for run, guessing in enumerate(ORDER):
        provider.guess_ahead = guessing
        times: list[float] = []
        for case in cases:
            manifests = manifests_for(case["lang"])
            passes["n"] = 0
            started = time.perf_counter()
            decisions = decide_requests(router, provider, manifests, case["message"], case["lang"], Context())
            times.append(time.perf_counter() - started)
            if run < 2:
                forward[guessing].append(passes["n"])
                decided[guessing].append([(d.tool, d.params) for d in decisions])
        seconds[guessing].append(times)
        print(f"pass {run + 1} ({'on' if guessing else 'off'}): {sum(times):.1f} s", file=sys.stderr, flush=True)
    each = {mode: [statistics.fmean(pair) for pair in zip(*runs)] for mode, runs in seconds.items()}
    ratios = [on / off for off, on in zip(each[False], each[True])]
    differ = [(case["message"], a, b) for case, a, b in zip(cases, decided[False], decided[True]) if a != b]
    command = f".venv/bin/python -m bench.routing.guessing --split {args.split}" + (f" --every {args.every}" if args.every > 1 else "")
    lines = [
        "## Writing values with guesses (`bench/routing/guessing.py`)", "",
        f"Command: `{command}`. {len(cases)} messages of `cases_{args.split}.yaml` (tools and none, three languages),",
        "decided by the router with the embedded model guessing the message's next tokens while it writes a value,",
        "and not, in the same run (passes off, on, on, off; each case's time the mean of its two passes).", "",
        "| guessing | median decision s | total s | forward passes per decision (median) | median ratio on/off |",
        "| --- | ---: | ---: | ---: | ---: |",
        f"| off | {statistics.median(each[False]):.2f} | {sum(each[False]):.1f} | {statistics.median(forward[False]):.0f} | 1.00 |",
        f"| on | {statistics.median(each[True]):.2f} | {sum(each[True]):.1f} | {statistics.median(forward[True]):.0f} | "
        f"{statistics.median(ratios):.2f} |",
        "",
        f"Total on/off: {sum(each[True]) / sum(each[False]):.2f}. Decisions that differ: {len(differ)} of {len(cases)}"
        + (":" if differ else "."),
    ]
    lines += [f"- {message!r}: off {a}, on {b}" for message, a, b in differ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        write_section("guessing", text)


if __name__ == "__main__":
    main()
