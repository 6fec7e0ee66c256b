"""Tool calls a small model wrote as text: part of the model adapter, which turns what the
model answered into calls (it runs on any provider's answer, not only the local model's).

The shapes small coder models write when the server's own parsing misses them: a fenced
block (```json, ```tool_call or no language), Qwen's ``<tool_call>...</tool_call>``, or a
bare JSON object on lines of its own; one call, several, or a list of them; ``arguments``
as an object or as a JSON string, or ``parameters`` instead; the call plain or wrapped as
``{"type": "function", "function": {...}}``.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

_FENCE = re.compile(r"```[ \t]*(?:json|tool_call|tool_code)?[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|\Z)", re.DOTALL)
_LINE_START_JSON = re.compile(r"^[ \t]*([\[{])", re.MULTILINE)
_ANY_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)  # bare JSON is never inside one


@dataclass
class TextCalls:
    kept: str  # the text without the calls taken out of it
    calls: list[dict[str, Any]] = field(default_factory=list)  # OpenAI-shaped
    unknown: list[str] = field(default_factory=list)  # names of call-shaped JSON naming no tool


def _call_shape(value: Any) -> tuple[str, dict[str, Any]] | None:
    """(name, arguments) when ``value`` has the shape of a call, whichever name it gives."""
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        value = value["function"]
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    if "arguments" not in value and "parameters" not in value:
        return None  # {"name": "my-app", "version": ...}: a package.json, not a call
    arguments = value.get("arguments", value.get("parameters"))
    if isinstance(arguments, str):
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments) if arguments.strip() else {}
    return (value["name"], arguments) if isinstance(arguments, dict) else None


def _calls_in(value: Any) -> list[tuple[str, dict[str, Any]]]:
    """The calls a parsed JSON value holds: one call, or a list made only of calls."""
    items = value if isinstance(value, list) and value else [value]
    shapes = [_call_shape(item) for item in items]
    return [shape for shape in shapes if shape is not None] if all(shapes) else []


def _parsed(body: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _candidates(text: str) -> list[tuple[int, int, Any]]:
    """(start, end, parsed JSON) of every place a call may be written, in text order:
    tagged and fenced blocks, then JSON values that start a line outside any block."""
    found = [(m.start(), m.end(), _parsed(m.group(1).strip()))
             for pattern in (_TAGGED, _FENCE) for m in pattern.finditer(text)]
    blocks = [m.span() for m in _ANY_FENCE.finditer(text)] + [candidate[:2] for candidate in found]
    decoder = json.JSONDecoder()
    position = 0
    for match in _LINE_START_JSON.finditer(text):
        start = match.start(1)
        if start < position or any(begin <= start < end for begin, end in blocks):
            continue  # inside a value already read, or in a block
        try:
            value, position = decoder.raw_decode(text, start)
        except ValueError:
            continue
        found.append((start, position, value))
    return sorted(found, key=lambda candidate: candidate[0])


def read_text_calls(text: str, tool_names: set[str] | list[str]) -> TextCalls:
    """Calls to the tools named written into ``text``, taken out of it; call-shaped JSON
    naming no tool stays text, its names in ``unknown``. Any other JSON (a package.json
    shown to the user) stays text. The server's own parsing catches most calls: this is
    the fallback for the ones it misses."""
    names = set(tool_names)
    found: list[tuple[str, dict[str, Any]]] = []
    unknown: list[str] = []
    parts, position = [], 0
    for start, end, value in _candidates(text):
        calls = _calls_in(value)
        strangers = [name for name, _ in calls if name not in names]
        unknown.extend(strangers)
        if start < position or not calls or strangers:
            continue
        found.extend(calls)
        parts.append(text[position:start])
        position = end
    parts.append(text[position:])
    # Ids unique in the session: views key their timeline items by call id.
    calls = [{"id": f"call_{secrets.token_hex(8)}", "type": "function",
              "function": {"name": name, "arguments": json.dumps(arguments)}}
             for name, arguments in found]
    kept = "".join(parts).strip() if calls else text
    return TextCalls(kept, calls, list(dict.fromkeys(unknown)))


def tool_calls_from_text(text: str, tool_names: set[str] | list[str]
                         ) -> tuple[str, list[dict[str, Any]]]:
    """(the text left, the calls): ``read_text_calls`` without its notes."""
    read = read_text_calls(text, tool_names)
    return read.kept, read.calls
