"""Reading a shell command the way bash will run it.

Two questions are answered here, both from the tree-sitter-bash syntax tree, never from
patterns over the command text:

- ``analyse_command``: is this command read-only, so it may run without asking? Only a
  script made of plain simple commands (literal words, no expansions, no redirections),
  joined by ``&&``, ``||``, ``;`` or ``|``, whose every command is on the read-only list
  with safe options, qualifies. Anything the reader does not fully understand is "not
  read-only" and the user is asked: a wrong "no" costs a keypress, a wrong "yes" runs code.
- ``reachable_commands``: every simple command that could run, anywhere in the tree
  (inside substitutions, subshells, functions, after ``sudo``/``env``/``xargs``, inside
  ``bash -c '...'``), for deny rules, which must err the other way.

Known allowlist bypasses (CVE-2025-66032 and friends; tests/policy_corpus holds them with
their sources) shape the checks: options that run programs (``rg --pre``, ``sort
--compress-program``, ``man --html``, ``git -c``), sed beyond ``-n`` with ``p`` commands,
abbreviated long options (``--out`` is ``--output`` to getopt, ``--upload-pa`` is
``--upload-pack`` to git), wildcards that expand into options, and characters
that tree-sitter and bash split differently (a carriage return is whitespace to the
parser but part of a word to bash) are all refused. So are invisible characters (zero-width,
bidi controls, odd spaces): what the user reads in the approval must be what bash runs.
"""

from __future__ import annotations

import functools
import posixpath
import shlex
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

from vibe_tui.policy import operands


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


# -- parsing ---------------------------------------------------------------------------


@functools.cache
def _language() -> Language:
    return Language(tree_sitter_bash.language())


@functools.cache
def _parser() -> Parser:
    return Parser(_language())


def _parse(command: str) -> Node:
    # surrogatepass: a string with lone surrogates (from JSON) still parses, byte for byte.
    return _parser().parse(command.encode("utf-8", "surrogatepass")).root_node


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogatepass")


def _control_character(command: str) -> str | None:
    """Tree-sitter and bash disagree on some control characters (a carriage return
    separates words for the parser, not for bash), and a NUL truncates the C string bash
    sees; so any of them makes the command unreadable. Tabs and newlines are ordinary.
    Invisible characters (zero-width, bidi overrides, spaces other than the space) make
    the command read differently on screen than bash reads it (Trojan Source)."""
    if command.isascii():  # the common case, without a look at each character
        if "\x00" in command:
            return "contains a NUL byte"
        if any((ord(c) < 32 and c not in "\t\n") or c == "\x7f" for c in command):
            return "contains a control character"
        return None
    for char in command:
        if char == "\x00":
            return "contains a NUL byte"
        category = unicodedata.category(char)
        if category == "Cc" and char not in "\t\n":
            return "contains a control character"
        if category in ("Cf", "Zl", "Zp") or (category == "Zs" and char != " "):
            return f"contains an invisible or unusual character (U+{ord(char):04X})"
    return None


def _unparseable(root: Node) -> bool:
    return root.has_error  # true for ERROR and MISSING nodes anywhere below


# -- words -----------------------------------------------------------------------------

Chars = list[tuple[str, bool]]  # (character, quoted): quoted characters are never special


def _unquoted_chars(text: str) -> Chars:
    """A bare word: a backslash quotes the next character; backslash-newline vanishes."""
    out: Chars = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append((text[i + 1], True))
            i += 2
            continue
        out.append((text[i], False))
        i += 1
    return out


def _double_quoted_chars(text: str) -> Chars:
    """Inside "...", a backslash only escapes $ ` " \\ and newline."""
    out: Chars = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append((text[i + 1], True))
            i += 2
            continue
        out.append((text[i], True))
        i += 1
    return out


def _chars(node: Node) -> Chars | None:
    """The characters a word node stands for, or None when bash computes it at run time."""
    if node.type in ("word", "number"):
        return _unquoted_chars(_text(node))
    if node.type == "raw_string":
        return [(c, True) for c in _text(node)[1:-1]]
    if node.type == "string":
        out: Chars = []
        for child in node.children:
            if child.type == "string_content":
                out += _double_quoted_chars(_text(child))
            elif child.is_named or child.type != '"':
                return None  # $x, $(...), `...` inside the quotes
        return out
    if node.type == "concatenation":
        out = []
        for child in node.children:
            part = _chars(child) if child.is_named else None  # a bare "$" token: $"..." etc.
            if part is None:
                return None
            out += part
        return out
    return None


def _is_glob(chars: Chars) -> bool:
    return any(c in "*?[" and not quoted for c, quoted in chars)


def _may_expand_to_option(chars: Chars) -> bool:
    """A wildcard at the start (*.py, -*) can expand to a file named --pre=x.sh, which the
    program reads as an option; src/*.py can only expand to names starting with src/."""
    if not chars or not _is_glob(chars):
        return False
    first, quoted = chars[0]
    return first == "-" or (first in "*?[" and not quoted)


def _is_brace_expansion(chars: Chars) -> bool:
    """a{b,c} and {1..3} become several words; a lone {} (find) or @{1} (git) does not."""
    masked = "".join(c if not quoted else "\x00" for c, quoted in chars)
    start = masked.find("{")
    while start != -1:
        end = masked.find("}", start)
        if end == -1:
            return False
        inner = masked[start + 1:end]
        if "," in inner or ".." in inner:
            return True
        start = masked.find("{", start + 1)
    return False


@dataclass(frozen=True)
class _Word:
    value: str
    glob: bool  # has an unquoted * ? [ that bash expands against file names
    option_glob: bool = False  # ... and may expand to a word starting with -


# Syntax beyond plain words and plain commands, and how to tell the user about it.
_NODE_REASONS: dict[str, str] = {
    "command_substitution": "uses command substitution",
    "process_substitution": "uses process substitution",
    "simple_expansion": "expands a variable",
    "expansion": "expands a variable",
    "arithmetic_expansion": "uses arithmetic expansion",
    "brace_expression": "uses brace expansion",
    "ansi_c_string": "uses $'...' quoting",
    "translated_string": 'uses $"..." quoting',
    "variable_assignment": "sets a variable",
    "subshell": "runs commands in a subshell",
    "compound_statement": "groups commands with { }",
    "function_definition": "defines a shell function",
    "if_statement": "uses shell control flow (if)",
    "for_statement": "uses a shell loop",
    "c_style_for_statement": "uses a shell loop",
    "while_statement": "uses a shell loop",
    "case_statement": "uses shell control flow (case)",
    "declaration_command": "declares shell variables",
    "unset_command": "unsets shell variables",
    "test_command": "uses a shell test expression",
    "negated_command": "negates a command's status",
    "heredoc_redirect": "uses a here-document",
    "herestring_redirect": "uses a here-string",
}

_TOKEN_REASONS: dict[str, str] = {
    "&": "runs a command in the background",
    "|&": "pipes error output too (|&)",
    "$": "uses a $ the policy cannot read",
}


def _node_reason(node: Node) -> str:
    if not node.is_named:
        return _TOKEN_REASONS.get(node.type, f"uses the shell operator {node.type}")
    if node.type == "file_redirect":
        return _redirect_reason(node)
    if node.type == "redirected_statement":
        for child in node.children:
            if child.type.endswith("_redirect"):
                return _node_reason(child)
    return _NODE_REASONS.get(node.type, f"uses shell syntax the policy does not read ({node.type})")


def _redirect_reason(node: Node) -> str:
    operator = next((c.type for c in node.children if not c.is_named), "")
    destination = node.child_by_field_name("destination")
    if operator in (">&", "<&") and destination is not None and destination.type == "number":
        return "redirects a file descriptor"
    return "redirects output to a file" if ">" in operator else "reads a file through a redirection"


_WORD_TYPES = frozenset({"word", "number", "raw_string", "string", "concatenation"})


def _word(node: Node) -> _Word | str:
    """A literal word, or why it is not one."""
    if node.type not in _WORD_TYPES:
        return _node_reason(node)
    chars = _chars(node)
    if chars is None:
        return next((_node_reason(n) for n in _walk(node) if _is_dynamic(n)),
                    "uses a word the policy cannot read")
    if _is_brace_expansion(chars):
        return "uses brace expansion"
    return _Word("".join(c for c, _ in chars), _is_glob(chars), _may_expand_to_option(chars))


def _is_dynamic(node: Node) -> bool:
    return node.type in _NODE_REASONS or (not node.is_named and node.type == "$")


def _walk(node: Node) -> Iterator[Node]:
    """Pre-order, without recursion: a chain of 5,000 commands nests 5,000 deep."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


# -- the shape of a plain script -------------------------------------------------------

_CONTAINERS = {"program", "list", "pipeline"}
_JOINERS = {";", "&&", "||", "|"}


def _plain_words(root: Node) -> list[list[_Word]] | str:
    """The words of each simple command of a plain script, or why it is not plain."""
    commands: list[list[_Word]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _CONTAINERS:
            stack.extend(reversed(node.children))
        elif node.type == "command":
            words = _command_words(node)
            if isinstance(words, str):
                return words
            commands.append(words)
        elif node.type == "comment" or (not node.is_named and node.type in _JOINERS):
            continue
        else:
            return _node_reason(node)
    return commands


def _command_words(node: Node) -> list[_Word] | str:
    words: list[_Word] = []
    for child in node.children:
        if child.type == "variable_assignment":
            return "sets a variable for the command"
        target = child.named_children[0] if child.type == "command_name" else child
        word = _word(target)
        if isinstance(word, str):
            return word
        words.append(word)
    return words


# -- the read-only list ----------------------------------------------------------------

Checker = Callable[[str, list[str]], "str | None"]  # (name, args) -> problem or None


def _anything(name: str, args: list[str]) -> None:
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


def _forbid(short: str = "", long: tuple[str, ...] = (), exact: tuple[str, ...] = (),
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


def _all(*checkers: Checker) -> Checker:
    def check(name: str, args: list[str]) -> str | None:
        return next((p for c in checkers if (p := c(name, args))), None)

    return check


def _version_only(name: str, args: list[str]) -> str | None:
    return None if args == ["--version"] else _not_listed(name)


def _uniq(name: str, args: list[str]) -> str | None:
    operands = [a for a in args if a == "-" or not a.startswith("-")]
    return "uniq with two file names writes the second one" if len(operands) > 1 else None


def _cd(name: str, args: list[str]) -> str | None:
    """cd inside the workspace only changes where later words of the same script point
    (and the path checks see those); cd alone goes home and cd - goes back: outside."""
    if len(args) != 1 or args[0].startswith("-"):
        return Problem("cd without one folder of the workspace may leave the workspace",
                       outside=True)
    return None


# sed: only printing (-n with p commands); s///e, e, w, W, r, R and -i write or run.
_SED_FLAGS = frozenset("nrEsuz")
_SED_LONG_FLAGS = frozenset({"--quiet", "--silent", "--regexp-extended", "--separate",
                             "--unbuffered", "--null-data", "--posix", "--debug", "--sandbox"})


def _sed(name: str, args: list[str]) -> str | None:
    parsed = _sed_parse(args)
    if parsed is None or not parsed[2] or not parsed[0]:
        return _sed_refusal(name)
    if not all(_sed_prints_only(script) for script in parsed[0]):
        return _sed_refusal(name)
    return None


def _sed_refusal(name: str) -> str:
    return f"{name} may write files or run commands (only {name} -n with p commands is read-only)"


def _sed_parse(args: list[str]) -> tuple[list[str], list[str], bool] | None:
    """(scripts, file operands, quiet), or None for an option that is not plain reading."""
    scripts: list[str] = []
    operands: list[str] = []
    quiet = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-e", "--expression") and i + 1 < len(args):
            scripts.append(args[i + 1])
            i += 2
            continue
        if arg.startswith("--expression="):
            scripts.append(arg.split("=", 1)[1])
        elif arg in ("-n", "--quiet", "--silent"):
            quiet = True
        elif arg.startswith("--"):
            if arg not in _SED_LONG_FLAGS:
                return None
        elif arg.startswith("-") and len(arg) > 1:
            letters = arg[1:]
            if "e" in letters:  # -ne SCRIPT: the script is the next word (or the rest)
                head, _, rest = letters.partition("e")
                if set(head) - _SED_FLAGS:
                    return None
                quiet = quiet or "n" in head
                if rest:
                    scripts.append(rest)
                elif i + 1 < len(args):
                    scripts.append(args[i + 1])
                    i += 1
                else:
                    return None
            elif set(letters) - _SED_FLAGS:
                return None  # -i, -f, -l, and anything not known
            else:
                quiet = quiet or "n" in letters
        else:
            operands.append(arg)
        i += 1
    if not scripts and operands:
        scripts.append(operands.pop(0))
    return scripts, operands, quiet


def _sed_prints_only(script: str) -> bool:
    """Each command is ``[address[,address]][!]p`` (addresses: N, $, N~M, /regex/[I])."""
    commands = [c.strip() for c in script.replace("\n", ";").split(";")]
    return all(_sed_print_command(c) for c in commands if c)


def _sed_print_command(command: str) -> bool:
    rest = _sed_address(command)
    if rest is not None and rest.startswith(","):
        rest = _sed_address(rest[1:].lstrip())
    if rest is None:
        rest = command  # no address: the command applies to every line
    rest = rest.strip()
    if rest.startswith("!"):
        rest = rest[1:].strip()
    return rest == "p"


def _sed_address(text: str) -> str | None:
    """What follows one address at the start of ``text``, or None when there is none."""
    if text.startswith("$"):
        return text[1:]
    if text[:1].isdigit():
        end = len(text) - len(text.lstrip("0123456789~"))
        return text[end:]
    if text.startswith("/"):
        i = 1
        while i < len(text):
            if text[i] == "\\":
                i += 2
                continue
            if text[i] == "/":
                rest = text[i + 1:]
                return rest[1:] if rest[:1] in ("I", "M") else rest
            i += 1
    return None


_BRANCH_LIST_OPTIONS = frozenset(
    {"-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"})
_branch_options = _forbid(
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
_git_common = _forbid(
    long=("--output", "--ext-diff", "--textconv", "--exec-path", "--upload-pack",
          "--config-env", "--open-files-in-pager", "--receive-pack"),
    known=("--text",))

# Subcommands that only read the repository, each with its own option check.
GIT_READ_ONLY: dict[str, Checker] = {
    "status": _anything,
    "diff": _anything,
    "log": _anything,
    "show": _anything,
    "branch": _git_branch,
    "ls-files": _anything,
    "rev-parse": _anything,
    "blame": _anything,
    "grep": _forbid(short="O"),  # -O runs a pager program
    "remote": _git_remote,
    "describe": _anything,
    "tag": _git_tag,
    "shortlog": _anything,
}


def _git(name: str, args: list[str]) -> str | None:
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


_FILE_LIST_FROM = ("--files0-from",)  # file names read from a file: anything, anywhere

# argv[0] -> checker of the arguments. Extend here; anything absent is not read-only.
READ_ONLY: dict[str, Checker] = {
    **{name: _anything for name in (
        "ls", "cat", "head", "tail", "pwd", "echo", "stat", "which", "whoami", "uname",
        "basename", "dirname", "realpath", "readlink", "cut", "tr", "cmp", "nl", "true",
        "false", "test", "sha256sum", "sha1sum", "sha512sum", "md5sum", "tac", "rev", "seq",
        "id", "paste", "column", "comm", "join", "fold", "fmt", "expr", "numfmt", "od",
        "hexdump", "strings",
    )},
    "wc": _forbid(long=_FILE_LIST_FROM, what="reads file names from a file"),
    "du": _forbid(long=_FILE_LIST_FROM, what="reads file names from a file"),
    "df": _anything,
    # -R and diff -r follow links while they walk, and a link can point out of the workspace.
    "grep": _forbid(short="R", long=("--dereference-recursive",),
                    what="follows symbolic links, which can lead outside the workspace"),
    "diff": _forbid(short="r", long=("--recursive",),
                    what="follows symbolic links, which can lead outside the workspace"),
    "find": _forbid(exact=("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls",
                           "-files0-from"),  # starting points read from a file: anywhere
                    prefixes=("-fprint",)),
    "rg": _all(
        _forbid(short="z",  # -z runs decompressors
                long=("--pre", "--pre-glob", "--search-zip", "--hostname-bin")),
        _forbid(short="L", long=("--follow",),
                what="follows symbolic links, which can lead outside the workspace")),
    "sort": _forbid(short="o", long=("--output", "--compress-program", *_FILE_LIST_FROM)),
    "tree": _forbid(short="oR"),  # -R writes 00Tree.html in every folder
    "file": _forbid(short="C", long=("--compile",)),
    "date": _forbid(short="s", long=("--set",), what="sets the clock"),
    "base64": _forbid(short="o", long=("--output",)),  # BSD base64 -o writes a file
    # man --html=CMD and -P CMD run CMD (CVE-2025-66032); -C reads another config.
    "man": _forbid(short="PHXTtZpC", long=(
        "--pager", "--html", "--gxditview", "--troff-device", "--troff", "--ditroff",
        "--preprocessor", "--config-file"), what="can run other programs"),
    "sed": _sed,
    "uniq": _uniq,
    "cd": _cd,
    "git": _git,
    **{name: _version_only for name in (
        "python", "python3", "node", "npm", "pnpm", "yarn", "cargo", "rustc", "uv",
        "pip", "pip3", "ruby", "deno", "bun", "go", "java", "tsc",
    )},
}

# Programs that run another command: the policy cannot vouch for what that one does.
WRAPPERS = frozenset({
    "env", "xargs", "sudo", "doas", "nice", "ionice", "timeout", "nohup", "time", "command",
    "builtin", "exec", "stdbuf", "setsid", "chroot", "watch", "strace", "ltrace", "flock",
    "taskset", "chrt", "fakeroot", "runuser", "unbuffer", "find", "parallel", "pkexec",
    "unshare", "nsenter", "systemd-run", "firejail", "bwrap", "busybox", "toybox", "script",
    "proxychains", "proxychains4", "torsocks", "xvfb-run", "dbus-run-session", "catchsegv",
})
# Programs that run shell scripts: from files, or given as an argument (_SCRIPT_SHELLS -c).
_SCRIPT_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "su", "tcsh",
                            "csh", "yash", "ash"})
SHELLS = _SCRIPT_SHELLS | {"eval", "ssh", "source", "."}
_SHELL_STATE = frozenset({"pushd", "popd", "export", "alias", "unalias", "history",
                          "set", "shopt", "unset", "trap", "umask", "ulimit", "hash",
                          "enable", "bind", "complete", "readonly", "declare", "typeset",
                          "local", "fc", "disown"})

# Programs often taken for harmless, with what they can do; all of them ask.
_RISKS: dict[str, str] = {
    **{name: "can run shell commands from inside (!command)" for name in (
        "less", "more", "most", "pg", "vi", "vim", "nvim", "view", "vimdiff", "ex", "ed",
        "nano", "pico", "emacs", "joe", "mc", "ftp")},
    **{name: "runs a program given on its command line, which can do anything" for name in (
        "awk", "gawk", "mawk", "nawk", "perl", "jq", "lua", "php", "tclsh", "Rscript",
        "osascript")},
    **{name: "deletes files" for name in ("rm", "rmdir", "shred", "unlink")},
    **{name: "writes files" for name in (
        "tee", "cp", "mv", "ln", "mkdir", "touch", "chmod", "chown", "chgrp",
        "install", "dd", "truncate", "rsync", "patch", "tar", "unzip", "zip",
        "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "7z", "cpio", "xxd",
        "split", "csplit", "mktemp", "mkfifo", "mknod", "sponge")},
    **{name: "contacts the network, which can send data away" for name in (
        "curl", "wget", "nc", "ncat", "netcat", "socat", "scp", "sftp", "telnet", "ping",
        "ping6", "dig", "nslookup", "host", "whois", "traceroute", "tracepath", "ssh-keyscan",
        "aria2c", "http", "https")},
    "printenv": "prints environment variables, which often hold secrets",
    "crontab": "schedules commands",
    "at": "schedules commands",
    "kill": "stops processes",
    "pkill": "stops processes",
    "killall": "stops processes",
    "xdg-open": "opens files with other programs",
    "open": "opens files with other programs",
}


def _not_listed(name: str) -> Problem:
    if name in SHELLS:
        return Problem(f"runs a shell script through {name}", covered_by_rule=True)
    if name in WRAPPERS:
        return Problem(f"runs another command through {name}", covered_by_rule=True)
    if name in _SHELL_STATE:
        return Problem(f"changes the shell's state ({name})", covered_by_rule=True)
    if name in _RISKS:
        return Problem(f"{name} {_RISKS[name]}", grantable=True)
    return Problem(f"{name} is not a known read-only command", grantable=True)


def _reaches_outside(value: str) -> bool:
    """Absolute paths, ~, and .. leave the workspace; .* can match .. in older bash."""
    if value.startswith("--"):
        value = value.split("=", 1)[1] if "=" in value else ""
    elif value.startswith("-"):
        value = value[2:]  # -f/etc/passwd: a short option with its value attached
    if value.startswith(("/", "~")) or "=~" in value or ":~" in value:
        return True
    for part in value.replace("=", "/").replace(":", "/").split("/"):
        if part == ".." or (part.startswith(".") and any(c in part for c in "*?[")):
            return True
    return False


def path_words(name: str, args: list[str]) -> list[str]:
    """The arguments of a command that may name files, as operands.path_words reads them
    (not echo's text, grep's pattern or head's count), and sed's files (not its script):
    so `grep -rn /api/ src` and `sed -n '/x/p' f` stay inside."""
    if name == "sed":
        parsed = _sed_parse(args)
        return parsed[1] if parsed is not None else args
    return operands.path_words(name, args)


def command_problem(words: list[_Word]) -> str | None:
    """Why one plain simple command is not read-only, or None when it is."""
    name, args = words[0].value, [w.value for w in words[1:]]
    check = READ_ONLY.get(name)
    if check is None:
        return _not_listed(name)
    problem = check(name, args)
    if problem:
        return problem
    for value in path_words(name, args):
        if _reaches_outside(value):
            return Problem(f"reaches outside the workspace: {value}", outside=True)
    if check is not _anything and name not in _GLOB_SAFE and any(w.option_glob for w in words[1:]):
        # A file named --pre=./evil.sh turns `rg x *` into a program run.
        return f"uses a wildcard that could expand into an option of {name}"
    return None


# Listed programs whose options, even when a file name poses as one, at worst count or
# measure files (wc --files0-from): `wc -l *.py` is too common to ask about.
_GLOB_SAFE = frozenset({"wc", "du"})


# -- the "always" grant ----------------------------------------------------------------

# How many leading words name what a command does: git commit, npm run build. A program
# absent here has arity 1: `pytest tests/a.py` grants Bash(pytest:*).
ARITY: dict[str, int] = {
    "git": 2, "npm": 2, "npm run": 3, "npm exec": 3, "pnpm": 2, "pnpm run": 3, "pnpm exec": 3,
    "yarn": 2, "yarn run": 3, "bun": 2, "bun run": 3, "npx": 2, "pnpx": 2, "bunx": 2,
    "cargo": 2, "go": 2, "uv": 2, "uv run": 3, "uv pip": 3, "uvx": 2, "pipx": 2, "poetry": 2,
    "poetry run": 3, "pdm": 2, "pdm run": 3, "hatch": 2, "hatch run": 3, "pip": 2, "pip3": 2,
    "docker": 2, "docker compose": 3, "podman": 2, "kubectl": 2, "helm": 2, "gh": 3,
    "make": 2, "just": 2, "ruff": 2, "deno": 2, "deno task": 3, "python": 2, "python3": 2,
    "python -m": 3, "python3 -m": 3, "node": 2, "bundle": 2, "bundle exec": 3, "rake": 2,
    "mvn": 2, "gradle": 2, "dotnet": 2, "mix": 2, "swift": 2, "flutter": 2, "dart": 2,
    "terraform": 2, "bazel": 2, "nx": 2, "turbo": 2, "turbo run": 3, "composer": 2,
    "rustup": 2, "brew": 2, "apt": 2, "apt-get": 2, "systemctl": 2, "pre-commit": 2,
}


def _arity(argv: list[str]) -> tuple[int, int]:
    """(words of the longest ARITY key argv starts with, that key's arity); (1, 1) if none."""
    best: list[str] = []
    for key in ARITY:
        words = key.split()
        if argv[:len(words)] == words and len(words) > len(best):
            best = words
    return (len(best), ARITY[" ".join(best)]) if best else (1, 1)


def grant_for(argv: list[str]) -> str | None:
    """The rule an "always" answer grants for one command: Bash(npm test:*)."""
    name = argv[0]
    if name in WRAPPERS or name in SHELLS or "/" in name:
        return None  # a grant for `sudo:*` or `bash:*` would be a grant for everything
    key_words, arity = _arity(argv)
    if any(w.startswith("-") for w in argv[key_words:arity]):
        return None  # python -c, git -C dir: the words after an option are not a subcommand
    if len(argv) < arity:
        return f"Bash({shlex.join(argv)})"  # `make` alone: exactly that
    return f"Bash({shlex.join(argv[:arity])}:*)"


def _chain_grant(commands: list[list[str]], problems: list[str | None]) -> str | None:
    """One grant covering every command that needs one, or None. A problem that is not
    grantable (a dangerous option, a path outside) would still ask after any grant."""
    needed = [(argv, p) for argv, p in zip(commands, problems) if p]
    if not all(getattr(p, "grantable", False) for _, p in needed):
        return None
    grants = {grant_for(argv) for argv, _ in needed}
    return grants.pop() if len(grants) == 1 else None


# -- analysis --------------------------------------------------------------------------


@functools.lru_cache(maxsize=512)
def analyse_command(command: str) -> CommandAnalysis:
    """Is ``command`` read-only? See the module docstring for what that takes. The
    result is cached and shared: treat it as read-only."""
    if not command.strip():
        return CommandAnalysis(False, "empty command")
    control = _control_character(command)
    if control:
        return CommandAnalysis(False, control)
    root = _parse(command)
    if _unparseable(root):
        return CommandAnalysis(False, "could not be parsed as a shell command")
    shaped = _plain_words(root)
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
    if first > 0 and reason == _not_listed(name):
        reason = f"chains a command that is not read-only: {name}"
    outside_only = all(p is None or getattr(p, "outside", False) for p in problems)
    return CommandAnalysis(False, reason, commands, _chain_grant(commands, problems), True,
                           problems, outside_only, paths)


# -- for deny rules: every command that could run --------------------------------------

LooseArgv = list["str | None"]  # None: a word bash computes at run time (could be anything)
_MAX_DEPTH = 4
_MAX_PARSES = 64
_MAX_WRAPPED_WORDS = 256


def _loose_value(node: Node) -> str | None:
    chars = _chars(node) if node.is_named else None
    if chars is None or _is_glob(chars) or _is_brace_expansion(chars):
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
        if depth > _MAX_DEPTH or self.parses_left < 0 or _control_character(command):
            return None
        root = _parse(command)
        if _unparseable(root):
            return None
        found: list[LooseArgv] = []
        for node in _walk(root):
            argv = _loose_argv(node) if node.type == "command" else []
            if argv and _base(argv[0]) in _SCRIPT_SHELLS and _fed_input(node) and \
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
    if name in _SCRIPT_SHELLS:  # bash -c SCRIPT, bash -lc SCRIPT
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
    if name not in _SCRIPT_SHELLS:
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
    if _control_character(command):
        return None
    root = _parse(command)
    if _unparseable(root):
        return None
    words = []
    for node in _walk(root):
        if node.type in ("heredoc_body", "string_content"):
            words.append(_text(node))
        elif node.type in ("word", "number", "raw_string", "string", "concatenation"):
            chars = _chars(node)
            words.append("".join(c for c, _ in chars) if chars is not None else _text(node))
    return words
