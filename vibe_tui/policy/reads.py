"""What a shell command may read, for ``Read(...)`` deny rules.

A deny rule must hold however the command spells the path, so this errs towards "it may
read that": every literal word (and every path-like piece of one, ``--file=.env``,
``open('.env')``) counts as a path; a wildcard counts as every file it could match,
expanded more widely than bash would (``superset_glob``); ``cd`` anywhere in the script
makes each later word count from every folder it may lead to; programs that walk folders
(``grep -r``, ``rg``, ``tar``, ``cp -r``, ``find -exec``...) count as reading everything
below their folders; and a word computed at run time (``$(...)``, ``$VAR``) or file names
taken from input (``xargs``) mean the command may read anything: the decision then asks.

What any other program does with its files (``python script.py``) is not read here: the
sandbox hides the files a Read deny rule names from every command (tools/sandbox.py).
"""

from __future__ import annotations

import glob
import itertools
import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from vibe_tui.policy.shell.programs import WRAPPERS
from vibe_tui.policy.shell.syntax import (
    chars_of,
    control_character,
    is_brace_expansion,
    is_glob,
    parse,
    unparseable,
    walk,
)

# Programs whose arguments are never files they read.
NO_FILE_ARGS = frozenset({"echo", "printf", "true", "false", "seq", "expr", "basename",
                          "dirname", "pwd", "whoami", "id", "uname", "date", "sleep", "cd",
                          "test", "[", "export", "unset", "exit", "return", "kill"})
# Characters that end a path inside a word: `--file=.env`, `open('.env')`, `a:.env`.
_BREAKS = str.maketrans({c: " " for c in "\t\n=;&|<>()'\"`,{}$:"})
_MAX_BASES = 8
_MAX_GLOB_MATCHES = 2000
_MAX_WALK = 20000


def superset_glob(pattern: str) -> str:
    """A Python glob pattern that matches at least what bash's pathname expansion of
    ``pattern`` matches: ``*`` and ``?`` as they are, every bracket expression (``[^x]``,
    ``[[:lower:]]``, ``[[=n=]]``, ranges, whatever the locale makes of them) as ``?``, any
    other character literal. Use it with ``include_hidden=True``: bash's rule that a
    leading dot must be matched explicitly is then ignored too, which only widens it."""
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "[":
            end = _bracket_end(pattern, i)
            if end is not None:
                out.append("?")
                i = end + 1
                continue
        out.append(char if char in "*?" else glob.escape(char))
        i += 1
    return "".join(out)


def _bracket_end(pattern: str, start: int) -> int | None:
    """Where the bracket expression opening at ``start`` closes, as bash reads it."""
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":
        i += 1  # a ] first is a member, not the end
    while i < len(pattern):
        if pattern[i] == "[" and i + 1 < len(pattern) and pattern[i + 1] in ":=.":
            close = pattern.find(pattern[i + 1] + "]", i + 2)
            if close != -1:
                i = close + 2
                continue
        if pattern[i] == "/":
            return None  # a slash ends the chance of a bracket: bash reads [ literally
        if pattern[i] == "]":
            return i
        i += 1
    return None


def expand(base: Path, pattern: str) -> list[Path]:
    """The existing paths a wildcard word may stand for, from ``base`` (bounded)."""
    wide = superset_glob(os.path.expanduser(pattern))
    matches = glob.iglob(wide, root_dir=base, include_hidden=True)
    return [Path(os.path.normpath(base / m)) for m in itertools.islice(matches, _MAX_GLOB_MATCHES)]


@dataclass
class Reads:
    """What one command may read (see the module docstring)."""

    paths: list[Path] = field(default_factory=list)  # named, as written and links followed
    trees: list[tuple[Path, bool]] = field(default_factory=list)  # (folder, skips hidden files)
    unknown: str | None = None  # why it may read a path nobody can name before it runs


@dataclass(frozen=True)
class _Word:
    value: str | None  # None: computed at run time
    glob: bool = False


def command_reads(command: str, cwd: Path) -> Reads | None:
    """What ``command``, run in ``cwd``, may read; None when it cannot be read at all."""
    if control_character(command):
        return None
    root = parse(command)
    if unparseable(root):
        return None
    commands = [_words(node) for node in walk(root) if node.type == "command"]
    targets = _redirect_targets(root)
    reads = Reads()
    bases = _bases(commands, cwd)
    for words in commands:
        for argv in _tails(words):
            _read_command(argv, bases, reads)
    for target in targets:  # cat < .env: the shell opens the file for the command
        _read_arguments([target], bases, reads)
    return reads


def _words(node) -> list[_Word]:
    words = []
    for child in node.children:
        if child.type == "variable_assignment" or child.type.endswith("_redirect"):
            continue
        target = child.named_children[0] if child.type == "command_name" else child
        words.append(_word(target))
    return words


def _word(node) -> _Word:
    chars = chars_of(node) if node.is_named else None
    if chars is None or is_brace_expansion(chars):
        return _Word(None)
    return _Word("".join(c for c, _ in chars), is_glob(chars))


def _redirect_targets(root) -> list[_Word]:
    found = []
    for node in walk(root):
        if node.type == "file_redirect":
            destination = node.child_by_field_name("destination")
            if destination is not None:
                found.append(_word(destination))
    return found


def _bases(commands: list[list[_Word]], cwd: Path) -> list[Path]:
    """Every folder a later word may count from: the start, and where each literal
    ``cd`` leads from each of those (which ran first is not followed: all of them)."""
    bases = [cwd]
    targets = [words[1].value for words in commands
               if len(words) == 2 and words[0].value == "cd" and words[1].value]
    for target in targets:
        moved = [Path(os.path.normpath(b / os.path.expanduser(target))) for b in bases]
        bases = list(dict.fromkeys([*bases, *moved]))[:_MAX_BASES]
    return bases


def _tails(words: list[_Word]) -> Iterator[list[_Word]]:
    """The command, and for a wrapper (sudo, env, nice...) each command it may run."""
    yield words
    if words and words[0].value is not None and posixpath.basename(words[0].value) in WRAPPERS:
        for i in range(1, len(words)):
            yield words[i:]


def _read_command(argv: list[_Word], bases: list[Path], reads: Reads) -> None:
    if not argv:
        return
    name = argv[0].value
    if name is None:
        reads.unknown = reads.unknown or "runs a program whose name is computed when it runs"
        return
    name = posixpath.basename(name)
    if name == "xargs":
        reads.unknown = reads.unknown or "xargs takes file names from its input"
    if name in NO_FILE_ARGS:
        return
    _read_arguments(argv[1:], bases, reads)
    for walked in _walked(name, [w.value for w in argv[1:]]):
        for base in bases:
            for folder in walked.folders(base):
                reads.trees.append((folder, walked.skips_hidden))


def _read_arguments(words: list[_Word], bases: list[Path], reads: Reads) -> None:
    for word in words:
        if word.value is None:
            reads.unknown = reads.unknown or "uses a word computed when it runs"
            continue
        for token in word.value.translate(_BREAKS).split():
            if token.startswith("-") and not word.glob:
                continue
            for base in bases:
                _add_path(token, word.glob, base, reads)


def _add_path(token: str, is_glob: bool, base: Path, reads: Reads) -> None:
    if is_glob and any(c in token for c in "*?["):
        candidates = expand(base, token)
    else:
        candidates = [Path(os.path.normpath(base / os.path.expanduser(token)))]
    for path in candidates:
        reads.paths.append(path)
        real = Path(os.path.realpath(path))
        if real != path:
            reads.paths.append(real)


# -- programs that walk folders --------------------------------------------------------

_GREP = frozenset({"grep", "egrep", "fgrep", "zgrep"})
_ALWAYS_RECURSIVE = frozenset({"rg", "ag", "ack", "ack-grep"})
_ARCHIVERS = frozenset({"tar", "zip", "7z", "7za", "rsync", "scp", "cpio", "bsdtar", "rar"})
_RECURSIVE_WITH_FLAG = frozenset({"cp", "diff", "gzip", "bzip2", "xz", "zstd", "chmod",
                                  "md5deep", "sha256deep", "hashdeep"})


@dataclass(frozen=True)
class _Walk:
    """Folders a program reads below: its operands; with ``here_by_default``, the current
    folder when none of them names anything (grep -r and rg search it by default; which
    word is the pattern or an option's value is not decided here, so a word that names
    nothing does not count)."""

    operands: tuple[str, ...]
    skips_hidden: bool = False
    here_by_default: bool = False

    def folders(self, base: Path) -> list[Path]:
        paths = [Path(os.path.normpath(base / os.path.expanduser(w))) for w in self.operands]
        if self.here_by_default:
            paths = [p for p in paths if os.path.lexists(p)] or [base]
        return paths


def _walked(name: str, args: list[str | None]) -> list[_Walk]:
    """What ``name`` with ``args`` reads below, if it walks folders."""
    words = [a for a in args if a is not None]
    operands = [w for w in words if not w.startswith("-")]
    flags = _short_flags(words)
    if name in _GREP and ("r" in flags or "R" in flags or _has_long(
            words, "--recursive", "--dereference-recursive") or _recurse_directories(words)):
        return [_Walk(tuple(operands), here_by_default=True)]
    if name in _ALWAYS_RECURSIVE:
        hidden = _rg_shows_hidden(words, flags)
        return [_Walk(tuple(operands), skips_hidden=not hidden, here_by_default=True)]
    if name == "git" and operands[:1] and operands[0] in ("grep", "archive"):
        return [_Walk(tuple(operands[1:]), here_by_default=True)]
    if name in _ARCHIVERS or (name in _RECURSIVE_WITH_FLAG and (
            "r" in flags or "R" in flags or "a" in flags or _has_long(words, "--recursive",
                                                                        "--archive"))):
        return [_Walk(tuple(operands), here_by_default=True)]
    if name == "find" and any(w in ("-exec", "-execdir", "-ok", "-okdir") for w in words):
        starts = list(itertools.takewhile(lambda w: not w.startswith(("-", "(", "!")), words))
        return [_Walk(tuple(starts), here_by_default=True)]
    return []


def _short_flags(words: list[str]) -> set[str]:
    return {c for w in words if w.startswith("-") and not w.startswith("--") for c in w[1:]}


def _has_long(words: list[str], *names: str) -> bool:
    return any(w.split("=", 1)[0] in names for w in words)


def _recurse_directories(words: list[str]) -> bool:
    return any(w in ("--directories=recurse", "-drecurse") for w in words) or any(
        a in ("-d", "--directories") and b == "recurse" for a, b in zip(words, words[1:]))


def _rg_shows_hidden(words: list[str], flags: set[str]) -> bool:
    unrestricted = sum(w.count("u") for w in words if w.startswith("-") and not w.startswith("--"))
    return ("." in flags or unrestricted >= 2 or _has_long(words, "--hidden", "--unrestricted")
            or any(w.startswith(("-g", "--glob", "--iglob")) for w in words))


def walk_matching(folder: Path, skips_hidden: bool, matches) -> bool | None:
    """Does ``folder`` hold (at any depth, links not followed but their targets checked)
    a path for which ``matches(path)`` is true? None when it is too big to tell."""
    if matches(folder):
        return True
    seen = 0
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > _MAX_WALK:
                return None
            if skips_hidden and entry.name.startswith("."):
                continue
            path = Path(entry.path)
            if matches(path) or (entry.is_symlink() and matches(Path(os.path.realpath(path)))):
                return True
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(path)
            except OSError:
                continue
    return False
