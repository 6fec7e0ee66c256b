"""Rendered repo maps on disk, so a new session on an unchanged repository skips the
ranking as well as the parsing.

A map is kept under a digest of everything it depends on: every file's (path, mtime,
size), the focus and the token budget. Only the last few maps of a workspace are kept,
in one small JSON file replaced whole, so a torn write loses at most the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vibe_tui.code.tag_cache import cache_file

MAPS_KEPT = 8
FORMAT_VERSION = 1


def map_key(stamp: Iterable[tuple[str, int, int]], focus_files: Iterable[str],
            focus_idents: Iterable[str], max_tokens: int) -> str:
    digest = hashlib.sha256(f"v{FORMAT_VERSION}\0{max_tokens}".encode())
    for rel, mtime_ns, size in stamp:
        digest.update(f"\0{rel}\0{mtime_ns}\0{size}".encode("utf-8", "surrogatepass"))
    for name in (*sorted(focus_files), "\1", *sorted(focus_idents)):
        digest.update(f"\0{name}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _maps_file(workspace: Path, root: Path | None) -> Path:
    tags_file = cache_file(workspace, root)
    return tags_file.parent.parent / "maps" / (tags_file.stem + ".json")


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cached_map(workspace: Path, key: str, root: Path | None = None) -> dict[str, Any] | None:
    found = _read(_maps_file(workspace, root)).get(key)
    return found if isinstance(found, dict) and isinstance(found.get("text"), str) else None


def store_map(workspace: Path, key: str, figures: dict[str, Any],
              root: Path | None = None) -> None:
    """Keep ``figures`` (the map's text and counts) under ``key``; best effort: a
    read-only cache folder only costs the next session the ranking."""
    path = _maps_file(workspace, root)
    maps = _read(path)
    maps.pop(key, None)
    maps[key] = figures
    while len(maps) > MAPS_KEPT:
        maps.pop(next(iter(maps)))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent,
                                         delete=False, suffix=".tmp") as scratch:
            json.dump(maps, scratch)
        os.replace(scratch.name, path)
    except OSError:
        pass
