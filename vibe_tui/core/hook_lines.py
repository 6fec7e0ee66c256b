"""How a hook's run reads in the views (the terminal, headless ``-p``); kept apart from
``core/hooks.py`` so a view draws it without importing what runs commands."""

from __future__ import annotations

from vibe_tui.core import events as ev


HOOK_OUTCOMES = {"ok": "ran", "blocked": "blocked", "failed": "failed",
                 "timeout": "timed out"}


def hook_line(event: ev.HookRan, limit: int = 160) -> str:
    """One line for the views: which hook, for what, how it ended and why."""
    command = event.command.strip().splitlines()[0] if event.command.strip() else ""
    command = command if len(command) <= 40 else command[:39] + "…"
    target = f" {event.tool}" if event.tool else ""
    line = (f"hook {event.hook_event}{target} ({command}): "
            f"{HOOK_OUTCOMES.get(event.status, event.status)}")
    if event.reason:
        line += f": {' '.join(event.reason.split())}"
    if event.context:
        line += " · added context"
    return line if len(line) <= limit else line[:limit - 1] + "…"


def worth_a_line(event: ev.HookRan) -> bool:
    """Whether the conversation shows it (the timeline shows every hook): a hook that
    blocked, failed, timed out, asked, said something or added context."""
    return event.status != "ok" or bool(event.reason or event.context)
