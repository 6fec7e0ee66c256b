"""The repo map: a repository's most relevant definitions, within a token budget.

Each file's tags (definitions, and the names it references) come from ``tags.py``
through the on-disk cache; ``map_rank`` ranks the files and their definitions (PageRank
over the graph of which file uses a name another defines, personalised towards the
focus). Definitions named in the focus come first.

The map lists the best definitions under file headings: the signature line of each with
its line number (as read_file numbers lines), with the class or namespace around a
shown method as context. How many definitions fit is found by binary search over the
ranked list, measuring each rendering with ``count_tokens``.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from vibe_tui.code.map_cache import cached_map, map_key, store_map
from vibe_tui.code.map_rank import rank
from vibe_tui.code.tag_cache import TagCache
from vibe_tui.code.tags import Definition, FileTags, extract_tags

DEFAULT_MAX_TOKENS = 1024
# Past this a file is generated data (a parser table, a bundle), not code to navigate.
MAX_FILE_BYTES = 1024 * 1024
BINARY_PROBE_BYTES = 8192

@dataclass(frozen=True)
class RepoMap:
    text: str
    tokens: int  # by count_tokens
    files_total: int  # source files considered
    files_parsed: int  # of those, parsed now rather than taken from the cache
    files_shown: int
    definitions_shown: int


def count_tokens(text: str) -> int:
    """LiteLLM's count when the process has already imported it (the app has, after
    its first frame), else about four characters a token. The map never imports
    litellm itself: that costs seconds."""
    litellm = sys.modules.get("litellm")
    counter = getattr(litellm, "token_counter", None)
    if counter is not None:
        try:
            return counter(text=text)
        except Exception:  # any failure in an optional nicety falls back to the estimate
            pass
    return (len(text) + 3) // 4


def make_repo_map(
    workspace: Path,
    files: Iterable[str],
    focus_files: Iterable[str] = (),
    focus_idents: Iterable[str] = (),
    max_tokens: int = DEFAULT_MAX_TOKENS,
    cache_root: Path | None = None,
) -> RepoMap:
    """The map of ``files`` (workspace-relative POSIX paths). Blocking: run it in a thread.
    A map made before from the same files (unchanged), focus and budget is read back from
    disk: a new session pays for the file listing and a stat of each file, nothing more."""
    stats = stat_files(workspace, list(files))
    focus_idents = frozenset(focus_idents)
    on_disk = map_key([(rel, mtime, size) for rel, mtime, size in stats],
                      {rel for rel in focus_files}, focus_idents, max_tokens)
    found = cached_map(workspace, on_disk, cache_root)
    if found is not None:
        try:
            return RepoMap(found["text"], found["tokens"], found["files_total"], 0,
                           found["files_shown"], found["definitions_shown"])
        except KeyError:
            pass  # written by another version: make it anew
    result = _make_repo_map(workspace, stats, focus_files, focus_idents, max_tokens, cache_root)
    store_map(workspace, on_disk, {"text": result.text, "tokens": result.tokens,
                                   "files_total": result.files_total,
                                   "files_shown": result.files_shown,
                                   "definitions_shown": result.definitions_shown}, cache_root)
    return result


def _make_repo_map(workspace: Path, stats: list[tuple[str, int, int]],
                   focus_files: Iterable[str], focus_idents: frozenset[str], max_tokens: int,
                   cache_root: Path | None) -> RepoMap:
    loaded = load_tags(workspace, stats, cache_root)
    tags = loaded.tags
    focus_files = frozenset(rel for rel in focus_files if rel in tags)
    key = (str(workspace), loaded.stamp, focus_files, focus_idents)
    ranked = _recent_rankings.get(key)
    if ranked is None:
        ranked = _recent_rankings.put(key, rank(tags, focus_files, focus_idents))
    header = _header(len(tags), bool(focus_files or focus_idents))
    text, shown = fit_to_budget(ranked, tags, header, max_tokens)
    files_shown = len({rel for rel, _ in shown})
    definitions_shown = sum(1 for _, definition in shown if definition is not None)
    return RepoMap(text, count_tokens(text), len(tags), loaded.parsed, files_shown, definitions_shown)


class _RecentRankings:
    """The last few rankings, by the files' stamps and the focus: asked again for an
    unchanged repository (the same focus, another budget), the map skips the graph."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[tuple, list] = OrderedDict()
        self._lock = threading.Lock()  # maps run in worker threads

    def get(self, key: tuple) -> list | None:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: tuple, ranked: list) -> list:
        with self._lock:
            self._entries[key] = ranked
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
        return ranked


_recent_rankings = _RecentRankings(size=4)


def _header(files: int, focused: bool) -> str:
    order = "closest to the focus first" if focused else "most referenced first"
    return f"Repo map of {files} source files ({order}; line numbers as read_file shows them):\n"


# ---------------------------------------------------------------- tags of every file


@dataclass(frozen=True)
class LoadedTags:
    tags: dict[str, FileTags]  # files with at least one tag, by workspace-relative path
    parsed: int  # files parsed now rather than taken from the cache
    stamp: tuple  # (path, mtime_ns, size) of every file: equal stamps, equal tags


def stat_files(workspace: Path, files: list[str]) -> list[tuple[str, int, int]]:
    """(path, mtime_ns, size) of each file that exists and is not too big to map."""
    stats = []
    for rel in files:
        try:
            info = os.stat(os.path.join(workspace, rel))
        except OSError:
            continue
        if info.st_size <= MAX_FILE_BYTES:
            stats.append((rel, info.st_mtime_ns, info.st_size))
    return stats


def load_tags(workspace: Path, stats: list[tuple[str, int, int]],
              cache_root: Path | None = None) -> LoadedTags:
    """Tags by file (``stats`` from ``stat_files``), from the cache where the file is
    unchanged. Files that cannot be read, or are binary, are left out."""
    tags: dict[str, FileTags] = {}
    stamp: list[tuple[str, int, int]] = []
    parsed = 0
    with TagCache(workspace, cache_root) as cache:
        for rel, mtime_ns, size in stats:
            found = cache.get(rel, mtime_ns, size)
            if found is None:
                found = _parse(os.path.join(workspace, rel), rel)
                parsed += 1
                if found is None:
                    continue  # unreadable now; may be readable next time, so not cached
                cache.put(rel, mtime_ns, size, found)
            stamp.append((rel, mtime_ns, size))
            if found.definitions or found.references:
                tags[rel] = found
    return LoadedTags(tags, parsed, tuple(stamp))


def _parse(path: str, rel: str) -> FileTags | None:
    try:
        with open(path, "rb") as handle:
            source = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if b"\0" in source[:BINARY_PROBE_BYTES]:
        return FileTags()  # binary: cached as empty, so it is not read again
    return extract_tags(rel, source) or FileTags()


# ---------------------------------------------------------------- rendering


def fit_to_budget(
    ranked: list[tuple[str, Definition | None]],
    tags: dict[str, FileTags],
    header: str,
    max_tokens: int,
) -> tuple[str, list[tuple[str, Definition | None]]]:
    """The longest prefix of ``ranked`` whose rendering fits ``max_tokens``, rendered,
    by binary search (more entries never render shorter). Only the header if not even
    one entry fits; "" if not even that does."""
    low, high = 0, min(len(ranked), max(0, max_tokens))  # every entry costs a token or more
    best = header if count_tokens(header) <= max_tokens else ""
    if not best:
        return "", []
    best_count = 0
    while low < high:
        middle = (low + high + 1) // 2
        text = render(ranked[:middle], tags, header)
        if count_tokens(text) <= max_tokens:
            low, best, best_count = middle, text, middle
        else:
            high = middle - 1
    return best, ranked[:best_count]


def render(entries: list[tuple[str, Definition | None]], tags: dict[str, FileTags], header: str) -> str:
    """File headings in rank order, each followed by its chosen definitions in line
    order (with what encloses them); files listed without definitions at the end."""
    chosen: dict[str, list[Definition]] = {}
    bare: list[str] = []
    for rel, definition in entries:
        if definition is None:
            bare.append(rel)
        else:
            chosen.setdefault(rel, []).append(definition)
    blocks = [_file_block(rel, definitions, tags[rel].definitions) for rel, definitions in chosen.items()]
    if bare:
        blocks.append("\n".join(bare))
    return header + "\n" + "\n\n".join(blocks) + "\n" if blocks else header


def _file_block(rel: str, chosen: list[Definition], all_definitions: tuple[Definition, ...]) -> str:
    shown = set(chosen)
    for definition in chosen:
        shown.update(_enclosing(definition, all_definitions))
    lines = [f"{d.line:>6}\t{d.signature}" for d in sorted(shown, key=lambda d: (d.line, d.start))]
    return f"{rel}:\n" + "\n".join(lines)


def _enclosing(inner: Definition, definitions: tuple[Definition, ...]) -> list[Definition]:
    """The definitions around ``inner`` (its class, its namespace), so a method is not
    shown without the class it belongs to."""
    return [
        outer
        for outer in definitions
        if outer.start <= inner.start and outer.end >= inner.end and outer is not inner and outer.line < inner.line
    ]
