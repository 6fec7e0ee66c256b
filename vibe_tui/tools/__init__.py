"""The tools the model can call; one module per tool family."""

from __future__ import annotations

from vibe_tui.tools.base import Tool


def default_tools() -> list[Tool]:
    """Every built-in tool, in the order the model sees them. bash comes before the
    interactive tools: with them first, the local 1.5B model ran its tests through
    interactive_start (evals/README.md has the scores before and after)."""
    from vibe_tui.tools.files import FILE_TOOLS
    from vibe_tui.tools.interactive import INTERACTIVE_TOOLS
    from vibe_tui.tools.repo_map import REPO_MAP_TOOLS
    from vibe_tui.tools.search import SEARCH_TOOLS
    from vibe_tui.tools.shell import SHELL_TOOLS

    return [*FILE_TOOLS, *SEARCH_TOOLS, *REPO_MAP_TOOLS, *SHELL_TOOLS, *INTERACTIVE_TOOLS]
