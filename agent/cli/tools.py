"""``riverse tools``: list and run tools, and the tool author's kit."""

from __future__ import annotations

import json
from typing import Any

import click

from agent.cli.common import State, console, pass_state, print_json, problem_line, styled
from agent.i18n import t
from agent.toolkit.runtime import ToolRunner


@click.group()
def tools() -> None:
    """List, run, create, check, test and evaluate tools."""


@tools.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print tools and load problems as JSON.")
@pass_state
def list_tools(state: State, as_json: bool) -> None:
    """Every discovered tool: what it does, where it comes from, and whether it is available (and why not).

    Load errors (a file that does not import, a broken manifest, a duplicate name) are listed after the tools.
    """
    registry = state.app.registry
    entries = registry.entries(include_unavailable=True)
    active = {name: registry.entry(name) for name in registry.names()}
    problems = registry.problems
    if as_json:
        print_json(registry.describe())
        return
    out = console()
    lang = state.app.language
    if not entries:
        out.print(t("tools.none", lang))
    for e in entries:
        m = e.manifest
        if e.available and active.get(e.name) is e:
            status: tuple[str, str] | str = ("✓ available", "green")
            detail = ""
        elif e.available:
            status, detail = (f"overridden by {active[e.name].path}", "dim"), ""
        else:
            status, detail = ("✗ unavailable", "red"), f": {e.reason}"
        risk = m.risk if m.risk else "read (undeclared)"
        for pname, risks in (m.risk_by_value or {}).items():
            risk += f" · {pname}=" + ", ".join(f"{value}: {level}" for value, level in risks.items())
        where = e.origin if e.path == e.origin else f"{e.origin} · {e.path}"  # an MCP server's tool: mcp:NAME
        out.print(styled((m.name, "bold"), "  ", status, detail, "  ", (f"· risk: {risk} · {where}", "dim")))
        out.print(styled(f"  {m.description}"))
        for pname, desc in (m.parameters or {}).items():
            typ = m.parameter_types.get(pname, "string")
            req = ", required" if pname in (m.required or []) else ""
            out.print(styled("  ", (pname, "cyan"), f" ({typ}{req}): {desc}"))
        if m.examples:
            out.print(styled(("  e.g. " + " | ".join(m.examples), "dim")))
    if problems:
        out.print()
        out.print(styled((t("tools.problems", lang), "yellow")))
        for p in problems:
            out.print(styled("  ", problem_line(p, lang)))


def parse_assignments(pairs: tuple[str, ...], language: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise click.UsageError(t("tools.bad_param", language, arg=pair))
        value = value.strip()
        if value[:1] in ("[", "{"):
            try:
                params[key.strip()] = json.loads(value)
                continue
            except json.JSONDecodeError:
                pass
        params[key.strip()] = value
    return params


@tools.command("run")
@click.argument("name")
@click.argument("params", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help='Print {"success", "data", "error"} as JSON.')
@click.option("-v", "--verbose", is_flag=True, help="Show the traceback when the tool raises.")
@pass_state
def run_tool(state: State, name: str, params: tuple[str, ...], as_json: bool, verbose: bool) -> None:
    """Run one tool directly, without a model. Exit status is 0 only when the tool succeeds.

    This is your own command: the tool runs without asking for approval, whatever its risk.

    \b
    Examples:
      riverse tools run calculator expression="2**10"
      riverse tools run weather city=Tokyo --json
    """
    app = state.app
    lang = app.language
    registry = app.registry
    args = parse_assignments(params, lang)
    if name not in registry:
        names = ", ".join(registry.names()) or "-"
        missing = registry.why_missing(name, lang)
        if missing:
            message = t("tools.missing", lang, reason=missing, names=names)
        else:
            message = t("tools.unknown", lang, name=name, names=names)
        if as_json:
            print_json({"success": False, "data": "", "error": message})
        else:
            click.echo(message, err=True)
        raise SystemExit(2)
    # Running a tool by hand is the user's own decision: no approval prompt.
    runner = ToolRunner.from_settings(registry, app.settings, approver=lambda request: "yes")
    outcome = runner.run(name, args)
    app.store.add_tool_call(None, outcome)
    if as_json:
        print_json({"success": outcome.success, "data": outcome.data, "error": outcome.error})
    elif outcome.success:
        click.echo(outcome.data)
    else:
        click.echo(f"✗ {outcome.error}", err=True)
        if verbose and outcome.traceback:
            click.echo(outcome.traceback.rstrip("\n"), err=True)
    raise SystemExit(0 if outcome.success else 1)
