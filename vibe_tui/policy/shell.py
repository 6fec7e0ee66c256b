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

Known allowlist bypasses (CVE-2025-66032 and friends) shape the checks: options that run
programs (``rg --pre``, ``sort --compress-program``, ``git -c``), abbreviated long options
(``--out`` is ``--output`` to getopt), wildcards that expand into options, and characters
that tree-sitter and bash split differently (a carriage return is whitespace to the
parser but part of a word to bash) are all refused.
"""

from __future__ import annotations

import functools
import posixpath
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import tree_sitter_bash
from tree_sitter import Language, Node, Parser


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


# -- parsing ---------------------------------------------------------------------------


@functools.cache
def _language() -> Language:
    return Language(tree_sitter_bash.language())


def _parse(command: str) -> Node:
    # surrogatepass: a string with lone surrogates (from JSON) still parses, byte for byte.
    return Parser(_language()).parse(command.encode("utf-8", "surrogatepass")).root_node


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogatepass")


def _control_character(command: str) -> str | None:
    """Tree-sitter and bash disagree on some control characters (a carriage return
    separates words for the parser, not for bash), and a NUL truncates the C string bash
    sees; so any of them makes the command unreadable. Tabs and newlines are ordinary."""
    for char in command:
        if char == "\x00":
            return "contains a NUL byte"
        if (ord(char) < 32 and char not in "\t\n") or ord(char) == 127:
            return "contains a control character"
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
    return _Word("".join(c for c, _ in chars), _is_glob(chars))


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


def _offending_option(arg: str, short: str, long: frozenset[str],
                      exact: frozenset[str], prefixes: tuple[str, ...]) -> str | None:
    if arg in exact or (prefixes and arg.startswith(prefixes)):
        return arg
    if arg.startswith("--") and len(arg) > 2:
        given = "--" + arg[2:].split("=", 1)[0]
        if given in long:
            return given
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
            ) -> Checker:
    """A checker refusing the options that write files or run programs."""
    longs, exacts = frozenset(long), frozenset(exact)

    def check(name: str, args: list[str]) -> str | None:
        for arg in args:
            bad = _offending_option(arg, short, longs, exacts, prefixes)
            if bad is not None:
                return f"{name} {bad} {what}"
        return None

    return check


def _version_only(name: str, args: list[str]) -> str | None:
    return None if args == ["--version"] else _not_listed(name)


def _uniq(name: str, args: list[str]) -> str | None:
    operands = [a for a in args if a == "-" or not a.startswith("-")]
    return "uniq with two file names writes the second one" if len(operands) > 1 else None


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


_git_output = _forbid(long=("--output", "--ext-diff"))

# Subcommands that only read the repository, each with its own option check.
GIT_READ_ONLY: dict[str, Checker] = {
    "status": _anything,
    "diff": _git_output,
    "log": _git_output,
    "show": _git_output,
    "branch": _git_branch,
    "ls-files": _anything,
    "rev-parse": _anything,
    "blame": _anything,
    "grep": _forbid(short="O", long=("--open-files-in-pager",)),  # -O runs a pager program
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
    check = GIT_READ_ONLY.get(sub)
    if check is None:
        return f"git {sub} is not a read-only git command"
    return check(f"git {sub}", rest)


# argv[0] -> checker of the arguments. Extend here; anything absent is not read-only.
READ_ONLY: dict[str, Checker] = {
    **{name: _anything for name in (
        "ls", "cat", "head", "tail", "wc", "grep", "pwd", "echo", "stat", "du", "df",
        "which", "whoami", "uname", "basename", "dirname", "realpath", "readlink", "cut",
        "tr", "diff", "cmp", "nl", "true", "false", "test", "sha256sum", "sha1sum",
        "sha512sum", "md5sum",
    )},
    "find": _forbid(exact=("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls"),
                    prefixes=("-fprint",)),
    "rg": _forbid(short="z",  # -z runs decompressors
                  long=("--pre", "--pre-glob", "--search-zip", "--hostname-bin")),
    "sort": _forbid(short="o", long=("--output", "--compress-program")),
    "tree": _forbid(short="oR"),  # -R writes 00Tree.html in every folder
    "file": _forbid(short="C", long=("--compile",)),
    "date": _forbid(short="s", long=("--set",), what="sets the clock"),
    "uniq": _uniq,
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
    "taskset", "chrt", "fakeroot", "runuser", "unbuffer", "find",
})
# Programs that run shell scripts: from files, or given as an argument (_SCRIPT_SHELLS -c).
_SCRIPT_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish", "su"})
SHELLS = _SCRIPT_SHELLS | {"eval", "ssh", "source", "."}
_SHELL_STATE = frozenset({"cd", "pushd", "popd", "export", "alias", "unalias", "history",
                          "set", "shopt", "unset", "trap", "umask", "ulimit", "hash"})


def _not_listed(name: str) -> str:
    if name in SHELLS:
        return f"runs a shell script through {name}"
    if name in WRAPPERS:
        return f"runs another command through {name}"
    if name in ("cd", "pushd", "popd"):
        return "changes the directory"
    if name in _SHELL_STATE:
        return f"changes the shell's state ({name})"
    return f"{name} is not a known read-only command"


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


def command_problem(words: list[_Word]) -> str | None:
    """Why one plain simple command is not read-only, or None when it is."""
    name, args = words[0].value, [w.value for w in words[1:]]
    check = READ_ONLY.get(name)
    if check is None:
        return _not_listed(name)
    problem = check(name, args)
    if problem:
        return problem
    for word in words[1:]:
        if _reaches_outside(word.value):
            return f"reaches outside the workspace: {word.value}"
    if check is not _anything and any(w.glob for w in words[1:]):
        # A file named --pre=./evil.sh turns `rg x *` into a program run.
        return f"uses a wildcard that could expand into an option of {name}"
    return None


# -- the "always" grant ----------------------------------------------------------------

# How many leading words name what a command does: git commit, npm run build.
ARITY: dict[str, int] = {
    "git": 2, "npm": 2, "npm run": 3, "npm exec": 3, "pnpm": 2, "pnpm run": 3, "yarn": 2,
    "yarn run": 3, "bun": 2, "bun run": 3, "npx": 2, "cargo": 2, "go": 2, "uv": 2,
    "uv run": 3, "poetry": 2, "poetry run": 3, "pip": 2, "pip3": 2, "docker": 2,
    "docker compose": 3, "kubectl": 2, "gh": 3, "make": 2, "ruff": 2, "deno": 2,
    "python": 2, "python3": 2, "python -m": 3, "python3 -m": 3, "node": 2,
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
    grants = {grant_for(argv) for argv, problem in zip(commands, problems) if problem}
    return grants.pop() if len(grants) == 1 else None


# -- analysis --------------------------------------------------------------------------


def analyse_command(command: str) -> CommandAnalysis:
    """Is ``command`` read-only? See the module docstring for what that takes."""
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
    first = next((i for i, p in enumerate(problems) if p), None)
    if first is None:
        return CommandAnalysis(True, "read-only command", commands, None, True, problems)
    reason, name = problems[first] or "", commands[first][0]
    if first > 0 and reason == _not_listed(name):
        reason = f"chains a command that is not read-only: {name}"
    return CommandAnalysis(False, reason, commands, _chain_grant(commands, problems), True,
                           problems)


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


def reachable_commands(command: str) -> list[LooseArgv] | None:
    """Every simple command that could run, anywhere; None when that cannot be known
    (unparseable, control characters, nested or branching too much): deny rules then
    assume a match."""
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
        return [(args[i + 1], True) for i, a in enumerate(args[:-1])
                if a is not None and a.startswith("-") and not a.startswith("--") and "c" in a]
    return []


def _base(word: str | None) -> str | None:
    return posixpath.basename(word) if word is not None else None


def static_words(command: str) -> list[str] | None:
    """The literal text of every word in the tree (arguments, redirection targets,
    here-document bodies), computed parts left out; None when unreadable."""
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
