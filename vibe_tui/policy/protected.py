"""Files that make programs run later, outside any approval: git settings and hooks, CI
workflows, editor tasks, shell rc files, agent configs. Changing one asks in every mode.

Names are compared the way the file systems users check repositories out on compare them
(the lessons of git's CVE-2014-9390 and CVE-2019-1352): letter case folds on macOS and
Windows, HFS+ ignores zero-width and direction characters, NTFS drops trailing dots and
spaces, reads ``name::$INDEX_ALLOCATION`` as ``name`` and answers to 8.3 short names
(``GIT~1`` is ``.git``). So ``.GIT/config``, ``.git./hooks/x`` and ``.g\u200cit/config`` are all
``.git/config`` here, whatever the file system the workspace happens to be on.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from fnmatch import fnmatchcase

GIT_NAMES = frozenset({".git", ".gitmodules", ".gitattributes", ".gitconfig"})
# NTFS 8.3 short names git itself refuses (is_ntfs_dotgit, is_ntfs_dotgitmodules, ...):
# a stem and the digits after its tilde.
_SHORT_NAME_STEMS = {"git": ".git", "gitmod": ".gitmodules", "gi7eba": ".gitmodules",
                     "gitatt": ".gitattributes", "gi7d29": ".gitattributes"}

# Names (at any depth) of files a shell, an editor or a tool runs by itself.
_RUNS_CODE_NAMES: dict[str, str] = {
    **{name: "is a shell startup file" for name in (
        ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
        ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc")},
    ".envrc": "is run by direnv on entering the folder",
    ".npmrc": "can make npm run programs (script-shell, node-options)",
    ".yarnrc": "can make yarn run programs",
    ".yarnrc.yml": "can make yarn load plugins and run programs",
    ".pre-commit-config.yaml": "defines hooks git runs",
    ".gitlab-ci.yml": "defines CI jobs",
    ".mcp.json": "starts MCP servers for coding agents",
}
# Files under a folder: (folder, file name or "*" for everything below it).
_RUNS_CODE_IN: dict[tuple[str, str], str] = {
    (".vscode", "tasks.json"): "defines editor tasks that run programs",
    (".vscode", "settings.json"): "can make the editor and its agents run programs",
    (".vscode", "launch.json"): "defines programs the editor runs",
    (".github", "workflows"): "defines CI workflows",
    (".husky", "*"): "holds hooks git runs",
    (".vibe", "*"): "holds vibe-tui's project settings and permission rules",
    (".claude", "settings.json"): "holds a coding agent's settings and hooks",
    (".claude", "settings.local.json"): "holds a coding agent's settings and hooks",
    (".cursor", "mcp.json"): "starts MCP servers for a coding agent",
    (".gemini", "settings.json"): "holds a coding agent's settings",
    (".codex", "config.toml"): "holds a coding agent's settings",
}
_RUNS_CODE_SUFFIXES = {".code-workspace": "can make the editor run programs"}
# Folders that hold little else: a command naming one (cd .vscode && ...) may be about to
# change what is in it. (.github is left out: it holds templates and docs too.)
PROTECTED_FOLDERS = frozenset({".husky", ".vibe", ".vscode", ".claude", ".cursor", ".gemini",
                               ".codex"})

# Characters HFS+ ignores in names (git's is_hfs_dotgit list) beyond the format category.
_IGNORED = frozenset("\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
                     "\u206a\u206b\u206c\u206d\u206e\u206f\ufeff")


def folded(name: str) -> str:
    """The name as the most forgiving file system reads it (see the module docstring)."""
    name = unicodedata.normalize("NFC", name)
    name = "".join(c for c in name if c not in _IGNORED and unicodedata.category(c) != "Cf")
    name = name.split(":", 1)[0]  # NTFS alternate data stream: name:stream:$TYPE
    return name.rstrip(". ").casefold()


def _git_name(name: str) -> str | None:
    """The git settings file ``name`` stands for, or None."""
    if name in GIT_NAMES:
        return name
    stem, tilde, digits = name.partition("~")
    if tilde and digits.isdigit() and stem in _SHORT_NAME_STEMS:
        return _SHORT_NAME_STEMS[stem]
    return None


def protected_reason(parts: Sequence[str]) -> str | None:
    """Why changing the file at these path components (relative to the workspace, or
    absolute) needs a person, or None for an ordinary file."""
    names = [folded(p) for p in parts if p not in ("", "/")]
    for name in names:
        git = _git_name(name)
        if git is not None:
            return f"changes git settings or hooks ({git}), which can run programs later"
    if not names:
        return None
    last = names[-1]
    if last in _RUNS_CODE_NAMES:
        return f"{last} {_RUNS_CODE_NAMES[last]}"
    for suffix, why in _RUNS_CODE_SUFFIXES.items():
        if last.endswith(suffix):
            return f"{last} {why}"
    for i, folder in enumerate(names[:-1]):
        for (wanted, below), why in _RUNS_CODE_IN.items():
            if folder == wanted and (below == "*" or names[i + 1] == below):
                return f"{'/'.join(names[i:])} {why}"
    return None


def pattern_may_be_protected(pattern: str) -> bool:
    """Could a shell wildcard (``.gi?``, ``.[g]it``) expand to a git settings name?"""
    lowered = pattern.casefold()
    return any(fnmatchcase(name, lowered) for name in GIT_NAMES)
