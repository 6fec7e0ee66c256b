"""The first message, sent while LiteLLM still imports: from the import being ready to the
request reaching the model server.

Each run is a fresh interpreter (LiteLLM not yet imported) running the app headless
(``run_test``, 120x40) against the fake server, which runs in this process. The message is
submitted at once, before the app's background preload has imported LiteLLM. The child
stamps the moment ``litellm_module()`` returns; the server stamps the request's arrival
(both ``time.monotonic``, one clock for every process on Linux).

    uv run python bench/first_message.py [--runs 5]

Aim: under 1 s from import ready to request received.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CHILD_TIMEOUT_S = 120.0


async def child(base_url: str, workspace: Path) -> None:
    from vibe_tui.app import VibeApp
    from vibe_tui.config.settings import Config
    from vibe_tui.core import events as ev
    from vibe_tui.core import model
    from vibe_tui.core.session import Session

    stamps: dict[str, float] = {}
    real_import = model.litellm_module

    def stamped_import():
        module = real_import()
        stamps.setdefault("import_ready", time.monotonic())
        return module

    model.litellm_module = stamped_import
    session = Session(Config(model="openai/fake-model", api_base=base_url), workspace=workspace)
    app = VibeApp(session)
    async with app.run_test(size=(120, 40)) as pilot:
        stamps["submitted"] = time.monotonic()
        app.prompt.insert("hello")
        await pilot.press("enter")
        while not any(isinstance(e, ev.TurnEnded) for e in session.event_log):
            await asyncio.sleep(0.01)
        stamps["turn_ended"] = time.monotonic()
        stamps["notice"] = any(isinstance(e, ev.Notice) and "loading the model client" in e.text
                               for e in session.event_log)
    print(json.dumps(stamps))


def one_run(base_url: str, arrivals: list[float]) -> dict[str, float]:
    arrivals.clear()
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "VIBE_TUI_HOME": scratch, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        result = subprocess.run([sys.executable, __file__, "--child", base_url, scratch],
                                env=env, capture_output=True, text=True,
                                timeout=CHILD_TIMEOUT_S, check=True)
    stamps = json.loads(result.stdout.strip().splitlines()[-1])
    stamps["arrived"] = arrivals[0]
    return stamps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        asyncio.run(child(args.child[0], Path(args.child[1])))
        return
    from vibe_tui.testing.fake_llm import FakeLLM
    from vibe_tui.testing.script import text

    arrivals: list[float] = []
    lock = threading.Lock()

    def respond(_body: dict) -> object:
        with lock:
            arrivals.append(time.monotonic())
        return text("hi")

    with FakeLLM(responder=respond) as llm:
        one_run(llm.base_url, arrivals)  # warm the OS file cache and bytecode; not counted
        runs = [one_run(llm.base_url, arrivals) for _ in range(args.runs)]
    figures = {
        "submit to import ready": [r["import_ready"] - r["submitted"] for r in runs],
        "import ready to request": [r["arrived"] - r["import_ready"] for r in runs],
        "submit to turn end": [r["turn_ended"] - r["submitted"] for r in runs],
    }
    for name, values in figures.items():
        print(f"{name:>24}: median {statistics.median(values):.3f} s  "
              f"(min {min(values):.3f}, max {max(values):.3f}, {args.runs} runs)")
    print(f"{'loading notice shown':>24}: {sum(bool(r['notice']) for r in runs)} of {args.runs}")


if __name__ == "__main__":
    main()
