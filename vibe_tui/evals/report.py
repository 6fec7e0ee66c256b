"""The eval results: a table for the terminal and a JSON report file.

Skipped runs (a program the task needs is missing) count in neither the passes nor the
total, so a machine without node scores out of fewer tasks and says so.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vibe_tui.evals.results import RunResult
from vibe_tui.evals.task import Task


@dataclass(frozen=True)
class TaskScore:
    task: str
    runs: int  # counted runs (skipped ones left out)
    passed: int
    steps: float  # means over the counted runs
    tokens: float
    time_s: float
    cost: float | None  # total over the runs; None when no price was known
    skipped: bool
    measures: str
    statuses: list[str]

    @property
    def pass_rate(self) -> float:
        return self.passed / self.runs if self.runs else 0.0


def _mean(values: list[float]) -> float:
    return round(statistics.fmean(values), 2) if values else 0.0


def score_task(task: Task, results: list[RunResult]) -> TaskScore:
    counted = [r for r in results if r.status != "skipped"]
    costs = [r.cost for r in counted if r.cost is not None]
    return TaskScore(
        task=task.name, runs=len(counted), passed=sum(r.passed for r in counted),
        steps=_mean([r.steps for r in counted]), tokens=_mean([r.tokens for r in counted]),
        time_s=_mean([r.time_s for r in counted]),
        cost=round(sum(costs), 6) if costs else None,
        skipped=not counted and bool(results), measures=task.measures,
        statuses=[r.status for r in results])


def score_suite(tasks: list[Task], results: list[RunResult]) -> list[TaskScore]:
    return [score_task(task, [r for r in results if r.task == task.name]) for task in tasks]


def summary_of(scores: list[TaskScore], results: list[RunResult]) -> dict[str, Any]:
    counted = [r for r in results if r.status != "skipped"]
    passed = sum(r.passed for r in counted)
    costs = [r.cost for r in counted if r.cost is not None]
    return {
        "passed": passed,
        "total": len(counted),
        "pass_rate": round(passed / len(counted), 4) if counted else 0.0,
        "tasks_passed_every_run": sum(1 for s in scores if s.runs and s.passed == s.runs),
        "tasks": sum(1 for s in scores if not s.skipped),
        "skipped": [s.task for s in scores if s.skipped],
        "steps": sum(r.steps for r in counted),
        "tokens": sum(r.tokens for r in counted),
        "time_s": round(sum(r.time_s for r in counted), 1),
        "cost": round(sum(costs), 6) if costs else None,
    }


def _cost_text(cost: float | None) -> str:
    return "-" if cost is None else f"${cost:.4f}"


def _result_text(score: TaskScore, runs: int) -> str:
    if score.skipped:
        return "skip"
    if runs == 1:
        return "pass" if score.passed else score.statuses[0]
    return f"{score.passed}/{score.runs}"


def format_table(scores: list[TaskScore], summary: dict[str, Any], runs: int) -> str:
    header = ("task", "result", "steps", "tokens", "time", "cost")
    rows = [(s.task, _result_text(s, runs), f"{s.steps:g}", f"{s.tokens:,.0f}",
             f"{s.time_s:.1f}s", _cost_text(s.cost)) for s in scores]
    total = summary["total"]
    rows.append(("TOTAL", f"{summary['passed']}/{total}", f"{summary['steps']:,}",
                 f"{summary['tokens']:,}", f"{summary['time_s']:.1f}s",
                 _cost_text(summary["cost"])))
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        return "  ".join(cells)

    rule = "-" * len(line(header))
    text = [line(header), rule, *map(line, rows[:-1]), rule, line(rows[-1])]
    if runs > 1:
        text.append(f"pass rate {summary['pass_rate']:.0%} over {runs} runs per task; "
                    f"{summary['tasks_passed_every_run']}/{summary['tasks']} tasks passed "
                    "every run")
    if summary["skipped"]:
        text.append(f"skipped: {', '.join(summary['skipped'])}")
    return "\n".join(text)


def build_report(tasks: list[Task], results: list[RunResult], *, model: str,
                 runs: int, jobs: int, started: float, extra: dict[str, Any] | None = None
                 ) -> dict[str, Any]:
    scores = score_suite(tasks, results)
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "model": model,
        "runs": runs,
        "jobs": jobs,
        **(extra or {}),
        "summary": summary_of(scores, results),
        "tasks": [{**score.__dict__, "pass_rate": round(score.pass_rate, 4)} for score in scores],
        "results": [result.to_json() for result in results],
    }


def write_report(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
