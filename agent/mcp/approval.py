"""Approval of a call an MCP client asked for, when the call's policy needs one (``mcp.serve.approval``).

``refuse`` (the default) refuses with the reason and the setting that would allow it; ``allow`` runs it;
``ask`` asks the client's user through the client, with a form-mode elicitation: on a connection of the
handshake era as a request to the client during the call; on a 2026-07-28 connection as an
``InputRequiredResult`` that the client answers by calling again with the user's response. That
response counts only for the very call it was asked about: the retry carries a ``request_state`` that
is a keyed hash of the tool's name and parameters, made with a key of this process.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from typing import Any

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent.config import Settings
from agent.mcp.texts import text
from agent.toolkit.base import ToolManifest
from agent.toolkit.runtime import ApprovalGate
from agent.toolkit.schema import ParameterError, coerce_params

ASK_KEY = "riverse-approval"


class McpApproval:
    def __init__(self, settings: Settings, language: str):
        self.settings = settings
        self.language = language
        self._key = secrets.token_bytes(32)

    async def decide(self, ctx: Any, params: Any, manifest: ToolManifest, client: str) -> tuple[str, str] | types.InputRequiredResult:
        """``(answer, reason)`` for the runner's approval gate (``yes`` or ``no``, and why not), or the
        ``InputRequiredResult`` that asks a 2026-07-28 client's user first."""
        try:
            clean = coerce_params(manifest, dict(params.arguments or {}))
        except ParameterError:
            return "no", ""  # the runner refuses the parameters before anything is asked
        if ApprovalGate.from_settings(self.settings.approval).policy(manifest, clean) == "never":
            return "yes", ""
        risk = manifest.risk_of(clean)
        mode = self.settings.mcp.serve.approval
        if mode == "allow":
            return "yes", ""
        if mode == "refuse":
            return "no", text("refused", self.language, name=manifest.name, risk=risk)
        capabilities = ctx.session.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            return "no", text("cannot_ask", self.language, name=manifest.name, risk=risk)
        form = types.ElicitRequestFormParams(message=text("ask", self.language, name=manifest.name, risk=risk,
                                                          params=json.dumps(clean, ensure_ascii=False)[:500]),
                                             requested_schema={"type": "object", "properties": {}})
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return self._answered(params, manifest.name, clean, risk, client, form)
        if not ctx.session.can_send_request:
            return "no", text("cannot_ask", self.language, name=manifest.name, risk=risk)
        try:
            reply = await ctx.session.elicit_form(form.message, form.requested_schema, ctx.request_id)
        except Exception:  # noqa: BLE001 - a client that fails to ask has not approved
            return "no", text("cannot_ask", self.language, name=manifest.name, risk=risk)
        return self._verdict(reply, manifest.name, client)

    def _answered(self, params: Any, name: str, clean: dict[str, Any], risk: str, client: str,
                  form: types.ElicitRequestFormParams) -> tuple[str, str] | types.InputRequiredResult:
        seal = self._seal(name, clean)
        reply = (params.input_responses or {}).get(ASK_KEY)
        if reply is None:
            return types.InputRequiredResult(input_requests={ASK_KEY: types.ElicitRequest(params=form)},
                                             request_state=seal)
        if not hmac.compare_digest(str(params.request_state or ""), seal):
            return "no", text("not_this_call", self.language, name=name)
        return self._verdict(reply, name, client)

    def _verdict(self, reply: Any, name: str, client: str) -> tuple[str, str]:
        if isinstance(reply, types.ElicitResult) and reply.action == "accept":
            return "yes", ""
        return "no", text("declined", self.language, name=name, client=client)

    def _seal(self, name: str, params: dict[str, Any]) -> str:
        message = json.dumps([name, params], ensure_ascii=False, sort_keys=True, default=str).encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()
