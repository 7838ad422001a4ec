"""Router decisions through a remote model server beside the same decisions in-process.

The same English messages of ``bench/routing/cases.yaml`` (every 4th English case: 20 messages, tools and
no tool) are decided by the router twice with the embedded model and the 11 built-in tools:

- in-process: ``LocalProvider`` (scored decoding, the fixed prompt prepared once and kept);
- remote: llama-cpp-python's own OpenAI-compatible server (``python -m llama_cpp.server``, chat format
  ``chatml-function-calling``) on a loopback port, reached with ``OpenAICompatProvider``: the router sends
  its prompt with the decision's JSON schema as ``response_format``. The prompt's fixed prefix comes first
  and unchanged, so the server, which reuses the longest prefix it evaluated last, evaluates only the
  message after the first decision (the first, warm-up decision is not timed, as the in-process prompt is
  prepared before timing).

    .venv/bin/python -m bench.remote.run            # print
    .venv/bin/python -m bench.remote.run --write    # and replace the "Remote router" section of RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from agent.config import load_settings
from agent.providers.llama import LocalProvider
from agent.providers.llama.model_files import ensure_default_model
from agent.providers.openai_compat import OpenAICompatProvider
from agent.router import Router
from bench.results import write_section
from bench.routing.run import manifests_for
from tests.helpers.llama_server import llama_server

CASES = Path(__file__).resolve().parents[1] / "routing" / "cases.yaml"
COMMAND = ".venv/bin/python -m bench.remote.run --write"
EVERY = 4
COUNT = 20


def messages() -> list[dict[str, Any]]:
    english = [c for c in yaml.safe_load(CASES.read_text(encoding="utf-8")) if c["lang"] == "en"]
    return english[::EVERY][:COUNT]


def run() -> dict[str, tuple[list[float], int]]:
    """Both routers over the same messages, alternating case by case so that a busy machine slows both alike."""
    settings = load_settings()
    cases = messages()
    manifests = manifests_for("en")
    model = ensure_default_model(settings.models_dir, progress=False)
    with tempfile.TemporaryDirectory() as folder, llama_server(model, Path(folder) / "server.log") as base:
        local = LocalProvider(model, cache_dir=settings.home / "cache", n_ctx=4096, temperature=0.0, language="en")
        local.load()
        remote = OpenAICompatProvider(model="local", base_url=base, temperature=0.0, timeout=600)
        routers = {"in-process": (Router(), local), "remote": (Router(), remote)}
        routers["in-process"][0].prepare(local, manifests, "en")
        routers["remote"][0].decide(remote, manifests, "hello", "en")  # warm-up: the server evaluates the prefix
        results: dict[str, tuple[list[float], int]] = {name: ([], 0) for name in routers}
        for case in cases:
            for name, (router, provider) in routers.items():
                started = time.perf_counter()
                decision = router.decide(provider, manifests, case["message"], "en")
                seconds, right = results[name]
                seconds.append(time.perf_counter() - started)
                results[name] = (seconds, right + (decision.tool == case["tool"]))
    return results


def section(results: dict[str, tuple[list[float], int]]) -> str:
    base = statistics.median(results["in-process"][0])
    base_mean = statistics.mean(results["in-process"][0])
    rows = []
    for name, (seconds, right) in results.items():
        median, mean = statistics.median(seconds), statistics.mean(seconds)
        rows.append(f"| {name} | {len(seconds)} | {median:.2f} | {mean:.2f} | {max(seconds):.2f} | "
                    f"{median / base:.1f}× | {mean / base_mean:.1f}× | {right}/{len(seconds)} |")
    return "\n".join([
        "## Remote router",
        "",
        "Router decisions (which tool, or none, and its parameters) for 20 English messages of",
        "`bench/routing/cases.yaml` (every 4th English case) over the 11 built-in tools, with the embedded model",
        "(Qwen2.5-Coder-0.5B-Instruct Q4_K_M, 2 shared cores, times are noisy): in-process (scored decoding, the",
        "fixed prompt prepared and kept), and through llama-cpp-python's own server (`python -m llama_cpp.server",
        "--chat_format chatml-function-calling`, loopback) with the decision's JSON schema as `response_format`;",
        "the server reuses the prompt's fixed prefix from the decision before (one warm-up decision, untimed).",
        "The two alternate case by case, so that a busy machine slows both alike.",
        f"Ratios are against the in-process router. Command: `{COMMAND}`",
        "",
        "| router | decisions | median s | mean s | max s | median vs in-process | mean vs in-process | tool right |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        *rows,
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="replace the Remote router section of bench/RESULTS.md")
    args = parser.parse_args()
    text = section(run())
    print(text)
    if args.write:
        write_section("remote", text)


if __name__ == "__main__":
    main()
