"""Reading a command's words the way its option parser does, to tell files from the rest.

For GNU tools that parser is getopt_long: short options cluster (-rnh), a short option
that takes a value takes the rest of its cluster or the next word (-A3, -A 3), a long one
takes --opt=value or, when the value is required, the next word; any unambiguous prefix
names a long option (--reg=x is --regexp=x); options after operands still count; `--`
ends the options. ``program`` describes one program in getopt's own notation, and
``paths_of`` gives the words that may name files.

Every doubt resolves towards more paths, never fewer, since checking a word that is not a
file costs nothing and missing one lets a read outside the workspace through:

- an option not in a program's table (or an ambiguous abbreviation) makes the whole
  command read as if every value were a path, and no operand is taken for a pattern;
- each command is also read without permutation (BSD tools, POSIXLY_CORRECT: options
  stop at the first operand), and the paths of both readings count;
- a count or size that is not a number is checked as a path (another implementation may
  read that option as a flag, and the word as a file).

What comes out is the values themselves: `-f/etc/x` gives /etc/x, and an operand that
starts with "-" (`cat -- -x`) is written ./-x, which names the same file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from operator import itemgetter

# What an option's value is.
PATH = "path"  # a file the program reads (or writes): checked
PATHS = "paths"  # a colon-separated list of them (file -m, man -M)
TEXT = "text"  # a pattern, a format, a glob, one of a few words: never a file
NUMBER = "number"  # a count or a size; checked as a path unless it is a number
PATTERN = "pattern"  # grep -e: text, and then every operand is a file
PATTERN_FILE = "pattern-file"  # grep -f: a file, and then every operand is a file

# How an option takes its value.
NONE, REQUIRED, OPTIONAL = "none", "required", "optional"  # optional: only -xVALUE, --x=VALUE


@dataclass(frozen=True)
class Option:
    takes: str = NONE
    kind: str = PATH


FLAG = Option()


@dataclass(frozen=True)
class Program:
    short: Mapping[str, Option]
    long: Mapping[str, Option]
    pattern_first: bool = False  # the first operand is a pattern unless -e/-f give them
    abbreviate: bool = True  # the table is complete, and the parser takes prefixes
    no_pattern: frozenset[str] = frozenset()  # long options after which no operand is a pattern
    at_files: bool = False  # binutils: @FILE reads more arguments from FILE
    next_word_values: bool = False  # tree: -PI a b gives -P a and -I b


def program(short: str, long: str = "", kinds: Mapping[str, str] | None = None, *,
            negations: bool = False, **rest: object) -> Program:
    """A program from getopt's notation: ``short`` as getopt's optstring ("ab:c::"), and
    ``long`` as words "name" (a flag), "name=" (a required value), "name=?" (an optional
    one), each maybe followed by "/x", the short option it equals. ``kinds`` says what
    values are, by letter or name; a value not described there is a path. ``negations``:
    git's --no-NAME for every NAME (and --NAME for every --no-NAME)."""
    kinds = kinds or {}
    shorts: dict[str, Option] = {}
    i = 0
    while i < len(short):
        letter, takes = short[i], NONE
        i += 1
        if short.startswith("::", i):
            takes, i = OPTIONAL, i + 2
        elif short.startswith(":", i):
            takes, i = REQUIRED, i + 1
        shorts[letter] = Option(takes, kinds.get(letter, PATH))
    longs: dict[str, Option] = {}
    for token in long.split():
        name, _, alias = token.partition("/")
        takes = NONE
        if name.endswith("=?"):
            name, takes = name[:-2], OPTIONAL
        elif name.endswith("="):
            name, takes = name[:-1], REQUIRED
        longs[name] = Option(takes, kinds.get(name) or kinds.get(alias) or PATH)
    if negations:
        for name in list(longs):
            longs.setdefault(name[3:] if name.startswith("no-") else "no-" + name, FLAG)
    return Program(shorts, longs, **rest)  # type: ignore[arg-type]


# -- reading ---------------------------------------------------------------------------

_NUMBER = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?)[A-Za-z%]{0,3}")


@dataclass
class _Reading:
    paths: list[tuple[int, str]] = field(default_factory=list)  # (word index, value)
    operands: list[tuple[int, str]] = field(default_factory=list)
    patterns_given: bool = False  # -e or -f
    unsure: bool = False  # an option the table does not know
    no_pattern: bool = False  # rg --files
    every_value: bool = False  # count text values too (after an unknown option)


def _value(option: Option, value: str, index: int, reading: _Reading) -> None:
    if option.kind in (PATTERN, PATTERN_FILE):
        reading.patterns_given = True
    if option.kind == PATHS:
        reading.paths += [(index, part) for part in value.split(":")]
    elif reading.every_value or option.kind in (PATH, PATTERN_FILE) or (
            option.kind == NUMBER and not _NUMBER.fullmatch(value)):
        reading.paths.append((index, value))


def _long_option(prog: Program, name: str) -> tuple[list[str], Option] | None:
    """The options a long name stands for (several: an abbreviation of aliases), or None
    when it is unknown or ambiguous. getopt_long takes an exact name first, then the one
    option a prefix starts, or the first of several that all behave alike."""
    if name in prog.long:
        return [name], prog.long[name]
    if not prog.abbreviate or not name:
        return None
    names = [n for n in prog.long if n.startswith(name)]
    shapes = {prog.long[n] for n in names}
    return (names, shapes.pop()) if len(shapes) == 1 else None


def _long(prog: Program, args: list[str], i: int, reading: _Reading) -> int:
    name, equals, value = args[i][2:].partition("=")
    found = _long_option(prog, name)
    if found is None:
        reading.unsure = True
        if equals:
            reading.paths.append((i, value))
        elif i + 1 < len(args):
            reading.paths.append((i + 1, args[i + 1]))  # its value, or an operand anyway
        return i + 1
    names, option = found
    if prog.no_pattern.intersection(names):
        reading.no_pattern = True
    if equals:
        if option.takes == NONE:
            reading.paths.append((i, value))  # getopt refuses it; checked all the same
        else:
            _value(option, value, i, reading)
    elif option.takes == REQUIRED and i + 1 < len(args):
        _value(option, args[i + 1], i + 1, reading)
        return i + 2
    return i + 1


def _short(prog: Program, args: list[str], i: int, reading: _Reading) -> int:
    word, following = args[i], i + 1
    j = 1
    while j < len(word):
        option, rest = prog.short.get(word[j]), word[j + 1:]
        if option is None:
            reading.unsure = True
            if rest:
                reading.paths.append((i, rest))  # the letter may take the rest as its value
            elif following < len(args):
                reading.paths.append((following, args[following]))
            j += 1
            continue
        if option.takes == NONE:
            j += 1
            continue
        if prog.next_word_values:
            digits = len(rest) - len(rest.lstrip("0123456789"))
            if option.kind == NUMBER and digits:  # tree -L2
                j += 1 + digits
            elif following < len(args):
                _value(option, args[following], following, reading)
                following += 1
                j += 1
            else:
                j += 1
            continue
        if rest:
            _value(option, rest, i, reading)
        elif option.takes == REQUIRED and following < len(args):
            _value(option, args[following], following, reading)
            following += 1
        break
    return following


def _read(prog: Program, args: list[str], permute: bool, every_value: bool) -> _Reading:
    reading = _Reading(every_value=every_value)
    i = 0
    while i < len(args):
        word = args[i]
        if reading.operands and not permute:
            reading.operands += [(k, args[k]) for k in range(i, len(args))]
            break
        if word == "--":
            reading.operands += [(k, args[k]) for k in range(i + 1, len(args))]
            break
        if word.startswith("--"):
            i = _long(prog, args, i, reading)
        elif word.startswith("-") and word != "-":
            i = _short(prog, args, i, reading)
        else:
            reading.operands.append((i, word))
            i += 1
    return reading


def paths_of(prog: Program, args: list[str]) -> list[str]:
    """The words of ``args`` that may name files for ``prog``, read with and without
    permutation."""
    readings = [_read(prog, args, permute, False) for permute in (True, False)]
    if any(reading.unsure for reading in readings):
        # An option the table does not know may take the next word, or be a flag that
        # shifts what the rest of its cluster means: which words are text is unknown.
        readings = [_read(prog, args, permute, True) for permute in (True, False)]
    found: list[tuple[int, str]] = []
    for reading in readings:
        operands = reading.operands
        if prog.pattern_first and not (
                reading.patterns_given or reading.unsure or reading.no_pattern):
            operands = operands[1:]
        found += reading.paths + operands
    if prog.at_files:
        found += [(i, a[1:]) for i, a in enumerate(args) if a.startswith("@")]
    return tidy(found)


def tidy(found: Iterable[tuple[int, str]]) -> list[str]:
    """In the order of the command; without "-" (standard input) or repeats; a value that
    starts with "-" written as ./-x, so that no later reader takes it for an option."""
    out: dict[str, None] = {}
    for _, value in sorted(found, key=itemgetter(0)):
        if value in ("", "-"):
            continue
        out["./" + value if value.startswith("-") else value] = None
    return list(out)
