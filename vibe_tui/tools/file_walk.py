"""Which files a search sees: the walk and the ignore rules that grep, the repo map and
the hints for a missing path share.

``.gitignore`` files count at every level (via pathspec), hidden entries and ``.git`` are
skipped, symlinks and special files are skipped, an optional glob filters, and a cap
bounds the list. Paths are workspace-relative POSIX strings: pathlib costs more per entry
than the rest of the walk together.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from pathspec import GitIgnoreSpec

MAX_FILES = 5_000


@dataclass(frozen=True)
class IgnoreRules:
    """The ``.gitignore`` files in force in one folder, outermost first, each with the
    folder it sits in as a prefix ("" or "pkg/") of workspace-relative paths."""

    workspace: str
    rules: tuple[tuple[str, GitIgnoreSpec], ...] = ()

    def entering(self, rel_dir: str) -> IgnoreRules:
        spec = _load_gitignore(os.path.join(self.workspace, rel_dir, ".gitignore"))
        if spec is None:
            return self
        prefix = f"{rel_dir}/" if rel_dir else ""
        return replace(self, rules=self.rules + ((prefix, spec),))

    def ignored(self, rel: str, is_dir: bool) -> bool:
        # Deeper files take precedence, and within a file the last matching line wins,
        # which check_file reports (include is None when no line matched at all).
        suffix = "/" if is_dir else ""
        for prefix, spec in reversed(self.rules):
            verdict = spec.check_file(rel[len(prefix) :] + suffix).include
            if verdict is not None:
                return verdict
        return False


def _load_gitignore(path: str) -> GitIgnoreSpec | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return GitIgnoreSpec.from_lines(handle.read().splitlines())
    except OSError:
        return None


def _rules_for(root_rel: str, workspace: str) -> IgnoreRules:
    """Rules in force in the search root, including those of the folders above it
    (``*.log`` in the workspace's .gitignore still applies when searching ``src/``)."""
    rules = IgnoreRules(workspace)
    parts = root_rel.split("/") if root_rel else []
    for depth in range(len(parts) + 1):
        rules = rules.entering("/".join(parts[:depth]))
    return rules


@dataclass
class FileSelection:
    files: list[str]  # workspace-relative, in output order
    truncated: bool  # more than ``cap`` files would have been searched
    cap: int = MAX_FILES  # the file cap in force when the selection was made


def select_files(root: Path, workspace: Path, glob: str | None) -> FileSelection:
    """Files to search under ``root``. An explicit file is searched whatever the ignore
    rules say, as ripgrep does; ``glob`` applies to paths relative to ``root``."""
    root_rel = root.relative_to(workspace).as_posix()
    root_rel = "" if root_rel == "." else root_rel
    if not root.is_dir():
        return FileSelection([root_rel], False, MAX_FILES)
    pattern = glob_spec(glob) if glob else None
    skip = len(root_rel) + 1 if root_rel else 0
    files: list[str] = []
    for rel in _walk(str(workspace), root_rel, _rules_for(root_rel, str(workspace))):
        if pattern is None or pattern.match_file(rel[skip:]):
            if len(files) == MAX_FILES:
                return FileSelection(files, True, MAX_FILES)
            files.append(rel)
    return FileSelection(files, False, MAX_FILES)


def glob_spec(glob: str) -> GitIgnoreSpec:
    """A glob as a gitignore line: no slash matches the name at any depth, a slash
    anchors it to the search root, ``**`` spans folders. ``!glob`` excludes instead."""
    return GitIgnoreSpec.from_lines(["*", glob] if glob.startswith("!") else [glob])


def _walk(workspace: str, root_rel: str, rules: IgnoreRules) -> Iterator[str]:
    """Depth-first with entries sorted by name, which is the order of sorting paths by
    their components (``a/b`` before ``a.txt``): the order results are shown in. A stack
    of iterators instead of recursion, so deep trees cannot hit the recursion limit."""
    stack = [(iter(_sorted_entries(os.path.join(workspace, root_rel))), root_rel, rules)]
    while stack:
        entries, dir_rel, rules = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
            continue
        if entry.name.startswith(".") or entry.is_symlink():
            continue  # hidden (includes .git), or a link that may lead anywhere
        rel = f"{dir_rel}/{entry.name}" if dir_rel else entry.name
        if entry.is_dir(follow_symlinks=False):
            if not rules.ignored(rel, True):
                stack.append((iter(_sorted_entries(entry.path)), rel, rules.entering(rel)))
        elif _is_regular(entry) and not rules.ignored(rel, False):
            yield rel


def _sorted_entries(directory: str) -> list[os.DirEntry]:
    try:
        with os.scandir(directory) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:  # unreadable folder: skip it, as ripgrep would
        return []


def _is_regular(entry: os.DirEntry) -> bool:
    # Never open FIFOs or devices: reading one could block forever.
    try:
        return stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode)
    except OSError:
        return False


def path_order(rel: str) -> tuple[str, ...]:
    return tuple(rel.split("/"))
