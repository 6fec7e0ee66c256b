"""Checkpoints: each file as it was before a turn first changed it, for ``/rewind``.

Kept beside the session's log (``<session>.checkpoints/``) so they outlive the process:
a resumed session can still be rewound. A manifest line per file and turn says where its
content is (or that it did not exist yet). Nothing is ever committed to git.

A file is kept only when a tool or a command really changed it (``core/undo.py`` compares
before and after), so a refused write leaves no checkpoint. ``/rewind`` first makes a
plan of what differs from the checkpoints now, so a file already back as it was is
neither asked about nor reported.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from vibe_tui.tools.paths import display_path

MANIFEST = "manifest.jsonl"


@dataclass(frozen=True)
class Checkpoint:
    turn_id: int
    rel: str  # workspace-relative path
    blob: str | None  # file name of the kept content; None: the file did not exist


@dataclass(frozen=True)
class RewindStep:
    rel: str
    action: Literal["restore", "remove", "missing"]  # missing: its kept content is gone
    data: bytes | None = None  # what "restore" writes

    def describe(self) -> str:
        return {"restore": f"{self.rel}: restore its earlier content",
                "remove": f"{self.rel}: remove (created later)",
                "missing": f"{self.rel}: cannot be restored (its checkpoint is missing)"
                }[self.action]


class Checkpoints:
    def __init__(self, workspace: Path, folder: Path | None) -> None:
        self.workspace = workspace
        self.folder = folder  # None: a session that is not saved keeps them in memory
        self._kept: list[Checkpoint] = self._read_manifest()
        self._blobs: dict[str, bytes] = {}  # in memory, when there is no folder

    def _read_manifest(self) -> list[Checkpoint]:
        if self.folder is None:
            return []
        try:
            lines = (self.folder / MANIFEST).read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        kept = []
        for line in lines:
            try:
                data = json.loads(line)
                kept.append(Checkpoint(int(data["turn"]), str(data["rel"]), data["blob"]))
            except (ValueError, KeyError, TypeError):
                continue  # a torn last line from a crash
        return kept

    # ---- what the loop calls after a tool or command changed a file ---------------------

    def keep(self, turn_id: int, path: Path, before: bytes | None) -> None:
        """Keep ``before``, the file's content before it changed, unless this turn already
        kept one for it (the first is what the turn started from)."""
        rel = display_path(path, self.workspace)
        if any(c.turn_id == turn_id and c.rel == rel for c in self._kept):
            return
        checkpoint = Checkpoint(turn_id, rel, None if before is None else self._store(before))
        self._kept.append(checkpoint)
        self._append_manifest(checkpoint)

    def _store(self, data: bytes) -> str:
        name = hashlib.sha256(data).hexdigest()
        if self.folder is None:
            self._blobs[name] = data
            return name
        blob = self.folder / "blobs" / name
        if not blob.exists():
            blob.parent.mkdir(parents=True, exist_ok=True)
            scratch = blob.with_suffix(".tmp")
            scratch.write_bytes(data)
            os.replace(scratch, blob)
        return name

    def _append_manifest(self, checkpoint: Checkpoint) -> None:
        if self.folder is None:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"turn": checkpoint.turn_id, "rel": checkpoint.rel,
                           "blob": checkpoint.blob})
        with (self.folder / MANIFEST).open("a", encoding="utf-8") as manifest:
            manifest.write(line + "\n")

    # ---- what /rewind reads and does --------------------------------------------------

    def turns(self) -> dict[int, list[str]]:
        """Turn id -> the files it changed (first time each), oldest turn first."""
        turns: dict[int, list[str]] = {}
        for checkpoint in sorted(self._kept, key=lambda c: c.turn_id):
            turns.setdefault(checkpoint.turn_id, []).append(checkpoint.rel)
        return turns

    def plan(self, turn_id: int) -> list[RewindStep]:
        """What rewinding to before turn ``turn_id`` would do: a step for each file changed
        in that turn or later that is not already as it was before it."""
        earliest: dict[str, Checkpoint] = {}
        for checkpoint in sorted(self._kept, key=lambda c: c.turn_id):
            if checkpoint.turn_id >= turn_id:
                earliest.setdefault(checkpoint.rel, checkpoint)
        steps = []
        for checkpoint in earliest.values():
            current = _read(self.workspace / checkpoint.rel)
            if checkpoint.blob is None:
                if current is not None:
                    steps.append(RewindStep(checkpoint.rel, "remove"))
                continue
            data = self._blob(checkpoint.blob)
            if data is None:
                steps.append(RewindStep(checkpoint.rel, "missing"))
            elif data != current:
                steps.append(RewindStep(checkpoint.rel, "restore", data))
        return steps

    def rewind(self, steps: list[RewindStep]) -> list[str]:
        """Carry out a plan; a line per file."""
        return [self._apply(step) for step in steps]

    def _apply(self, step: RewindStep) -> str:
        path = self.workspace / step.rel
        if step.action == "remove":
            path.unlink(missing_ok=True)
            return f"{step.rel}: removed (created later)"
        if step.action == "missing" or step.data is None:
            return f"{step.rel}: not restored (its checkpoint is missing)"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(step.data)
        return f"{step.rel}: restored"

    def _blob(self, name: str) -> bytes | None:
        if self.folder is None:
            return self._blobs.get(name)
        try:
            return (self.folder / "blobs" / name).read_bytes()
        except FileNotFoundError:
            return None


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
