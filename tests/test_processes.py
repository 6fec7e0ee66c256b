"""The process-group helper: SIGTERM, then SIGKILL for what ignores it; a group that is
already gone is left alone."""

from __future__ import annotations

import asyncio
import signal

from vibe_tui.tools.processes import kill_group, signal_group, terminate_child, terminate_group


async def _group(script: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec("sh", "-c", script, start_new_session=True)


async def test_terminate_group_ends_children_the_leader_left():
    leader = await _group("sleep 100 & sleep 100 & wait")
    await asyncio.sleep(0.1)
    await terminate_group(leader.pid, 5.0)
    assert await leader.wait() == -signal.SIGTERM


async def test_terminate_group_kills_what_ignores_sigterm():
    leader = await _group("trap '' TERM; sleep 100 & wait")
    await asyncio.sleep(0.1)
    await terminate_group(leader.pid, 0.2)
    assert await leader.wait() == -signal.SIGKILL


async def test_terminate_child_reaps_the_child():
    child = await _group("trap '' TERM; sleep 100")
    await asyncio.sleep(0.1)
    await terminate_child(child, 0.2)
    assert child.returncode == -signal.SIGKILL


async def test_a_finished_group_is_left_alone():
    done = await _group("true")
    await done.wait()
    assert not signal_group(done.pid, signal.SIGTERM)
    kill_group(done.pid)
    await terminate_group(done.pid, 0.1)
    await terminate_child(done, 0.1)
