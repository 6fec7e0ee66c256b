"""For deny rules: every simple command that could run, anywhere in the tree (inside
substitutions, subshells, functions, after ``sudo``/``env``/``xargs``, inside
``bash -c '...'``), and every literal word. Deny rules must err towards a match, so
whatever cannot be known is reported as unknown (None)."""

from __future__ import annotations

import functools
import posixpath

from tree_sitter import Node

from vibe_tui.policy.shell.programs import SCRIPT_SHELLS, WRAPPERS
from vibe_tui.policy.shell.syntax import (
    chars_of,
    control_character,
    is_brace_expansion,
    is_glob,
    parse,
    text_of,
    unparseable,
    walk,
)

LooseArgv = list["str | None"]  # None: a word bash computes at run time (could be anything)
_MAX_DEPTH = 4
_MAX_PARSES = 64
_MAX_WRAPPED_WORDS = 256


def _loose_value(node: Node) -> str | None:
    chars = chars_of(node) if node.is_named else None
    if chars is None or is_glob(chars) or is_brace_expansion(chars):
        return None
    return "".join(c for c, _ in chars)


def _loose_argv(node: Node) -> LooseArgv:
    argv: LooseArgv = []
    for child in node.children:
        if child.type == "variable_assignment" or child.type.endswith("_redirect"):
            continue
        target = child.named_children[0] if child.type == "command_name" else child
        argv.append(_loose_value(target))
    return argv


@functools.lru_cache(maxsize=512)
def reachable_commands(command: str) -> list[LooseArgv] | None:
    """Every simple command that could run, anywhere; None when that cannot be known
    (unparseable, control characters, nested or branching too much): deny rules then
    assume a match. Cached and shared: treat the result as read-only."""
    return _Reach().commands(command, 0)


class _Reach:
    """One search, with a budget: `env bash bash bash ...` must not parse forever."""

    def __init__(self) -> None:
        self.parses_left = _MAX_PARSES

    def commands(self, command: str, depth: int) -> list[LooseArgv] | None:
        self.parses_left -= 1
        if depth > _MAX_DEPTH or self.parses_left < 0 or control_character(command):
            return None
        root = parse(command)
        if unparseable(root):
            return None
        found: list[LooseArgv] = []
        for node in walk(root):
            argv = _loose_argv(node) if node.type == "command" else []
            if argv and _base(argv[0]) in SCRIPT_SHELLS and _fed_input(node) and \
                    not _script_given(argv[1:]):
                return None  # echo rm x | bash: the script comes from the input
            more = self.unwrapped(argv, depth) if argv else []
            if more is None:
                return None
            found += more
        return found

    def unwrapped(self, argv: LooseArgv, depth: int) -> list[LooseArgv] | None:
        """argv, plus what it runs: for a wrapper every tail of its arguments (which of
        its options take a value is not known), for a shell its script."""
        tails = [argv]
        if _base(argv[0]) in WRAPPERS:
            if len(argv) > _MAX_WRAPPED_WORDS:
                return None  # every tail of a huge argument list is quadratic work
            tails += [argv[i:] for i in range(1, len(argv))]
        found = list(tails)
        for tail in tails:
            for script, strict in _scripts(_base(tail[0]), tail[1:]):
                inner = self.commands(script, depth + 1) if script is not None else None
                if inner is None and strict:
                    return None  # bash -c "$X", eval "$(...)": the script is not known
                found += inner or []
        return found


def _scripts(name: str | None, args: LooseArgv) -> list[tuple[str | None, bool]]:
    """The scripts a shell-like command runs, each with whether failing to read it
    means the command is unknown (True) or that the guess was wrong (False)."""
    if name == "eval":
        return [(None if None in args else " ".join(a for a in args if a), True)]
    if name == "ssh":  # which words are the remote command depends on ssh's options: try all
        words = [a for a in args if a is not None]
        return [(w, False) for w in dict.fromkeys([*words, " ".join(words)])]
    if name in SCRIPT_SHELLS:  # bash -c SCRIPT, bash -lc SCRIPT
        flags = [i for i, a in enumerate(args)
                 if a is not None and a.startswith("-") and not a.startswith("--") and "c" in a]
        # -c as the last word: the script comes from whatever adds words (xargs bash -c).
        return [(args[i + 1] if i + 1 < len(args) else None, True) for i in flags]
    return []


def _base(word: str | None) -> str | None:
    return posixpath.basename(word) if word is not None else None


def _fed_input(node: Node) -> bool:
    """Does this command read what another one writes (a later part of a pipeline) or a
    file, a here-document or a here-string given to it?"""
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement":
        if any(c.type in ("heredoc_redirect", "herestring_redirect") or (
                c.type == "file_redirect" and any(t.type in ("<", "<>", "<&") for t in c.children))
               for c in parent.children):
            return True
        node, parent = parent, parent.parent
    return parent is not None and parent.type == "pipeline" and parent.children[0] != node


def _script_given(args: LooseArgv) -> bool:
    """Does a shell get its script on its command line (-c SCRIPT, or a script file)
    rather than from its input (no operand, -s, or -)?"""
    for i, arg in enumerate(args):
        if arg is None:
            return True  # a computed word: the -c script case reads it as unknown
        if arg == "-":
            return False
        if arg.startswith("-") and not arg.startswith("--"):
            if "c" in arg[1:]:
                return True
            if "s" in arg[1:]:
                return False
            continue
        if arg.startswith("--"):
            continue
        return True  # the first operand is a script file
    return False


def runs_script_file(argv: LooseArgv) -> bool:
    """A shell given a script file to run (``bash build.sh``, ``source env.sh``): what it
    runs is in a file the words do not show."""
    name = _base(argv[0]) if argv else None
    if name in ("source", "."):
        return len(argv) > 1
    if name not in SCRIPT_SHELLS:
        return False
    args = argv[1:]
    if any(a is not None and a.startswith("-") and not a.startswith("--") and "c" in a
           for a in args):
        return False
    return any(a is None or not a.startswith("-") for a in args)


@functools.lru_cache(maxsize=512)
def static_words(command: str) -> list[str] | None:
    """The literal text of every word in the tree (arguments, redirection targets,
    here-document bodies), computed parts left out; None when unreadable. Cached and
    shared: treat the result as read-only."""
    if control_character(command):
        return None
    root = parse(command)
    if unparseable(root):
        return None
    words = []
    for node in walk(root):
        if node.type in ("heredoc_body", "string_content"):
            words.append(text_of(node))
        elif node.type in ("word", "number", "raw_string", "string", "concatenation"):
            chars = chars_of(node)
            words.append("".join(c for c, _ in chars) if chars is not None else text_of(node))
    return words
