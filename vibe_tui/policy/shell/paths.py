"""Which words of a command name files, and which of those leave the workspace."""

from __future__ import annotations

from vibe_tui.policy import operands
from vibe_tui.policy.shell.sed import parse_sed_args


def reaches_outside(value: str) -> bool:
    """Absolute paths, ~, and .. leave the workspace; .* can match .. in older bash."""
    if value.startswith("--"):
        value = value.split("=", 1)[1] if "=" in value else ""
    elif value.startswith("-"):
        value = value[2:]  # -f/etc/passwd: a short option with its value attached
    if value.startswith(("/", "~")) or "=~" in value or ":~" in value:
        return True
    for part in value.replace("=", "/").replace(":", "/").split("/"):
        if part == ".." or (part.startswith(".") and any(c in part for c in "*?[")):
            return True
    return False


def path_words(name: str, args: list[str]) -> list[str]:
    """The arguments of a command that may name files, as operands.path_words reads them
    (not echo's text, grep's pattern or head's count), and sed's files (not its script):
    so `grep -rn /api/ src` and `sed -n '/x/p' f` stay inside."""
    if name == "sed":
        parsed = parse_sed_args(args)
        return parsed[1] if parsed is not None else args
    return operands.path_words(name, args)
