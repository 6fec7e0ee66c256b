"""Eval tasks: what a task folder holds and what its ``task.toml`` says.

A task is a folder ``vibe_tui/evals/tasks/<name>/`` (shipped in the wheel) holding
``task.toml`` and the fixture repository ``repo/``; ``script.json`` (optional) is a model script in the fake model
server's format that solves the task, so CI can prove fixture, check and runner without a
real model. ``task.toml``::

    prompt = "Fix the failing test."
    allow = ["Bash(python -m pytest:*)"]        # rules that run without asking
    check = 'python "$EVAL_TASK_DIR/check.py"'  # bash, in the workspace; exit 0 = pass
    forbid = ['rm\\s+-rf\\s+data']               # regexes: a command that ran and matches fails the task
    requires = ["node"]                          # programs the task needs; skipped without them
    timeout = 600                                # seconds for the agent
    measures = "one line for the report"

The check's environment is described in ``runner``.
"""

from __future__ import annotations

import fnmatch
import importlib.resources
import re
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Found through the package, not the source tree, so an installed vibe-tui finds them too;
# a wheel installs them as plain files, which copytree and the checks need.
TASKS_DIR = Path(str(importlib.resources.files("vibe_tui.evals") / "tasks"))
DEFAULT_TIMEOUT_S = 600.0
TASK_KEYS = {"prompt", "allow", "check", "forbid", "requires", "timeout", "measures"}


class TaskError(Exception):
    """A task folder or its task.toml is unusable; the message names the file."""


@dataclass(frozen=True)
class Task:
    name: str
    folder: Path
    prompt: str
    check: str
    allow: tuple[str, ...] = ()
    forbid: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    timeout_s: float = DEFAULT_TIMEOUT_S
    measures: str = ""

    @property
    def fixture(self) -> Path:
        return self.folder / "repo"

    @property
    def script(self) -> Path:
        return self.folder / "script.json"

    def missing_programs(self) -> list[str]:
        return [program for program in self.requires if shutil.which(program) is None]


def _strings(data: dict[str, Any], key: str, where: Path) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TaskError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def _text(data: dict[str, Any], key: str, where: Path, *, required: bool) -> str:
    value = data.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise TaskError(f"{where}: '{key}' must be a non-empty string")
    return value


def load_task(folder: Path) -> Task:
    where = folder / "task.toml"
    try:
        data = tomllib.loads(where.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TaskError(f"{where}: {exc}") from None
    unknown = set(data) - TASK_KEYS
    if unknown:
        raise TaskError(f"{where}: unknown keys {', '.join(sorted(unknown))}")
    if not (folder / "repo").is_dir():
        raise TaskError(f"{folder}: no fixture folder 'repo/'")
    forbid = _strings(data, "forbid", where)
    for pattern in forbid:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise TaskError(f"{where}: forbid pattern {pattern!r}: {exc}") from None
    timeout = data.get("timeout", DEFAULT_TIMEOUT_S)
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise TaskError(f"{where}: 'timeout' must be a positive number of seconds")
    return Task(
        name=folder.name, folder=folder.resolve(),
        prompt=_text(data, "prompt", where, required=True),
        check=_text(data, "check", where, required=True),
        allow=_strings(data, "allow", where), forbid=forbid,
        requires=_strings(data, "requires", where), timeout_s=float(timeout),
        measures=_text(data, "measures", where, required=False),
    )


def find_tasks(root: Path = TASKS_DIR, patterns: str = "*") -> list[Task]:
    """Tasks whose folder name matches one of the comma-separated glob ``patterns``."""
    if not root.is_dir():
        raise TaskError(f"no task folder at {root} (the tasks ship inside the package)")
    globs = [p.strip() for p in patterns.split(",") if p.strip()] or ["*"]
    folders = sorted(p for p in root.iterdir()
                     if (p / "task.toml").is_file()
                     and any(fnmatch.fnmatchcase(p.name, g) for g in globs))
    if not folders:
        raise TaskError(f"no task in {root} matches {patterns!r}")
    return [load_task(folder) for folder in folders]
