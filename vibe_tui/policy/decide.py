"""allow / ask / deny for one tool call.

In order, the first that applies wins:

1. a deny rule matches: deny, in every mode (yolo too);
2. an edit outside the workspace: deny (tools refuse these already; this is the backstop);
3. plan mode: reading and read-only commands are allowed, reading outside the workspace
   asks, everything else is denied;
4. a change to a file that makes programs run later (git settings and hooks under any
   spelling a file system folds onto them, CI workflows, editor tasks, shell rc files,
   agent settings; see ``protected``), or a command that runs ``git config``: ask, in
   every other mode, whatever rules and grants say, because those programs run later,
   outside any approval;
5. yolo: allow;
6. an ask rule matches: ask;
7. an allow rule or a session grant covers the call: allow;
8. by kind: reads allowed; edits allowed in accept-edits and asked in default; commands
   allowed when read-only and every path they name stays in the workspace once symbolic
   links are followed, else asked, offering the analysis' grant; an MCP tool
   (``mcp__<server>__<tool>``) asks, offering a grant of that one tool.

An MCP server's own hints (``readOnlyHint``...) are shown in the reason and grant nothing:
the server is a program we did not write, and its word is all the hint is. In plan mode
MCP tools are denied for the same reason.

Plan mode comes before the guard of step 4 (the spec had it after): in plan mode an edit
to ``.git/hooks`` is denied rather than asked, which is the stricter answer.

The one look at the disk: a read-only command's paths are resolved (``os.path.realpath``)
against the folder it runs in, because a cloned repository may hold a link to
``~/.ssh/id_rsa`` and ``cat notes.txt`` must not read it unasked.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from vibe_tui.policy.git_repos import unexpected_repository
from vibe_tui.policy.protected import (
    PROTECTED_FOLDERS,
    folded,
    pattern_may_be_protected,
    protected_reason,
)
from vibe_tui.policy.rules import (
    Rule,
    allowing_rule,
    candidate_paths,
    family_of,
    first_deny,
    first_match,
    parse_rule,
)
from vibe_tui.policy.reads import expand
from vibe_tui.policy.shell.analysis import CommandAnalysis, analyse_command
from vibe_tui.policy.shell.reach import reachable_commands, static_words
from vibe_tui.policy.types import (
    MCP_PREFIX,
    Decision,
    McpRequest,
    PolicyContext,
    ToolRequest,
    is_inside,
)

# How many folders a chain of `cd`s may have led to.
_MAX_BASES = 8


def decide(request: ToolRequest, ctx: PolicyContext) -> Decision:
    workspace = ctx.workspace
    denied = first_deny(_rules(ctx.deny), request, workspace)
    if denied is not None and denied[1] == "yes":
        return Decision("deny", f"denied by rule {denied[0]}")
    if denied is not None:
        return Decision("ask", f"rule {denied[0]} may deny this: {denied[2]}")
    if _is_edit(request) and not all(is_inside(p, workspace) for p in request.paths):
        return Decision("deny", "edits outside the workspace are not allowed")
    if ctx.mode == "plan":
        return _plan(request, workspace)
    protected = _protected_change(request, workspace)
    if protected is not None:
        return Decision("ask", protected)
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
    return request.kind == "edit" or family_of(request.tool) in ("Edit", "Write")


def _plan(request: ToolRequest, workspace: Path) -> Decision:
    if request.tool.startswith(MCP_PREFIX):
        return Decision("deny", "plan mode: MCP tools do not run (a server's read-only "
                        "hint is its own claim)" + _mcp_hints(request))
    if request.kind == "read":
        return Decision("allow", "reading is allowed in plan mode")
    if request.kind == "exec" and request.command is not None:
        analysis = analyse_command(request.command)
        if analysis.read_only:
            return _read_only_command(analysis, request, workspace)
        if analysis.outside_only:
            return Decision("ask", analysis.reason)
    return Decision("deny", "plan mode: only reading is allowed")


def _by_kind(request: ToolRequest, ctx: PolicyContext) -> Decision:
    if request.kind == "read":
        return Decision("allow", "reading is allowed")
    if request.kind == "edit":
        if ctx.mode == "accept-edits":
            return Decision("allow", "accept-edits mode allows edits")
        return Decision("ask", "edits ask in default mode", grant="Edit")
    if request.tool.startswith(MCP_PREFIX):
        return _mcp(request)
    if request.command is None:
        return Decision("ask", f"{request.tool} runs a program", grant=request.tool)
    analysis = analyse_command(request.command)
    if analysis.read_only:
        return _read_only_command(analysis, request, ctx.workspace)
    return Decision("ask", analysis.reason, grant=analysis.grant)


def _mcp(request: ToolRequest) -> Decision:
    server = (request.server if isinstance(request, McpRequest)
              else request.tool[len(MCP_PREFIX):].split("__")[0])
    return Decision("ask", f"a tool of the MCP server {server}; MCP tools ask unless a "
                    f"rule allows them{_mcp_hints(request)}", grant=request.tool)


def _mcp_hints(request: ToolRequest) -> str:
    hints = request.hints if isinstance(request, McpRequest) else ()
    return f" (the server says: {', '.join(hints)})" if hints else ""


def _read_only_command(analysis: CommandAnalysis, request: ToolRequest,
                       workspace: Path) -> Decision:
    outside = _leaves_through_links(analysis, request.cwd or workspace, workspace)
    if outside is not None:
        return Decision("ask", outside)
    foreign = _foreign_repository(analysis, request.cwd or workspace, workspace)
    if foreign is not None:
        return Decision("ask", foreign)
    return Decision("allow", "read-only command")


def _foreign_repository(analysis: CommandAnalysis, cwd: Path, workspace: Path) -> str | None:
    """Why a git command would use a repository found inside the workspace (a nested one,
    a bare one committed as a folder): its settings are the repository's own, which can
    name programs, so that git is not "read-only" however plain its words."""
    for argv, bases in _commands_with_bases(analysis, cwd):
        if posixpath.basename(argv[0]) != "git":
            continue
        for base in bases:
            found = unexpected_repository(base, workspace)
            if found is not None:
                return (f"git would use the repository at {found}, found inside the "
                        "workspace; its own settings can run programs")
    return None


def _commands_with_bases(analysis: CommandAnalysis, cwd: Path):
    """Each command, with the folders it may run in: `cd sub && cat x` reads sub/x, so
    each `cd` adds the folder it leads to (both, since `cd a || cat x` may not have moved)."""
    bases = [cwd]
    for argv in analysis.commands:
        yield argv, bases
        if argv[0] == "cd" and len(argv) == 2:
            moved = [Path(os.path.normpath(base / argv[1])) for base in bases]
            bases = list(dict.fromkeys([*bases, *moved]))[:_MAX_BASES]


# -- symbolic links out of the workspace -----------------------------------------------


def _leaves_through_links(analysis: CommandAnalysis, cwd: Path, workspace: Path) -> str | None:
    """A path word of a read-only command that resolves outside the workspace, said in
    words; None when every one stays inside. `cd sub && cat x` reads sub/x, so each
    `cd` adds the folder it leads to (both, since `cd a || cat x` may not have moved)."""
    root = Path(os.path.realpath(workspace))
    with_bases = _commands_with_bases(analysis, cwd)
    for (argv, bases), words in zip(with_bases, analysis.path_words):
        for word in words:
            value = _path_value(word)
            if not value:
                continue
            for base in bases:
                real = _first_outside(base, value, root)
                if real is not None:
                    return f"{word} leads outside the workspace (to {real}) through a symbolic link"
    return None


def _path_value(word: str) -> str | None:
    """The part of a word that may be a path: the word, or the value of --opt=value."""
    if word.startswith("--"):
        return word.split("=", 1)[1] if "=" in word else None
    if word.startswith("-") or not word:
        return None
    return word


def _first_outside(base: Path, value: str, root: Path) -> str | None:
    if any(c in value for c in "*?["):
        candidates = expand(base, value)  # at least what bash would match
    else:
        candidates = [base / value]
    for path in candidates:
        real = os.path.realpath(path)
        if not is_inside(Path(real), root):
            return real
    return None


# -- files that run programs later -----------------------------------------------------


def _protected_change(request: ToolRequest, workspace: Path) -> str | None:
    """Why this call changes a file that makes programs run later, or None."""
    if _is_edit(request):
        for path in candidate_paths(request, workspace, True):
            reason = protected_reason(_parts(path, workspace))
            if reason is not None:
                return reason
        return None
    if request.command is None or analyse_command(request.command).read_only:
        return None  # a read-only command writes nothing; reading .git/HEAD is fine
    return _command_protected_change(request.command)


def _parts(path: Path, workspace: Path) -> tuple[str, ...]:
    try:
        return path.relative_to(workspace).parts
    except ValueError:
        return path.parts


def _command_protected_change(command: str) -> str | None:
    words = static_words(command)
    reachable = reachable_commands(command)
    if words is None or reachable is None:
        words = [command]  # unreadable: the raw text is the only evidence there is
    for word in words:
        reason = _names_protected(word)
        if reason is not None:
            return reason
    if reachable is None:
        lowered = command.casefold()
        if "git" in lowered and any(sub in lowered for sub in _GIT_SETTING_WRITERS):
            return "may change git settings, which can run programs later"
        return None
    if any(_changes_git_settings(argv) for argv in reachable):
        return "changes git settings, which can run programs later"
    return None


# Characters that end a path inside a word: `a=.git/config`, `echo x > .git/config` as
# one quoted string, `$'.git'`. Slashes are kept: they separate path components.
_BREAKS = str.maketrans({c: " " for c in "\t\n=;&|<>()'\"`,{}$"})


def _names_protected(word: str) -> str | None:
    """Does a word name (or a wildcard in it match) a file that runs programs later?"""
    for token in word.translate(_BREAKS).split():
        parts = [p for p in token.replace("\\", "/").split("/") if p]
        reason = protected_reason(parts)
        if reason is not None:
            return reason
        for part in parts:
            name = folded(part)
            if name in PROTECTED_FOLDERS:
                return f"changes files in {name}, which make programs run later"
            if any(c in part for c in "*?[") and pattern_may_be_protected(part):
                return f"a wildcard ({part}) may name git settings or hooks"
    return None


# git subcommands that write settings or hooks (config, .gitmodules, submodule checkouts).
_GIT_SETTING_WRITERS = ("config", "submodule")


def _changes_git_settings(argv: list[str | None]) -> bool:
    """git ... config ..., also when the name is computed ($GIT config); any later such
    word counts, since git's global options before it may take values. --template copies
    hooks into a new repository."""
    name = argv[0]
    if name is not None and posixpath.basename(name) != "git":
        return False
    rest = [a for a in argv[1:] if a is not None]
    return any(a in _GIT_SETTING_WRITERS or a.startswith("--template") for a in rest)
