"""``riverse tools test``: the tests of tools, run by pytest in the Python that runs Riverse.

A tool's test lives in the ``tests`` folder next to it (``riverse tools new`` writes
``tests/test_NAME.py``). The tests run in a new process of the same interpreter (``sys.executable``),
which imports this same Riverse: when Riverse runs from a source folder rather than from an
installed package, that folder goes first on the test process's ``PYTHONPATH``.
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

import click

import agent
from agent.cli.common import State, pass_state, shown_path
from agent.config import Settings
from agent.errors import RiverseError
from agent.i18n import t
from agent.toolkit.validate import NAME_RE


@click.command("test", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("target", required=False)
@click.argument("pytest_args", nargs=-1, type=click.UNPROCESSED)
@pass_state
def tools_test(state: State, target: str | None, pytest_args: tuple[str, ...]) -> None:
    """Run tool tests with pytest, in the Python that runs Riverse.

    TARGET is a tool's name (its tests/test_NAME.py in your tools folder or a tool_dirs folder), a
    tool file (the test next to it, in tests/), a test file or a folder. Without TARGET: the tests/
    folder of your tools folder and of every tool_dirs folder. Anything after TARGET goes to pytest.

    \b
    Exit status: pytest's (0 when every test passed; 5 when none was collected); 1 when pytest is
    not installed for this Python, or no test is found.
    Examples:
      riverse tools test
      riverse tools test hello
      riverse tools test ~/.riverse/tools/hello.py -x -k model
    """
    lang = state.app.language
    if target is not None and target.startswith("-"):  # only options for pytest
        target, pytest_args = None, (target, *pytest_args)
    if importlib.util.find_spec("pytest") is None:
        raise RiverseError(t("test.no_pytest", lang, python=sys.executable))
    paths = find_tests(target, state, lang)
    # importlib mode: test files of the same name in several tools folders do not collide.
    command = [sys.executable, "-m", "pytest", "--import-mode=importlib", *map(str, paths), *pytest_args]
    click.echo(t("test.running", lang, command=shlex.join(command)), err=True)
    code = subprocess.call(command, env=tests_environment())
    raise SystemExit(code)


def tool_folders(settings: Settings) -> list[Path]:
    """The folders of tool files the user writes: their own, then the ``tool_dirs`` of the settings."""
    return [settings.user_tools_dir, *settings.tool_folders]


def find_tests(target: str | None, state: State, lang: str) -> list[Path]:
    """The test files or folders that ``target`` stands for (see ``riverse tools test --help``)."""
    settings = state.app.settings
    folders = tool_folders(settings)
    if target is None:
        found = [folder / "tests" for folder in folders if (folder / "tests").is_dir()]
        if not found:
            looked = ", ".join(shown_path(folder / "tests") for folder in folders)
            raise RiverseError(t("test.none", lang, folders=looked))
        return found
    path = Path(target).expanduser()
    if path.is_dir():
        return [path]
    if path.is_file():
        if path.suffix != ".py":
            raise RiverseError(t("test.not_python", lang, path=shown_path(path)))
        if path.name.startswith("test_") or path.stem.endswith("_test"):
            return [path]
        return _existing([path.parent / "tests" / f"test_{path.stem}.py"], shown_path(path), lang)
    if not NAME_RE.match(target) or target.endswith(".py"):
        raise RiverseError(t("test.unknown", lang, target=target))
    candidates = [folder / "tests" / f"test_{target}.py" for folder in folders]
    found = [c for c in candidates if c.is_file()]
    if found:
        return found
    entry = next((e for e in state.app.registry.entries(include_unavailable=True) if e.name == target), None)
    if entry is not None and not entry.path.startswith("<"):
        tool_file = Path(entry.path)
        candidates += [tool_file.parent / "tests" / f"test_{stem}.py" for stem in dict.fromkeys((target, tool_file.stem))]
    return _existing(candidates, f"'{target}'", lang)


def _existing(candidates: list[Path], what: str, lang: str) -> list[Path]:
    found = [c for c in dict.fromkeys(candidates) if c.is_file()]
    if not found:
        looked = ", ".join(shown_path(c) for c in dict.fromkeys(candidates))
        raise RiverseError(t("test.missing", lang, what=what, looked=looked))
    return found[:1]


def tests_environment() -> dict[str, str]:
    """This process's environment, with the folder of the running ``agent`` package first on
    ``PYTHONPATH`` when it is not an installed package (a source checkout), so the tests import
    the same Riverse."""
    env = dict(os.environ)
    root = str(Path(agent.__file__).resolve().parent.parent)
    installed = {str(Path(p).resolve()) for p in (sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])}
    if root not in installed:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env
