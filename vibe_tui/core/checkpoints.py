"""Checkpoints: each file as it was before a turn first changed it, for ``/rewind``.

Kept beside the session's log (``<session>.checkpoints/``) so they outlive the process:
a resumed session can still be rewound. A manifest line per file and turn says where its
content is (or that it did not exist yet). Nothing is ever committed to git.

Only the agent's file tools are seen: what a shell command writes is not checkpointed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from vibe_tui.tools.paths import display_path

MANIFEST = "manifest.jsonl"


@dataclass(frozen=True)
class Checkpoint:
    turn_id: int
    rel: str  # workspace-relative path
    blob: str | None  # file name of the kept content; None: the file did not exist


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

    # ---- what the loop calls before an edit ------------------------------------------

    def keep(self, turn_id: int, paths: Iterable[Path]) -> None:
        """Keep each file's content unless this turn already kept it."""
        done = {c.rel for c in self._kept if c.turn_id == turn_id}
        for path in paths:
            rel = display_path(path, self.workspace)
            if rel in done:
                continue
            done.add(rel)
            checkpoint = Checkpoint(turn_id, rel, self._store(path))
            self._kept.append(checkpoint)
            self._append_manifest(checkpoint)

    def _store(self, path: Path) -> str | None:
        try:
            data = path.read_bytes()
        except (FileNotFoundError, IsADirectoryError):
            return None
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

    def rewind(self, turn_id: int) -> list[str]:
        """Put every file changed in turn ``turn_id`` or later back as it was before that
        turn; returns a line per file. Files created since are removed."""
        earliest: dict[str, Checkpoint] = {}
        for checkpoint in sorted(self._kept, key=lambda c: c.turn_id):
            if checkpoint.turn_id >= turn_id:
                earliest.setdefault(checkpoint.rel, checkpoint)
        return [self._restore(checkpoint) for checkpoint in earliest.values()]

    def _restore(self, checkpoint: Checkpoint) -> str:
        path = self.workspace / checkpoint.rel
        if checkpoint.blob is None:
            path.unlink(missing_ok=True)
            return f"{checkpoint.rel}: removed (created later)"
        data = self._blob(checkpoint.blob)
        if data is None:
            return f"{checkpoint.rel}: not restored (its checkpoint is missing)"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return f"{checkpoint.rel}: restored"

    def _blob(self, name: str) -> bytes | None:
        if self.folder is None:
            return self._blobs.get(name)
        try:
            return (self.folder / "blobs" / name).read_bytes()
        except FileNotFoundError:
            return None
