"""The policy: pure allow / ask / deny decisions for tool calls.

No views, no model: (request, mode, rules, grants) -> Decision. The one look at the disk
is resolving symbolic links among a command's path words (see ``decide``), because a link
in the workspace can point anywhere.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from vibe_tui.policy.types import MODES, Decision, Mode, PolicyContext

if TYPE_CHECKING:
    from vibe_tui.policy.rules import Rule, parse_rule, rule_matches
    from vibe_tui.policy.shell.analysis import CommandAnalysis, analyse_command

# The shell parser loads tree-sitter and pathspec: only when a decision is first needed,
# not when the app starts (vibe_tui.policy.types is all the start-up path reads).
# ``decide`` is imported from vibe_tui.policy.decide: here its name is the submodule's.
_LAZY = {"Rule": "rules", "parse_rule": "rules",
         "rule_matches": "rules", "CommandAnalysis": "shell.analysis",
         "analyse_command": "shell.analysis"}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"vibe_tui.policy.{_LAZY[name]}"), name)

__all__ = [
    "MODES",
    "CommandAnalysis",
    "Decision",
    "Mode",
    "PolicyContext",
    "Rule",
    "analyse_command",
    "parse_rule",
    "rule_matches",
]
