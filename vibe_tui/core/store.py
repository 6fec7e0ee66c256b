"""Session files: one JSONL event log per session, in a per-user folder keyed by workspace."""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from pathlib import Path
from typing import IO

from vibe_tui.config import data_dir
from vibe_tui.core.events import Event, event_from_json


def workspace_folder(workspace: Path) -> Path:
    resolved = workspace.resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in resolved.name) or "root"
    return data_dir() / "sessions" / f"{name}-{digest}"


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


class SessionStore:
    """Appends each event as one JSON line, flushed at once, so a crash loses nothing."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: IO[str] | None = None

    @classmethod
    def create(cls, workspace: Path, session_id: str) -> SessionStore:
        folder = workspace_folder(workspace)
        folder.mkdir(parents=True, exist_ok=True)
        return cls(folder / f"{session_id}.jsonl")

    def append(self, event: Event) -> None:
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("a", encoding="utf-8")
        self._handle.write(event.dumps() + "\n")
        self._handle.flush()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def read_events(path: Path) -> list[Event]:
    """Every event of a session file; a torn last line (a crash mid-write) is skipped."""
    events: list[Event] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            line = line.strip()
            if not line:
                continue
            try:
                events.append(event_from_json(json.loads(line)))
            except (json.JSONDecodeError, KeyError, TypeError):
                continue
    return events


def list_sessions(workspace: Path) -> list[Path]:
    """This workspace's session files, newest first."""
    folder = workspace_folder(workspace)
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns, reverse=True)


def find_session(workspace: Path, session_id: str | None) -> Path:
    """The file of ``session_id`` (a unique prefix will do), or the newest when None."""
    sessions = list_sessions(workspace)
    if not sessions:
        raise LookupError(f"no saved sessions for {workspace.resolve()}")
    if session_id is None:
        return sessions[0]
    matches = [p for p in sessions if p.stem.startswith(session_id)]
    if len(matches) != 1:
        found = "no" if not matches else f"{len(matches)}"
        raise LookupError(f"{found} sessions match '{session_id}' in {workspace.resolve()}")
    return matches[0]
