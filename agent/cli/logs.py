"""``riverse logs``: the recorded tool calls."""

from __future__ import annotations

import datetime as dt

import click
from rich.table import Table

from agent.cli.common import State, console, pass_state, print_json, short
from agent.i18n import t


@click.command()
@click.option("-n", "--limit", default=20, show_default=True, help="How many calls to show.")
@click.option("-t", "--tool", "tool", metavar="NAME", help="Only calls of this tool.")
@click.option("--conversation", metavar="ID", help="Only calls made in this conversation.")
@click.option("--json", "as_json", is_flag=True, help="Print the calls as JSON.")
@pass_state
def logs(state: State, limit: int, tool: str | None, conversation: str | None, as_json: bool) -> None:
    """Show recent tool calls, refusals and approvals (newest first).

    \b
    Examples:
      riverse logs
      riverse logs --tool shell_exec -n 50
    """
    app = state.app
    calls = app.store.tool_calls(limit=limit, tool=tool, conversation=conversation)
    if as_json:
        print_json(calls)
        return
    out = console()
    if not calls:
        out.print(t("logs.none", app.language))
        return
    table = Table("time", "tool", "params", "status", "ms", "result / error", box=None, pad_edge=False)
    for c in calls:
        when = dt.datetime.fromtimestamp(c["created_at"]).strftime("%Y-%m-%d %H:%M:%S")
        status = c["status"] + (f" ({c['approval']})" if c["approval"] and c["approval"] != "policy" else "")
        table.add_row(when, c["name"], short(c["params"], 40), status, str(c["duration_ms"]),
                      short(c["data"] if c["success"] else c["error"], 60))
    out.print(table)
