"""Tags: the definitions and references in one source file, found with tree-sitter.

A language's tags query is the grammar wheel's own ``TAGS_QUERY`` when the wheel ships
one, followed by ours from ``queries/<language>-tags.scm`` when we have one: whole
queries for the wheels without (TypeScript, TSX, Bash), and the references the wheels
leave out for the others (C and C++ have none; Python only has calls). The queries follow
tree-sitter's tags convention: ``@name`` captures the identifier, and a capture named
``definition.<category>`` or ``reference.<category>`` on the enclosing node says which
it is and what sort.

Tree-sitter recovers from syntax errors, so a file that does not parse cleanly still
gives the tags of the parts it could place.
"""

from __future__ import annotations

import functools
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from tree_sitter import Node, Parser, Query, QueryCursor

from vibe_tui.code.languages import SUPPORTED_EXTENSIONS, grammar_module, language_by_name, language_for, language_name

# The languages with a tags query; TOML, YAML, HTML and CSS parse but define nothing
# a map of the code would show.
TAG_LANGUAGES = frozenset(
    {"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp", "ruby", "bash"}
)
QUERIES_DIR = Path(__file__).parent / "queries"
# TSX is TypeScript with JSX: the same tags.
_QUERY_FILE_OF = {"tsx": "typescript"}
# A signature longer than this is a minified line or a long parameter list; its start
# is what identifies it.
MAX_SIGNATURE_CHARS = 120


class Definition(NamedTuple):
    name: str
    category: str  # "function", "class", "method", ... as the query names it
    line: int  # 1-based line holding the name
    start: int  # first line of the whole definition (decorators, body and all)
    end: int  # last line of the whole definition
    signature: str  # the line holding the name as written (indentation kept), shortened


@dataclass(frozen=True)
class FileTags:
    """What one file defines, in source order, and which names it uses how often."""

    definitions: tuple[Definition, ...] = ()
    references: dict[str, int] = field(default_factory=dict)


# File extensions (".py", ...) of the tag languages: the check a walk over thousands of
# files makes, so it must be cheap.
TAG_EXTENSIONS = frozenset(ext for ext in SUPPORTED_EXTENSIONS if language_name("x" + ext) in TAG_LANGUAGES)


def has_tags(path_or_name: str) -> bool:
    """Whether files of this kind have a tags query."""
    return os.path.splitext(path_or_name)[1].lower() in TAG_EXTENSIONS


@functools.cache
def tags_query(language: str) -> Query | None:
    """The compiled tags query of a language name, or None if it has none."""
    if language not in TAG_LANGUAGES:
        return None
    wheel = grammar_module(language)
    parts = [getattr(wheel, "TAGS_QUERY", None) or ""]
    ours = QUERIES_DIR / f"{_QUERY_FILE_OF.get(language, language)}-tags.scm"
    if ours.is_file():
        parts.append(ours.read_text(encoding="utf-8"))
    return Query(language_by_name(language), "\n".join(parts))


def extract_tags(path_or_name: str, source: bytes) -> FileTags | None:
    """The tags of ``source`` read as the language of ``path_or_name``; None when that
    language has no tags query."""
    language = language_name(path_or_name)
    query = tags_query(language) if language else None
    if query is None:
        return None
    tree = Parser(language_for(path_or_name)).parse(source)
    return _collect(QueryCursor(query).matches(tree.root_node), source)


def _role(captures: dict[str, list[Node]]) -> tuple[str, str, str] | None:
    """("def" or "ref", category, capture name of the tagged node) of a match, or None
    for patterns that capture a name without saying what it is (Go's package clause)."""
    for capture in captures:
        kind, _, category = capture.partition(".")
        if kind in ("definition", "reference") and category:
            return ("def" if kind == "definition" else "ref"), category, capture
    return None


def _collect(matches: list[tuple[int, dict[str, list[Node]]]], source: bytes) -> FileTags:
    definitions: dict[tuple[int, int], Definition] = {}
    references: list[tuple[tuple[int, int], str]] = []
    # Every match of a pattern has the same capture names: work the role out once.
    roles: dict[int, tuple[str, str, str] | None] = {}
    for pattern, captures in matches:
        if pattern not in roles:
            roles[pattern] = _role(captures)
        role = roles[pattern]
        if role is None:
            continue
        kind, category, tagged = role
        for name_node in captures.get("name", ()):
            span = (name_node.start_byte, name_node.end_byte)
            name = source[span[0] : span[1]].decode("utf-8", "replace")
            if kind == "ref":
                references.append((span, name))
            elif span not in definitions:  # two patterns may tag one definition; the first wins
                definitions[span] = _definition(name, category, name_node, captures[tagged][0], source)
    # Some queries tag every identifier as a reference (Ruby), the defining ones too;
    # a definition does not refer to itself.
    counts = Counter(name for span, name in references if span not in definitions)
    ordered = sorted(definitions.values(), key=lambda d: (d.line, d.start))
    return FileTags(tuple(ordered), dict(counts))


def _definition(name: str, category: str, name_node: Node, tagged: Node, source: bytes) -> Definition:
    return Definition(
        name=name,
        category=category,
        line=name_node.start_point[0] + 1,
        start=tagged.start_point[0] + 1,
        end=tagged.end_point[0] + 1,
        signature=_line_at(source, name_node.start_byte),
    )


def _line_at(source: bytes, offset: int) -> str:
    start = source.rfind(b"\n", 0, offset) + 1
    end = source.find(b"\n", offset)
    text = source[start : end if end >= 0 else len(source)].decode("utf-8", "replace").rstrip()
    if len(text) > MAX_SIGNATURE_CHARS:
        return text[:MAX_SIGNATURE_CHARS] + "..."
    return text
