"""Tool calls a small model wrote as text: part of the model adapter, which turns what the
model answered into calls (it runs on any provider's answer, not only the local model's)."""

from __future__ import annotations

import contextlib
import json
import re
import secrets
from typing import Any

_FENCE = re.compile(r"```(json|tool_call)?[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)


def _call_in(body: str, tool_names: set[str]) -> tuple[str, dict[str, Any]] | None:
    """(name, arguments) when ``body`` is exactly {"name": <a known tool>, "arguments": {..}}."""
    try:
        value = json.loads(body)
    except ValueError:
        return None
    if not isinstance(value, dict) or value.get("name") not in tool_names:
        return None
    arguments = value.get("arguments", value.get("parameters"))
    if isinstance(arguments, str):
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments)
    return (value["name"], arguments) if isinstance(arguments, dict) else None


def tool_calls_from_text(text: str, tool_names: set[str] | list[str]
                         ) -> tuple[str, list[dict[str, Any]]]:
    """Tool calls a small model wrote into its answer instead of the call format: fenced
    ```json / ```tool_call blocks (or the whole answer) holding exactly
    {"name": <one of tool_names>, "arguments": {...}}. Returns the text without those
    blocks and OpenAI-shaped calls; any other JSON (a package.json shown to the user)
    stays text. The server's own parsing catches most calls: this is the fallback for
    the ones it misses (the 0.5B model writes ```json now and then)."""
    names = set(tool_names)
    whole = _call_in(text.strip(), names) if text.strip().startswith("{") else None
    found = [whole] if whole else []
    kept = "" if whole else text
    if not whole:
        def take(match: re.Match) -> str:
            call = _call_in(match.group(2).strip(), names)
            if call is None:
                return match.group(0)
            found.append(call)
            return ""

        kept = _FENCE.sub(take, text).strip()
    # Ids unique in the session: views key their timeline items by call id.
    calls = [{"id": f"call_{secrets.token_hex(8)}", "type": "function",
              "function": {"name": name, "arguments": json.dumps(arguments)}}
             for name, arguments in found]
    return kept, calls
