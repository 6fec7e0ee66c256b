"""Syntax checks run before an edit lands.

``syntax_errors`` answers one question: does this text parse in its file's language?
Tree-sitter recovers from errors by inserting ERROR nodes (text it could not place) and
MISSING nodes (tokens it had to invent), so walking those gives a position and a short
reason for every problem. JSON has no grammar wheel here and a strict parser in the
standard library, so it is checked with ``json``. Tree-sitter's Python grammar does not
track indentation errors, the commonest way an edit breaks Python, so a clean Python tree
is also given to ``ast`` for those alone.
"""

from __future__ import annotations

import ast
import json
import warnings
from dataclasses import dataclass
from pathlib import PurePath

from tree_sitter import Node, Parser

from vibe_tui.code.languages import language_for

# Past this many the first few already tell the model what went wrong.
MAX_PROBLEMS = 20
_SNIPPET_CHARS = 30


@dataclass(frozen=True)
class SyntaxProblem:
    line: int  # 1-based
    column: int  # 1-based, in characters
    description: str

    def __str__(self) -> str:
        return f"line {self.line} column {self.column} ({self.description})"


def syntax_errors(path_or_name: str, text: str) -> list[SyntaxProblem] | None:
    """Problems found parsing ``text`` as the language of ``path_or_name``.

    None: the language is not supported (nothing was checked); []: it parses cleanly.
    """
    if PurePath(path_or_name).suffix.lower() == ".json":
        return _json_errors(text)
    language = language_for(path_or_name)
    if language is None:
        return None
    # surrogatepass: text decoded with errors kept as surrogates still encodes, and
    # each such character stays one character wide for the column arithmetic.
    source = text.encode("utf-8", "surrogatepass")
    tree = Parser(language).parse(source)
    if not tree.root_node.has_error:
        return _python_indentation_errors(text) if _is_python(path_or_name) else []
    return _tree_problems(tree.root_node, source.split(b"\n"))


def _json_errors(text: str) -> list[SyntaxProblem]:
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return [SyntaxProblem(error.lineno, error.colno, error.msg)]
    return []


def _is_python(path_or_name: str) -> bool:
    return PurePath(path_or_name).suffix.lower() in (".py", ".pyi")


def _python_indentation_errors(text: str) -> list[SyntaxProblem]:
    # Only IndentationError (and TabError) is trusted from ast: its other complaints
    # depend on the running interpreter's version, and code written for a newer Python
    # must not be reported as broken.
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            ast.parse(text)
    except IndentationError as error:
        return [SyntaxProblem(error.lineno or 1, error.offset or 1, error.msg)]
    except (SyntaxError, ValueError, RecursionError):
        return []  # ValueError: NUL bytes in the source
    return []


def _tree_problems(root: Node, source_lines: list[bytes]) -> list[SyntaxProblem]:
    problems: list[SyntaxProblem] = []
    stack = [root]
    while stack and len(problems) < MAX_PROBLEMS:
        node = stack.pop()
        if node.is_missing:
            problems.append(_problem(node, _missing_description(node), source_lines))
        elif node.is_error:
            # One problem per ERROR region: its insides are the same mistake.
            problems.append(_problem(node, _error_description(node), source_lines))
        elif node.has_error:
            # Reversed so the stack pops children in source order.
            stack.extend(reversed(node.children))
    return sorted(problems, key=lambda problem: (problem.line, problem.column))


def _problem(node: Node, description: str, source_lines: list[bytes]) -> SyntaxProblem:
    row, byte_column = node.start_point
    line_bytes = source_lines[row] if row < len(source_lines) else b""
    # Tree-sitter columns count bytes; people and models count characters.
    column = len(line_bytes[:byte_column].decode("utf-8", "replace")) + 1
    return SyntaxProblem(row + 1, column, description)


def _missing_description(node: Node) -> str:
    # Named nodes (identifier, block, ...) read better without quotes.
    return f"missing {node.type}" if node.is_named else f"missing '{node.type}'"


def _error_description(node: Node) -> str:
    text = (node.text or b"").decode("utf-8", "replace").strip()
    first_line = text.splitlines()[0] if text else ""
    if not first_line:
        return "unexpected end of input" if node.start_byte == node.end_byte else "syntax error"
    if len(first_line) > _SNIPPET_CHARS:
        first_line = first_line[:_SNIPPET_CHARS] + "..."
    return f"unexpected {first_line!r}"
