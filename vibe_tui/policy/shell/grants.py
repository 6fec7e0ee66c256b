"""The "always" grant: the rule an "always" answer offers for a command that asks, e.g.
``Bash(npm test:*)``; none where a grant would cover everything (wrappers, shells)."""

from __future__ import annotations

import shlex

from vibe_tui.policy.shell.programs import SHELLS, WRAPPERS

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


def chain_grant(commands: list[list[str]], problems: list[str | None]) -> str | None:
    """One grant covering every command that needs one, or None. A problem that is not
    grantable (a dangerous option, a path outside) would still ask after any grant."""
    needed = [(argv, p) for argv, p in zip(commands, problems) if p]
    if not all(getattr(p, "grantable", False) for _, p in needed):
        return None
    grants = {grant_for(argv) for argv, _ in needed}
    return grants.pop() if len(grants) == 1 else None
