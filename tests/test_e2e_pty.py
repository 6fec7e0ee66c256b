"""End to end: the real ``vibe-tui`` in a pseudo-terminal, against the fake model server
running as its own process. The user types a task, approves a write with ``y``, and reads
the answer on screen."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

# Escape sequences, removed to read the text the terminal was told to draw.
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")
SCRIPT = [
    {"tool_calls": [{"name": "bash", "args": {"command": "echo e2e-ok > out.txt"}}]},
    {"text": "All done: out.txt now says e2e-ok."},
]


class Screen:
    """What the app wrote to the terminal, as text, and waits on it."""

    def __init__(self, child: pexpect.spawn) -> None:
        self.child = child
        self.text = ""

    def read(self) -> None:
        try:
            while True:
                self.text += ANSI.sub("", self.child.read_nonblocking(65536, timeout=0.05))
        except pexpect.TIMEOUT:
            pass

    def wait_for(self, predicate, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}; screen so far:\n"
                                     f"{self.text[-3000:]}")
            self.read()

    def poll(self, predicate, timeout: float) -> bool:
        """Whether ``predicate`` became true within ``timeout`` seconds."""
        try:
            self.wait_for(predicate, timeout, "")
        except AssertionError:
            return False
        return True

    def wait_text(self, text: str, timeout: float = 60) -> None:
        self.wait_for(lambda: text in self.text, timeout, repr(text))


@pytest.fixture
def fake_server(tmp_path: Path) -> Iterator[str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    server = subprocess.Popen(
        [sys.executable, "-m", "vibe_tui.testing.fake_llm", "--port", "0", "--script", str(script)],
        stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("READY "), line
        yield line.split()[1]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_task_approve_answer(fake_server: str, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {**os.environ, "TERM": "xterm-256color", "VIBE_TUI_HOME": str(tmp_path / "home"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    child = pexpect.spawn(
        sys.executable, ["-m", "vibe_tui", "--model", "openai/fake-model", "--api-base", fake_server],
        cwd=str(workspace), env=env, dimensions=(40, 120), encoding="utf-8", codec_errors="replace")
    screen = Screen(child)
    try:
        screen.wait_text("sk vibe-tui", timeout=30)  # the prompt's placeholder (its "A" is the cursor)
        child.send("write the file")
        screen.wait_text("write the file")
        child.send("\r")
        screen.wait_text("Approve bash?")
        # The modal ignores keys for its first half second (a grace period against keys
        # typed for the prompt): press y until the command has run.
        out = workspace / "out.txt"
        for _ in range(100):
            child.send("y")
            if screen.poll(out.exists, 0.3):
                break
        screen.wait_text("All done: out.txt now says e2e-ok.")
        assert out.read_text() == "e2e-ok\n"
        child.send("\x11")  # Ctrl+Q
        child.expect(pexpect.EOF, timeout=30)
        screen.text += ANSI.sub("", child.before or "")
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    # Once the screen is gone the shell shows how to take the session up again.
    hint = re.search(r"session (\S+) · resume it with: vibe-tui -r (\S+)", screen.text)
    assert hint and hint.group(1) == hint.group(2), screen.text[-500:]
    saved = list((tmp_path / "home").rglob(f"{hint.group(1)}.jsonl"))
    assert len(saved) == 1 and "All done" in saved[0].read_text()
