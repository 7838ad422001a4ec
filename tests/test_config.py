"""Settings: one precedence order, errors that name the key, the contract's config shape for tools."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from agent.cli import cli
from agent.config import SettingsError, load_settings


def test_defaults_without_a_file(riverse_home):
    settings = load_settings()
    assert settings.home == riverse_home.resolve()
    assert settings.llm.provider == "local" and settings.llm.max_steps == 4
    assert settings.runtime.tool_timeout == 30
    assert settings.source == "defaults"


def test_precedence_flag_over_env_over_file(riverse_home, monkeypatch):
    (riverse_home / "settings.yaml").write_text("language: zh\nllm:\n  provider: ollama\n  model: from-file\n", encoding="utf-8")
    assert load_settings().llm.model == "from-file"
    monkeypatch.setenv("RIVERSE_MODEL", "from-env")
    assert load_settings().llm.model == "from-env"
    assert load_settings(overrides={"llm.model": "from-flag"}).llm.model == "from-flag"
    assert load_settings().language == "zh"


def test_config_file_flag_and_env(tmp_path, monkeypatch):
    other = tmp_path / "other.yaml"
    other.write_text("language: ja\n", encoding="utf-8")
    assert load_settings(other).language == "ja"
    monkeypatch.setenv("RIVERSE_CONFIG", str(other))
    assert load_settings().language == "ja"
    with pytest.raises(SettingsError, match="does not exist"):
        load_settings(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    "text,expected",
    [
        ("llm:\n  max_steps: 0\n", "llm.max_steps: Input should be greater than or equal to 1 (got 0)"),
        ("language: fr\n", "language: Input should be 'en', 'zh' or 'ja'"),
        ("llm:\n  tool_protocol: xml\n", "llm.tool_protocol"),
        ("runtime:\n  tool_timeout: soon\n", "runtime.tool_timeout"),
        ("lmm:\n  provider: openai\n", "lmm: unknown key"),
        ("tools:\n  weather: 3\n", "tools.weather must be a mapping"),
        ("llm: [\n", "not valid YAML"),
        ("- a\n- b\n", "must be a mapping of keys"),
    ],
)
def test_invalid_settings_name_the_key(riverse_home, text, expected):
    (riverse_home / "settings.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(SettingsError) as info:
        load_settings()
    assert expected in str(info.value)
    assert str(riverse_home / "settings.yaml") in str(info.value)


def test_invalid_setting_through_the_cli_is_one_clear_line(riverse_home):
    (riverse_home / "settings.yaml").write_text("llm:\n  max_steps: many\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["ask", "hello"])
    assert result.exit_code == 1
    assert "llm.max_steps" in result.output and "Traceback" not in result.output


def test_env_var_overrides_are_validated_too(monkeypatch):
    monkeypatch.setenv("RIVERSE_TOOL_PROTOCOL", "telepathy")
    with pytest.raises(SettingsError, match=r"llm\.tool_protocol.*\$RIVERSE_TOOL_PROTOCOL|RIVERSE_TOOL_PROTOCOL"):
        load_settings()


def test_config_for_tools_keeps_the_spec_shape(riverse_home):
    (riverse_home / "settings.yaml").write_text("language: ja\ntools:\n  my_tool:\n    enabled: false\n", encoding="utf-8")
    config = load_settings().config_for_tools()
    assert config["language"] == "ja"
    assert config.get("tools", {}).get("my_tool", {}).get("enabled", True) is False
    assert "api_key" not in str(config)


def test_api_key_from_the_named_environment_variable(monkeypatch, riverse_home):
    (riverse_home / "settings.yaml").write_text("llm:\n  provider: deepseek\n  api_key_env: MY_KEY\n", encoding="utf-8")
    monkeypatch.setenv("MY_KEY", "sk-test")
    assert load_settings().resolve_api_key("DEEPSEEK_API_KEY") == "sk-test"


def test_the_shipped_example_settings_file_is_valid(tmp_path):
    from pathlib import Path

    import agent

    example = Path(agent.__file__).parent / "settings.example.yaml"
    settings = load_settings(example)
    assert settings.llm.provider == "local" and settings.tools["weather"]["base_url"] == "https://wttr.in"
