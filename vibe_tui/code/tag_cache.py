"""Tags kept on disk, so a second map of an unchanged repository parses nothing.

One SQLite file per workspace in the user cache folder (``$VIBE_TUI_HOME/cache`` when
that is set, else the platform's cache folder for vibe-tui). A row holds one file's tags
as JSON, valid while the file's size and modification time are those it had when it was
parsed. JSON rather than pickle: loading a cache must never run code, whoever wrote it.

The cache is only ever a shortcut: a locked, corrupt or unwritable database means the
tags are parsed again, never that the map fails.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path

from vibe_tui.code.tags import Definition, FileTags

# Part of the file name: bump it when tags change shape or the queries change what
# they find, and old caches are simply left behind.
CACHE_VERSION = 1
_BUSY_TIMEOUT_S = 2.0
_SCHEMA = """
CREATE TABLE IF NOT EXISTS tags (
    path TEXT PRIMARY KEY,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    data TEXT NOT NULL
)
"""


def cache_root() -> Path:
    """The user cache folder of vibe-tui. ($VIBE_TUI_HOME is read here rather than
    through vibe_tui.config, which would bring the policy package into this layer.)"""
    override = os.environ.get("VIBE_TUI_HOME")
    if override:
        return Path(override) / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir("vibe-tui"))


def cache_file(workspace: Path, root: Path | None = None) -> Path:
    """The database of one workspace: named after its folder (for people looking in
    the cache) and a digest of its full path (so two checkouts never share one)."""
    resolved = workspace.resolve()
    digest = hashlib.sha256(str(resolved).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = f"{resolved.name or 'root'}-{digest}-v{CACHE_VERSION}.sqlite3"
    return (root or cache_root()) / "tags" / name


class TagCache:
    """Tags by workspace-relative path, read in one query when opened and written in
    one transaction when closed. Use as a context manager, from one thread."""

    # Decoded tags by database path, kept for the life of the process: a session maps
    # the same workspace again and again, and decoding thousands of rows is most of the
    # cost of a warm map. Whole dicts are swapped in and out, so threads may share it.
    _memory: dict[Path, dict[str, tuple[int, int, FileTags]]] = {}

    def __init__(self, workspace: Path, root: Path | None = None) -> None:
        self.path = cache_file(workspace, root)
        self._rows: dict[str, tuple[int, int, str]] = {}
        self._decoded: dict[str, tuple[int, int, FileTags]] = {}
        self._writes: list[tuple[str, int, int, str]] = []
        self._seen: set[str] = set()

    def __enter__(self) -> TagCache:
        remembered = TagCache._memory.get(self.path)
        if remembered is not None and self.path.exists():
            self._decoded = dict(remembered)
        else:
            self._rows = self._read_all()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._write_changes()
        TagCache._memory[self.path] = {rel: self._decoded[rel] for rel in self._seen if rel in self._decoded}

    @classmethod
    def forget_remembered(cls) -> None:
        """Drop the tags this process keeps in memory; the next map reads the database."""
        cls._memory.clear()

    def get(self, rel: str, mtime_ns: int, size: int) -> FileTags | None:
        """The cached tags of a file, if it has not changed since they were stored."""
        self._seen.add(rel)
        decoded = self._decoded.get(rel)
        if decoded is not None:
            return decoded[2] if decoded[:2] == (mtime_ns, size) else None
        row = self._rows.get(rel)
        if row is None or row[0] != mtime_ns or row[1] != size:
            return None
        try:
            tags = _decode(row[2])
        except (ValueError, TypeError, KeyError):  # a row from a buggy or foreign writer
            return None
        self._decoded[rel] = (mtime_ns, size, tags)
        return tags

    def put(self, rel: str, mtime_ns: int, size: int, tags: FileTags) -> None:
        self._seen.add(rel)
        self._decoded[rel] = (mtime_ns, size, tags)
        self._writes.append((rel, mtime_ns, size, _encode(tags)))

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S)
        connection.execute(_SCHEMA)
        return connection

    def _read_all(self) -> dict[str, tuple[int, int, str]]:
        if not self.path.exists():
            return {}
        try:
            connection = self._connect()
            try:
                rows = connection.execute("SELECT path, mtime_ns, size, data FROM tags").fetchall()
            finally:
                connection.close()
        except sqlite3.DatabaseError:
            self._discard_corrupt()
            return {}
        except (sqlite3.Error, OSError):
            return {}
        return {path: (mtime_ns, size, data) for path, mtime_ns, size, data in rows}

    def _discard_corrupt(self) -> None:
        # Not a database any more (a crash mid-write on a filesystem without locking,
        # a stray file): start again rather than fail every map from now on.
        try:
            self.path.unlink()
        except OSError:
            pass

    def _write_changes(self) -> None:
        gone = [(rel,) for rel in {*self._rows, *self._decoded} if rel not in self._seen]
        if not self._writes and not gone:
            return
        try:
            connection = self._connect()
            try:
                with connection:
                    connection.executemany("INSERT OR REPLACE INTO tags VALUES (?, ?, ?, ?)", self._writes)
                    connection.executemany("DELETE FROM tags WHERE path = ?", gone)
            finally:
                connection.close()
        except (sqlite3.Error, OSError):
            pass  # a read-only or locked cache: the next map parses these files again
        self._writes.clear()


def _encode(tags: FileTags) -> str:
    return json.dumps([tags.definitions, tags.references], ensure_ascii=False, separators=(",", ":"))


def _decode(data: str) -> FileTags:
    definitions, references = json.loads(data)
    return FileTags(tuple(map(Definition._make, definitions)), references)
