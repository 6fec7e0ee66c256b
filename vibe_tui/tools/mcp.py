"""Tools from MCP servers, seen by the model as ``mcp__<server>__<tool>``.

The adapter knows nothing of connections: it is handed a coroutine that calls the tool
on its server (``vibe_tui.mcp`` owns the servers) and turns what comes back into
text the model reads. Results are duck-typed MCP content blocks: text is kept, structured
content is shown as JSON, images, audio and binary resources are described, never
inlined. Everything a server says is untrusted text: views pass it through ``safe()``.

Every MCP call is of kind "exec": whatever a server claims (``readOnlyHint``), the policy
asks unless a rule allows the tool; the hints are only shown in the approval.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from vibe_tui.policy.types import MCP_PREFIX, McpRequest
from vibe_tui.tools.base import ToolContext, ToolError, ToolOutput

MAX_NAME_CHARS = 64  # what OpenAI-style providers accept for a function name
MAX_DESCRIPTION_CHARS = 2000
OUTPUT_CAP = 64 * 1024  # characters, as much as bash keeps of stdout

# (server tool name, arguments) -> the server's CallToolResult
Caller = Callable[[str, dict[str, Any]], Awaitable[Any]]


def safe_name(text: str) -> str:
    """A name part providers accept: letters, digits, '_' and '-', and no '__' inside, so
    ``mcp__<server>__<tool>`` splits back unambiguously."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", text)
    return re.sub(r"_{2,}", "_", cleaned) or "_"


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, cut to the provider limit (a short hash keeps cut names
    apart)."""
    name = f"{MCP_PREFIX}{safe_name(server)}__{safe_name(tool)}"
    if len(name) <= MAX_NAME_CHARS:
        return name
    import hashlib

    digest = hashlib.sha256(name.encode()).hexdigest()[:6]
    return f"{name[:MAX_NAME_CHARS - 7]}_{digest}"


_HINT_WORDS = (  # annotation, said when true, said when false
    ("read_only_hint", "read-only", "may change things"),
    ("destructive_hint", "destructive", "not destructive"),
    ("idempotent_hint", "idempotent", None),
    ("open_world_hint", "reaches outside systems", None),
)


def hints_of(annotations: Any) -> tuple[str, ...]:
    """What the server says of its tool (MCP ``ToolAnnotations``), in words; only what
    it states, since unset hints mean nothing."""
    words = []
    for attribute, when_true, when_false in _HINT_WORDS:
        value = getattr(annotations, attribute, None)
        if value is True:
            words.append(when_true)
        elif value is False and when_false is not None:
            words.append(when_false)
    return tuple(words)


class McpTool:
    """One tool of one MCP server, as the agent loop sees tools."""

    kind = "exec"

    def __init__(self, server: str, tool: str, description: str | None,
                 input_schema: dict[str, Any] | None, caller: Caller,
                 annotations: Any = None, title: str | None = None) -> None:
        self.server = server
        self.tool = tool
        self.name = tool_name(server, tool)
        self.title = title
        self.hints = hints_of(annotations)
        self.parameters = _object_schema(input_schema)
        text = (description or title or tool).strip()
        if len(text) > MAX_DESCRIPTION_CHARS:
            text = text[:MAX_DESCRIPTION_CHARS] + " [...]"
        self.description = f"{text}\n(From the MCP server '{server}'.)"
        self._caller = caller

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> McpRequest:
        if not isinstance(args, dict):
            raise ToolError("the arguments must be a JSON object")
        missing = [key for key in self.parameters.get("required", []) if args.get(key) is None]
        if missing:
            raise ToolError(f"missing required argument(s): {', '.join(map(str, missing))}")
        return McpRequest(tool=self.name, kind="exec", args=args, server=self.server,
                          hints=self.hints)

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        result = await self._caller(self.tool, args)
        text = cap(render_result(result))
        failed = bool(getattr(result, "is_error", False))
        return ToolOutput(text=text or "(the tool returned nothing)", ok=not failed,
                          meta={"mcp_server": self.server, "mcp_tool": self.tool})


def _object_schema(schema: dict[str, Any] | None) -> dict[str, Any]:
    """The server's input schema; providers insist on an object with properties."""
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    fixed = dict(schema)
    fixed.setdefault("type", "object")
    if fixed.get("type") == "object":
        fixed.setdefault("properties", {})
    return fixed


# -- results ---------------------------------------------------------------------------


def render_result(result: Any) -> str:
    """What the model reads of a CallToolResult: its blocks in order, then the structured
    content unless a text block already says the same."""
    blocks = list(getattr(result, "content", None) or [])
    parts = [describe_block(block) for block in blocks]
    structured = getattr(result, "structured_content", None)
    if structured is not None and not _already_in_text(structured, blocks):
        parts.append("structured content:\n" + json.dumps(structured, indent=2,
                                                          ensure_ascii=False, default=str))
    return "\n".join(part for part in parts if part)


def _already_in_text(structured: Any, blocks: list[Any]) -> bool:
    """Servers are asked to send structured content as a text block too; SDK servers wrap
    a plain return value as ``{"result": value}``. Either way, once is enough."""
    candidates = [structured]
    if isinstance(structured, dict) and list(structured) == ["result"]:
        candidates.append(structured["result"])
    for block in blocks:
        if getattr(block, "type", None) != "text":
            continue
        text = str(getattr(block, "text", ""))
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if any(text == c or (parsed is not None and parsed == c) for c in candidates):
            return True
    return False


def describe_block(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        size = _decoded_size(getattr(block, "data", ""))
        return f"[{kind}: {getattr(block, 'mime_type', 'unknown type')}, {_size(size)}]"
    if kind == "resource_link":
        details = [d for d in (getattr(block, "name", None), getattr(block, "mime_type", None),
                               getattr(block, "description", None)) if d]
        return f"[resource link: {block.uri}" + (f" ({'; '.join(details)})]" if details else "]")
    if kind == "resource":
        return _describe_resource(getattr(block, "resource", None))
    return f"[{kind or 'unknown'} content]"


def _describe_resource(resource: Any) -> str:
    uri = getattr(resource, "uri", "?")
    mime = getattr(resource, "mime_type", None)
    text = getattr(resource, "text", None)
    if text is not None:
        return f"[resource {uri}" + (f" ({mime})" if mime else "") + f"]\n{text}"
    size = _decoded_size(getattr(resource, "blob", ""))
    return f"[resource {uri}: {mime or 'binary'}, {_size(size)}, not shown]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data or "", validate=False))
    except (ValueError, TypeError):
        return len(data or "")


def _size(count: int) -> str:
    return f"{count} bytes" if count < 1024 else f"{count / 1024:.1f} KiB"


def cap(text: str, limit: int = OUTPUT_CAP) -> str:
    """The first and last halves of an overlong result, with the cut said."""
    if len(text) <= limit:
        return text
    half = limit // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}\n[... {cut} characters of MCP output cut ...]\n{text[-half:]}"
