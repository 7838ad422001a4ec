"""Retrieval recall with 1,000 tools: is the right tool among the candidates?

The tools are the tool sets without examples (``bench/routing/sets/toolsets``, written as MCP servers
describe theirs, in English), the five target tools of ``bench/scale/tools.py``, and generated
distractors up to 1,000. The messages are every toolset case that needs a tool (all splits; retrieval
is not tuned on them) and the scale questions, in English, Chinese and Japanese.

Reported per language, as recall@k:

- ``words``: BM25 over the tools' texts, what a remote model's 32 tools are chosen by (``narrowed``);
- ``words, in English``: the same, for a Chinese or Japanese message that shares no words with the
  tools, compared in English as the model translates it (the embedded model here; a remote model
  translates at least as well);
- ``words + vectors``: what the embedded model's 4 retrieved tools are chosen by (``ToolIndex.ranked``);
- ``words + vectors, in English``: the same with the translation (``RouterOptions.retrieve_in_english``);
- ``+ encoder``: the same two with the sentence encoder made for retrieval (:mod:`agent.router.encoder`,
  ``riverse[retrieval]``), which reads English only (a Chinese or Japanese message through its translation);
- ``words + encoder, in English``: what a remote model's tools were chosen by with the encoder installed;
- ``glossed``: a Chinese or Japanese message also compared glossed word by word in English by the words
  and the encoder (:mod:`agent.router.glossary`, ``riverse[retrieval]``, no model time; the chat model's
  vectors read the message, not the gloss): ``words + vectors + encoder,
  glossed`` is what the embedded model's retrieved tools are chosen by now, ``words + encoder, in
  English and glossed`` what a remote model's are.
- ``listed``: of those 4, the ones the embedded model's decision lists (``Router.extras``: the likeliest
  ``listed_first``, and the others the encoder finds ``meant_floor`` or more like the message); beside it
  ``listed, by the encoder alone``, the rule before (``listed_first`` 0). The recall@4 column is the share of
  messages whose tool is listed; the mean number listed follows the table.

    .venv/bin/python -m bench.scale.recall [--write]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import replace

from agent.router import Router, RouterOptions
from agent.router.candidates import ToolIndex, in_english, needs_english
from agent.router.encoder import INSTALL_HINT, encoder_for
from agent.router.glossary import RETRIEVAL_SENSES, glossary, gloss
from bench.model import decision_model
from bench.results import write_section
from bench.routing.conversations import load, toolset_manifests
from bench.scale.tools import QUESTIONS, distractors, targets

METHODS = ("words", "words, in English", "words + vectors", "words + vectors, in English",
           "words + encoder, in English", "words + vectors + encoder", "words + vectors + encoder, in English",
           "words, glossed", "words + encoder, glossed", "words + vectors + encoder, glossed",
           "words + encoder, in English and glossed")
#: what the decision lists of the retrieved 4, with the router's options, and with the rule before (see the note)
LISTED = {"listed": RouterOptions(), "listed, by the encoder alone": RouterOptions(listed_first=0)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="replace the section of bench/RESULTS.md")
    args = parser.parse_args()
    provider = decision_model()
    cases = [c for c in load("toolsets") if c.get("tool")]
    pool = [m for name in sorted({c["toolset"] for c in cases}) for m in toolset_manifests(name)[0]] + targets()
    pool += distractors(1000 - len(pool))
    cases += [{"lang": language, "message": message, "tool": tool} for tool, language, message, _ in QUESTIONS]
    index = ToolIndex(pool)
    index.vectors.prepare(provider)
    encoder = encoder_for()
    if encoder is None:
        sys.exit(f"the retrieval encoder is not installed: {INSTALL_HINT}")
    index.described.prepare(encoder)
    if glossary() is None:
        sys.exit(f"the glossary is not installed: {INSTALL_HINT}")
    found: dict[tuple[str, str, int], list[bool]] = defaultdict(list)
    routers = {method: Router(replace(options, candidates=options.retrieved)) for method, options in LISTED.items()}
    listed: dict[str, list[int]] = defaultdict(list)
    for case in cases:
        text, tool, language = case["message"], case["tool"], case["lang"]
        english = [in_english(provider, text)] if needs_english(index, text) else []
        glossed = [said] if needs_english(index, text) and (said := gloss(text, RETRIEVAL_SENSES)) else []
        rankings = {
            "words": index.ranked(text),
            "words, in English": index.ranked(text, None, *english),
            "words + vectors": index.ranked(text, provider),
            "words + vectors, in English": index.ranked(text, provider, *english),
            "words + encoder, in English": index.ranked(text, None, *english, encoder=encoder),
            "words + vectors + encoder": index.ranked(text, provider, encoder=encoder),
            "words + vectors + encoder, in English": index.ranked(text, provider, *english, encoder=encoder),
            "words, glossed": index.ranked(text, None, glossed=glossed),
            "words + encoder, glossed": index.ranked(text, None, encoder=encoder, glossed=glossed),
            "words + vectors + encoder, glossed": index.ranked(text, provider, encoder=encoder, glossed=glossed),
            "words + encoder, in English and glossed": index.ranked(text, None, *english, encoder=encoder, glossed=glossed),
        }
        for method, ranking in rankings.items():
            rank = ranking.index(tool)
            for k in (4, 32):
                for group in (language, "all"):
                    found[(method, group, k)].append(rank < k)
        for method, router in routers.items():  # with no core: every tool of the pool is retrieved from
            names = [m.name for m in router.extras(provider, pool, text)]
            listed[method].append(len(names))
            for group in (language, "all"):
                found[(method, group, 4)].append(tool in names)
        print(f"  {language} {tool:<32} " + " ".join(f"{rankings[m].index(tool) + 1:>4}" for m in METHODS), file=sys.stderr)
    lines = [
        "## Retrieval with 1,000 tools (`bench/scale/recall.py`)", "",
        f"Command: `.venv/bin/python -m bench.scale.recall`. {len(pool)} tools described in English (the tool sets without "
        f"examples, the scale targets, generated distractors); {len(cases)} messages that need one of them. Recall@4 is what the "
        "embedded model's retrieved tools are chosen from; recall@32 is what a remote model is sent.", "",
        "| method | " + " | ".join(f"{g} @4 | {g} @32" for g in ("en", "zh", "ja", "all")) + " |",
        "| --- |" + " ---: |" * 8,
    ]
    for method in (*METHODS, *LISTED):
        cells = []
        for group in ("en", "zh", "ja", "all"):
            for k in (4, 32):
                hits = found[(method, group, k)]
                cells.append(f"{100 * sum(hits) / len(hits):.1f}%" if hits else "–")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    lines += ["", "Tools listed per message (of 4): " + "; ".join(
        f"{method} {sum(counts) / len(counts):.2f}" for method, counts in listed.items()) + "."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        write_section("scale-recall", text)


if __name__ == "__main__":
    main()
