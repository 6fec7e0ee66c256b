"""The policy: pure allow / ask / deny decisions for tool calls.

No views, no model: (request, mode, rules, grants) -> Decision. The one look at the disk
is resolving symbolic links among a command's path words (see ``decide``), because a link
in the workspace can point anywhere.
"""

from vibe_tui.policy.decide import decide
from vibe_tui.policy.rules import Rule, parse_rule, rule_matches
from vibe_tui.policy.shell import CommandAnalysis, analyse_command
from vibe_tui.policy.types import MODES, Decision, Mode, PolicyContext

__all__ = [
    "MODES",
    "CommandAnalysis",
    "Decision",
    "Mode",
    "PolicyContext",
    "Rule",
    "analyse_command",
    "decide",
    "parse_rule",
    "rule_matches",
]
