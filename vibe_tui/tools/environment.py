"""The environment every command the agent runs gets (bash and pseudo-terminal sessions).

Three layers, later ones winning: vibe-tui's own environment with non-interactive
defaults; what the user exported with ``!export`` during the session
(``ToolContext.env_overrides``); and the workspace's virtual environment (``.venv`` or
``venv``), activated the way ``source bin/activate`` would.
"""

from __future__ import annotations

import asyncio
import os
import shlex
from pathlib import Path

from vibe_tui.tools.base import ToolContext

# Non-interactive defaults: no pager waiting for a key, no colour codes, no git prompt.
COMMAND_ENV = {
    "CI": "1",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "TERM": "dumb",
    "GIT_TERMINAL_PROMPT": "0",
}
# A pseudo-terminal is rendered by a real terminal emulator, so programs may draw; CI is
# left out because prompt libraries (npm init, create-* scaffolders) skip their questions
# under CI, and asking questions is why the program runs in a terminal at all.
INTERACTIVE_ENV = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "TERM": "xterm-256color",
    "GIT_TERMINAL_PROMPT": "0",
}
# Inherited variables commands never get. CDPATH makes a relative ``cd src`` go to
# another folder named src elsewhere and print where it went: the agent's ``cd`` must mean
# the workspace's. A user who ``!export``s one in the session still gets it.
NOT_INHERITED = frozenset({"CDPATH"})
VENV_NAMES = (".venv", "venv")
EXPORT_TIMEOUT_S = 10.0
# Variables bash sets by itself; a difference in them is not something the user exported.
_SHELL_OWN = frozenset({"_", "SHLVL", "PWD", "OLDPWD"})


def venv_in_use(ctx: ToolContext) -> Path | None:
    """The workspace's virtual environment that commands run in, or None.

    A folder counts when its ``bin/python`` exists; ``exists`` follows the symlink, so a
    venv whose base interpreter was removed is not put first on PATH to fail every call.
    """
    for name in VENV_NAMES:
        venv = ctx.workspace / name
        if (venv / "bin" / "python").exists():
            return venv
    return None


def command_env(ctx: ToolContext) -> dict[str, str]:
    """The process environment for a non-interactive command of this session (bash)."""
    return _session_env(ctx, COMMAND_ENV)


def interactive_env(ctx: ToolContext, cols: int, rows: int) -> dict[str, str]:
    """The environment for a program in a pseudo-terminal of ``cols`` x ``rows``."""
    env = {k: v for k, v in _inherited().items() if k != "CI"}
    env = _session_env(ctx, INTERACTIVE_ENV, base=env)
    # Set last: the size is a fact about the terminal, whatever the user exported.
    env["COLUMNS"] = str(cols)
    env["LINES"] = str(rows)
    return env


def _inherited() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in NOT_INHERITED}


def _session_env(ctx: ToolContext, defaults: dict[str, str],
                 base: dict[str, str] | None = None) -> dict[str, str]:
    env = {**(_inherited() if base is None else base), **defaults}
    for name, value in ctx.env_overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    # After the exports: a venv created later in the session still comes first, as if
    # activated after the user's ``export PATH=...``.
    venv = venv_in_use(ctx)
    if venv is not None:
        _activate(env, venv)
    return env


def _activate(env: dict[str, str], venv: Path) -> None:
    """What ``bin/activate`` does to the environment."""
    bin_dir = str(venv / "bin")
    path = env.get("PATH", os.defpath)
    if path.split(os.pathsep)[0] != bin_dir:  # an exported PATH may have it already
        env["PATH"] = f"{bin_dir}{os.pathsep}{path}" if path else bin_dir
    env["VIRTUAL_ENV"] = str(venv)
    env.pop("PYTHONHOME", None)


# -- !export ----------------------------------------------------------------------------


def is_export(line: str) -> bool:
    """True when a user's ``!`` line only exports or unsets variables
    (``export A=1 B="x y"; unset C``), so it should change the session's environment."""
    try:
        lexer = shlex.shlex(line.strip(), posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: let bash say so
        return False
    if not tokens:
        return False
    starts_statement = True
    for token in tokens:
        if token in (";", "&&"):
            starts_statement = True
            continue
        if token[0] in ";&|<>":
            return False  # pipes, redirections, background jobs: a command, not an export
        if starts_statement and token not in ("export", "unset"):
            return False
        starts_statement = False
    return True


async def apply_export(ctx: ToolContext, line: str) -> str:
    """Run the user's export line in bash with the session's environment and keep what it
    changed for later commands. Bash itself expands it (``export PATH=$PWD/bin:$PATH``
    means what it means in a shell). Returns a line to show the user."""
    before = command_env(ctx)
    process = await asyncio.create_subprocess_exec(
        # The line's own output goes to stderr; only the resulting environment to stdout.
        "bash", "-c", 'eval "$1" >&2 && exec env -0', "vibe-export", line,
        cwd=ctx.cwd, env=before, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), EXPORT_TIMEOUT_S)
    except (TimeoutError, asyncio.CancelledError):
        process.kill()
        await process.wait()
        raise
    if process.returncode != 0:
        message = err.decode("utf-8", "replace").strip() or f"exit code {process.returncode}"
        return f"export failed: {message}"
    after = _parse_env0(out)
    changes: dict[str, str | None] = {
        name: after.get(name) for name in (before.keys() | after.keys()) - _SHELL_OWN
        if after.get(name) != before.get(name)
    }
    ctx.env_overrides.update(changes)
    return _describe_changes(changes)


def _parse_env0(data: bytes) -> dict[str, str]:
    env = {}
    for entry in data.split(b"\0"):
        name, sep, value = entry.partition(b"=")
        if sep:
            env[name.decode("utf-8", "surrogateescape")] = value.decode("utf-8", "surrogateescape")
    return env


def _describe_changes(changes: dict[str, str | None]) -> str:
    if not changes:
        return "environment unchanged"
    parts = []
    for name in sorted(changes):
        value = changes[name]
        if value is None:
            parts.append(f"unset {name}")
        else:
            shown = value if len(value) <= 60 else value[:57] + "..."
            parts.append(f"{name}={shown}")
    return "for later commands: " + ", ".join(parts)
