"""``riverse chat`` and ``riverse ask``."""

from __future__ import annotations

import json

import click
from rich.console import Console

from agent.app import App
from agent.cli.common import State, console, pass_state, preparing, print_json, problem_line, short, styled, warning_line
from agent.errors import RiverseError
from agent.i18n import t
from agent.loop import Agent, Event
from agent.providers.base import ProviderError, prefix_cache
from agent.toolkit.runtime import ApprovalRequest


REFUSED_STATUS = 3  # riverse ask: a tool call of the turn was refused (it needed approval)
NO_ANSWER_STATUS = 4  # riverse ask: the model's reply was empty (no text, no tool call)


class TurnPrinter:
    """Shows a turn as it happens: tool calls with their time and outcome, the answer as it streams.
    ``verbose``: the traceback of a tool that raised, under its line (else a hint says how to see it)."""

    def __init__(self, out, err, show_tools: bool = True, verbose: bool = False, language: str = "en",
                 command: str = "ask"):
        self.out = out
        self.err = err
        self.show_tools = show_tools
        self.verbose = verbose
        self.language = language
        self.command = command
        self.wrote_text = False
        self.hinted = False

    def __call__(self, event: Event) -> None:
        if event.kind == "text":
            self.out.print(event.text, end="", markup=False)
            self.wrote_text = True
        elif event.kind == "tool_start" and self.show_tools:
            self._break_line()
            self.err.print(styled((f"→ {event.name} {short(event.params)}", "dim")))
        elif event.kind == "tool_end" and self.show_tools and event.outcome is not None:
            o = event.outcome
            if o.success:
                self.err.print(styled(("✓", "green"), " ", (f"{o.name} · {o.duration_ms} ms · {short(o.data, 80)}", "dim")))
            else:
                error = o.error if self.verbose else short(o.error, 320 if o.traceback else 160)
                self.err.print(styled(("✗", "red"), " ", (f"{o.name} · {o.duration_ms} ms ·", "dim"), " ", error))
                self._traceback(o.traceback)
        elif event.kind == "notice":
            self._break_line()
            self.err.print(styled(("!", "yellow"), " ", (event.text, "dim")))

    def _traceback(self, text: str) -> None:
        if not text:
            return
        if self.verbose:
            self.err.print(styled((text.rstrip("\n"), "dim")))
        elif not self.hinted:
            self.hinted = True
            self.err.print(styled(("  " + t("chat.traceback_hint", self.language, command=self.command), "dim")))

    def _break_line(self) -> None:
        if self.wrote_text:
            self.out.print()
            self.wrote_text = False

    def end(self) -> None:
        if self.wrote_text:
            self.out.print()
        self.wrote_text = False


def terminal_approver(language: str):
    err = console(stderr=True)

    def approve(request: ApprovalRequest) -> str:
        risk = request.risk if request.declared else f"{request.risk}, {t('approval.undeclared', language)}"
        err.print(
            t("approval.ask", language, name=request.name, risk=risk, params=json.dumps(request.params, ensure_ascii=False)),
            markup=False,
        )
        while True:
            try:
                answer = click.prompt("", prompt_suffix="> ", default="n", show_default=False, err=True).strip().lower()
            except (EOFError, click.Abort):
                return "no"
            if answer in ("y", "yes", "n", "no", "a", "always"):
                return answer
    return approve


def _print_tools(state: State) -> None:
    out = console()
    for m in state.app.registry.manifests():
        out.print(styled((m.name, "bold"), f" · {m.description}"))


def _prepare(app: App, agent: Agent, lang: str, err: Console) -> None:
    """The embedded model and its tool prompt, loaded before the first message rather than during
    it. A failure is shown once here and again, with its context, by the message that needs the model."""
    cache = prefix_cache(agent.provider)
    if cache is None or not app.can_prepare(agent):
        return
    try:
        cache.load()  # assembling the model on first use shows its own progress bar
        preparing(app, agent, [lang], lang, err)
    except RiverseError as exc:
        err.print(warning_line(str(exc)))


VERBOSE_HELP = "Show the traceback of a tool that raises (it is also kept in the log: riverse logs --verbose)."


@click.command()
@click.option("--conversation", "conversation_id", metavar="ID", help="Continue this conversation.")
@click.option("--continue", "continue_last", is_flag=True, help="Continue the most recent conversation.")
@click.option("-v", "--verbose", is_flag=True, help=VERBOSE_HELP)
@pass_state
def chat(state: State, conversation_id: str | None, continue_last: bool, verbose: bool) -> None:
    """Chat in the terminal. Tools run as the model asks; risky ones ask you first.

    \b
    In the chat:
      /tools   list the available tools
      /new     start a new conversation
      /exit    quit (Ctrl-D works too)
    Tool files added, changed or deleted are picked up before the next message.
    """
    app = state.app
    lang = app.language
    out, err = console(), console(stderr=True)
    registry = app.registry
    agent = app.agent(approver=terminal_approver(lang))
    if continue_last and not conversation_id:
        conversation_id = app.store.latest_conversation()
    cid = app.store.ensure_conversation(conversation_id)
    err.print(styled((t("chat.welcome", lang, model=app.model_label(), count=len(registry)), "dim")))
    if conversation_id:
        err.print(styled((t("chat.resumed", lang, id=cid), "dim")))
    for problem in registry.errors:
        err.print(warning_line(problem_line(problem, lang)))
    _prepare(app, agent, lang, err)
    while True:
        try:
            text = click.prompt(click.style(t("chat.prompt", lang), bold=True), prompt_suffix="> ", err=True)
        except (EOFError, click.Abort):
            err.print(styled(("\n" + t("chat.bye", lang), "dim")))
            return
        text = text.strip()
        if not text:
            continue
        if text.startswith("/"):
            command = text.split()[0].lower()
            if command in ("/exit", "/quit"):
                err.print(styled((t("chat.bye", lang), "dim")))
                return
            if command == "/new":
                cid = app.store.new_conversation()
                err.print(styled((t("chat.new", lang, id=cid), "dim")))
            elif command == "/tools":
                _print_tools(state)
            else:
                err.print(t("chat.unknown_command", lang, cmd=command), markup=False)
            continue
        report = registry.refresh()
        if report.changed_anything:
            changes = ", ".join(
                [f"+{n}" for n in report.added] + [f"~{n}" for n in report.changed] + [f"-{n}" for n in report.removed]
            )
            if changes:
                err.print(styled((t("chat.reloaded", lang, changes=changes), "dim")))
            for problem in report.problems:
                err.print(warning_line(problem_line(problem, lang)))
        printer = TurnPrinter(out, err, verbose=verbose, language=lang, command="chat")
        agent.ask(text, conversation_id=cid, on_event=printer)
        printer.end()


@click.command()
@click.argument("text", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help='Print {"answer": ..., "tool_calls": [...], "notices": [...]} as JSON.')
@click.option("-y", "--yes", is_flag=True, help="Approve every tool call that needs approval.")
@click.option("--conversation", "conversation_id", metavar="ID", help="Ask within this conversation.")
@click.option("-v", "--verbose", is_flag=True, help=VERBOSE_HELP)
@pass_state
def ask(state: State, text: tuple[str, ...], as_json: bool, yes: bool, conversation_id: str | None,
        verbose: bool) -> None:
    """Ask one question and print the answer.

    \b
    Examples:
      riverse ask "东京今天天气怎么样？"
      riverse ask --json "what is 2**32?"
    Tools that need approval are refused unless --yes is given.

    \b
    Exit status: 0 answered; 1 an error (for example, the model could not be
    reached, or its reply was cut off); 3 answered, but a tool call was refused
    because it needed approval (run again with --yes, or use riverse chat to
    approve it); 4 the model's reply was empty. --json output lists the turn's
    notices (an unreadable decision, a repair, a protocol switch) in "notices".
    """
    app = state.app
    message = " ".join(text)
    approver = (lambda request: "yes") if yes else None
    agent = app.agent(approver=approver)
    notices: list[Event] = []

    def keep_notices(event: Event) -> None:
        if event.kind == "notice":
            notices.append(event)

    try:
        if as_json:
            result = agent.ask(message, conversation_id=conversation_id, on_event=keep_notices)
            print_json({**result.as_dict(), "notices": [n.text for n in notices]})
        else:
            printer = TurnPrinter(console(), console(stderr=True), verbose=verbose, language=app.language)
            result = agent.ask(message, conversation_id=conversation_id,
                               on_event=lambda event: (keep_notices(event), printer(event)))
            printer.end()
    except ProviderError as exc:
        if verbose and exc.detail:
            console(stderr=True).print(styled((exc.detail, "dim")), markup=False)
        raise
    if any(call.status == "refused" for call in result.tool_calls):
        raise SystemExit(REFUSED_STATUS)
    if any(n.name == "no_answer" for n in notices):
        raise SystemExit(NO_ANSWER_STATUS)
