"""What answers of different shapes cost the screen while they stream.

Each answer is about 4,000 tokens streamed at 200 tokens/s (as in `peers.py`) from a fake
server process into the app, headless (`run_test`, 120x40), a fresh app for each run. The
shapes:

- `code`: one Python code block in the first column (`peers.py --code`'s answer);
- `code-in-item`: the same block inside a numbered list item, its fence indented;
- `bullets`: a list of 220 one-line items, no blank line between them;
- `table`: a table of 200 rows.

A tail that cannot be cut into parts is drawn whole at each flush, and that drawing grows
with it: this prints, for each shape, the CPU seconds of the app's process over the
answer (the model calls run in that process here, as in the tests) and the number of
flushes that reached the answer.

    uv run python bench/answer_shapes.py [--runs 3] [--shapes code,code-in-item,bullets,table]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from peers import CHARS_PER_TOKEN, SLOW_RATE, code_answer, last_user_text  # noqa: E402

SIZE = (120, 40)
LINE = "holds step {n}, its scaled total and the square root of it"


def shapes() -> dict[str, str]:
    """The answers, each with ``finis 7731`` at its end."""
    code = code_answer("bench-code")
    start, end = code.index("```python"), code.rindex("```") + 3
    item = "\n".join("   " + line if line else "" for line in code[start:end].split("\n"))
    bullets = "\n".join(f"- `src/module_{n}.py`: {LINE.format(n=n)}" for n in range(220))
    rows = "\n".join(f"| `src/module_{n}.py` | {n} | {LINE.format(n=n)} |" for n in range(200))
    return {
        "code": code,
        "code-in-item": f"{code[:start]}1. Write the module:\n\n{item}{code[end:]}",
        "bullets": f"The files:\n\n{bullets}\n\nThat is all. finis 7731.\n",
        "table": f"The files:\n\n| file | step | what |\n|---|---|---|\n{rows}\n\n"
                 "That is all. finis 7731.\n",
    }


def serve() -> None:
    from vibe_tui.testing.fake_llm import FakeLLM
    from vibe_tui.testing.script import text

    answers = shapes()

    def respond(body: dict):
        asked = last_user_text(body)
        for name, answer in answers.items():
            if f"({name})" in asked:
                return text(answer, chunk_size=CHARS_PER_TOKEN, rate=SLOW_RATE)
        return text("ok")

    llm = FakeLLM(responder=respond).start()
    print(f"READY {llm.base_url}", flush=True)
    try:
        sys.stdin.read()
    finally:
        llm.stop()


async def one_run(base_url: str, shape: str) -> dict[str, float]:
    from vibe_tui.app import VibeApp
    from vibe_tui.config.settings import Config
    from vibe_tui.core.session import Session
    from vibe_tui.widgets.answer import AnswerView

    config = Config(model="openai/fake-model", api_base=base_url, api_key="sk-bench")
    with tempfile.TemporaryDirectory() as workspace:
        session = Session(config, workspace=Path(workspace))
        app = VibeApp(session)
        flushes = 0
        append = AnswerView.append

        async def counted(view: AnswerView, text: str) -> None:
            nonlocal flushes
            flushes += 1
            await append(view, text)

        AnswerView.append = counted
        try:
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause(0.3)
                cpu, wall = time.process_time(), time.perf_counter()
                session.send(f"Show it ({shape})")
                await asyncio.sleep(0.3)
                while session.running:
                    await asyncio.sleep(0.05)
                await pilot.pause(0.2)
                return {"cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall,
                        "flushes": flushes}
        finally:
            AnswerView.append = append


async def main(runs: int, names: list[str]) -> None:
    from vibe_tui.core.model import preload

    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        line = server.stdout.readline()
        if not line.startswith("READY "):
            raise RuntimeError(f"fake server did not start: {line!r}")
        await preload()
        results: dict[str, list[dict[str, float]]] = {name: [] for name in names}
        for _ in range(runs):
            for name in names:  # interleaved, so a busier moment touches every shape
                results[name].append(await one_run(line.split()[1], name))
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    print(f"{'shape':<14} {'CPU s (min-max)':<22} {'wall s':<8} flushes")
    for name, found in results.items():
        cpu = [r["cpu"] for r in found]
        print(f"{name:<14} {statistics.median(cpu):5.2f} ({min(cpu):.2f}-{max(cpu):.2f})"
              f"{'':<7} {statistics.median(r['wall'] for r in found):6.2f}   "
              f"{statistics.median(r['flushes'] for r in found):.0f}")


if __name__ == "__main__":
    if "--serve" in sys.argv:
        serve()
        sys.exit(0)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--shapes", default=",".join(shapes()))
    arguments = parser.parse_args()
    chosen = arguments.shapes.split(",")
    unknown = set(chosen) - set(shapes())
    if unknown:
        parser.error(f"unknown shapes: {', '.join(sorted(unknown))}")
    asyncio.run(main(arguments.runs, chosen))
