"""The ``repo_map`` tool: the shape of the repository in one call.

The ranking and rendering live in ``vibe_tui.code.repomap``; this module decides which
files a map covers and turns the model's free-text focus into files and identifiers.
``build_map`` is also the entry point for the session, which can give it the files and
identifiers mentioned in the conversation.

Files covered: those with a tags language (see ``vibe_tui.code.tags``), found with the
same ``.gitignore`` rules as grep (``IgnoreRules``: every level, hidden entries and
symlinks skipped), minus vendored folders (``node_modules``, ``vendor``, ...), build
output (``dist``, ``build``) and generated files (minified bundles, protobuf output).
Folders are pruned while walking, so a large ``node_modules`` costs nothing. Lock
files need no rule: they have no tags language.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from vibe_tui.code.repomap import DEFAULT_MAX_TOKENS, RepoMap, count_tokens, make_repo_map
from vibe_tui.code.tags import has_tags
from vibe_tui.policy.types import ToolKind, ToolRequest
from vibe_tui.tools.base import ToolContext, ToolError, ToolOutput, in_thread, optional
from vibe_tui.tools.file_walk import IgnoreRules, select_files

# More files than this and the walk stops; the map says so. Parsing this many takes
# tens of seconds cold, but only once.
MAX_MAP_FILES = 20_000
MIN_TOKENS = 64
OVERVIEW_MAX_FILES = 60  # a longer list of names says little; the map says more
MAX_TOKENS = 16_384
SKIPPED_DIRS = frozenset(
    {
        "node_modules",
        "bower_components",
        "vendor",
        "third_party",
        "third-party",
        "site-packages",
        "venv",
        "__pycache__",
        "dist",
        "build",
    }
)
GENERATED_SUFFIXES = (".min.js", ".min.mjs", ".bundle.js", "-bundle.js", "_pb2.py", "_pb2_grpc.py", ".pb.go")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Split focus text on whitespace, commas, quotes, brackets and backticks; keeps paths whole.
_FOCUS_TOKEN = re.compile(r"[^\s,;'\"`()\[\]{}<>]+")


def discover_files(workspace: Path) -> tuple[list[str], bool]:
    """Workspace-relative POSIX paths of the files a map covers, sorted, and whether
    ``MAX_MAP_FILES`` cut the list short."""
    root = str(workspace)
    files: list[str] = []
    stack = [("", IgnoreRules(root).entering(""))]
    while stack:
        dir_rel, rules = stack.pop()
        for entry in _entries(os.path.join(root, dir_rel)):
            rel = f"{dir_rel}/{entry.name}" if dir_rel else entry.name
            if _is_dir(entry):
                if entry.name not in SKIPPED_DIRS and not rules.ignored(rel, True):
                    stack.append((rel, rules.entering(rel)))
            elif _wanted(entry) and not rules.ignored(rel, False):
                if len(files) == MAX_MAP_FILES:
                    return sorted(files), True
                files.append(rel)
    return sorted(files), False


def _entries(directory: str) -> list[os.DirEntry]:
    try:
        with os.scandir(directory) as it:
            # Hidden entries (.git, .venv, .cache) and links (which may lead anywhere,
            # or round in circles) are never part of the map.
            return sorted((e for e in it if not e.name.startswith(".") and not e.is_symlink()), key=lambda e: e.name)
    except OSError:
        return []


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _wanted(entry: os.DirEntry) -> bool:
    name = entry.name
    if not has_tags(name) or name.endswith(GENERATED_SUFFIXES):
        return False
    try:
        return entry.is_file(follow_symlinks=False)
    except OSError:
        return False


def parse_focus(focus: str, files: list[str], every_word: bool = True) -> tuple[set[str], set[str]]:
    """Focus text as (files, identifiers). A token naming a file exactly, or the end of
    one path ("query.py", "models/query.py"), is a file. Identifiers are the words of
    the text (the parts of paths and dotted names too); with ``every_word`` off, as for
    prose, only words that look like code: snake_case, camelCase or CapWords with two
    humps, or words written with code punctuation (``Order.total``, ``run()``,
    backticks). Otherwise "the" and "run" in a sentence would pull in every ``run``."""
    focus_files: set[str] = set()
    idents: set[str] = set()
    for raw in _FOCUS_TOKEN.findall(focus):
        token = raw.rstrip(".,:;!?")
        focus_files.update(_files_named(token.removeprefix("./"), files))
        code_token = every_word or any(mark in token for mark in "./_:") or _quoted(raw, focus)
        words = (word for word in _WORD.findall(token) if len(word) > 1)
        idents.update(word for word in words if code_token or _looks_like_code(word))
    return focus_files, idents


def _quoted(token: str, text: str) -> bool:
    return f"`{token}`" in text or f"{token}(" in text


def _looks_like_code(word: str) -> bool:
    return "_" in word.strip("_") or any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word)


def _files_named(token: str, files: list[str]) -> list[str]:
    if "." not in token and "/" not in token:
        return []  # a bare word is an identifier, not a file
    suffix = "/" + token
    return [rel for rel in files if rel == token or rel.endswith(suffix)]


def build_map(
    workspace: Path,
    focus_files: Iterable[str] = (),
    focus_idents: Iterable[str] = (),
    max_tokens: int = DEFAULT_MAX_TOKENS,
    focus_text: str = "",
) -> str:
    """The repo map of ``workspace`` personalised towards ``focus_files``
    (workspace-relative paths), ``focus_idents`` (names) and the files and code-like
    names ``focus_text`` mentions (a task, the conversation so far: see
    ``parse_focus``). Blocking: call it with ``asyncio.to_thread``."""
    return map_workspace(workspace, focus_files, focus_idents, max_tokens, focus_text).text


def first_request_overview(workspace: Path, max_tokens: int, focus_text: str) -> str:
    """What the first request of a session carries with ``[repo_map] auto``: the
    workspace's files (all of them in a small project, the top level in a large one:
    config and data files have no definitions, so the map alone leaves them out), then
    the map focused on the task in the room left. Blocking."""
    selection = select_files(workspace, workspace, None)
    if len(selection.files) <= OVERVIEW_MAX_FILES and not selection.truncated:
        listing = f"Files ({len(selection.files)}): {', '.join(selection.files)}"
    else:
        top = sorted({rel.split("/", 1)[0] + ("/" if "/" in rel else "")
                      for rel in selection.files})
        listing = f"Top level: {', '.join(top[:OVERVIEW_MAX_FILES])}"
    room = max_tokens - count_tokens(listing)
    if room < MIN_TOKENS:
        return listing
    repo_map = map_workspace(workspace, (), (), room, focus_text)
    return f"{listing}\n\n{repo_map.text}" if repo_map.files_shown else listing


def map_workspace(
    workspace: Path,
    focus_files: Iterable[str] = (),
    focus_idents: Iterable[str] = (),
    max_tokens: int = DEFAULT_MAX_TOKENS,
    focus_text: str = "",
    every_word: bool = False,
) -> RepoMap:
    """``build_map`` with the figures (files parsed, shown, tokens) beside the text.
    ``every_word``: take every word of ``focus_text`` as an identifier (the tool's
    focus argument, written as a list of names) rather than only code-like ones."""
    files, truncated = discover_files(workspace)
    text_files, text_idents = parse_focus(focus_text, files, every_word=every_word)
    focus_files = {*focus_files, *text_files}
    focus_idents = {*focus_idents, *text_idents}
    if not truncated:
        return make_repo_map(workspace, files, focus_files, focus_idents, max_tokens)
    note = f"(only the first {MAX_MAP_FILES} source files were mapped)\n"
    budget = max(0, max_tokens - count_tokens(note))
    result = make_repo_map(workspace, files, focus_files, focus_idents, budget)
    return replace(result, text=result.text + note, tokens=count_tokens(result.text + note))


class RepoMapTool:
    name = "repo_map"
    kind: ToolKind = "read"
    description = (
        "A map of the repository: its most important source files with the signature lines "
        "of their key definitions (classes, functions, methods) and line numbers, ranked by "
        "how much the rest of the code uses them. Call it first in an unfamiliar repository "
        "to find where things are. Give focus (file paths and names mentioned in the task) "
        "to rank what is related to them first."
    )
    parameters = {
        "type": "object",
        "properties": {
            "focus": {
                "type": "string",
                # No example value: a small model sends a description's example path and
                # names as its own focus.
                "description": ("File paths and identifiers from the task or from what you "
                                "have seen so far, separated by spaces."),
            },
            "max_tokens": {
                "type": "integer",
                "minimum": MIN_TOKENS,
                "maximum": MAX_TOKENS,
                "description": f"Size of the map in tokens (default {DEFAULT_MAX_TOKENS}).",
            },
        },
        "additionalProperties": False,
    }

    def precheck(self, args: dict[str, Any], ctx: ToolContext) -> ToolRequest:
        _arguments(args)
        return ToolRequest(self.name, self.kind, args, paths=(ctx.workspace,))

    async def preview(self, args: dict[str, Any], ctx: ToolContext) -> str | None:
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        focus, max_tokens = _arguments(args)
        result = await in_thread(
            partial(map_workspace, ctx.workspace, max_tokens=max_tokens, focus_text=focus, every_word=True)
        )
        if result.files_total == 0:
            return ToolOutput("No source files to map in the workspace (none in a supported language).")
        meta = {"files": result.files_total, "parsed": result.files_parsed, "tokens": result.tokens}
        return ToolOutput(result.text, meta=meta)


def _arguments(args: dict[str, Any]) -> tuple[str, int]:
    focus = optional(args, "focus", str, "")
    max_tokens = optional(args, "max_tokens", int, DEFAULT_MAX_TOKENS)
    if not MIN_TOKENS <= max_tokens <= MAX_TOKENS:
        raise ToolError(f"max_tokens must be between {MIN_TOKENS} and {MAX_TOKENS}")
    return focus, max_tokens


REPO_MAP_TOOLS = [RepoMapTool()]
