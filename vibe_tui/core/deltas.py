"""Streamed text reaches the views a few times a second, not once per chunk.

Each TextDelta is a JSONL line and a message to every view, and each one repaints the
screen; a fast model sends a few characters per chunk. The first text after a pause goes
out at once, the rest at most every ``DELTA_INTERVAL_S``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

# Keys typed while a delta repaints wait behind it: at 25 sends a second typing lagged
# visibly, at 10 it did not (figures in bench/README.md, "Streaming delta interval").
DELTA_INTERVAL_S = 0.1


class DeltaThrottle:
    def __init__(self, send: Callable[[str], object],
                 interval_s: float = DELTA_INTERVAL_S) -> None:
        self._send = send
        self._interval_s = interval_s
        self._unsent: list[str] = []  # streamed text not yet sent
        self._timer: asyncio.TimerHandle | None = None
        self._last_sent = float("-inf")

    def add(self, text: str) -> None:
        self._unsent.append(text)
        if self._timer is not None:
            return
        loop = asyncio.get_running_loop()
        wait = self._last_sent + self._interval_s - loop.time()
        if wait <= 0:
            self.flush()
        else:
            self._timer = loop.call_later(wait, self.flush)

    def flush(self) -> None:
        """Send what is waiting now (before an answer is recorded or an error shown)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._unsent:
            self._last_sent = asyncio.get_running_loop().time()
            self._send("".join(self._unsent))
            self._unsent = []


# Progress events go to the session's log too: a few a second keep it short.
PROGRESS_INTERVAL_S = 0.5


class ProgressThrottle:
    """The local model's prompt-reading progress: the start and the end of a read always,
    otherwise one report every ``PROGRESS_INTERVAL_S``."""

    def __init__(self, send: Callable[[int, int], object]) -> None:
        self._send = send
        self._last_sent = float("-inf")

    def __call__(self, done: int, total: int) -> None:
        now = asyncio.get_running_loop().time()
        if 0 < done < total and now - self._last_sent < PROGRESS_INTERVAL_S:
            return
        self._last_sent = now
        self._send(done, total)
