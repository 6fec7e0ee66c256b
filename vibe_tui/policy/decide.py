"""allow / ask / deny for one tool call.

In order, the first that applies wins:

1. a deny rule matches: deny, in every mode (yolo too);
2. an edit outside the workspace: deny (tools refuse these already; this is the backstop);
3. plan mode: reading and read-only commands are allowed, everything else denied;
4. a change to git settings or hooks (``.git/``, ``.gitmodules``, ``.gitattributes``, a
   command that writes under ``.git/`` or runs ``git config``): ask, in every other mode,
   whatever rules and grants say, because git runs hooks and configured programs later,
   outside any approval;
5. yolo: allow;
6. an ask rule matches: ask;
7. an allow rule or a session grant covers the call: allow;
8. by kind: reads allowed; edits allowed in accept-edits and asked in default; commands
   allowed when read-only, else asked, offering the analysis' grant.

Plan mode comes before the git guard (the spec had it after): in plan mode an edit to
``.git/hooks`` is denied rather than asked, which is the stricter answer.
"""

from __future__ import annotations

import posixpath
from fnmatch import fnmatchcase
from pathlib import Path

from vibe_tui.policy.rules import (
    Rule,
    allowing_rule,
    candidate_paths,
    family_of,
    first_match,
    parse_rule,
)
from vibe_tui.policy.shell import analyse_command, reachable_commands, static_words
from vibe_tui.policy.types import Decision, PolicyContext
from vibe_tui.tools.base import ToolRequest
from vibe_tui.tools.paths import is_inside

GIT_SETTINGS_FILES = frozenset({".gitmodules", ".gitattributes"})
GIT_SETTINGS_NAMES = frozenset({".git", *GIT_SETTINGS_FILES})


def decide(request: ToolRequest, ctx: PolicyContext) -> Decision:
    workspace = ctx.workspace
    denied = first_match(_rules(ctx.deny), request, workspace, "deny")
    if denied is not None:
        return Decision("deny", f"denied by rule {denied}")
    if _is_edit(request) and not all(is_inside(p, workspace) for p in request.paths):
        return Decision("deny", "edits outside the workspace are not allowed")
    if ctx.mode == "plan":
        return _plan(request)
    if _touches_git_settings(request, workspace):
        return Decision("ask", "changes git settings or hooks, which can run programs later")
    if ctx.mode == "yolo":
        return Decision("allow", "yolo mode allows everything no rule denies")
    asked = first_match(_rules(ctx.ask), request, workspace, "deny")
    if asked is not None:
        return Decision("ask", f"rule {asked} asks first")
    allowed = allowing_rule(_rules(ctx.allow), request, workspace)
    if allowed is not None:
        return Decision("allow", f"allowed by rule {allowed}")
    granted = allowing_rule(_rules(ctx.grants), request, workspace)
    if granted is not None:
        return Decision("allow", f"allowed for this session by {granted}")
    return _by_kind(request, ctx)


def _rules(texts) -> list[Rule]:
    """Parsed rules in a stable order. A malformed one is skipped here: config loading
    is where it should be reported (parse_rule raises ValueError there)."""
    rules = []
    for text in sorted(texts) if isinstance(texts, set) else texts:
        try:
            rules.append(parse_rule(text))
        except ValueError:
            continue
    return rules


def _is_edit(request: ToolRequest) -> bool:
    return request.kind == "edit" or family_of(request.tool) == "Edit"


def _plan(request: ToolRequest) -> Decision:
    if request.kind == "read":
        return Decision("allow", "reading is allowed in plan mode")
    if request.kind == "exec" and request.command is not None:
        if analyse_command(request.command).read_only:
            return Decision("allow", "read-only command")
    return Decision("deny", "plan mode: only reading is allowed")


def _by_kind(request: ToolRequest, ctx: PolicyContext) -> Decision:
    if request.kind == "read":
        return Decision("allow", "reading is allowed")
    if request.kind == "edit":
        if ctx.mode == "accept-edits":
            return Decision("allow", "accept-edits mode allows edits")
        return Decision("ask", "edits ask in default mode", grant="Edit")
    if request.command is None:
        return Decision("ask", f"{request.tool} runs a program", grant=request.tool)
    analysis = analyse_command(request.command)
    if analysis.read_only:
        return Decision("allow", "read-only command")
    return Decision("ask", analysis.reason, grant=analysis.grant)


# -- git settings and hooks ------------------------------------------------------------


def _touches_git_settings(request: ToolRequest, workspace: Path) -> bool:
    if _is_edit(request):
        return any(_is_git_setting(p, workspace) for p in candidate_paths(request, workspace, True))
    if request.command is None or analyse_command(request.command).read_only:
        return False  # a read-only command writes nothing; reading .git/HEAD is fine
    return _command_mentions_git_settings(request.command)


def _is_git_setting(path: Path, workspace: Path) -> bool:
    try:
        parts = path.relative_to(workspace).parts
    except ValueError:
        parts = path.parts
    return ".git" in parts or (bool(parts) and parts[-1] in GIT_SETTINGS_FILES)


def _command_mentions_git_settings(command: str) -> bool:
    words = static_words(command)
    reachable = reachable_commands(command)
    if words is None or reachable is None:
        # Unreadable: fall back to the raw text, the only evidence there is.
        return ".git/" in command or "git config" in command or any(
            name in command for name in GIT_SETTINGS_FILES)
    return any(_names_git_setting(w) for w in words) or any(
        _runs_git_config(argv) for argv in reachable)


def _names_git_setting(word: str) -> bool:
    """.git/hooks/x, a=.git/config, .gitmodules; and wildcards that could be them (.gi?)."""
    for part in word.replace("=", "/").split("/"):
        if part in GIT_SETTINGS_NAMES:
            return True
        if any(c in part for c in "*?[") and any(fnmatchcase(n, part) for n in GIT_SETTINGS_NAMES):
            return True
    return False


def _runs_git_config(argv: list[str | None]) -> bool:
    """git ... config ..., also when the name is computed ($GIT config); any later
    "config" word counts, since git's global options before it may take values."""
    name = argv[0]
    return (name is None or posixpath.basename(name) == "git") and "config" in argv[1:]
