"""Stopping a process group: a command, a pseudo-terminal program, a child server and
everything each of them started.

Every child that may start others is spawned with ``start_new_session=True``, so it leads
its own process group and its pid names the group. A group that is gone, or whose id was
recycled by someone else's process (PermissionError), is not ours to signal: these
functions then do nothing rather than fail.
"""

from __future__ import annotations

import asyncio
import os
import signal

# How often terminate_group looks whether the group is empty yet.
_POLL_S = 0.05


def signal_group(pgid: int, sig: int) -> bool:
    """Send ``sig`` to the process group ``pgid``; False when it no longer exists or is
    not ours. Signal 0 only asks whether anything of it is left."""
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def kill_group(pgid: int) -> None:
    """SIGKILL the whole group at once, no grace: for what must end now."""
    signal_group(pgid, signal.SIGKILL)


async def terminate_group(pgid: int, grace_s: float) -> None:
    """SIGTERM the group, so programs can clean up, then SIGKILL it if anything of it is
    left after ``grace_s``. Waits on the group, not on one process: children the leader
    left behind count. Safe to call on a finished group."""
    if not signal_group(pgid, signal.SIGTERM):
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    while loop.time() < deadline:
        await asyncio.sleep(_POLL_S)
        if not signal_group(pgid, 0):
            return
    signal_group(pgid, signal.SIGKILL)


async def terminate_child(process: asyncio.subprocess.Process, grace_s: float) -> None:
    """SIGTERM the group our child ``process`` leads, wait up to ``grace_s`` for the child
    itself to exit, else SIGKILL the group; returns once the child is reaped. For a child
    server that stops its own workers when asked."""
    if process.returncode is not None:
        return
    signal_group(process.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), grace_s)
    except TimeoutError:
        signal_group(process.pid, signal.SIGKILL)
        await process.wait()
