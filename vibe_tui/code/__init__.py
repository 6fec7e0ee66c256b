"""Code intelligence: tree-sitter parsing for syntax checks, outlines and the repo map."""

from vibe_tui.code.languages import SUPPORTED_EXTENSIONS, language_for, language_name
from vibe_tui.code.syntax import SyntaxProblem, syntax_errors

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "SyntaxProblem",
    "language_for",
    "language_name",
    "syntax_errors",
]
