"""The model runtime: the embedded local model as the session's model when no provider is
configured, and when the settings screen chooses it.

The Session owns one and delegates to it; views only follow its events (ModelStarting,
ModelProgress, ModelReady, ModelFailed). Messages sent while the model starts are held and
sent in order once it is ready; if it fails, ModelFailed lists them, so nothing typed
disappears without a word.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from vibe_tui.config.settings import Config
from vibe_tui.core import events as ev

if TYPE_CHECKING:
    from vibe_tui.local.server import LocalServer

# About 8 KB of code in one write_file; at ~10 tokens/s on two cores, over three minutes.
LOCAL_MAX_OUTPUT_TOKENS = 2048
# Progress events go to the session's log too: a few a second keep it short.
PROGRESS_INTERVAL_S = 0.5

# (progress, name) -> (LiteLLM model string, base URL, server): how a server is started.
StartServer = Callable[[Callable[[int, int, str], None] | None, str],
                       Awaitable[tuple[str, str, "LocalServer"]]]


def needs_local_model(model: str, config: Config) -> bool:
    """No model configured anywhere (nor restored from a resumed session): the app must
    still work, with no key at all."""
    return not model or (config.provider == "local" and not config.local_model)


def local_model_settings() -> dict[str, bool | int | float]:
    """The config every user of the embedded model gets (the evals too)."""
    from vibe_tui.local.catalogue import CONTEXT_SIZE

    # Greedy decoding: a small model's tool calls break far more often when sampled.
    return {"temperature": 0.0, "context_window": CONTEXT_SIZE, "local_model": True,
            "max_output_tokens": LOCAL_MAX_OUTPUT_TOKENS}


async def start_llama_server(progress: Callable[[int, int, str], None] | None,
                             name: str) -> tuple[str, str, LocalServer]:
    # llama.cpp's parent side and the weights' download: not on the start-up path.
    from vibe_tui.local.server import start_default_local_model

    return await start_default_local_model(progress, name)


class ProgressEvents:
    """The weights' and server's progress callback as ModelProgress events: a new phase
    and the end of one always, otherwise one every PROGRESS_INTERVAL_S."""

    def __init__(self, emit: Callable[[ev.Event], object]) -> None:
        self._emit = emit
        self._last_at = float("-inf")
        self._last_phase = ""

    def __call__(self, done: int, total: int, phase: str) -> None:
        now = time.monotonic()
        finished = total > 0 and done >= total
        if (phase == self._last_phase and not finished
                and now - self._last_at < PROGRESS_INTERVAL_S):
            return
        self._last_at, self._last_phase = now, phase
        self._emit(ev.ModelProgress(phase=phase, done=done, total=total))  # type: ignore[arg-type]


class ModelRuntime:
    """The local model's server, started at most once for an unconfigured session (and
    again for each model the settings screen switches to); stopped by ``close``."""

    def __init__(self, emit: Callable[[ev.Event], object], configure: Callable[..., None],
                 send: Callable[[str], object],
                 warm: Callable[[LocalServer], Awaitable[None]] | None = None) -> None:
        self._emit = emit
        self._configure = configure
        self._send = send
        # Run once the model is ready and nothing waits for it: the fixed prompt is read
        # ahead while the user types.
        self._warm = warm
        self.warmed: asyncio.Task[None] | None = None
        # How a server starts; tests put a fake one here.
        self.start_server: StartServer = start_llama_server
        self.server: LocalServer | None = None  # once one is running
        self._boot: asyncio.Task[bool] | None = None
        # True from boot() until the start succeeded or failed: what is sent meanwhile is
        # held. Not the task's state: the held messages are sent from inside the task.
        self.starting = False
        self._held: list[str] = []

    def boot(self, model: str, config: Config) -> asyncio.Task[bool] | None:
        """Start the local model in the background when the session has no other (once:
        a failed start is not retried). The task says whether the model is ready; None
        when the session needed none."""
        if self._boot is None and needs_local_model(model, config):
            self.starting = True
            self._boot = asyncio.get_running_loop().create_task(
                self._run_boot(config.local_model_name), name="local-model")
        return self._boot

    def hold(self, text: str, turn_id: int) -> int:
        """Keep ``text`` until the model is ready; ``turn_id``, the turn it will start
        (the first held) or steer (the others), is returned for ``send``."""
        self._held.append(text)
        self._emit(ev.Notice(text=f"waiting for the local model, then sent: {text}"))
        return turn_id

    async def _run_boot(self, name: str | None) -> bool:
        from vibe_tui.local.catalogue import LocalModelError, choose_local_model

        name = name or choose_local_model()
        try:
            model, api_base, self.server = await self._start(name, "unconfigured")
        except Exception as exc:  # whatever it was, the held messages are reported
            error = str(exc) if isinstance(exc, LocalModelError) else f"{exc!r}"
            self.starting, held, self._held = False, self._held, []
            self._emit(ev.ModelFailed(model=name, cause="unconfigured", error=error,
                                      held=held))
            return False
        self._configure(model=model, api_base=api_base, api_key=self.server.api_key,
                        **local_model_settings())
        self._emit(ev.ModelReady(model=model, cause="unconfigured"))
        self.starting, held, self._held = False, self._held, []
        if self._warm is not None and not held:
            self.warmed = asyncio.get_running_loop().create_task(self._warm(self.server),
                                                                name="warm")
        for text in held:  # the first starts a turn, the others steer it
            self._send(text)
        return True

    async def endpoint(self, name: str) -> tuple[str, str, str]:
        """The settings screen chose the embedded model ``name``: (model, base URL, key),
        starting it (or swapping the one running) as needed. Raises LocalModelError."""
        from vibe_tui.local.catalogue import LocalModelError

        old = self.server
        if old is None or not old.running or old.name != name:
            try:
                _, _, self.server = await self._start(name, "settings")
            except LocalModelError as exc:
                self._emit(ev.ModelFailed(model=name, cause="settings", error=str(exc)))
                raise
            self._emit(ev.ModelReady(model=self.server.model_string, cause="settings"))
            if old is not None:
                await old.stop()
        return self.server.model_string, self.server.base_url, self.server.api_key

    async def _start(self, name: str, cause: ev.ModelCause) -> tuple[str, str, LocalServer]:
        self._emit(ev.ModelStarting(model=name, cause=cause))
        return await self.start_server(ProgressEvents(self._emit), name)

    def hand_over(self, other: ModelRuntime) -> None:
        """The server now belongs to ``other`` (a session resumed in the same app), which
        stops it; a start still under way stays here and ends with this one."""
        if self.server is not None and other.server is None:
            other.server, self.server = self.server, None

    async def close(self) -> None:
        """Stop a start still under way and the server: the session is closing."""
        boot, self._boot = self._boot, None
        self.starting = False
        for task in (boot, self.warmed):
            if task is not None and not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        server, self.server = self.server, None
        if server is not None:
            await server.stop()
