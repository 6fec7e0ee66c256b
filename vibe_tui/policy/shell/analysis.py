"""``analyse_command``: is this command read-only, so it may run without asking?

Only a script made of plain simple commands (literal words, no expansions, no
redirections), joined by ``&&``, ``||``, ``;`` or ``|``, whose every command is on the
read-only list with safe options and paths inside the workspace, qualifies. Anything the
reader does not fully understand is "not read-only" and the user is asked: a wrong "no"
costs a keypress, a wrong "yes" runs code.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from vibe_tui.policy.shell.checks import Problem, anything
from vibe_tui.policy.shell.grants import chain_grant
from vibe_tui.policy.shell.paths import path_words, reaches_outside
from vibe_tui.policy.shell.programs import GLOB_SAFE, READ_ONLY, not_listed
from vibe_tui.policy.shell.syntax import Word, control_character, parse, plain_words, unparseable


@dataclass(frozen=True)
class CommandAnalysis:
    read_only: bool
    reason: str  # why not read-only, in words a user understands; or what it is
    # argv of each simple command, in order, when the script is plain (see ``plain``)
    commands: list[list[str]] = field(default_factory=list)
    grant: str | None = None  # the "always" rule to offer, e.g. "Bash(npm test:*)"
    # Only plain simple commands joined by && || ; | : the shape a prefix rule may cover.
    plain: bool = False
    # For each of ``commands``: why that command is not read-only, or None when it is.
    problems: list[str | None] = field(default_factory=list)
    # True when the only problem is reading outside the workspace (cat /etc/hosts): such a
    # command asks even in plan mode instead of being refused.
    outside_only: bool = False
    # For each of ``commands``: the arguments that may name files (not sed scripts, grep
    # patterns or echo's text), which the decision resolves through symbolic links.
    path_words: list[list[str]] = field(default_factory=list)


def command_problem(words: list[Word]) -> str | None:
    """Why one plain simple command is not read-only, or None when it is."""
    name, args = words[0].value, [w.value for w in words[1:]]
    check = READ_ONLY.get(name)
    if check is None:
        return not_listed(name)
    problem = check(name, args)
    if problem:
        return problem
    for value in path_words(name, args):
        if reaches_outside(value):
            return Problem(f"reaches outside the workspace: {value}", outside=True)
    if check is not anything and name not in GLOB_SAFE and any(w.option_glob for w in words[1:]):
        # A file named --pre=./evil.sh turns `rg x *` into a program run.
        return f"uses a wildcard that could expand into an option of {name}"
    return None


@functools.lru_cache(maxsize=512)
def analyse_command(command: str) -> CommandAnalysis:
    """Is ``command`` read-only? See this module's docstring for what that takes. The
    result is cached and shared: treat it as read-only."""
    if not command.strip():
        return CommandAnalysis(False, "empty command")
    control = control_character(command)
    if control:
        return CommandAnalysis(False, control)
    root = parse(command)
    if unparseable(root):
        return CommandAnalysis(False, "could not be parsed as a shell command")
    shaped = plain_words(root)
    if isinstance(shaped, str):
        return CommandAnalysis(False, shaped)
    if not shaped:
        return CommandAnalysis(False, "empty command")
    commands = [[w.value for w in words] for words in shaped]
    problems = [command_problem(words) for words in shaped]
    paths = [path_words(argv[0], argv[1:]) for argv in commands]
    first = next((i for i, p in enumerate(problems) if p), None)
    if first is None:
        return CommandAnalysis(True, "read-only command", commands, None, True, problems,
                               path_words=paths)
    reason, name = problems[first] or "", commands[first][0]
    if first > 0 and reason == not_listed(name):
        reason = f"chains a command that is not read-only: {name}"
    outside_only = all(p is None or getattr(p, "outside", False) for p in problems)
    return CommandAnalysis(False, reason, commands, chain_grant(commands, problems), True,
                           problems, outside_only, paths)
