"""The repeat guard: a hint for a call the model made before with the same arguments.

Small models loop on one call (runs in evals/README.md, "Loop rules and the runs behind
them"); a change to a file makes every earlier call worth trying again. A call that failed three times the same way ends the turn (the loop asks
``failed_three_times``).
"""

from __future__ import annotations

import json
from typing import Any

from vibe_tui.core.events import ResultStatus

REPEAT_HINT = (
    "\n\n[vibe-tui: this exact call already failed with the same arguments. Do not repeat "
    "it: change the arguments or take another approach.]"
)
SAME_CALL_HINT = (
    "\n\n[vibe-tui: you made this exact call before. Unless something changed since, "
    "the result is the same: use it and take the next step.]"
)
STUCK_HINT = (
    "\n\n[vibe-tui: you have made this exact call three times and nothing changed. No more "
    "tools for now: tell the user what you found and what you would do next.]"
)


class RepeatGuard:
    def __init__(self) -> None:
        self._failures: dict[tuple[str, str], int] = {}
        self._calls_made: dict[tuple[str, str], int] = {}  # since the last file change
        self.repeated = False  # the last results answered a repeated call
        self.stuck = False  # the last results answered a call made three times

    def note(self, tool: str, args: dict[str, Any], status: ResultStatus,
             changed_files: bool, reads_only: bool) -> str:
        """The hint to append to this call's result ("" for none)."""
        key = (tool, json.dumps(args, sort_keys=True, default=str))
        if status == "ok" and changed_files:
            self._failures.clear()
            self._calls_made.clear()
        self._calls_made[key] = self._calls_made.get(key, 0) + 1
        if status in ("error", "denied"):
            self._failures[key] = self._failures.get(key, 0) + 1
            if self._failures[key] >= 2:
                self.repeated = True
                return REPEAT_HINT
        elif self._calls_made[key] >= 3 and reads_only:
            # A command may see a change the record does not (a file written by bash);
            # a read that comes back the same three times will not change.
            self.stuck = True
            return STUCK_HINT
        elif self._calls_made[key] >= 2:
            self.repeated = True
            return SAME_CALL_HINT
        return ""

    def failed_three_times(self) -> str | None:
        """The tool of a call that failed three times with the same arguments, if any."""
        for (tool, _), count in self._failures.items():
            if count >= 3:
                return tool
        return None

    def clear_flags(self) -> None:
        self.repeated = self.stuck = False
