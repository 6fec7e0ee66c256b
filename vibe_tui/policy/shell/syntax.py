"""Words and parsing: a command's tree-sitter-bash syntax tree, the literal words bash
would see, and the plain script shape (simple commands joined by ``&&``, ``||``, ``;``,
``|``) the read-only check accepts. Anything computed at run time is not a literal word.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

# -- parsing ---------------------------------------------------------------------------


@functools.cache
def _language() -> Language:
    return Language(tree_sitter_bash.language())


@functools.cache
def _parser() -> Parser:
    return Parser(_language())


def parse(command: str) -> Node:
    # surrogatepass: a string with lone surrogates (from JSON) still parses, byte for byte.
    return _parser().parse(command.encode("utf-8", "surrogatepass")).root_node


def text_of(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogatepass")


def control_character(command: str) -> str | None:
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


def unparseable(root: Node) -> bool:
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


def chars_of(node: Node) -> Chars | None:
    """The characters a word node stands for, or None when bash computes it at run time."""
    if node.type in ("word", "number"):
        return _unquoted_chars(text_of(node))
    if node.type == "raw_string":
        return [(c, True) for c in text_of(node)[1:-1]]
    if node.type == "string":
        out: Chars = []
        for child in node.children:
            if child.type == "string_content":
                out += _double_quoted_chars(text_of(child))
            elif child.is_named or child.type != '"':
                return None  # $x, $(...), `...` inside the quotes
        return out
    if node.type == "concatenation":
        out = []
        for child in node.children:
            part = chars_of(child) if child.is_named else None  # a bare "$" token: $"..." etc.
            if part is None:
                return None
            out += part
        return out
    return None


def is_glob(chars: Chars) -> bool:
    return any(c in "*?[" and not quoted for c, quoted in chars)


def _may_expand_to_option(chars: Chars) -> bool:
    """A wildcard at the start (*.py, -*) can expand to a file named --pre=x.sh, which the
    program reads as an option; src/*.py can only expand to names starting with src/."""
    if not chars or not is_glob(chars):
        return False
    first, quoted = chars[0]
    return first == "-" or (first in "*?[" and not quoted)


def is_brace_expansion(chars: Chars) -> bool:
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
class Word:
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


def _word(node: Node) -> Word | str:
    """A literal word, or why it is not one."""
    if node.type not in _WORD_TYPES:
        return _node_reason(node)
    chars = chars_of(node)
    if chars is None:
        return next((_node_reason(n) for n in walk(node) if _is_dynamic(n)),
                    "uses a word the policy cannot read")
    if is_brace_expansion(chars):
        return "uses brace expansion"
    return Word("".join(c for c, _ in chars), is_glob(chars), _may_expand_to_option(chars))


def _is_dynamic(node: Node) -> bool:
    return node.type in _NODE_REASONS or (not node.is_named and node.type == "$")


def walk(node: Node) -> Iterator[Node]:
    """Pre-order, without recursion: a chain of 5,000 commands nests 5,000 deep."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


# -- the shape of a plain script -------------------------------------------------------

_CONTAINERS = {"program", "list", "pipeline"}
_JOINERS = {";", "&&", "||", "|"}


def plain_words(root: Node) -> list[list[Word]] | str:
    """The words of each simple command of a plain script, or why it is not plain."""
    commands: list[list[Word]] = []
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


def _command_words(node: Node) -> list[Word] | str:
    words: list[Word] = []
    for child in node.children:
        if child.type == "variable_assignment":
            return "sets a variable for the command"
        target = child.named_children[0] if child.type == "command_name" else child
        word = _word(target)
        if isinstance(word, str):
            return word
        words.append(word)
    return words
