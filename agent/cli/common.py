"""Shared pieces of the CLI: lazy app state, expected-error handling, output helpers."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from rich.console import Console
from rich.text import Text

from agent.app import App
from agent.errors import RiverseError
from agent.i18n import pick, t

if TYPE_CHECKING:
    from agent.toolkit.discovery import LoadProblem


@dataclass
class State:
    config: str | None = None
    home: str | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    _app: App | None = None

    @property
    def app(self) -> App:
        if self._app is None:
            self._app = App(config=self.config, home=self.home, overrides=self.overrides)
            for line in self._app.privacy.notices(self._app.language):
                click.echo(line, err=True)
        return self._app


class RiverseGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except RiverseError as exc:  # expected: one line, exit 1; anything else keeps its traceback
            language = "en"
            state = ctx.obj
            if isinstance(state, State) and state._app is not None:
                language = state._app.language
            click.echo(f"{t('error.prefix', language)}: {exc}", err=True)
            ctx.exit(1)


pass_state = click.make_pass_decorator(State)


def preparing(app: App, agent: Any, languages: list[str], lang: str, out: Console) -> dict[str, float | None]:
    """:meth:`App.prepare` under a spinner that counts the tools whose examples are being written."""
    with out.status(t("chat.preparing", lang)) as status:
        def progress(done: int, total: int) -> None:
            status.update(t("chat.writing_examples", lang, done=done, total=total))

        return app.prepare(agent, languages, progress)


def styled(*parts: str | tuple[str, str]) -> Text:
    """A line from plain strings and ``(text, style)`` pairs. Nothing in it is read as markup, so a
    tool's ``[x] done`` or a path with brackets is shown exactly as it is."""
    return Text.assemble(*parts)


def warning_line(text: str) -> Text:
    """``! text``, the mark in yellow."""
    return styled(("!", "yellow"), " ", text)


def console(stderr: bool = False) -> Console:
    return Console(stderr=stderr, highlight=False, soft_wrap=True, markup=False)  # styles only through styled()


def print_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def short(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown_path(path: str | Path) -> str:
    """A path as the user typed it best: relative to the current folder when inside it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


# The level of a load problem, as the word that introduces it.
LEVEL_WORDS: dict[str, dict[str, str]] = {
    "error": {"en": "error", "zh": "错误", "ja": "エラー"},
    "warning": {"en": "warning", "zh": "警告", "ja": "警告"},
    "info": {"en": "note", "zh": "提示", "ja": "注記"},
}


def problem_line(problem: "LoadProblem", language: str = "en") -> str:
    """One load problem as ``file:line: level: Class: message``, the one shape every command shows
    (``tools check``, ``tools list``, the reload notices of ``chat``). The level word is in
    ``language``; the message stays as the loader wrote it."""
    where = problem.path if problem.path.startswith("<") else shown_path(problem.path)
    if problem.line:
        where += f":{problem.line}"
    level = LEVEL_WORDS.get(problem.level)
    word = pick(level, language) if level else problem.level
    who = f"{problem.class_name}: " if problem.class_name else ""
    return f"{where}: {word}: {who}{problem.message}"
