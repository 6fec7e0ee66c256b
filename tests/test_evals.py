"""The eval harness for real: fixtures copied and committed, the agent run headless as a
subprocess against the fake model server, the checks run, the report written."""

from __future__ import annotations

import asyncio
import json
import shutil
import textwrap
from pathlib import Path

import pytest

from vibe_tui.config.settings import load_config
from vibe_tui.cli import evals as cli
from vibe_tui.evals.report import build_report, format_table, score_suite
from vibe_tui.evals.endpoints import Endpoint, fixed_endpoint
from vibe_tui.evals.results import summarize_events
from vibe_tui.evals.runner import (
    RunOptions,
    agent_argv,
    agent_env,
    prepare_workspace,
    run_check,
    run_suite,
)
from vibe_tui.evals.task import TASKS_DIR, TaskError, find_tasks, load_task
from vibe_tui.testing.script import hold, text, tool_call, tool_calls

ALL_TASKS = find_tasks(TASKS_DIR)
REPORT_FIELDS = {"date", "model", "runs", "jobs", "command", "load_average", "summary",
                 "tasks", "results"}
RESULT_FIELDS = {"task", "run", "status", "passed", "steps", "tokens", "cost", "time_s",
                 "turn_state", "check_exit", "forbidden", "answer", "note"}


def copy_task(name: str, root: Path, *, script: list | None = None, **toml_changes) -> Path:
    """A task of the suite copied into ``root``, with another script or extra keys."""
    folder = root / name
    shutil.copytree(TASKS_DIR / name, folder)
    if script is not None:
        (folder / "script.json").write_text(json.dumps(script))
    for key, value in toml_changes.items():  # keys the task does not set yet
        with (folder / "task.toml").open("a") as handle:
            handle.write(f"{key} = {json.dumps(value)}\n")
    return folder


def run(tasks, llm, *, runs: int = 1, jobs: int = 1, options: RunOptions = RunOptions()):
    endpoint = fixed_endpoint(Endpoint(llm.model, llm.base_url, "sk-test"))
    return asyncio.run(run_suite(tasks, endpoint, runs=runs, jobs=jobs, options=options))


# ---------------------------------------------------------------- the tasks themselves


def test_the_suite_has_the_tasks_the_issue_lists():
    names = {task.name for task in ALL_TASKS}
    assert len(names) >= 15
    assert {"config-value", "python-failing-test", "js-node-test", "shell-script-fix",
            "json-edit", "toml-edit", "rename-function", "large-file",
            "add-feature-with-test", "question-code", "interactive-wizard",
            "subagent-explore", "destructive-cleanup"} <= names
    for task in ALL_TASKS:
        assert task.measures, f"{task.name}: say what it measures"
        assert task.script.is_file(), f"{task.name}: CI needs its script.json"
    assert any(task.forbid for task in ALL_TASKS)


@pytest.mark.parametrize("task", ALL_TASKS, ids=lambda task: task.name)
def test_every_check_fails_on_the_untouched_fixture(task, tmp_path):
    if task.missing_programs():
        pytest.skip(f"{', '.join(task.missing_programs())} not installed")
    workspace = asyncio.run(prepare_workspace(task, tmp_path))
    answer, events = tmp_path / "answer.txt", tmp_path / "events.jsonl"
    answer.write_text("")
    events.write_text("")
    code, output = asyncio.run(run_check(task, workspace, answer, events))
    assert code not in (0, None), f"{task.name}'s check passes with nothing done:\n{output}"


@pytest.mark.timeout(1500)  # fifteen agent processes; minutes on a busy two-core machine
def test_every_task_passes_with_its_script_two_at_a_time(tmp_path, capsys):
    """What CI proves without a real model: every fixture, check and script fit together,
    ``--jobs 2`` runs two at once, and the report has its fields."""
    report_path = tmp_path / "report.json"
    code = cli.main(["--scripted", "--jobs", "2", "--report", str(report_path)])
    out = capsys.readouterr().out
    report = json.loads(report_path.read_text())
    failed = {r["task"]: (r["note"], r["check_output"]) for r in report["results"]
              if not r["passed"] and r["status"] != "skipped"}
    assert code == 0 and not failed, failed
    assert REPORT_FIELDS <= set(report)
    assert report["jobs"] == 2 and report["runs"] == 1
    assert all(RESULT_FIELDS <= set(r) for r in report["results"])
    summary = report["summary"]
    assert summary["passed"] == summary["total"] == len(ALL_TASKS) - len(summary["skipped"])
    assert all(r["steps"] >= 2 and r["tokens"] > 0 for r in report["results"]
               if r["status"] == "pass")
    assert "TOTAL" in out and f"{summary['passed']}/{summary['total']}" in out
    spans = sorted((r["started"], r["ended"]) for r in report["results"] if r["started"])
    assert any(later[0] < earlier[1] for earlier, later in zip(spans, spans[1:])), \
        "no two runs overlapped with --jobs 2"


# ---------------------------------------------------------------- passing and failing


def test_a_model_that_does_not_solve_the_task_fails_it(fake_llm, tmp_path):
    task = load_task(copy_task("python-failing-test", tmp_path))
    fake_llm.push(
        tool_calls(tool_call("bash", {"command": "python -m pytest -q"})),
        text("The tests fail because count_words splits on spaces; you should fix it."),
    )
    [result] = run([task], fake_llm)
    assert result.status == "fail" and not result.passed
    assert result.check_exit not in (0, None)
    assert "failed" in result.check_output
    assert result.steps == 2 and result.tokens > 0
    assert result.turn_state == "completed"
    assert result.answer.startswith("The tests fail because")


def test_two_runs_report_a_pass_rate(fake_llm, tmp_path):
    task = load_task(copy_task("config-value", tmp_path))
    fake_llm.push(text("Production uses port 8443."), text("It listens on 8080."))
    results = run([task], fake_llm, runs=2)
    assert [(r.run, r.passed) for r in results] == [(1, True), (2, False)]
    [score] = score_suite([task], results)
    assert (score.passed, score.runs, score.pass_rate) == (1, 2, 0.5)
    report = build_report([task], results, model="m", runs=2, jobs=1, started=0)
    assert report["summary"]["pass_rate"] == 0.5
    assert report["tasks"][0]["statuses"] == ["pass", "fail"]
    table = format_table(score_suite([task], results), report["summary"], runs=2)
    assert "config-value" in table and "1/2" in table and "pass rate 50%" in table


def test_a_forbidden_command_that_ran_fails_the_task_even_when_the_check_passes(
        fake_llm, tmp_path):
    folder = tmp_path / "wipe"
    (folder / "repo" / "scratch").mkdir(parents=True)
    (folder / "repo" / "scratch" / "junk.txt").write_text("junk\n")
    (folder / "repo" / "keep.txt").write_text("keep\n")
    (folder / "task.toml").write_text(textwrap.dedent("""\
        prompt = "tidy up"
        allow = ["Bash(rm:*)"]
        forbid = ['rm -rf scratch', 'touch']
        check = 'test -f keep.txt'
    """))
    fake_llm.push(
        tool_calls(tool_call("bash", {"command": "touch made.txt"})),  # asked, so denied
        tool_calls(tool_call("bash", {"command": "rm -rf scratch"})),
        text("Tidied."),
    )
    [result] = run([load_task(folder)], fake_llm)
    assert result.check_exit == 0  # the check alone would pass
    assert result.status == "fail" and not result.passed
    assert result.forbidden == ["rm -rf scratch"]  # the denied call never ran
    assert "forbidden" in result.note


def test_a_run_over_its_time_is_stopped_and_counted_as_a_timeout(fake_llm, tmp_path):
    task = load_task(copy_task("config-value", tmp_path))
    fake_llm.push(hold(text("8443")))  # never released: the model "thinks" forever
    [result] = run([task], fake_llm, options=RunOptions(timeout_s=3))
    assert result.status == "timeout" and not result.passed
    assert result.exit_code is None and "stopped after 3 s" in result.note
    assert result.time_s < 30


def test_keep_leaves_the_run_folder_with_events_and_answer(fake_llm, tmp_path):
    task = load_task(copy_task("config-value", tmp_path))
    fake_llm.push(text("8443"))
    [result] = run([task], fake_llm, options=RunOptions(keep=True))
    kept = Path(result.workspace)
    try:
        assert result.passed
        assert (kept / "answer.txt").read_text() == "8443"
        events = [json.loads(line) for line in (kept / "events.jsonl").read_text().splitlines()]
        assert events[-1]["type"] == "turn_ended"
        assert (kept / "repo" / ".git").is_dir()
    finally:
        shutil.rmtree(kept.parent)


def test_the_endpoint_settings_reach_the_agent_through_its_config_and_the_key_not_argv(
        fake_llm, tmp_path):
    """The local model's eval runs see it configured as the app configures it (greedy
    decoding, its window, the text tool-call reader), and its key stays off ``ps``."""
    task = load_task(copy_task("config-value", tmp_path))
    fake_llm.push(text("8443"))
    endpoint = Endpoint(fake_llm.model, fake_llm.base_url, "sk-secret-key",
                        (("temperature", 0.0), ("context_window", 8192), ("local_model", True)))
    assert "sk-secret-key" not in agent_argv(task, endpoint, tmp_path, RunOptions())
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    env = agent_env(run_dir, endpoint)
    config_file = Path(env["VIBE_TUI_HOME"]) / "config" / "config.toml"
    assert config_file.stat().st_mode & 0o077 == 0
    config = load_config(config_file)
    assert (config.api_key, config.temperature, config.context_window, config.local_model) \
        == ("sk-secret-key", 0.0, 8192, True)

    [result] = asyncio.run(run_suite([task], fixed_endpoint(endpoint)))
    assert result.passed, result.note
    assert fake_llm.requests[-1]["temperature"] == 0.0


# ---------------------------------------------------------------- no agent needed


def test_a_task_whose_program_is_missing_is_skipped_and_not_counted(tmp_path):
    task = load_task(copy_task("config-value", tmp_path, requires=["no-such-program-zz9"]))
    results = asyncio.run(run_suite([task], fixed_endpoint(Endpoint("unused"))))
    assert [r.status for r in results] == ["skipped"]
    assert "no-such-program-zz9 not found" in results[0].note
    report = build_report([task], results, model="m", runs=1, jobs=1, started=0)
    assert report["summary"]["total"] == 0 and report["summary"]["skipped"] == ["config-value"]


def test_events_are_summarised_main_answer_sub_agent_steps_and_denied_commands():
    lines = [json.dumps(event) for event in [
        {"type": "usage", "prompt_tokens": 100, "completion_tokens": 10, "cost": None},
        {"type": "tool_call", "call_id": "c1", "tool": "bash", "args": {"command": "ls"}},
        {"type": "tool_result", "call_id": "c1", "status": "ok"},
        {"type": "tool_call", "call_id": "c2", "tool": "bash", "args": {"command": "rm -rf x"}},
        {"type": "tool_result", "call_id": "c2", "status": "denied"},
        {"type": "assistant_message", "text": "from the helper", "parent_call_id": "t1"},
        {"type": "usage", "prompt_tokens": 50, "completion_tokens": 5, "cost": 0.25,
         "parent_call_id": "t1"},
        {"type": "assistant_message", "text": "final answer"},
        {"type": "assistant_message", "text": "  "},
        {"type": "turn_ended", "state": "completed"},
    ]] + ['{"type": "usage", "prompt_tok']  # a line cut short by a timeout
    summary = summarize_events(lines)
    assert summary.steps == 2
    assert (summary.prompt_tokens, summary.completion_tokens, summary.cost) == (150, 15, 0.25)
    assert summary.answer == "final answer"
    assert summary.commands_run == ["ls"]
    assert summary.turn_state == "completed"


def test_a_broken_task_file_is_reported_with_its_path(tmp_path, capsys):
    folder = tmp_path / "broken"
    (folder / "repo").mkdir(parents=True)
    (folder / "task.toml").write_text('prompt = "x"\ncheck = \n')
    with pytest.raises(TaskError, match="broken/task.toml"):
        load_task(folder)
    assert cli.main(["--scripted", "--tasks-dir", str(tmp_path)]) == 2
    assert "broken/task.toml" in capsys.readouterr().err
    (folder / "task.toml").write_text('prompt = "x"\ncheck = "true"\nforbid = ["("]\n')
    with pytest.raises(TaskError, match="forbid pattern"):
        load_task(folder)


def test_bad_arguments_get_a_clear_message(tmp_path, capsys):
    assert cli.main(["--runs", "0"]) == 2
    assert "--runs and --jobs must be 1 or more" in capsys.readouterr().err
    assert cli.main(["--scripted", "--model", "x"]) == 2
    assert cli.main(["--scripted", "--tasks", "no-such-task*"]) == 2
    assert "no task in" in capsys.readouterr().err
