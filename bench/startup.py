"""Launch to ready prompt: how long ``vibe-tui`` takes to show a prompt you can type into.

Runs the real command in a pseudo-terminal (120x40), times spawn -> the prompt's
placeholder on screen, then -> the first typed key echoed back, over 5 runs.

    uv run python bench/startup.py [--runs 5]

Aim: prompt ready < 0.4 s (peers: 2.0-3.8 s, ../shared/PEERS.md).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import tempfile
import time

import pexpect

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
READY_MARKER = "sk vibe-tui"  # the placeholder; its first letter is drawn as the cursor
TYPED = "q"
TIMEOUT_S = 30.0


def wait_screen(child: pexpect.spawn, seen: list[str], marker: str, start: float) -> float:
    """Seconds from ``start`` until ``marker`` is on the screen."""
    while marker not in "".join(seen):
        if time.perf_counter() - start > TIMEOUT_S:
            raise TimeoutError(f"{marker!r} not seen; got {''.join(seen)[-500:]!r}")
        try:
            seen.append(ANSI.sub("", child.read_nonblocking(65536, timeout=0.005)))
        except pexpect.TIMEOUT:
            pass
    return time.perf_counter() - start


def one_run(home: str) -> tuple[float, float]:
    env = {**os.environ, "TERM": "xterm-256color", "VIBE_TUI_HOME": home,
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    args = ["-m", "vibe_tui", "--model", "openai/fake-model", "--api-base", "http://127.0.0.1:9/v1"]
    start = time.perf_counter()
    child = pexpect.spawn(sys.executable, args, env=env, dimensions=(40, 120),
                          encoding="utf-8", codec_errors="replace")
    seen: list[str] = []
    try:
        ready = wait_screen(child, seen, READY_MARKER, start)
        seen.clear()
        child.send(TYPED)
        typed = wait_screen(child, seen, TYPED, start)
        child.send("\x11")  # Ctrl+Q
        child.expect(pexpect.EOF, timeout=TIMEOUT_S)
    finally:
        child.close(force=True)
    return ready, typed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as home:
        one_run(home)  # warm the OS file cache and bytecode; not counted
        results = [one_run(home) for _ in range(runs)]
    for name, values in (("prompt ready", [r[0] for r in results]),
                         ("first key echoed", [r[1] for r in results])):
        print(f"{name:>17}: median {statistics.median(values):.3f} s  "
              f"(min {min(values):.3f}, max {max(values):.3f}, {runs} runs)")


if __name__ == "__main__":
    main()
