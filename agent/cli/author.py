"""The tool author's kit: ``riverse tools new``, ``riverse tools check`` and ``riverse tools eval``."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from agent.cli.common import State, console, pass_state, print_json, problem_line, short, shown_path
from agent.errors import RiverseError
from agent.evaluation import Case, EvalReport, evaluate, load_cases, manifest_cases
from agent.i18n import t
from agent.toolkit.scaffold import create_tool
from agent.tools import ToolRegistry
from agent.toolkit.registry import LoadProblem, isolation_options

@click.command("new")
@click.argument("name")
@click.option("--lang", "language", type=click.Choice(["en", "zh", "ja"]), help="Language of the manifest texts (default: the configured language).")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), help="Write here instead of $RIVERSE_HOME/tools.")
@pass_state
def new_tool(state: State, name: str, language: str | None, folder: Path | None) -> None:
    """Create a ready tool file NAME.py and its test (tests/test_NAME.py) in your tools folder.

    Never overwrites a file. The test uses the scripted fake provider and runs under pytest.

    \b
    Examples:
      riverse tools new hello
      riverse tools new stock_price --lang zh
    """
    app = state.app
    lang = app.language
    target = folder or app.settings.user_tools_dir
    made = create_tool(name, target, language or lang, ui_language=lang)
    click.echo(t("new.wrote", lang, tool=shown_path(made.tool_path), test=shown_path(made.test_path), name=name))
    verdict = app.registry.would_win(made.tool_path, name, lang)[1]
    if verdict and app.registry.source_rank(made.tool_path) is not None:  # an unscanned folder: said below
        click.echo(t("new.note", lang, text=verdict), err=True)
    scanned = [app.settings.user_tools_dir, *app.settings.tool_folders]
    if not any(made.tool_path.parent.resolve() == Path(d).expanduser().resolve() for d in scanned):
        click.echo(t("new.not_scanned", lang, folder=shown_path(made.tool_path.parent)), err=True)


@click.command("check")
@click.argument("path", required=False, type=click.Path(exists=True, path_type=Path))
@click.pass_context
def check_tools(ctx: click.Context, path: Path | None) -> None:
    """Check tool files the way Riverse loads them: one line per problem, as file:line: level: message.

    Without PATH: every tool Riverse would load (built-in, packages, settings folders, your folder).
    With PATH: that file, or the tool files in that folder. Checked: it imports; each class is a
    BaseTool with manifest() and execute(params); the manifest's fields have the right types; the
    name is valid and unique; there is a description, a description for every parameter and 2-3
    examples; is_available() does not raise; the texts match the configured language.

    \b
    Exit status 1 when any error is found; warnings and notes do not fail.
    Examples:
      riverse tools check
      riverse tools check ~/.riverse/tools/hello.py
    """
    state: State = ctx.find_object(State)
    app = state.app
    lang = app.language
    if path is None:
        scope = None
        registry = app.registry
    else:
        scope = path.resolve()
        if scope.is_file() and scope.suffix != ".py":
            raise RiverseError(t("check.not_python", lang, path=shown_path(scope)))
        if scope.is_file() and scope.name.startswith("_"):
            click.echo(problem_line(LoadProblem(str(scope), t("check.skipped", lang), level="warning"), lang))
            return
        # The built-ins load too, so a name that overrides one is reported; only PATH's problems are shown.
        registry = ToolRegistry(app.settings.config_for_tools(), builtin=True, packages=False, user_folder=scope,
                                **isolation_options(app.settings))

    def inside(file: str) -> bool:
        return scope is None or Path(file) == scope or scope in Path(file).parents

    problems = [p for p in registry.problems if inside(p.path)]
    entries = [e for e in registry.entries(include_unavailable=True) if inside(e.path)]
    reported = {(p.path, p.class_name) for p in problems if p.level == "error"}
    for e in entries:
        if not e.available and (e.path, e.class_name) not in reported:
            problems.append(LoadProblem(e.path, f"tool '{e.name}' is unavailable: {e.reason}", e.line, e.class_name, "info"))
    problems.sort(key=lambda p: (p.path, p.line or 0))
    for problem in problems:
        click.echo(problem_line(problem, lang))
    errors = sum(p.level == "error" for p in problems)
    warnings = sum(p.level == "warning" for p in problems)
    files = [f for f in registry.files if inside(f)]
    click.echo(t("check.summary", lang, files=len(files), tools=len(entries), errors=errors, warnings=warnings), err=True)
    ctx.exit(1 if errors else 0)


def _percent(value: float) -> str:
    return "–" if math.isnan(value) else f"{value:.0%}"


def _print_report(report: EvalReport, lang: str, protocol: str) -> None:
    out = console()
    no_tool = t("eval.no_tool", lang)
    table = Table(*t("eval.columns", lang).split("|"))
    for column in table.columns[1:]:
        column.justify = "right"
    for name, score in report.per_tool().items():
        params = f"{score.params_correct}/{score.params_checked} {_percent(score.param_accuracy)}" if score.params_checked else "–"
        table.add_row(name or no_tool, str(score.cases), str(score.correct), _percent(score.accuracy), params)
    total = report.total
    params = f"{total.params_correct}/{total.params_checked} {_percent(total.param_accuracy)}" if total.params_checked else "–"
    table.add_section()
    table.add_row(t("eval.total", lang), str(total.cases), str(total.correct), _percent(total.accuracy), params)
    out.print(table)
    seconds = "–" if math.isnan(report.seconds_per_case) else f"{report.seconds_per_case:.2f}"
    out.print(
        t("eval.summary", lang, accuracy=_percent(total.accuracy), correct=total.correct, cases=total.cases,
          params=_percent(total.param_accuracy), seconds=seconds, protocol=protocol),
        markup=False,
    )
    confusions = report.confusions()
    if confusions:
        out.print()
        out.print(t("eval.confused", lang), markup=False)
        for expected, chosen, count in confusions:
            out.print(f"  {expected or no_tool} → {chosen or no_tool}  ×{count}", markup=False)
        out.print(t("eval.misses", lang), markup=False)
        for r in report.results:
            if not r.correct:
                out.print(f"  ✗ {r.case.message!r}  {r.case.tool or no_tool} → {r.tool or no_tool}  [{r.case.source}]", markup=False)
    wrong = report.wrong_params()
    if wrong:
        out.print()
        out.print(t("eval.wrong_params", lang), markup=False)
        for r in wrong:
            expected, chosen = short(r.case.params, 200), short(r.params, 200)
            out.print(f"  ✗ {r.case.message!r}  {r.tool}  {expected} → {chosen}  [{r.case.source}]", markup=False)


def _below_minimum(report: EvalReport, minimum: float, lang: str) -> list[str]:
    """What falls below ``--min``: the tool accuracy, and the parameter accuracy when any was checked."""
    out = []
    accuracy = 0.0 if math.isnan(report.accuracy) else report.accuracy
    if accuracy < minimum:
        out.append(t("eval.below_min", lang, accuracy=f"{accuracy:.1%}", minimum=f"{minimum:.1%}"))
    params = report.total.param_accuracy
    if not math.isnan(params) and params < minimum:
        out.append(t("eval.params_below_min", lang, accuracy=f"{params:.1%}", minimum=f"{minimum:.1%}"))
    return out


def _only_tools(cases: list[Case], names: tuple[str, ...], lang: str) -> list[Case]:
    """The cases that expect one of ``names`` (``--tool``); every case when no name is given."""
    if not names:
        return cases
    kept = [case for case in cases if case.tool in names]
    if not kept:
        known = ", ".join(sorted({case.tool for case in cases if case.tool})) or "-"
        raise RiverseError(t("eval.no_tool_cases", lang, names=", ".join(names), known=known))
    return kept


@click.command("eval")
@click.option("--cases", "cases_file", type=click.Path(exists=True, dir_okay=False, path_type=Path), metavar="FILE",
              help="Also run these cases: a YAML list of {message, tool (or null), params}.")
@click.option("--examples/--no-examples", default=True, show_default=True, help="Use every manifest's examples as cases.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--min", "minimum", type=click.FloatRange(0, 1), metavar="ACCURACY",
              help="Exit with status 1 when the tool accuracy, or the parameter accuracy (of the cases that give "
                   "params), is below this (0-1), e.g. --min 0.8.")
@click.option("--tool", "only", multiple=True, metavar="NAME",
              help="Only the cases that expect this tool (repeat for more); the model still chooses among all tools.")
@click.pass_context
def eval_tools(ctx: click.Context, cases_file: Path | None, examples: bool, as_json: bool, minimum: float | None,
               only: tuple[str, ...]) -> None:
    """Measure how well the configured model picks tools: every manifest example should pick its
    own tool, and each --cases entry its tool (or none) and parameters. No tool runs.

    Prints per-tool accuracy, parameter accuracy, the pairs of tools the model confuses, the
    messages it got wrong, and the messages whose parameters were wrong (expected → chosen values).

    \b
    Examples:
      riverse tools eval
      riverse tools eval --tool dice --cases my_cases.yaml
      riverse -p local tools eval --cases bench/routing/cases.yaml --json
      riverse tools eval --min 0.8        (for CI: tools and parameters)
    """
    state: State = ctx.find_object(State)
    app = state.app
    lang = app.language
    agent = app.agent()
    cases = manifest_cases(app.registry.manifests()) if examples else []
    if cases_file is not None:
        cases += load_cases(cases_file)
    if not cases:
        raise RiverseError(t("eval.no_cases", lang))
    cases = _only_tools(cases, only, lang)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    err = console(stderr=True)
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as progress:
        task = progress.add_task(t("eval.progress", lang), total=len(cases))
        report = evaluate(agent, cases, on_result=lambda result: progress.advance(task))
    if report.skipped:
        missing = Counter(case.tool for case in report.skipped)
        tools = ", ".join(f"{name} ({count})" for name, count in sorted(missing.items()))
        click.echo(t("eval.skipped", lang, count=len(report.skipped), tools=tools), err=True)
    protocol = agent.protocol.name
    if as_json:
        print_json({"provider": app.model_label(), "protocol": protocol, "language": lang, **report.as_dict()})
    else:
        _print_report(report, lang, protocol)
    below = _below_minimum(report, minimum, lang) if minimum is not None else []
    for line in below:
        click.echo(line, err=True)
    ctx.exit(1 if below else 0)
