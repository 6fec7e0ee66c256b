"""The model a run talks to: a fixed endpoint (a provider, the embedded model) or, for
``--scripted``, a fake model server started per run that plays the task's
``script.json``."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass

from vibe_tui.config.toml_edit import toml_string
from vibe_tui.evals.task import Task, TaskError
from vibe_tui.tools.processes import terminate_child

FAKE_MODEL = "openai/fake-model"
KILL_GRACE_S = 5.0


@dataclass(frozen=True)
class Endpoint:
    model: str
    api_base: str | None = None
    api_key: str | None = None
    settings: tuple[tuple[str, bool | int | float | str], ...] = ()
    """Further config keys for the agent, e.g. the embedded model's ``temperature`` and
    ``local_model``, so a run sees the model configured as the app configures it."""

    def argv(self) -> list[str]:
        args = ["--model", self.model]
        if self.api_base:
            args += ["--api-base", self.api_base]
        return args

    def config_text(self) -> str:
        """The agent's ``config.toml``: the key lives here, not on the command line,
        where any local user's ``ps`` could read it."""
        values = dict(self.settings)
        if self.api_key:
            values["api_key"] = self.api_key
        return "".join(f"{key} = {_toml_value(value)}\n" for key, value in values.items())


def _toml_value(value: bool | int | float | str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return toml_string(value)


# Given a task, an async context that yields the model endpoint its run talks to.
EndpointFor = Callable[[Task], AbstractAsyncContextManager[Endpoint]]


def fixed_endpoint(endpoint: Endpoint) -> EndpointFor:
    @contextlib.asynccontextmanager
    async def same(task: Task) -> AsyncIterator[Endpoint]:
        yield endpoint

    return same


@contextlib.asynccontextmanager
async def scripted_endpoint(task: Task) -> AsyncIterator[Endpoint]:
    """A fresh fake model server playing the task's ``script.json``, for this run only."""
    if not task.script.is_file():
        raise TaskError(f"{task.folder}: no script.json for a scripted run")
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "vibe_tui.testing.fake_llm", "--port", "0",
        "--script", str(task.script),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True)
    try:
        try:
            line = await asyncio.wait_for(process.stdout.readline(), 60)
        except asyncio.TimeoutError:
            raise TaskError(f"{task.script}: the fake model did not start in 60 s") from None
        if not line.startswith(b"READY "):
            error = (await process.stderr.read()).decode("utf-8", "replace").strip()
            raise TaskError(f"{task.script}: the fake model did not start: {error[-500:]}")
        yield Endpoint(FAKE_MODEL, line.split()[1].decode(), "sk-fake")
    finally:
        await terminate_child(process, KILL_GRACE_S)
