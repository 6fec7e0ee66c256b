"""The tools the model can call; one module per tool family."""

from __future__ import annotations

from vibe_tui.tools.base import Tool


def default_tools() -> list[Tool]:
    """Every built-in tool, in the order the model sees them. bash comes before the
    interactive tools: a small model reaches for the first tool that can run something,
    and tests belong in bash (evals/README.md, "Stories behind the tools")."""
    from vibe_tui.tools.files import FILE_TOOLS
    from vibe_tui.tools.interactive import INTERACTIVE_TOOLS
    from vibe_tui.tools.repo_map import REPO_MAP_TOOLS
    from vibe_tui.tools.search import SEARCH_TOOLS
    from vibe_tui.tools.shell import SHELL_TOOLS
    from vibe_tui.tools.todo import TODO_TOOLS

    return [*FILE_TOOLS, *SEARCH_TOOLS, *REPO_MAP_TOOLS, *SHELL_TOOLS, *INTERACTIVE_TOOLS,
            *TODO_TOOLS]
