"""Speed of the embedded local model, reached the way the app reaches it.

Starts the local model server (fetching the weights first if they are not cached), then
streams answers through the app's model adapter (LiteLLM) with the app's system prompt and
tool schemas, as a session would send them. For each request it prints the time to the
first token and the generation speed; the first request pays for the whole prompt, later
ones reuse llama.cpp's prompt cache for the shared prefix. With ``--session`` it also times
one real Session turn ("create a file") in yolo mode.

With ``--boot`` it times the keyless first run instead, through a Session with no model
configured (the app's path): the model's start, then "what files are here?" in a small
repository, or a one-line question about its code, asked the moment the model is ready
(cold: the step prompt is still being read ahead, and no earlier launch saved it), asked
after the read-ahead (warm: the user typed meanwhile), and asked at once after the
session and its server were closed and started again (restart: the prefix saved by the
first launch is restored). It prints the
time to ready, to the end of the read-ahead, to the answer's first token and to the whole
answer, and whether the answer is right (names every file; names the port). A change or
command the model asks approval for is denied, as a user asking a question would.

    uv run python bench/local_model.py [--model qwen2.5-coder-1.5b] [--threads N]
                                       [--runs 3] [--session] [--boot]

``--runs`` is the number of requests per figure, and with ``--boot`` of rounds of the
three cases.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from vibe_tui.config.settings import Config  # noqa: E402
from vibe_tui.core import events as ev  # noqa: E402
from vibe_tui.local.catalogue import DEFAULT_LOCAL_MODEL, LOCAL_MODELS  # noqa: E402
from vibe_tui.local.server import LocalServer, forget_prefixes  # noqa: E402
from vibe_tui.local.weights import ensure_weights, stderr_progress  # noqa: E402
from vibe_tui.core.model import ModelSettings, preload, stream_completion  # noqa: E402
from vibe_tui.core.prompts import system_prompt  # noqa: E402
from vibe_tui.core.session import Session  # noqa: E402
from vibe_tui.tools import default_tools  # noqa: E402
from vibe_tui.tools.base import schema_of  # noqa: E402

QUESTIONS = [  # answers of about a hundred tokens, so the generation speed means something
    "In about 80 words, what does a Python list comprehension do? Do not call a tool.",
    "In about 80 words, what is a race condition? Do not call a tool.",
    "In about 80 words, why use a virtual environment in Python? Do not call a tool.",
]


async def one_request(settings: ModelSettings, workspace: Path, question: str) -> dict:
    messages = [{"role": "system", "content": system_prompt(workspace)},
                {"role": "user", "content": question}]
    tools = [schema_of(tool) for tool in default_tools()]
    first: list[float] = []
    started = time.perf_counter()
    response = await stream_completion(
        settings, messages, tools, lambda _: first or first.append(time.perf_counter()))
    ended = time.perf_counter()
    ttft = (first[0] if first else ended) - started
    generating = ended - (first[0] if first else started)
    tokens = response.completion_tokens
    return {"ttft": ttft, "tokens": tokens, "prompt": response.prompt_tokens,
            "tok_s": (tokens - 1) / generating if tokens > 1 and generating > 0 else 0.0}


async def session_turn(server: LocalServer, api_base: str) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        config = Config(model=server.model_string, api_base=api_base, api_key=server.api_key,
                        mode="yolo", temperature=0.0, max_steps=4)
        session = Session(config, Path(folder), persist=False)
        started = time.perf_counter()
        session.send("Create a file hello.txt containing hi")
        first_call = None
        async for event in session.events():
            if isinstance(event, ev.ToolCall) and first_call is None:
                first_call = time.perf_counter() - started
            if isinstance(event, ev.TurnEnded):
                break
        total = time.perf_counter() - started
        created = (Path(folder) / "hello.txt").is_file()
        await session.close()
    return {"first_tool_call": first_call, "turn": total, "state": event.state,
            "created": created}


BOOT_FILES = {"app.py": "PORT = 8080\n", "README.md": "# Demo\n", "run.sh": "python app.py\n"}
# The two first questions, each with what a correct answer holds.
BOOT_QUESTIONS = {
    "files": ("What files are in this repository? List them.", list(BOOT_FILES)),
    "code": ("Which port does app.py listen on?", ["8080"]),
}


async def boot_case(workspace: Path, question: str, wait_for_read_ahead: bool) -> dict:
    """One keyless start and one question; the Session starts and stops its own server."""
    session = Session(Config(), workspace, persist=False)
    started = time.perf_counter()
    if not await session.start_model():
        raise SystemExit(f"the local model did not start: {of_type(session, ev.ModelFailed)}")
    ready = time.perf_counter() - started
    read_ahead: list[float] = []
    warmed = session.model_runtime.warmed
    if warmed is not None:
        warmed.add_done_callback(lambda _: read_ahead.append(time.perf_counter() - started))
        if wait_for_read_ahead:
            await warmed
    asked = time.perf_counter()
    first = None
    events = session.events(after=session.event_log[-1].id)
    session.send(question)
    denied = []
    async for event in events:
        if isinstance(event, ev.TextDelta) and first is None:
            first = time.perf_counter() - asked
        if isinstance(event, ev.ApprovalRequested):
            # A question needs no change, and nobody is here to answer: say no, as a user
            # would, and count it (unanswered, the turn would wait for ever).
            denied.append(event.tool)
            session.answer(event.approval_id, "deny")
        if isinstance(event, ev.TurnEnded):
            break
    answer_s = time.perf_counter() - asked
    answers = of_type(session, ev.AssistantMessage)
    await session.close()
    return {"ready": ready, "read_ahead": read_ahead[0] if read_ahead else None,
            "first_token": first, "answer": answer_s, "state": event.state,
            "text": answers[-1].text if answers else "", "denied": denied}


def answer_verdict(text: str, expected: list[str]) -> str:
    missing = [word for word in expected if word not in text]
    return f"no: {', '.join(missing)} missing" if missing else "yes"


def denied_note(tools: list[str]) -> str:
    return f"; denied: {', '.join(tools)}" if tools else ""


def of_type(session: Session, kind: type) -> list:
    return [event for event in session.event_log if isinstance(event, kind)]


async def boot(args: argparse.Namespace) -> int:
    os.environ["VIBE_TUI_LOCAL_MODEL"] = args.model
    if args.threads:
        os.environ["VIBE_TUI_LOCAL_THREADS"] = str(args.threads)
    await ensure_weights(args.model, stderr_progress(LOCAL_MODELS[args.model].title))
    await preload()
    print(f"{args.model}, keyless first run in a {len(BOOT_FILES)}-file repository: "
          + "; ".join(f'{key}: "{question}"' for key, (question, _) in BOOT_QUESTIONS.items()))
    print("| case | question | model ready | prefix read | first answer token | answer | correct |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        for name, content in BOOT_FILES.items():
            (workspace / name).write_text(content)
        cases = (("cold: asked at once", False, True),
                 ("warm: asked after the read-ahead", True, True),
                 ("restart: closed, started again, asked at once", False, False))
        for run, (label, wait, first_launch), key in itertools.product(
                range(args.runs), cases, BOOT_QUESTIONS):
            question, expected = BOOT_QUESTIONS[key]
            if first_launch:  # no prefix saved by an earlier launch
                forget_prefixes(args.model)
            result = await boot_case(workspace, question, wait)
            first, read = result["first_token"], result["read_ahead"]
            print(f"| {run + 1}: {label} | {key} | {result['ready']:.1f} s | "
                  f"{'-' if read is None else f'{read:.1f} s'} | "
                  f"{'-' if first is None else f'{first:.1f} s'} | {result['answer']:.1f} s "
                  f"({result['state']}{denied_note(result['denied'])}) | "
                  f"{answer_verdict(result['text'], expected)} |")
    return 0


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=DEFAULT_LOCAL_MODEL, choices=LOCAL_MODELS)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--session", action="store_true", help="also time one Session turn")
    parser.add_argument("--boot", action="store_true",
                        help="time the keyless first run through a Session instead")
    args = parser.parse_args()
    if args.boot:
        return await boot(args)

    weights = await ensure_weights(args.model, stderr_progress(LOCAL_MODELS[args.model].title))
    await preload()
    server = LocalServer(args.model, threads=args.threads)
    started = time.perf_counter()
    api_base = await server.start(weights)
    print(f"{args.model}: server ready in {time.perf_counter() - started:.1f} s "
          f"({server.threads} threads, context {server.ctx_size})")
    try:
        settings = ModelSettings(model=server.model_string, api_base=api_base,
                                 api_key=server.api_key, temperature=0.0, timeout_s=600)
        with tempfile.TemporaryDirectory() as folder:
            results = []
            for run in range(args.runs):
                result = await one_request(settings, Path(folder), QUESTIONS[run % len(QUESTIONS)])
                results.append(result)
                label = "cold" if run == 0 else "warm"
                print(f"  request {run + 1} ({label}): first token {result['ttft']:.2f} s, "
                      f"{result['tok_s']:.1f} tokens/s ({result['tokens']} tokens, "
                      f"prompt {result['prompt']})")
        if len(results) > 1:
            warm = results[1:]
            print(f"  warm median: first token {statistics.median(r['ttft'] for r in warm):.2f} s, "
                  f"{statistics.median(r['tok_s'] for r in warm):.1f} tokens/s")
        if args.session:
            turn = await session_turn(server, api_base)
            first = turn["first_tool_call"]
            print(f"  session turn: first tool call {first:.1f} s, " if first is not None
                  else "  session turn: no tool call, ", end="")
            print(f"turn {turn['turn']:.1f} s ({turn['state']}), file created: {turn['created']}")
    finally:
        await server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
