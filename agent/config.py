"""Configuration, resolved in one place and in one order.

Precedence (highest first): command-line flag > environment variable > settings file > default.

- The Riverse home is ``--home`` / ``RIVERSE_HOME`` / ``~/.riverse``.
- The settings file is ``--config FILE`` / ``RIVERSE_CONFIG`` / ``$RIVERSE_HOME/settings.yaml``.
- Environment variables that override settings keys are listed in :data:`ENV_OVERRIDES`.
- API keys may be written in the file, but are better kept in the environment: ``llm.api_key_env``
  names the variable to read (each provider preset has a default, e.g. ``OPENAI_API_KEY``).

Nothing else in Riverse reads the environment for configuration.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Literal, Mapping

import yaml
from agent.errors import RiverseError
from agent.toolkit.tool_settings import tool_sections  # also read where tool code runs, without pydantic
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

LANGUAGES = ("en", "zh", "ja")

# environment variable -> dotted settings key
ENV_OVERRIDES: dict[str, str] = {
    "RIVERSE_LANGUAGE": "language",
    "RIVERSE_PROVIDER": "llm.provider",
    "RIVERSE_MODEL": "llm.model",
    "RIVERSE_BASE_URL": "llm.base_url",
    "RIVERSE_API_KEY": "llm.api_key",
    "RIVERSE_TOOL_PROTOCOL": "llm.tool_protocol",
    "RIVERSE_GROUNDING": "llm.grounding",
    "RIVERSE_MODEL_PATH": "llm.model_path",
    "RIVERSE_SERVER_TOKEN": "server.token",
    "RIVERSE_TOOL_ISOLATION": "runtime.isolation",
    "RIVERSE_DATABASE_URL": "storage.url",
}


# settings whose values are never repeated in an error message
SECRET_KEYS = frozenset({"storage.url", "server.token", "llm.api_key"})


class SettingsError(RiverseError):
    """A settings value is wrong. The message names the key, the file and what to do."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class LLMSettings(_Section):
    provider: str = Field("local", description="local | openai | deepseek | qwen | ollama | llamacpp | lmstudio | vllm | openai_compatible | fake")
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    tool_protocol: Literal["auto", "native", "json", "router"] = "auto"
    max_steps: int = Field(4, ge=1, le=32)
    temperature: float = Field(0.2, ge=0.0, le=2.0)
    max_tokens: int = Field(512, ge=16, le=32768)
    request_timeout: float = Field(120.0, gt=0)
    history_turns: int = Field(8, ge=0, le=200)
    # answers after a tool ran are checked against its results; failures are stated by Riverse:
    # auto (on for small local models: the router protocol or the embedded model) | on | off
    grounding: Literal["auto", "on", "off"] = "auto"
    # embedded model
    model_path: str | None = None
    n_ctx: int = Field(4096, ge=512, le=131072)
    n_threads: int | None = Field(None, ge=1)
    # scripted fake provider (tests, demos): a YAML/JSON file of responses
    script: str | None = None

    @field_validator("grounding", mode="before")
    @classmethod
    def _yaml_on_off(cls, value: Any) -> Any:
        """YAML reads an unquoted ``on`` / ``off`` as true / false."""
        return {True: "on", False: "off"}.get(value, value) if isinstance(value, bool) else value


class RuntimeSettings(_Section):
    tool_timeout: float = Field(30.0, gt=0, le=3600)
    max_output_chars: int = Field(8000, ge=100, le=1_000_000)
    parallel_tools: bool = True
    # Where tool code runs: "process" (worker processes; a tool that hangs, crashes or exits cannot
    # take the agent down) or "thread" (inside the agent's own process, a thread per call).
    isolation: Literal["process", "thread"] = "process"
    # seconds a tool file may take to load in a worker (import, __init__, manifest(), is_available())
    load_timeout: float = Field(10.0, gt=0, le=600)
    # worker processes that may run tool calls at the same time (each costs ~30-60 MB while alive)
    tool_workers: int = Field(4, ge=1, le=64)
    # environment variables tools get although their names look like secrets (*KEY*, *TOKEN*, ...)
    tool_env: list[str] = Field(default_factory=list)


# Policies per tool name that settings keep unless they name the tool themselves (none at present:
# a tool whose actions differ in risk declares it per call with risk_by_value, as notes does).
TOOL_APPROVAL_DEFAULTS: dict[str, str] = {}


class ApprovalSettings(_Section):
    # per risk level: never | ask | once (ask once per session)
    risk: dict[str, Literal["never", "ask", "once"]] = Field(
        default_factory=lambda: {"read": "never", "network": "never", "write": "ask", "execute": "ask"}
    )
    # per tool name, overrides the policy of the call's risk level
    tools: dict[str, Literal["never", "ask", "once"]] = Field(default_factory=lambda: dict(TOOL_APPROVAL_DEFAULTS))

    @field_validator("tools")
    @classmethod
    def _keep_tool_defaults(cls, value: dict[str, str]) -> dict[str, str]:
        return {**TOOL_APPROVAL_DEFAULTS, **value}

    @field_validator("risk")
    @classmethod
    def _known_risks(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - {"read", "write", "network", "execute"})
        if unknown:
            raise ValueError(f"unknown risk level(s) {unknown}; use read, write, network, execute")
        return value


class ServerSettings(_Section):
    host: str = "127.0.0.1"
    port: int = Field(8787, ge=1, le=65535)
    token: str | None = None
    max_input_chars: int = Field(32000, ge=100)
    # bytes a request body may hold; a larger one is refused (413) before it is read
    max_body_bytes: int = Field(1_048_576, ge=1024, le=1_073_741_824)
    # seconds a tool call waits for the user's approval on the web page or API before it is refused
    approval_timeout: float = Field(120.0, gt=0, le=3600)
    # turns that run at the same time (each in its own thread); more wait for a free one
    workers: int = Field(16, ge=1, le=256)
    # prepare the embedded model's tool prompt in English, Chinese and Japanese when the server starts
    # (in the background; the page shows the progress), so that no first message waits for it
    prepare_at_start: bool = True


RiskLevel = Literal["read", "write", "network", "execute"]
_SERVER_NAME = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"
_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class McpServerSettings(_Section):
    """One MCP server whose tools Riverse uses: ``command`` (+ ``args``, ``env``, ``cwd``) for stdio,
    or ``url`` (+ ``headers``) for streamable HTTP. In ``env`` and ``headers``, ``${VAR}`` is the value
    of the environment variable VAR: keep secrets there, not in the file."""

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    # tools are named PREFIX_tool; the prefix is the server's name unless set here ("" drops it)
    prefix: str | None = None
    risk: RiskLevel = "network"
    tool_risk: dict[str, RiskLevel] = Field(default_factory=dict)  # by the server's tool name
    timeout: float = Field(60.0, gt=0, le=3600)  # seconds a call may take
    start_timeout: float = Field(20.0, gt=0, le=600)  # seconds to start and finish the handshake
    enabled: bool = True

    @model_validator(mode="after")
    def _one_transport(self) -> "McpServerSettings":
        if bool(self.command) == bool(self.url):
            raise ValueError("give either command (a server started by Riverse, over stdio) or url "
                             "(streamable HTTP), not both and not neither")
        if self.url and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"url must start with http:// or https://, got {self.url!r}")
        return self


class McpServeSettings(_Section):
    """``riverse mcp serve``: what an MCP client may do with a tool that needs approval."""

    # refuse: such calls are refused with the reason · allow: they run · ask: the client's user is
    # asked through the client (elicitation) when the client can; else they are refused
    approval: Literal["refuse", "allow", "ask"] = "refuse"
    host: str = "127.0.0.1"
    port: int = Field(8788, ge=1, le=65535)


class McpSettings(_Section):
    servers: dict[str, McpServerSettings] = Field(default_factory=dict)
    serve: McpServeSettings = Field(default_factory=McpServeSettings)

    @field_validator("servers")
    @classmethod
    def _server_names(cls, value: dict[str, McpServerSettings]) -> dict[str, McpServerSettings]:
        for name in value:
            if not re.match(_SERVER_NAME, name):
                raise ValueError(f"server name {name!r}: use letters, digits, '_' and '-', starting with a letter")
        return value


class StorageSettings(_Section):
    # sqlite:///PATH (default: sqlite:///<home>/riverse.db) or postgresql://USER:PASSWORD@HOST:PORT/DATABASE
    url: str | None = None
    # connections each process keeps open to PostgreSQL at most
    pool_size: int = Field(10, ge=1, le=200)

    @field_validator("url")
    @classmethod
    def _known_url(cls, value: str | None) -> str | None:
        if value:
            from agent.storage import check_url

            try:
                check_url(value)
            except RiverseError as exc:
                raise ValueError(str(exc)) from None
        return value or None


class Settings(_Section):
    language: Literal["en", "zh", "ja"] = "en"
    llm: LLMSettings = Field(default_factory=LLMSettings)
    runtime: RuntimeSettings = Field(default_factory=RuntimeSettings)
    approval: ApprovalSettings = Field(default_factory=ApprovalSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    tools: dict[str, dict[str, Any]] = Field(default_factory=dict)
    tool_dirs: list[str] = Field(default_factory=list)
    # Folders the file tools may read (besides none); see the file tools' docs.
    file_roots: list[str] = Field(default_factory=list)

    # Not read from the file: where this configuration came from.
    home: Path = Field(default_factory=lambda: Path("~/.riverse").expanduser(), exclude=True)
    source: str | None = Field(None, exclude=True)

    @field_validator("tools", mode="before")
    @classmethod
    def _tool_sections(cls, value: Any) -> Any:
        if value is None:
            return {}
        if isinstance(value, dict):
            value = tool_sections(value)
            for name, section in value.items():
                if not isinstance(section, dict):
                    raise ValueError(f"tools.{name} must be a mapping such as {{enabled: true}}, got {section!r}")
        return value

    # ------------------------------------------------------------------ paths
    @property
    def user_tools_dir(self) -> Path:
        return self.home / "tools"

    @property
    def db_path(self) -> Path:
        return self.home / "riverse.db"

    @property
    def storage_url(self) -> str:
        """Where Riverse keeps its data: ``storage.url``, else the SQLite file in the home."""
        return self.storage.url or f"sqlite://{self.db_path}"

    @property
    def models_dir(self) -> Path:
        return self.home / "models"

    @property
    def tool_folders(self) -> list[Path]:
        return [Path(d).expanduser() for d in self.tool_dirs]

    def config_for_tools(self) -> dict[str, Any]:
        """The dict handed to tools: the tool contract's shape (``language``, ``tools``) plus shared, non-secret keys.

        The registry narrows ``tools`` to each tool's own section.
        """
        tools = {name: dict(section) for name, section in self.tools.items()}
        # Where the notes tool keeps the user's notes; in its own section, so no other tool is handed the
        # database's address (which may hold a password).
        tools["notes"] = {**tools.get("notes", {}), "storage_url": self.storage_url}
        return {
            "language": self.language,
            "tools": tools,
            "home": str(self.home),
            "file_roots": list(self.file_roots),
        }

    def mcp_servers(self, env: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
        """The enabled MCP servers as the MCP source takes them, ``${VAR}`` in ``env`` and ``headers``
        replaced by the environment's values (SettingsError when one is not set)."""
        env = os.environ if env is None else env
        out = {}
        for name, server in self.mcp.servers.items():
            if not server.enabled:
                continue
            connect: dict[str, Any] = {"command": server.command, "args": list(server.args), "cwd": server.cwd,
                                       "url": server.url,
                                       "env": {k: _expand(v, env, f"mcp.servers.{name}.env.{k}") for k, v in server.env.items()},
                                       "headers": {k: _expand(v, env, f"mcp.servers.{name}.headers.{k}")
                                                   for k, v in server.headers.items()}}
            out[name] = {"connect": connect, "prefix": name if server.prefix is None else server.prefix,
                         "risk": server.risk, "tool_risk": dict(server.tool_risk), "timeout": server.timeout,
                         "start_timeout": server.start_timeout}
        return out

    def resolve_api_key(self, default_env: str | None = None) -> str | None:
        if self.llm.api_key:
            return self.llm.api_key
        for name in (self.llm.api_key_env, default_env):
            if name and os.environ.get(name):
                return os.environ[name]
        return None


def _expand(value: str, env: Mapping[str, str], key: str) -> str:
    """``value`` with each ``${VAR}`` replaced by the environment's VAR (never shown in a message)."""
    def one(match: re.Match) -> str:
        var = match.group(1)
        if var not in env:
            raise SettingsError(f"{key} names the environment variable {var}, which is not set; set it "
                                "before starting Riverse (its value is never written to a file or a log)")
        return env[var]

    return _ENV_REF.sub(one, value)


def _set_dotted(data: dict, dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = data
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[parts[-1]] = value


def _format_validation_error(exc: ValidationError, source: str) -> str:
    lines = [f"invalid settings in {source}:"]
    for err in exc.errors():
        key = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key (check its spelling; see settings.example.yaml)"
        given = err.get("input")
        secret = key in SECRET_KEYS  # may hold a password or a token: never repeated
        shown = "" if err["type"] == "extra_forbidden" or isinstance(given, dict) or secret else f" (got {given!r})"
        lines.append(f"  {key}: {msg}{shown}")
    lines.append("Fix the value(s) above, or remove them to use the defaults.")
    return "\n".join(lines)


def read_yaml(path: Path, error: type[RiverseError], what: str) -> Any:
    """The content of the YAML file ``path``; ``error`` names the file (and line) when it cannot be
    read or parsed. ``what`` says what the file is, for the message."""
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise error(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)}); fix the syntax") from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror}") from None


def resolve_home(flag: str | os.PathLike | None = None, env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    raw = flag or env.get("RIVERSE_HOME") or "~/.riverse"
    return Path(raw).expanduser().resolve()


def load_settings(
    config_file: str | os.PathLike | None = None,
    *,
    home: str | os.PathLike | None = None,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
) -> Settings:
    """Resolve the settings: ``overrides`` (flags, dotted keys) > ``env`` > the file > defaults."""
    env = os.environ if env is None else env
    home_path = resolve_home(home, env)
    explicit = config_file or env.get("RIVERSE_CONFIG")
    path = Path(explicit).expanduser() if explicit else home_path / "settings.yaml"
    data: dict[str, Any] = {}
    source = "defaults"
    if path.exists():
        source = str(path)
        loaded = read_yaml(path, SettingsError, "settings file")
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise SettingsError(f"{path}: the settings file must be a mapping of keys (language:, llm:, tools: ...)")
        data = loaded
    elif explicit:
        raise SettingsError(f"settings file {path} does not exist (given by {'--config' if config_file else 'RIVERSE_CONFIG'})")
    for var, key in ENV_OVERRIDES.items():
        if env.get(var):
            _set_dotted(data, key, env[var])
            source += f" + ${var}"
    for key, value in (overrides or {}).items():
        if value is not None:
            _set_dotted(data, key, value)
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        raise SettingsError(_format_validation_error(exc, source)) from None
    settings.home = home_path
    settings.source = source
    return settings
