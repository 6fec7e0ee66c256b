"""Which tree-sitter grammar parses which file.

Grammars come from the ``tree_sitter_<name>`` wheels. Loading one costs a few
milliseconds and some memory, so each is loaded the first time a file needs it and
kept for the life of the process.
"""

from __future__ import annotations

import functools
import importlib
from pathlib import PurePath
from types import ModuleType

from tree_sitter import Language

# extension -> (module, function returning the grammar pointer, language name)
_GRAMMARS: dict[str, tuple[str, str, str]] = {
    ".py": ("tree_sitter_python", "language", "python"),
    ".pyi": ("tree_sitter_python", "language", "python"),
    ".js": ("tree_sitter_javascript", "language", "javascript"),
    ".mjs": ("tree_sitter_javascript", "language", "javascript"),
    ".cjs": ("tree_sitter_javascript", "language", "javascript"),
    ".jsx": ("tree_sitter_javascript", "language", "javascript"),
    ".ts": ("tree_sitter_typescript", "language_typescript", "typescript"),
    ".mts": ("tree_sitter_typescript", "language_typescript", "typescript"),
    ".cts": ("tree_sitter_typescript", "language_typescript", "typescript"),
    ".tsx": ("tree_sitter_typescript", "language_tsx", "tsx"),
    ".go": ("tree_sitter_go", "language", "go"),
    ".rs": ("tree_sitter_rust", "language", "rust"),
    ".java": ("tree_sitter_java", "language", "java"),
    ".c": ("tree_sitter_c", "language", "c"),
    ".h": ("tree_sitter_c", "language", "c"),
    ".cc": ("tree_sitter_cpp", "language", "cpp"),
    ".cpp": ("tree_sitter_cpp", "language", "cpp"),
    ".cxx": ("tree_sitter_cpp", "language", "cpp"),
    ".hpp": ("tree_sitter_cpp", "language", "cpp"),
    ".hh": ("tree_sitter_cpp", "language", "cpp"),
    ".rb": ("tree_sitter_ruby", "language", "ruby"),
    ".sh": ("tree_sitter_bash", "language", "bash"),
    ".bash": ("tree_sitter_bash", "language", "bash"),
    ".toml": ("tree_sitter_toml", "language", "toml"),
    ".yml": ("tree_sitter_yaml", "language", "yaml"),
    ".yaml": ("tree_sitter_yaml", "language", "yaml"),
    ".html": ("tree_sitter_html", "language", "html"),
    ".htm": ("tree_sitter_html", "language", "html"),
    ".css": ("tree_sitter_css", "language", "css"),
}

SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(_GRAMMARS)


def _extension(path_or_name: str) -> str:
    return PurePath(path_or_name).suffix.lower()


def language_name(path_or_name: str) -> str | None:
    """The grammar name for a file ("python", "tsx", ...), or None if unsupported."""
    entry = _GRAMMARS.get(_extension(path_or_name))
    return entry[2] if entry else None


def language_for(path_or_name: str) -> Language | None:
    """The tree-sitter Language for a file name or path, or None if unsupported."""
    entry = _GRAMMARS.get(_extension(path_or_name))
    if entry is None:
        return None
    module_name, function_name, _ = entry
    return _load(module_name, function_name)


def language_by_name(name: str) -> Language | None:
    """The tree-sitter Language of a language name ("python", "tsx", ...), or None."""
    for module_name, function_name, language in _GRAMMARS.values():
        if language == name:
            return _load(module_name, function_name)
    return None


def grammar_module(name: str) -> ModuleType | None:
    """The imported grammar wheel for a language name ("python", "tsx", ...), for the
    queries some wheels ship beside the grammar (``TAGS_QUERY``); None if unknown."""
    for module_name, _, language in _GRAMMARS.values():
        if language == name:
            return importlib.import_module(module_name)
    return None


@functools.cache
def _load(module_name: str, function_name: str) -> Language:
    module = importlib.import_module(module_name)
    return Language(getattr(module, function_name)())
