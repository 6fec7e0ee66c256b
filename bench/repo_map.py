"""Repo map time and size on a large real repository: Django's source.

Django's source distribution (the package with its test suite, ~2,900 Python and
JavaScript files) is fetched with pip into a benchmark-only virtual environment outside
the project (default /tmp/bench-django), the first time only. Each measurement runs in
a fresh process with its own cache folder ($VIBE_TUI_HOME):

- cold: empty tag cache, everything parsed;
- warm: a new process with the cache filled by the cold run (what a new session pays);
- again: the same process asked for the same map a second time;
- new focus: the same process, a map with a focus (tags remembered, graph ranked anew).

Wall time depends on what else the machine runs; CPU time (this process only) less so.
Aim: under 10 s cold and 0.5 s warm.

    uv run python bench/repo_map.py [--dir /tmp/bench-django] [--spec django] [--tokens 1024]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FOCUS = "QuerySet.filter add_q WhereNode django/db/models/sql/where.py"


def source_tree(bench_dir: Path, spec: str) -> Path:
    """Django's unpacked source distribution, fetched into ``bench_dir`` if missing."""
    found = sorted(bench_dir.glob("sdist/*/django/__init__.py"))
    if found:
        return found[-1].parents[1]
    print(f"fetching {spec} (source distribution) into {bench_dir} ...", flush=True)
    subprocess.run(["uv", "venv", "--seed", "-q", str(bench_dir)], check=True)
    download = bench_dir / "sdist"
    subprocess.run(
        [str(bench_dir / "bin" / "pip"), "download", "-q", "--no-deps", "--no-binary", ":all:", spec, "-d", str(download)],
        check=True,
    )
    archive = next(download.glob("*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(download, filter="data")
    return source_tree(bench_dir, spec)


def python_speed() -> float:
    """CPU seconds for a plain loop: to read the figures below against."""
    started, total = time.process_time(), 0
    for number in range(10_000_000):
        total += number
    return time.process_time() - started


def timed(function, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    result = function(*args, **kwargs)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def child(tree: Path, tokens: int) -> None:
    """One process's measurements, printed as one JSON line."""
    from vibe_tui.tools.repo_map import map_workspace

    first, first_wall, first_cpu = timed(map_workspace, tree, max_tokens=tokens)
    _, again_wall, again_cpu = timed(map_workspace, tree, max_tokens=tokens)
    focused, focus_wall, focus_cpu = timed(map_workspace, tree, max_tokens=tokens, focus_text=FOCUS)
    print(
        json.dumps(
            {
                "files": first.files_total,
                "parsed": first.files_parsed,
                "tokens": first.tokens,
                "shown": [first.files_shown, first.definitions_shown],
                "first": [first_wall, first_cpu],
                "again": [again_wall, again_cpu],
                "focus": [focus_wall, focus_cpu],
                "focus_tokens": focused.tokens,
                "map": first.text,
            }
        )
    )


def run_child(tree: Path, tokens: int, home: Path) -> dict:
    env = {**os.environ, "VIBE_TUI_HOME": str(home)}
    command = [sys.executable, __file__, "--child", str(tree), "--tokens", str(tokens)]
    output = subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def seconds(pair: list[float]) -> str:
    return f"{pair[0]:.2f} s wall, {pair[1]:.2f} s CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=Path("/tmp/bench-django"))
    parser.add_argument("--spec", default="django", help="pip requirement to fetch")
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3, help="warm runs (the median is shown)")
    parser.add_argument("--show-map", action="store_true")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.tokens)
        return
    tree = source_tree(args.dir, args.spec)
    print(f"repository: {tree.name} ({tree})")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"machine speed: 10M Python additions in {python_speed():.2f} s CPU (an idle desktop: ~0.5 s)")
    with tempfile.TemporaryDirectory() as home:
        cold = run_child(tree, args.tokens, Path(home))
        warm = [run_child(tree, args.tokens, Path(home)) for _ in range(args.runs)]
    print(f"source files mapped: {cold['files']} (parsed cold: {cold['parsed']}, warm: {warm[0]['parsed']})")
    print(f"map: {cold['tokens']} tokens (budget {args.tokens}); {cold['shown'][0]} files, {cold['shown'][1]} definitions")
    print(f"cold:           {seconds(cold['first'])}")
    median = {key: [statistics.median(run[key][i] for run in warm) for i in (0, 1)] for key in ("first", "again", "focus")}
    print(f"warm:           {seconds(median['first'])}  (new process, cache filled; median of {args.runs})")
    print(f"again:          {seconds(median['again'])}  (same process, same map)")
    print(f"new focus:      {seconds(median['focus'])}  (same process, ranked anew; {warm[0]['focus_tokens']} tokens)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    if args.show_map:
        print("\n" + cold["map"])


if __name__ == "__main__":
    main()
