"""``riverse logs``: the recorded tool calls."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import click
from rich.table import Table

from agent.cli.common import State, console, pass_state, print_json, short, styled
from agent.cli.team_texts import text as team_text
from agent.errors import RiverseError
from agent.i18n import t
from agent.users import owner_key


@click.command()
@click.option("-n", "--limit", default=20, show_default=True, help="How many calls to show.")
@click.option("-t", "--tool", "tool", metavar="NAME", help="Only calls of this tool.")
@click.option("--conversation", metavar="ID", help="Only calls made in this conversation.")
@click.option("--user", metavar="NAME", help="Only calls made in this user's conversations (riverse users list).")
@click.option("--json", "as_json", is_flag=True, help="Print the calls as JSON (with the traceback of each that raised).")
@click.option("-v", "--verbose", is_flag=True, help="Show each call in full: parameters, result or error, and traceback.")
@pass_state
def logs(state: State, limit: int, tool: str | None, conversation: str | None, user: str | None, as_json: bool,
         verbose: bool) -> None:
    """Show recent tool calls, refusals and approvals (newest first).

    \b
    Examples:
      riverse logs
      riverse logs --tool shell_exec -n 50
      riverse logs --verbose -n 1      the last call, with its traceback if it raised
      riverse logs --user alice        the calls made for one user of the server
    """
    app = state.app
    owner = None
    if user is not None:
        found = app.store.user_named(user)
        if found is None:
            raise RiverseError(team_text("no_such_user", app.language, name=user))
        owner = owner_key(found)
    calls = app.store.tool_calls(limit=limit, tool=tool, conversation=conversation, owner=owner)
    if as_json:
        print_json(calls)
        return
    out = console()
    if not calls:
        out.print(t("logs.none", app.language))
        return
    if verbose:
        for c in calls:
            _print_call(out, c)
        return
    callers = any(c.get("caller") for c in calls)
    heads = ("time", "tool", *(("caller",) if callers else ()), "params", "status", "ms", "result / error")
    table = Table(*heads, box=None, pad_edge=False)
    for c in calls:
        caller = (c.get("caller") or "riverse",) if callers else ()
        table.add_row(_when(c), c["name"], *caller, short(c["params"], 40), _status(c), str(c["duration_ms"]),
                      short(c["data"] if c["success"] else c["error"], 60))
    out.print(table)
    raised = sum(1 for c in calls if c.get("traceback"))
    if raised:
        out.print(styled((t("logs.tracebacks", app.language, count=raised), "dim")))


def _when(call: dict[str, Any]) -> str:
    return dt.datetime.fromtimestamp(call["created_at"]).strftime("%Y-%m-%d %H:%M:%S")


def _status(call: dict[str, Any]) -> str:
    approval = call["approval"]
    return call["status"] + (f" ({approval})" if approval and approval != "policy" else "")


def _print_call(out: Any, call: dict[str, Any]) -> None:
    """One call in full: a heading line, its parameters, its result or error, and its traceback."""
    caller = f" · {call['caller']}" if call.get("caller") else ""
    out.print(styled((f"{_when(call)}  {call['name']}", "bold"), f"  {_status(call)} · {call['duration_ms']} ms{caller}"))
    out.print(styled(("  params: ", "dim"), json.dumps(call["params"], ensure_ascii=False, default=str)))
    out.print(styled(("  result: " if call["success"] else "  error: ", "dim"), call["data"] if call["success"] else call["error"]))
    if call.get("traceback"):
        out.print(styled(("  " + call["traceback"].rstrip("\n").replace("\n", "\n  "), "dim")))
    out.print()
