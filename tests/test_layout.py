"""The shape of the code: small modules, short functions, no import cycles, and the seams kept where
docs/architecture.md says they are."""

from __future__ import annotations

import ast
import re
from pathlib import Path

AGENT = Path(__file__).resolve().parents[1] / "agent"
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def modules() -> dict[str, Path]:
    found = {}
    for path in sorted(AGENT.rglob("*.py")):
        name = ".".join(path.relative_to(AGENT.parent).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def test_no_module_is_over_500_lines():
    long = {str(p.relative_to(AGENT.parent)): n for p in modules().values() if (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}
    assert long == {}


def test_no_function_is_over_80_lines():
    long = []
    for path in modules().values():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(AGENT.parent)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


def _imports(path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``agent`` that ``path`` imports, outside ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(path.read_text())
    typing_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                   and getattr(block.test, "id", "") == "TYPE_CHECKING" for n in ast.walk(block)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("agent"):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("agent"))
    return {name for name in found if name in known}


def test_no_import_cycle():
    known = modules()
    graph = {name: _imports(path, known) - {name} for name, path in known.items()}
    cycles = []

    def visit(name: str, trail: list[str], done: set[str]) -> None:
        for other in sorted(graph[name]):
            if other in trail:
                cycles.append(" → ".join(trail[trail.index(other):] + [other]))
            elif other not in done:
                visit(other, trail + [other], done)
        done.add(name)

    done: set[str] = set()
    for name in sorted(graph):
        if name not in done:
            visit(name, [name], done)
    assert cycles == []


def test_only_the_adapter_touches_llama_cpp_python():
    pattern = re.compile(r"^\s*(import llama_cpp|from llama_cpp)|\.n_tokens\s*=|input_ids|_is_recurrent|_is_hybrid", re.M)
    touching = sorted(str(p.relative_to(AGENT.parent)) for p in modules().values() if pattern.search(p.read_text()))
    assert touching == ["agent/providers/llama/adapter.py"]


def test_provider_capabilities_are_read_in_one_place():
    """No probing of providers with hasattr; capabilities are declared and read by agent/providers/base.py."""
    probing = sorted(str(p.relative_to(AGENT.parent)) for p in modules().values() if "hasattr(" in p.read_text())
    assert probing == []
