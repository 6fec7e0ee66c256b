"""git: the subcommands that only read the repository, each with its own option check,
and the options any git command may take that write files or run programs."""

from __future__ import annotations

from vibe_tui.policy.shell.checks import Checker, Problem, anything, forbid

_BRANCH_LIST_OPTIONS = frozenset(
    {"-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"})
_branch_options = forbid(
    short="dDmMcCuft", what="changes branches",
    long=("--delete", "--move", "--copy", "--set-upstream", "--set-upstream-to",
          "--unset-upstream", "--edit-description", "--force", "--track", "--no-track",
          "--create-reflog"))


def _git_branch(name: str, args: list[str]) -> str | None:
    problem = _branch_options(name, args)
    if problem:
        return problem
    listing = any(a.split("=", 1)[0] in _BRANCH_LIST_OPTIONS for a in args)
    if not listing and any(not a.startswith("-") for a in args):
        return f"{name} with a name creates a branch"
    return None


def _git_tag(name: str, args: list[str]) -> str | None:
    options = [a for a in args if a.startswith("-")]
    for option in options:
        if option not in ("-l", "--list"):
            return f"{name} {option} is not a listing"
    if args and not options:
        return f"{name} with a name creates a tag"  # names are patterns only after -l
    return None


def _git_remote(name: str, args: list[str]) -> str | None:
    if args in ([], ["-v"], ["--verbose"]):
        return None
    return f"{name} {args[0]} changes remotes or contacts the network"


# Options any git command may take that write files or run programs; git's option parser
# accepts unambiguous abbreviations (--upload-pa is --upload-pack: CVE-2025-66032).
_git_common = forbid(
    long=("--output", "--ext-diff", "--textconv", "--exec-path", "--upload-pack",
          "--config-env", "--open-files-in-pager", "--receive-pack"),
    known=("--text",))

# Subcommands that only read the repository, each with its own option check.
GIT_READ_ONLY: dict[str, Checker] = {
    "status": anything,
    "diff": anything,
    "log": anything,
    "show": anything,
    "branch": _git_branch,
    "ls-files": anything,
    "rev-parse": anything,
    "blame": anything,
    "grep": forbid(short="O"),  # -O runs a pager program
    "remote": _git_remote,
    "describe": anything,
    "tag": _git_tag,
    "shortlog": anything,
}


def check_git(name: str, args: list[str]) -> str | None:
    if args == ["--version"]:
        return None
    while args and args[0] in ("--no-pager", "-P"):  # only turns the pager off
        args = args[1:]
    if not args:
        return None  # prints usage
    sub, rest = args[0], args[1:]
    if sub.startswith("-"):
        # -c, -C, --git-dir, --work-tree, --exec-path ... can point git at programs to run
        return f"git {sub} changes how git runs and can make it run programs"
    # The options that make any git command run a program are refused first, so a rule
    # or a grant for `git push` never covers `git push --receive-pack=./x`.
    dangerous = _git_common(f"git {sub}", rest)
    if dangerous:
        return dangerous
    check = GIT_READ_ONLY.get(sub)
    if check is None:
        return Problem(f"git {sub} is not a read-only git command", grantable=True)
    return check(f"git {sub}", rest)
