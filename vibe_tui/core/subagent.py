"""Read-only sub-agents, behind the ``task`` tool.

A sub-agent starts with an empty history and only the reading tools (read_file, list_dir,
grep, and repo_map where it exists), so it cannot change anything: a write tool it names
is an unknown tool. Its own calls still pass the policy (a deny rule on a path holds for
it too). It makes at most 12 model calls; only its final report becomes the result of the
parent's ``task`` call. Its events go into the same session record, tagged with the
parent call's id, so views nest them under that call; they never enter the main history.
"""

from __future__ import annotations

import dataclasses
import importlib

from vibe_tui.core.context import ContextTracker
from vibe_tui.core.host import LoopHost
from vibe_tui.core.scope import Scope
from vibe_tui.core.prompts import subagent_prompt
from vibe_tui.core.step_mode import helper_loop
from vibe_tui.tools.base import Tool

SUBAGENT_TOOLS = ("read_file", "list_dir", "grep", "repo_map")
MAX_SUBAGENT_CALLS = 12


def subagent_tools(host: LoopHost) -> dict[str, Tool]:
    """The reading tools the session has (repo_map found by module if it is not in the
    session's set); anything that is not of kind "read" is left out whatever its name."""
    tools = {name: host.tools[name] for name in SUBAGENT_TOOLS if name in host.tools}
    if "repo_map" not in tools:
        repo_map = _repo_map_tool()
        if repo_map is not None:
            tools["repo_map"] = repo_map
    return {name: tool for name, tool in tools.items() if tool.kind == "read"}


def _repo_map_tool() -> Tool | None:
    try:
        module = importlib.import_module("vibe_tui.tools.repo_map")
    except ImportError:
        return None
    for value in vars(module).values():
        candidates = value if isinstance(value, list) else [value]
        for candidate in candidates:
            if getattr(candidate, "name", None) == "repo_map" and hasattr(candidate, "run"):
                return candidate
    return None


async def run_subagent(host: LoopHost, turn_id: int, parent_call_id: str,
                       prompt: str) -> str:
    """Run one sub-agent on ``prompt`` and return its report (ToolError when it fails)."""
    # Its own record of files read (edit checks are the parent's business) but the same
    # process registry, so an interrupt stops its searches too.
    tool_context = dataclasses.replace(host.tool_context, read_files={})
    scope = Scope(
        messages=[],
        tools=subagent_tools(host),
        tool_context=tool_context,
        system_prompt=subagent_prompt(host.workspace, MAX_SUBAGENT_CALLS),
        context=ContextTracker(host.config),
        max_steps=MAX_SUBAGENT_CALLS,
        parent_call_id=parent_call_id,
    )
    return await helper_loop(host, turn_id, scope).run_nested(prompt)
