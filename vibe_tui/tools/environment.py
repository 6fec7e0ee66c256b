"""The environment every command the agent runs gets (bash and pseudo-terminal sessions).

Three layers, later ones winning: vibe-tui's own environment, less its secrets, with
non-interactive defaults; what the user exported with ``!export`` during the session
(``ToolContext.env_overrides``) or listed in ``[sandbox] pass_env``; and the workspace's
virtual environment (``.venv`` or ``venv``), activated the way ``source bin/activate``
would.

Secrets stay with vibe-tui: a variable whose name says it holds a key, a token, a
password or a credential (``OPENAI_API_KEY``, ``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``),
the SSH and GPG agents' sockets, and the variables vibe-tui itself filled from its
credentials file never reach a command, because a command may be steered by text in a
file it read. The user hands one over on purpose with ``!export`` or ``pass_env``.

A command the policy lets run without asking (a read-only one) gets a stricter
environment still (``read_only_env``): the programs it names resolve outside the
workspace (a repository's ``.venv/bin/git`` is not git), and git runs with settings that
start no program (no fsmonitor, hooks, pager or signature program, no bare repository
found by discovery), so "read-only" cannot be turned into "runs the repository's code".
"""

from __future__ import annotations

import asyncio
import os
import shlex
from pathlib import Path

from vibe_tui.config.credentials import loaded_key_names
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
# the workspace's. The agents' sockets let a command sign or log in as the user, and
# GIT_EXTERNAL_DIFF / GIT_CONFIG_* would decide what git runs. A user who ``!export``s
# one in the session still gets it.
NOT_INHERITED = frozenset({"CDPATH", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",
                           "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS"})
# Words of a variable's name that say it holds a secret (split at "_", any case).
SECRET_WORDS = frozenset({"KEY", "APIKEY", "TOKEN", "SECRET", "SECRETS", "PASSWORD",
                          "PASSWD", "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "AUTH", "PAT",
                          "COOKIE", "SESSIONID"})

# What git reads from GIT_CONFIG_COUNT for a read-only command: settings that would
# otherwise start a program from the repository's own configuration.
HARDENED_GIT = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.untrackedCache", "false"),
    ("safe.bareRepository", "explicit"),
    ("log.showSignature", "false"),
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("protocol.allow", "never"),
)
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
    env = {k: v for k, v in _inherited(ctx).items() if k != "CI"}
    env = _session_env(ctx, INTERACTIVE_ENV, base=env)
    # Set last: the size is a fact about the terminal, whatever the user exported.
    env["COLUMNS"] = str(cols)
    env["LINES"] = str(rows)
    return env


def user_env(ctx: ToolContext) -> dict[str, str]:
    """For the user's own ``!command``: the session's venv and exports, and the user's
    secrets too, since the user typed the command."""
    return _session_env(ctx, COMMAND_ENV, base=dict(os.environ))


def read_only_env(env: dict[str, str], workspace: Path) -> dict[str, str]:
    """``env`` for a command that runs without asking: no workspace folder on PATH (nor a
    relative one, which means the current folder) and git hardened (module docstring)."""
    hardened = {k: v for k, v in env.items()
                if not k.startswith(("GIT_CONFIG_", "GIT_DIR", "GIT_WORK_TREE"))}
    hardened["PATH"] = os.pathsep.join(outside_workspace_path(env.get("PATH", os.defpath),
                                                              workspace))
    hardened.pop("VIRTUAL_ENV", None)
    hardened["GIT_CONFIG_COUNT"] = str(len(HARDENED_GIT))
    for index, (key, value) in enumerate(HARDENED_GIT):
        hardened[f"GIT_CONFIG_KEY_{index}"] = key
        hardened[f"GIT_CONFIG_VALUE_{index}"] = value
    hardened["GIT_PAGER"] = "cat"
    return hardened


def outside_workspace_path(path: str, workspace: Path) -> list[str]:
    """The entries of a PATH that lie outside ``workspace``: absolute, existing or not,
    and not below it once links are followed."""
    root = os.path.realpath(workspace)
    kept = []
    for entry in path.split(os.pathsep):
        if not os.path.isabs(entry):
            continue
        real = os.path.realpath(entry)
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            continue
        kept.append(entry)
    return kept


def is_secret_name(name: str) -> bool:
    """Does a variable's name say it holds a secret (module docstring)?"""
    if name in loaded_key_names:
        return True
    return any(word in SECRET_WORDS for word in name.upper().split("_"))


def _inherited(ctx: ToolContext) -> dict[str, str]:
    passed = set(ctx.pass_env)
    return {k: v for k, v in os.environ.items()
            if k in passed or (k not in NOT_INHERITED and not is_secret_name(k))}


def _session_env(ctx: ToolContext, defaults: dict[str, str],
                 base: dict[str, str] | None = None) -> dict[str, str]:
    env = {**(_inherited(ctx) if base is None else base), **defaults}
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
    """Run the user's export line in bash with the user's environment and keep what it
    changed, or named, for later commands. Bash itself expands it (``export
    PATH=$PWD/bin:$PATH`` means what it means in a shell), and ``export GITHUB_TOKEN``
    hands the user's own token to the agent's commands on purpose. Returns a line to show
    the user."""
    before = user_env(ctx)
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
    named = _exported_names(line) & after.keys()
    changes: dict[str, str | None] = {
        name: after.get(name) for name in (before.keys() | after.keys()) - _SHELL_OWN
        if after.get(name) != before.get(name) or name in named
    }
    ctx.env_overrides.update(changes)
    return _describe_changes(changes)


def _exported_names(line: str) -> set[str]:
    """The names an export line exports (``export A B=1`` -> {A, B})."""
    try:
        lexer = shlex.shlex(line.strip(), posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return set()
    names, exporting = set(), False
    for token in tokens:
        if token in ("export", "unset", ";", "&&"):
            exporting = token == "export"
        elif exporting and not token.startswith("-"):
            names.add(token.split("=", 1)[0])
    return names


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
        elif is_secret_name(name):
            parts.append(f"{name} (set, not shown)")
        else:
            shown = value if len(value) <= 60 else value[:57] + "..."
            parts.append(f"{name}={shown}")
    return "for later commands: " + ", ".join(parts)
