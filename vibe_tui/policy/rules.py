"""Permission rules in Claude Code's syntax.

    Bash                 every shell command          Read, Edit   every read / every edit
    Bash(npm test:*)     npm test, npm test --watch   (not npm testify: whole words)
    Bash(git status)     exactly that command
    Read(./.env)         .env at the workspace root   Read(.env)   any .env, at any depth
    Edit(src/**)         below src/                   Read(**/*.key)
    Read(//etc/hosts)    an absolute path             Read(~/.ssh/**)  below the home folder
    Write(docs/**)       same as Edit                 WebFetch(domain:example.com)
    read_file, mcp__server__tool                      one tool by its exact name
    mcp__server, mcp__server__*                       every tool of one MCP server

Path specifiers are gitignore patterns (the ``pathspec`` package): a pattern without a
slash matches at any depth, a leading ``/`` or ``./`` anchors it at the workspace, and a
pattern matching a folder matches everything in it.

Rules are read in two senses. To ALLOW, a rule must cover the whole request: every simple
command of a shell command is covered by the rule or read-only, and the command has
nothing but plain words (no redirection, expansion or substitution), so
``Bash(npm test:*)`` never covers ``npm test && rm -rf /`` or ``npm test > ~/.bashrc``. To
DENY (and to ASK), a rule only needs to possibly touch part of it: any command anywhere
in the tree, inside ``$(...)``, after ``sudo``/``env``/``xargs``, inside ``bash -c '...'``,
or with a name computed at run time; a command that cannot be parsed is assumed to match.
Paths are compared canonical: links followed (the tools resolve them; for a command's
words this module does), ``..`` folded, and to deny, letter case ignored, since on macOS
and Windows ``.ENV`` is ``.env``.
"""

from __future__ import annotations

import functools
import os
import posixpath
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

import pathspec

from vibe_tui.policy.reads import command_reads, walk_matching
from vibe_tui.policy.shell.analysis import analyse_command
from vibe_tui.policy.shell.reach import LooseArgv, reachable_commands, runs_script_file
from vibe_tui.policy.types import ToolRequest

Sense = Literal["allow", "deny"]
Match = Literal["yes", "maybe", "no"]

# Rule families and the tools they name.
FAMILIES: dict[str, frozenset[str]] = {
    "Bash": frozenset({"bash", "interactive_start"}),
    "Read": frozenset({"read_file", "list_dir", "grep", "repo_map"}),
    "Edit": frozenset({"edit_file", "write_file"}),
    "Write": frozenset({"edit_file", "write_file"}),  # Claude Code's other name for edits
    "WebFetch": frozenset({"web_fetch"}),
}


@dataclass(frozen=True)
class Rule:
    tool_family: str  # "Bash", "Read", "Edit", or an exact tool name
    specifier: str | None = None  # None: every call of the family or tool

    def __str__(self) -> str:
        return self.tool_family if self.specifier is None else f"{self.tool_family}({self.specifier})"


MCP_PREFIX = "mcp__"


def _valid_name(name: str) -> bool:
    if name.startswith(MCP_PREFIX) and name.endswith("*"):
        name = name[:-1]  # mcp__git__*: a trailing wildcard, for MCP tools only
    return bool(name) and name[0].isalpha() and all(c.isalnum() or c in "_-" for c in name)


def _mcp_rule_covers(rule_name: str, tool: str) -> bool:
    """``mcp__git__*`` and ``mcp__git`` (Claude Code's spelling) name every tool of the
    server git; tool names never hold ``__`` inside a part (vibe_tui.tools.mcp)."""
    if not (rule_name.startswith(MCP_PREFIX) and tool.startswith(MCP_PREFIX)):
        return False
    if rule_name.endswith("*"):
        return tool.startswith(rule_name[:-1])
    server_only = "__" not in rule_name[len(MCP_PREFIX):]
    return server_only and tool.startswith(rule_name + "__")


@functools.lru_cache(maxsize=1024)
def parse_rule(text: str) -> Rule:
    """``"Bash(npm test:*)"`` -> Rule("Bash", "npm test:*"); ValueError when malformed."""
    stripped = text.strip()
    name, paren, rest = stripped.partition("(")
    name = name.strip()
    if not _valid_name(name):
        raise ValueError(f"not a permission rule: {text!r}")
    if not paren:
        return Rule(name)
    if not rest.endswith(")"):
        raise ValueError(f"permission rule {text!r} lacks its closing parenthesis")
    specifier = rest[:-1].strip()
    return Rule(name, None if specifier in ("", "*") else specifier)


def family_of(tool: str) -> str | None:
    return next((family for family, tools in FAMILIES.items() if tool in tools), None)


def _rule_family(rule: Rule) -> str | None:
    return rule.tool_family if rule.tool_family in FAMILIES else family_of(rule.tool_family)


def _applies(rule: Rule, tool: str, sense: Sense) -> bool:
    if tool in FAMILIES.get(rule.tool_family, frozenset({rule.tool_family})):
        return True
    if _mcp_rule_covers(rule.tool_family, tool):
        return True
    # What an edit's diff or a command's output shows is read too, so a Read deny with
    # a path also guards edits and (as far as the words of a command tell) commands.
    return (sense == "deny" and rule.tool_family == "Read" and rule.specifier is not None
            and family_of(tool) in ("Edit", "Bash"))


def rule_matches(rule: Rule, request: ToolRequest, workspace: Path, sense: Sense = "allow") -> bool:
    """Does ``rule`` match ``request``, read to allow or to deny (see the module doc)?
    To deny, a rule that may match (``deny_match`` says "maybe") matches."""
    if sense == "deny":
        return deny_match(rule, request, workspace)[0] != "no"
    if not _applies(rule, request.tool, sense):
        return False
    if rule.specifier is None:
        return True
    family = family_of(request.tool)
    if family == "Bash":
        return _rule_family(rule) != "Read" and _bash_matches(rule.specifier, request.command,
                                                               sense)
    if family == "WebFetch":
        return _url_matches(rule.specifier, request.args.get("url"), sense)
    if family in ("Read", "Edit"):
        return any(_path_matches(rule.specifier, path, workspace, sense)
                   for path in candidate_paths(request, workspace, lexical=False))
    return False


def deny_match(rule: Rule, request: ToolRequest, workspace: Path) -> tuple[Match, str]:
    """Whether a deny (or ask) rule applies: "yes", "no", or "maybe" when what the call
    does is not known before it runs (a word computed at run time); with why, for maybe."""
    if not _applies(rule, request.tool, "deny"):
        return "no", ""
    if rule.specifier is None:
        return "yes", ""
    family = family_of(request.tool)
    if family == "Bash":
        if _rule_family(rule) == "Read":
            return _command_reads(rule.specifier, request, workspace)
        return _bash_deny(rule.specifier, request.command)
    if family == "WebFetch":
        return _yes(_url_matches(rule.specifier, request.args.get("url"), "deny"))
    if family in ("Read", "Edit"):
        return _yes(any(_path_matches(rule.specifier, path, workspace, "deny")
                        for path in candidate_paths(request, workspace, lexical=True)))
    return "yes", ""  # a specifier on a tool we cannot read it for: assume it applies


def _yes(matched: bool) -> tuple[Match, str]:
    return ("yes" if matched else "no"), ""


def first_match(rules: Iterable[Rule], request: ToolRequest, workspace: Path,
                sense: Sense) -> Rule | None:
    return next((r for r in rules if rule_matches(r, request, workspace, sense)), None)


def first_deny(rules: Iterable[Rule], request: ToolRequest,
               workspace: Path) -> tuple[Rule, Match, str] | None:
    """The first rule that surely applies; failing that, the first that may (with why)."""
    maybe = None
    for rule in rules:
        match, why = deny_match(rule, request, workspace)
        if match == "yes":
            return rule, match, why
        if match == "maybe" and maybe is None:
            maybe = (rule, match, why)
    return maybe


def allowing_rule(rules: Sequence[Rule], request: ToolRequest, workspace: Path) -> Rule | None:
    """A rule that allows ``request``. A shell command may be covered by several rules
    together (``npm test && git add .`` by ``Bash(npm test:*)`` and ``Bash(git add:*)``);
    the first one used is returned. None when the commands are all read-only anyway."""
    whole = first_match(rules, request, workspace, "allow")
    if whole is not None or family_of(request.tool) != "Bash" or request.command is None:
        return whole
    analysis = analyse_command(request.command)
    if not analysis.plain:
        return None
    patterns = [(r, _bash_pattern(r.specifier)) for r in rules
                if r.specifier is not None and _applies(r, request.tool, "allow")]
    used: list[Rule] = []
    for argv, problem in zip(analysis.commands, analysis.problems):
        if problem is None:
            continue
        if not getattr(problem, "covered_by_rule", False):
            return None  # a dangerous option or a path outside: no rule switches that off
        rule = next((r for r, (words, prefix) in patterns if _covers(words, prefix, argv)), None)
        if rule is None:
            return None
        used.append(rule)
    return used[0] if used else None


# -- Bash specifiers -------------------------------------------------------------------


def _bash_pattern(specifier: str) -> tuple[list[str], bool]:
    """"npm test:*" -> (["npm", "test"], prefix=True); "git status" -> exact."""
    prefix = specifier.endswith(":*")
    body = specifier[:-2] if prefix else specifier
    try:
        words = shlex.split(body)
    except ValueError:
        words = body.split()
    return words, prefix


def _covers(words: list[str], prefix: bool, argv: list[str]) -> bool:
    return argv[:len(words)] == words and (prefix or len(argv) == len(words))


def _bash_matches(specifier: str, command: str | None, sense: Sense) -> bool:
    if sense == "deny":
        return _bash_deny(specifier, command)[0] != "no"
    if command is None:
        return False
    words, prefix = _bash_pattern(specifier)
    if not words:
        return True  # Bash(:*)
    analysis = analyse_command(command)
    if not analysis.plain:
        return False
    covered = [_covers(words, prefix, argv) for argv in analysis.commands]
    # A dangerous option or a path out of the workspace is looked at every time: no rule
    # covers it (git diff --ext-diff is not "git diff" to Bash(git diff:*)).
    return any(covered) and all(
        (c and (p is None or getattr(p, "covered_by_rule", False))) or (not c and p is None)
        for c, p in zip(covered, analysis.problems))


def _bash_deny(specifier: str, command: str | None) -> tuple[Match, str]:
    """Could ``command`` run what ``Bash(specifier)`` denies, anywhere in it?"""
    if command is None:
        return "yes", ""
    words, prefix = _bash_pattern(specifier)
    if not words:
        return "yes", ""  # Bash(:*)
    reachable = reachable_commands(command)
    if reachable is None:
        return "yes", ""  # unreadable, or a shell fed its script: assume the worst
    if any(_may_start_with(argv, words, prefix) for argv in reachable):
        return "yes", ""
    script = next((argv for argv in reachable if runs_script_file(argv)), None)
    if script is not None:
        return "maybe", f"{script[0]} runs a script file, which may run what the rule denies"
    return "no", ""


def _may_start_with(argv: LooseArgv, words: list[str], prefix: bool) -> bool:
    """Could this command be ``words``...? A word computed at run time (None) could be
    anything, even several words or none; /bin/rm is rm; and between the program and
    the rest, options (and their values) may stand: ``git -c a=b push`` is ``git push``
    to Bash(git push:*), whichever of git's options take a value."""
    if not argv:
        return False
    first = argv[0]
    if first is None:
        return True
    if first != words[0] and posixpath.basename(first) != words[0]:
        return False
    if len(words) == 1:
        return prefix or all(value is None for value in argv[1:])
    for start in _after_options(argv):
        tail = argv[start:]
        if _matches_from(tail, words[1:], prefix):
            return True
    return False


def _after_options(argv: LooseArgv) -> list[int]:
    """Where the subcommand may start: right after the program, or after options there,
    each of which may or may not take the next word as its value."""
    starts: set[int] = set()
    todo, seen = [1], set()
    while todo:
        i = todo.pop()
        if i in seen or i > len(argv):
            continue
        seen.add(i)
        starts.add(i)  # the rule's own next word may be an option (Bash(rm -rf:*))
        value = argv[i] if i < len(argv) else ""
        if value is None:
            starts.update(range(i, len(argv)))  # a computed word may be any option
            continue
        if value.startswith("-") and value != "--":
            todo += [i + 1, i + 2]
    return sorted(starts)


def _matches_from(argv: LooseArgv, words: list[str], prefix: bool) -> bool:
    for i, word in enumerate(words):
        if i >= len(argv):
            return False
        value = argv[i]
        if value is None:
            return True
        if value != word:
            return False
    return prefix or all(value is None for value in argv[len(words):])


def _command_reads(specifier: str, request: ToolRequest, workspace: Path) -> tuple[Match, str]:
    """Does the command read a path the rule covers (``reads`` says how that is read)?"""
    if not request.command:
        return "no", ""
    reads = command_reads(request.command, request.cwd or workspace)
    if reads is None:
        return "maybe", "the command cannot be read, so what it reads is not known"
    if any(_path_matches(specifier, path, workspace, "deny") for path in reads.paths):
        return "yes", ""
    for folder, skips_hidden in reads.trees:
        found = walk_matching(folder, skips_hidden,
                              lambda p: _path_matches(specifier, p, workspace, "deny"))
        if found:
            return "yes", ""
        if found is None:
            return "maybe", f"it reads all of {folder}, too much to check"
    if reads.unknown:
        return "maybe", reads.unknown
    return "no", ""


def _url_matches(specifier: str, url: object, sense: Sense) -> bool:
    """WebFetch(domain:example.com) covers example.com and its subdomains."""
    if not isinstance(url, str) or not specifier.startswith("domain:"):
        return sense == "deny"
    from urllib.parse import urlsplit

    host = (urlsplit(url).hostname or "").rstrip(".").casefold()
    domain = specifier[len("domain:"):].strip().rstrip(".").casefold()
    return bool(host) and (host == domain or host.endswith("." + domain))


# -- path specifiers -------------------------------------------------------------------


def candidate_paths(request: ToolRequest, workspace: Path, lexical: bool) -> list[Path]:
    """The resolved paths of the request; with ``lexical``, also the path as written
    (relative to the workspace, ``..`` folded, links not followed), so a deny on a
    symlink's own name holds as well as one on its target."""
    paths = list(request.paths)
    raw = request.args.get("path") if lexical else None
    if isinstance(raw, str) and raw and "\x00" not in raw:
        paths.append(Path(os.path.normpath(workspace / os.path.expanduser(raw))))
    return paths


@functools.lru_cache(maxsize=512)
def _gitignore(pattern: str) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines([pattern])


def _anchor(specifier: str, workspace: Path) -> tuple[PurePosixPath, str]:
    """Where a pattern is rooted, and the pattern as gitignore reads it from there."""
    if specifier.startswith("//"):
        return PurePosixPath("/"), specifier[1:]
    if specifier == "~" or specifier.startswith("~/"):
        return PurePosixPath(os.path.expanduser("~")), "/" + specifier[2:]
    if specifier.startswith("./"):
        return PurePosixPath(workspace), "/" + specifier[2:]
    return PurePosixPath(workspace), specifier


def outside_target(specifier: str, workspace: Path) -> str | None:
    """For a specifier rooted outside the workspace (``~/.aws/**``, ``//etc/shadow``), the
    literal path it covers everything below: the part before the first wildcard, or
    None for one rooted in the workspace (or whose first part is already a wildcard)."""
    anchor, pattern = _anchor(specifier, workspace)
    if anchor == PurePosixPath(workspace):
        return None
    literal = []
    for part in pattern.strip("/").split("/"):
        if any(c in part for c in "*?[\\"):
            break
        literal.append(part)
    if not literal:
        return None
    return str(anchor.joinpath(*literal))


def path_matches(specifier: str, path: Path, workspace: Path, sense: Sense) -> bool:
    """Does a path specifier (gitignore syntax, see the module docstring) cover ``path``?"""
    return _path_matches(specifier, path, workspace, sense)


def _path_matches(specifier: str, path: Path, workspace: Path, sense: Sense) -> bool:
    anchor, pattern = _anchor(specifier, workspace)
    try:
        relative = PurePosixPath(path).relative_to(anchor).as_posix()
    except ValueError:
        return False
    if relative == "." or not pattern.strip("/"):
        return not pattern.strip("/")  # Read(./) or Read(//): everything below the anchor
    if sense == "deny":
        # Whether the path is a folder is not known without looking: assume it may be.
        # Letter case is ignored: on case-insensitive file systems .ENV is .env.
        spec = _gitignore(pattern.casefold())
        relative = relative.casefold()
        return spec.match_file(relative) or spec.match_file(relative + "/")
    return _gitignore(pattern).match_file(relative)
