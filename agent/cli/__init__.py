"""The ``riverse`` command line."""

from __future__ import annotations

import sys

import click

from agent import __version__
from agent.cli.common import RiverseGroup, State
from agent.cli.author import check_tools, eval_tools, new_tool
from agent.cli.chat import ask, chat
from agent.cli.logs import logs
from agent.cli.mcp import mcp
from agent.cli.model import model
from agent.cli.serve import serve
from agent.cli.team import db, users
from agent.cli.tools import tools
from agent.cli.tool_tests import tools_test

__all__ = ["main", "cli"]


@click.group(cls=RiverseGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("-c", "--config", metavar="FILE", help="Settings file (default: $RIVERSE_CONFIG or $RIVERSE_HOME/settings.yaml).")
@click.option("--home", metavar="DIR", help="Riverse home folder (default: $RIVERSE_HOME or ~/.riverse).")
@click.option("-p", "--provider", help="Model provider: local, openai, deepseek, qwen, ollama, llamacpp, lmstudio, vllm, fake.")
@click.option("-m", "--model", help="Model name for the provider.")
@click.option("-l", "--language", type=click.Choice(["en", "zh", "ja"]), help="Language of messages and tool manifests.")
@click.version_option(__version__, prog_name="riverse")
@click.pass_context
def cli(ctx: click.Context, config, home, provider, model, language) -> None:
    """Riverse: a local-first personal AI agent whose abilities are plug-in tools.

    \b
    Examples:
      riverse chat                      chat with the embedded model
      riverse ask "What time is it in Tokyo?"
      riverse -p ollama -m qwen2.5:7b chat
      riverse tools list                every tool, and why one is unavailable
      riverse tools run calculator expression="2**10"
      riverse tools new hello           a tool of your own, with its test (riverse tools test hello)
      riverse mcp serve                 every tool for an MCP client (Claude Desktop, an IDE, ...)
    """
    ctx.obj = State(config=config, home=home, overrides={"llm.provider": provider, "llm.model": model, "language": language})


cli.add_command(chat)
cli.add_command(ask)
cli.add_command(tools)
tools.add_command(new_tool)
tools.add_command(check_tools)
tools.add_command(eval_tools)
tools.add_command(tools_test)
cli.add_command(logs)
cli.add_command(serve)
cli.add_command(model)
cli.add_command(mcp)
cli.add_command(users)
cli.add_command(db)


def main() -> None:
    sys.exit(cli.main(prog_name="riverse", standalone_mode=True))
