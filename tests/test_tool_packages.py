"""Tools as packages: a distribution declaring the ``riverse.tools`` entry-point group adds its tools
without touching any folder, and ``riverse tools list`` names the package as their origin."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import cli

MODULE = '''
from agent.tools import BaseTool, ToolManifest, ToolResult

class ShoutTool(BaseTool):
    def manifest(self):
        return ToolManifest(name="shout", description="Repeat the user's words in capitals",
                            parameters={"text": "what to shout"}, examples=["shout hello", "say it loud: yes"])
    def execute(self, params):
        return ToolResult(success=True, data=params.get("text", "").upper())
'''


def distribution_files(dist: str, module: str, entry_points: str) -> dict[str, str]:
    """The files of an installed distribution: a module and its ``.dist-info`` metadata."""
    info = f"{dist}-0.1.dist-info"
    return {
        f"{module}/__init__.py": MODULE,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n",
        f"{info}/entry_points.txt": entry_points,
    }


@pytest.fixture
def forget_modules():
    yield
    for name in ("riverse_shout", "riverse_broken"):
        sys.modules.pop(name, None)


def test_an_entry_point_adds_a_tool_without_any_folder(tmp_path, monkeypatch, riverse_home, forget_modules):
    site = tmp_path / "site"
    files = {
        **distribution_files("riverse_shout", "riverse_shout", "[riverse.tools]\nshout = riverse_shout:ShoutTool\n"),
        **distribution_files("riverse_broken", "riverse_broken", "[riverse.tools]\nbroken = riverse_broken:Missing\n"),
    }
    for relative, text in files.items():
        (site / relative).parent.mkdir(parents=True, exist_ok=True)
        (site / relative).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))

    runner = CliRunner()
    listed = runner.invoke(cli, ["tools", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    data = json.loads(listed.stdout)
    (shout,) = [t for t in data["tools"] if t["name"] == "shout"]
    assert (shout["origin"], shout["available"], shout["active"]) == ("package:riverse_shout", True, True)
    assert shout["source"] == str(site / "riverse_shout" / "__init__.py")
    assert not (riverse_home / "tools").exists()
    # A broken entry point is reported with its package; it does not stop the others.
    assert any(
        p["path"] == "riverse_broken:Missing (package riverse_broken)" and "cannot load entry point 'broken'" in p["message"]
        for p in data["problems"]
    )
    ran = runner.invoke(cli, ["tools", "run", "shout", "text=hi there"])
    assert (ran.exit_code, ran.stdout.strip()) == (0, "HI THERE")


def build_wheel(folder: Path) -> Path:
    """A pure-Python wheel of the ``riverse-shout`` distribution, as a packaging tool would write it."""
    dist = "riverse_shout"
    files = distribution_files(dist, "riverse_shout", "[riverse.tools]\nshout = riverse_shout:ShoutTool\n")
    files[f"{dist}-0.1.dist-info/WHEEL"] = "Wheel-Version: 1.0\nGenerator: riverse-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    record.append(f"{dist}-0.1.dist-info/RECORD,,")
    files[f"{dist}-0.1.dist-info/RECORD"] = "\n".join(record) + "\n"
    wheel = folder / f"{dist}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def test_a_package_pip_installed_into_a_fresh_venv_adds_its_tool(tmp_path, riverse_home):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    # The new environment sees Riverse (and its dependencies) from the environment running the tests.
    target = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    parent = sysconfig.get_paths()["purelib"]
    Path(target, "_riverse_parent.pth").write_text(f"import site; site.addsitedir({parent!r})\n", encoding="utf-8")

    wheel = build_wheel(tmp_path)
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)],
        capture_output=True, text=True, timeout=120,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    listed = subprocess.run(
        [str(python), "-c", "from agent.cli import main; main()", "tools", "list", "--json"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )
    assert listed.returncode == 0, listed.stderr
    tools = {t["name"]: t for t in json.loads(listed.stdout)["tools"]}
    assert tools["shout"]["origin"] == "package:riverse_shout"
    assert tools["shout"]["source"].startswith(target)
    assert not (riverse_home / "tools").exists()
