"""What the check of one program's arguments answers (``Problem``) and the building
blocks of those checks: options that write files or run programs are refused, the way the
program's own option parser reads them (abbreviations, clustered short flags)."""

from __future__ import annotations

from collections.abc import Callable


class Problem(str):
    """Why one command is not read-only. ``grantable``: an "always" answer may cover later
    uses (an unknown program the user trusts); a dangerous option or a path outside the
    workspace must be looked at every time. ``outside``: the problem is only where it reads.
    ``covered_by_rule``: a rule the user wrote may cover it (``Bash(bash:*)`` for bash,
    which no "always" answer grants); never so for a dangerous option or a path outside."""

    grantable: bool
    outside: bool
    covered_by_rule: bool

    def __new__(cls, text: str, *, grantable: bool = False, outside: bool = False,
                covered_by_rule: bool | None = None) -> Problem:
        problem = super().__new__(cls, text)
        problem.grantable = grantable
        problem.outside = outside
        problem.covered_by_rule = grantable if covered_by_rule is None else covered_by_rule
        return problem


Checker = Callable[[str, list[str]], "str | None"]  # (name, args) -> problem or None


def anything(name: str, args: list[str]) -> None:
    return None


def _offending_option(arg: str, short: str, long: frozenset[str], exact: frozenset[str],
                      prefixes: tuple[str, ...], known: frozenset[str]) -> str | None:
    if arg in exact or (prefixes and arg.startswith(prefixes)):
        return arg
    if arg.startswith("--") and len(arg) > 2:
        given = "--" + arg[2:].split("=", 1)[0]
        if given in long:
            return given
        if given in known:
            return None  # a real option that happens to start like a dangerous one
        # getopt takes any unambiguous abbreviation: sort --out=f is sort --output=f.
        return next((option for option in sorted(long) if option.startswith(given)), None)
    elif arg.startswith("-") and len(arg) > 1 and short:
        # Short flags cluster: sort -ro f is sort -r -o f.
        for letter in arg[1:]:
            if letter in short:
                return "-" + letter
    return None


def forbid(short: str = "", long: tuple[str, ...] = (), exact: tuple[str, ...] = (),
           prefixes: tuple[str, ...] = (), what: str = "can write files or run programs",
           known: tuple[str, ...] = ()) -> Checker:
    """A checker refusing the options that write files or run programs. ``known``: real
    options that are prefixes of a refused one (git diff --text is not --textconv)."""
    longs, exacts, knowns = frozenset(long), frozenset(exact), frozenset(known)

    def check(name: str, args: list[str]) -> str | None:
        # No stop at "--": find -- . -delete still deletes, and a refused operand that
        # merely looks like an option costs a question, not a hole.
        for arg in args:
            bad = _offending_option(arg, short, longs, exacts, prefixes, knowns)
            if bad is not None:
                return f"{name} {bad} {what}"
        return None

    return check


def all_of(*checkers: Checker) -> Checker:
    def check(name: str, args: list[str]) -> str | None:
        return next((p for c in checkers if (p := c(name, args))), None)

    return check
