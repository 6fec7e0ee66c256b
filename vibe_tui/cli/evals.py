"""``vibe-tui eval``: run the eval tasks and print the score.

Without ``--model`` the embedded local model is started once for the whole suite and
every task talks to it; ``--scripted`` plays each task's own ``script.json`` on a fake
model server instead (what CI runs: it proves fixtures, checks and runner, not a model).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

from vibe_tui.evals import report as reporting
from vibe_tui.evals.endpoints import Endpoint, fixed_endpoint, scripted_endpoint
from vibe_tui.evals.results import RunResult
from vibe_tui.evals.runner import RunOptions, run_suite
from vibe_tui.evals.task import TASKS_DIR, TaskError, find_tasks
from vibe_tui.local.catalogue import LocalModelError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vibe-tui eval", description="Run the coding tasks of the eval suite end to end.")
    parser.add_argument("--model", help="LiteLLM model string (default: the local model)")
    parser.add_argument("--api-base", help="base URL of the provider or server")
    parser.add_argument("--api-key", help="API key (default: the provider's env variable)")
    parser.add_argument("--local-model", metavar="NAME",
                        help="which local model to serve without --model "
                             "(qwen2.5-coder-1.5b or qwen2.5-coder-0.5b)")
    parser.add_argument("--scripted", action="store_true",
                        help="play each task's script.json on a fake model (no real model)")
    parser.add_argument("--tasks", default="*", metavar="GLOB",
                        help="task names to run, comma-separated globs (default: all)")
    parser.add_argument("--tasks-dir", type=Path, default=TASKS_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--runs", type=int, default=1, help="runs per task (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once (default 1)")
    parser.add_argument("--timeout", type=float, metavar="S",
                        help="seconds per run for the agent (default: each task's own)")
    parser.add_argument("--max-steps", type=int, help="model calls per run (default 30)")
    parser.add_argument("--report", type=Path, metavar="PATH",
                        help="JSON report file (default: vibe-eval-<time>.json here)")
    parser.add_argument("--keep", action="store_true",
                        help="keep each run's folder (workspace, events, answer)")
    return parser


def _check_args(args: argparse.Namespace) -> str | None:
    if args.runs < 1 or args.jobs < 1:
        return "--runs and --jobs must be 1 or more"
    if args.timeout is not None and args.timeout <= 0:
        return "--timeout must be a positive number of seconds"
    if args.scripted and args.model:
        return "--scripted plays scripts on a fake model; leave out --model"
    if args.local_model and args.model:
        return "--local-model is for runs without --model"
    return None


def _show_progress(result: RunResult, finished: int, total: int) -> None:
    detail = f"{result.steps} steps, {result.time_s:.1f} s"
    note = f" ({result.note})" if result.note else ""
    print(f"[{finished}/{total}] {result.task} run {result.run}: {result.status}, "
          f"{detail}{note}", file=sys.stderr, flush=True)


def _warn_about_sandbox() -> None:
    from vibe_tui.tools import sandbox

    state = sandbox.probe()
    if state.kind != "bubblewrap" and os.environ.get(sandbox.ALLOW_HOST_ENV) != "1":
        print(f"vibe-tui eval: {state.detail}; the agent's commands will be refused. "
              f"Set {sandbox.ALLOW_HOST_ENV}=1 to run them on the host.", file=sys.stderr)


async def _run(args: argparse.Namespace) -> int:
    tasks = find_tasks(args.tasks_dir, args.tasks)
    options = RunOptions(timeout_s=args.timeout, max_steps=args.max_steps, keep=args.keep)
    started = time.time()
    server = None
    if args.scripted:
        endpoint_for, model = scripted_endpoint, "scripted (each task's script.json)"
    elif args.model:
        endpoint_for = fixed_endpoint(Endpoint(args.model, args.api_base, args.api_key))
        model = args.model
    else:
        from vibe_tui.core.model_runtime import local_model_settings
        from vibe_tui.local.catalogue import spec_of
        from vibe_tui.local.server import start_default_local_model
        from vibe_tui.local.weights import stderr_progress

        name = args.local_model
        title = spec_of(name).title if name else "the local model"
        model, api_base, server = await start_default_local_model(stderr_progress(title), name)
        endpoint_for = fixed_endpoint(Endpoint(model, api_base, server.api_key,
                                               tuple(local_model_settings().items())))
    try:
        _warn_about_sandbox()
        print(f"running {len(tasks)} tasks x {args.runs} with {model}", file=sys.stderr)
        results = await run_suite(tasks, endpoint_for, runs=args.runs, jobs=args.jobs,
                                  options=options, progress=_show_progress)
    finally:
        if server is not None:
            await server.stop()
    return _finish(args, tasks, results, model, started)


def _finish(args, tasks, results, model: str, started: float) -> int:
    report = reporting.build_report(
        tasks, results, model=model, runs=args.runs, jobs=args.jobs, started=started,
        extra={"command": " ".join(["vibe-tui", "eval", *_public_argv(args.argv)]),
               "load_average": _load_average()})
    scores = reporting.score_suite(tasks, results)
    print(reporting.format_table(scores, report["summary"], args.runs))
    path = args.report or Path(f"vibe-eval-{time.strftime('%Y%m%d-%H%M%S')}.json")
    reporting.write_report(report, path)
    print(f"report: {path}")
    return 0 if all(r.passed or r.status == "skipped" for r in results) else 1


def _public_argv(argv: list[str]) -> list[str]:
    """The command line as recorded in the report: never the API key."""
    shown, hide_next = [], False
    for arg in argv:
        if hide_next:
            shown.append("***")
            hide_next = False
        elif arg == "--api-key":
            shown.append(arg)
            hide_next = True
        elif arg.startswith("--api-key="):
            shown.append("--api-key=***")
        else:
            shown.append(arg)
    return shown


def _load_average() -> list[float] | None:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    args.argv = argv
    problem = _check_args(args)
    if problem:
        print(f"vibe-tui eval: {problem}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(_run(args))
    except (TaskError, LocalModelError) as exc:
        print(f"vibe-tui eval: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("vibe-tui eval: interrupted; no report written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
