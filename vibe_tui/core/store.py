"""Session files: one JSONL event log per session, in a per-user folder keyed by workspace.

Beside each ``<id>.jsonl`` may sit its call log, ``<id>.calls.jsonl``; listings skip those.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from vibe_tui.config.paths import data_dir
from vibe_tui.core.calllog import CALL_LOG_SUFFIX
from vibe_tui.core.events import Event, event_from_json

# The event types a listing needs; every other line is skipped without parsing it.
_SUMMARY_TYPES = ("session_started", "turn_started", "model_changed", "mode_changed")


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
    files = [p for p in folder.glob("*.jsonl") if not p.name.endswith(CALL_LOG_SUFFIX)]
    return sorted(files, key=lambda p: p.stat().st_mtime_ns, reverse=True)


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


@dataclass(frozen=True)
class SessionSummary:
    """One line of ``vibe-tui sessions`` and of the ``/resume`` picker."""

    id: str
    path: Path
    started: float  # epoch seconds of the first event
    updated: float  # the file's modification time
    first_prompt: str
    turns: int
    model: str
    mode: str


def session_summaries(workspace: Path) -> list[SessionSummary]:
    """This workspace's sessions, most recently used first. Only the few event types a
    listing needs are parsed, so long sessions list quickly."""
    summaries = []
    for path in list_sessions(workspace):
        try:
            summaries.append(summarise_session(path))
        except OSError:
            continue  # deleted while listing
    return summaries


def summarise_session(path: Path) -> SessionSummary:
    started = first_prompt = model = mode = None
    turns = 0
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            kind = _line_type(line)
            if kind is None:
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line
            started = started if started is not None else data.get("ts")
            if kind == "turn_started":
                turns += 1
                first_prompt = first_prompt if first_prompt is not None else data.get("prompt")
            elif kind in ("session_started", "model_changed"):
                model = data.get("model") or model
            if kind in ("session_started", "mode_changed"):
                mode = data.get("mode") or mode
    stat = path.stat()
    return SessionSummary(id=path.stem, path=path, started=started or stat.st_mtime,
                          updated=stat.st_mtime, first_prompt=first_prompt or "", turns=turns,
                          model=model or "", mode=mode or "default")


def _line_type(line: str) -> str | None:
    """The type of an event line, when it is one a listing needs (events are written with
    their type first)."""
    for kind in _SUMMARY_TYPES:
        if line.startswith(f'{{"type": "{kind}"'):
            return kind
    return None
