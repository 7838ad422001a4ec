"""A repository named as ``owner/name``.

Code-hosting tools (GitHub's, Gitea's, Bitbucket's …) take a repository as two parameters, its owner
and its name, while people write it as one: "acme/webapp". The small model splits it well in English
and less well in a Chinese or Japanese message, where it writes an owner of its own ("myowner"), a word
of the message that is no owner ("LGTM"), or the whole slug as the name. When a tool has an owner and a
repository parameter and the message names a repository so, the owner written is one of the message's
owners and the name is that owner's repository.
"""

from __future__ import annotations

import re
from typing import Any

from agent.toolkit.base import ToolManifest

OWNER_KEY = re.compile(r"(?:repo(?:sitory)?_)?(?:owner|org|organi[sz]ation|workspace|namespace)", re.IGNORECASE)
REPO_KEY = re.compile(r"repo(?:sitory)?(?:_name|_slug)?|name", re.IGNORECASE)
#: owner/name, not part of a longer path or a link ("src/app/main.py", "https://x.org/a/b"), not a date or a fraction
_SLUG = re.compile(r"(?<![\w./:~@-])([A-Za-z0-9][\w.-]{0,38})/([\w.-]{1,100})(?![\w/-])")


def slugs(message: str) -> list[tuple[str, str]]:
    """The ``(owner, name)`` pairs ``message`` names as ``owner/name`` (both with a letter; a name is no file:
    "src/config.py" has an extension)."""
    found = []
    for owner, name in _SLUG.findall(message):
        name = name.rstrip(".")
        if re.search(r"[A-Za-z]", owner) and re.search(r"[A-Za-z]", name) and not re.search(r"\.[a-z]{1,4}$", name):
            found.append((owner, name))
    return found


def repository_keys(manifest: ToolManifest) -> tuple[str, str] | None:
    """The tool's owner and repository parameters, when it has both (the owner's key first)."""
    owner = next((k for k in manifest.parameters if OWNER_KEY.fullmatch(k)), None)
    repo = next((k for k in manifest.parameters if k != owner and REPO_KEY.fullmatch(k)), None)
    if owner is None or repo is None or repo == "name" and "repo" not in manifest.description.casefold():
        return None
    return owner, repo


def slug_part(manifest: ToolManifest, key: str, value: str, written: dict[str, Any], message: str) -> str:
    """``value`` for ``key``, or the part of a repository the message names as ``owner/name`` that the key
    takes, when ``value`` is none of the message's owners (for the owner) or not that owner's name (see the
    module's note)."""
    keys = repository_keys(manifest)
    if keys is None or key not in keys or not (named := slugs(message)):
        return value
    owner_key, _ = keys
    if key == owner_key:
        if any(value == owner for owner, _ in named):
            return value
        whole = [owner for owner, name in named if value in (f"{owner}/{name}", name)]
        return (whole or [named[0][0]])[0]
    owner = str(written.get(owner_key, ""))
    names = [name for who, name in named if who == owner]
    if not names or value in names:
        return value
    return next((name for name in names if value == f"{owner}/{name}"), names[0])
