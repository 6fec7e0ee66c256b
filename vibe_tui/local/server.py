"""llama.cpp's OpenAI-compatible server for the local model, the parent side: start the
child process (``vibe_tui.local.child``) bound to 127.0.0.1 on a free port, wait until
the model is loaded, stop its process group. The app reaches it through LiteLLM as
``openai/<name>`` with an ``api_base``, like any OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import secrets
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from vibe_tui.local.catalogue import (
    CONTEXT_SIZE,
    DEFAULT_LOCAL_MODEL,
    LocalModelError,
    ProgressCallback,
    choose_local_model,
    model_dir,
)
from vibe_tui.local.weights import ensure_weights
from vibe_tui.tools.processes import terminate_child

API_KEY_ENV = "VIBE_TUI_LOCAL_API_KEY"  # passed to the child by environment, not argv (ps)
SLOT = 0  # n_parallel is 1: the session's one slot

log = logging.getLogger(__name__)


def prefix_dir() -> Path:
    """Where read prompt prefixes are kept between launches (llama.cpp's slot files)."""
    return model_dir() / "prefixes"


def forget_prefixes(name: str, keep: str | None = None) -> None:
    """Remove the saved prefixes of model ``name`` (all but the file ``keep``)."""
    for path in prefix_dir().glob(f"{name}-*.bin"):
        if path.name != keep:
            path.unlink(missing_ok=True)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def default_threads() -> int:
    """``$VIBE_TUI_LOCAL_THREADS``, else one per core. On a busy machine fewer is faster:
    llama.cpp's threads wait for each other at every step, so one that is descheduled
    stalls them all (bench/local_model.py --threads compares)."""
    value = os.environ.get("VIBE_TUI_LOCAL_THREADS", "")
    return int(value) if value.isdigit() and int(value) > 0 else _cores()


class LocalServer:
    """llama.cpp's server for one local model, in a child process of its own group."""

    def __init__(self, name: str = DEFAULT_LOCAL_MODEL, *, ctx_size: int = CONTEXT_SIZE,
                 threads: int | None = None, startup_timeout_s: float = 300.0) -> None:
        self.name = name
        self.ctx_size = ctx_size
        self.threads = threads or default_threads()
        self.startup_timeout_s = startup_timeout_s
        # Other local users and web pages can reach 127.0.0.1 too: the server wants a key.
        self.api_key = secrets.token_urlsafe(24)
        self.base_url: str | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._log = None

    @property
    def model_string(self) -> str:
        """What LiteLLM is given (with ``api_base=self.base_url``)."""
        return f"openai/{self.name}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def start(self, weights: Path) -> str:
        """Start the child and wait until the model is loaded; returns the base URL."""
        if self.running and self.base_url:
            return self.base_url
        self._log = tempfile.TemporaryFile()
        self._process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "vibe_tui.local.child",
            "--model", str(weights), "--alias", self.name, "--port", "0",
            "--ctx-size", str(self.ctx_size), "--threads", str(self.threads),
            "--parent-pid", str(os.getpid()), "--prefix-dir", str(prefix_dir()),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=self._log, start_new_session=True,
            env={**os.environ, API_KEY_ENV: self.api_key},
        )
        try:
            line = await asyncio.wait_for(self._process.stdout.readline(),
                                          self.startup_timeout_s)
        except asyncio.TimeoutError:
            await self.stop()
            raise LocalModelError(f"the local model did not load within "
                                  f"{self.startup_timeout_s:.0f} s") from None
        except asyncio.CancelledError:
            await self.stop()
            raise
        if not line:
            code = await self._process.wait()
            message = (f"the local model server exited with code {code} while loading "
                       f"{weights.name}: {self._log_tail()}")
            await self.stop()
            raise LocalModelError(message)
        self.base_url = json.loads(line)["base_url"] + "/v1"
        return self.base_url

    def prefix_file(self, key: str) -> str:
        """The file name of a saved prefix: the model, llama.cpp's build (the slot format
        is its own) and ``key``, which names the prompt."""
        build = metadata.version("xllamacpp")
        digest = hashlib.sha256(f"{self.name}\0{build}\0{key}".encode()).hexdigest()[:16]
        return f"{self.name}-{digest}.bin"

    async def restore_prefix(self, key: str) -> bool:
        """Load the prompt prefix saved under ``key`` by an earlier launch into the slot,
        so the next request reads only what follows it. False when none was saved or
        llama.cpp refused it."""
        name = self.prefix_file(key)
        if not (prefix_dir() / name).is_file():
            return False
        return await self._slot_action("restore", name)

    async def save_prefix(self, key: str) -> None:
        """Save what the slot has read (the prefix just read ahead) under ``key``, in place
        of the model's older prefixes. Written aside and renamed: another launch may be
        restoring the file meanwhile."""
        name = self.prefix_file(key)
        partial = f"{name}.{os.getpid()}.partial"
        if await self._slot_action("save", partial):
            os.replace(prefix_dir() / partial, prefix_dir() / name)
            forget_prefixes(self.name, keep=name)

    async def _slot_action(self, action: str, filename: str) -> bool:
        import httpx

        if not self.base_url:
            return False
        url = f"{self.base_url.removesuffix('/v1')}/slots/{SLOT}?action={action}"
        try:
            async with httpx.AsyncClient(timeout=60) as client:
                response = await client.post(url, json={"filename": filename}, headers={
                    "Authorization": f"Bearer {self.api_key}"})
        except httpx.HTTPError as exc:
            log.info("the local model's prefix %s failed: %r", action, exc)
            return False
        if response.status_code != 200:
            log.info("the local model's prefix %s failed: %s", action, response.text[:200])
        return response.status_code == 200

    def _log_tail(self, limit: int = 2000) -> str:
        self._log.seek(0)
        text = self._log.read().decode("utf-8", "replace").strip()
        return text[-limit:] or "(no message)"

    async def stop(self, grace_s: float = 5.0) -> None:
        """Stop the child's whole process group: politely, then for sure."""
        process, self._process, self.base_url = self._process, None, None
        if process is None:
            return
        await terminate_child(process, grace_s)
        if self._log is not None:
            self._log.close()
            self._log = None


async def start_default_local_model(
    progress: ProgressCallback | None = None, name: str | None = None,
) -> tuple[str, str, LocalServer]:
    """Fetch (first time only) and serve the local model: (model_string, api_base, server).
    The caller owns the server: ``await server.stop()`` when the app ends, and passes
    ``server.api_key`` as the API key."""
    name = name or choose_local_model()
    weights = await ensure_weights(name, progress)
    server = LocalServer(name)
    if progress:
        progress(0, 0, "start")
    api_base = await server.start(weights)
    return server.model_string, api_base, server
