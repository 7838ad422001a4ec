"""``riverse users`` and ``riverse db``: sharing one Riverse among several people, and moving its data.

Both work on the store the settings name (``storage.url``, ``RIVERSE_DATABASE_URL``), so run them
with the same settings as the server.
"""

from __future__ import annotations

import datetime as dt

import click
from rich.table import Table

from agent.cli.common import State, console, pass_state, print_json
from agent.cli.team_texts import text
from agent.errors import RiverseError


@click.group()
def users() -> None:
    """Users of the server: each with a token of their own, and only their own conversations, notes,
    approvals and tool calls.

    \b
    Examples:
      riverse users add alice --admin   prints alice's token, once
      riverse users list
      riverse users remove alice
    \b
    With no users, the server works as before; with users, every request needs one user's token.
    """


@users.command("add")
@click.argument("name")
@click.option("--admin", is_flag=True, help="This user may manage users through /api/users.")
@pass_state
def add(state: State, name: str, admin: bool) -> None:
    """Add a user and print their token (shown once; only its hash is kept)."""
    from agent.users import add_user

    app = state.app
    token = add_user(app.store, name, admin, app.language)
    mark = text("admin_mark", app.language) if admin else ""
    click.echo(text("user_added", app.language, name=name, admin=mark, token=token))


@users.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the users as JSON.")
@pass_state
def list_users(state: State, as_json: bool) -> None:
    """List the users (names, admin flags, when added; never tokens)."""
    app = state.app
    found = app.store.users()
    if as_json:
        print_json([{k: v for k, v in u.items() if k != "id"} for u in found])
        return
    if not found:
        click.echo(text("no_users", app.language))
        return
    table = Table("name", "admin", "added", box=None, pad_edge=False)
    for user in found:
        added = dt.datetime.fromtimestamp(user["created_at"]).strftime("%Y-%m-%d %H:%M")
        table.add_row(user["name"], "yes" if user["admin"] else "", added)
    console().print(table)


@users.command("remove")
@click.argument("name")
@pass_state
def remove(state: State, name: str) -> None:
    """Remove a user: their token stops working at once."""
    app = state.app
    if not app.store.remove_user(name):
        raise RiverseError(text("no_such_user", app.language, name=name))
    click.echo(text("user_removed", app.language, name=name))


@click.group()
def db() -> None:
    """The database Riverse keeps its data in (storage.url)."""


@db.command("copy")
@click.option("--to", "target_url", required=True, metavar="URL",
              help="Where to copy to: postgresql://USER:PASSWORD@HOST:PORT/DATABASE (or sqlite:///PATH). "
                   "It must hold no data yet; its tables are made.")
@pass_state
def copy(state: State, target_url: str) -> None:
    """Copy everything this Riverse keeps (conversations, messages, tool calls, notes, users) into
    another, empty database, and say what was copied.

    \b
    Example:
      riverse db copy --to postgresql://riverse:PASSWORD@127.0.0.1:5432/riverse
    """
    from agent.storage import open_store
    from agent.storage.copy import copy_store

    app = state.app
    target = open_store(target_url, pool_size=2, language=app.language, setting="--to")
    try:
        copied = copy_store(app.store, target, app.language)
    finally:
        target.close()
    shown = ", ".join(text("count", app.language, n=n, what=table) for table, n in copied.items())
    click.echo(text("copied", app.language, source=app.store.location, target=target.location, counts=shown))
