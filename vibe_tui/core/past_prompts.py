"""The prompts the user sent in this workspace's saved sessions, for the prompt's history
search (Ctrl+R).

Only the ``turn_started`` lines are parsed (events are written with their type first), so
a long session file is skimmed rather than read event by event.
"""

from __future__ import annotations

import json
from pathlib import Path

from vibe_tui.core.store import list_sessions

TURN_LINE = '{"type": "turn_started"'
# Enough to reach back weeks; a workspace used for years is not read to its first day.
MAX_SESSION_FILES = 200


def workspace_prompts(workspace: Path) -> list[str]:
    """Prompts of this workspace's sessions, newest first, each once. Runs in a thread."""
    seen: dict[str, None] = {}
    for path in list_sessions(workspace)[:MAX_SESSION_FILES]:
        try:
            prompts = session_prompts(path)
        except OSError:
            continue  # deleted or unreadable meanwhile: the others still count
        for prompt in reversed(prompts):
            seen.setdefault(prompt, None)
    return list(seen)


def session_prompts(path: Path) -> list[str]:
    """The prompts that started the turns of one session file, oldest first."""
    prompts = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if not line.startswith(TURN_LINE):
                continue
            try:
                prompt = json.loads(line).get("prompt")
            except json.JSONDecodeError:
                continue  # a torn last line
            if isinstance(prompt, str) and prompt.strip():
                prompts.append(prompt)
    return prompts
