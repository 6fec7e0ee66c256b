"""A change the task asks for in a file it names is made first, by the harness: the file (or
the definition the sentence names) asked for whole. Real files, the fake OpenAI server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine_helpers import make_session, of_type, run_turn

from vibe_tui.core import events as ev
from vibe_tui.core.loop import RESAMPLE_TEMPERATURE
from vibe_tui.core.step_protocol import ANSWER_FORMAT, STEP_FORMAT
from vibe_tui.core.step_targets import change_targets
from vibe_tui.testing.script import text


def step(**fields) -> object:
    return text(json.dumps(fields))


def whole(content: str, language: str = "python") -> object:
    return text(f"```{language}\n{content.rstrip()}\n```\n")


def user_text(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


def files(root: Path, *paths: str) -> Path:
    for rel in paths:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x = 1\n")
    return root


def targets(root: Path, task: str) -> list[str]:
    return [target.path for target in change_targets(root, task)]


def test_the_files_a_task_asks_to_change_are_its_targets(tmp_path: Path) -> None:
    root = files(tmp_path, "lib/strings.py", "tests/test_strings.py", "scripts/backup.sh",
                 "tests/test_backup.sh", "data/catalog.json", "config/app.json")
    assert targets(root, "Add a function shout(text) to lib/strings.py: it upper-cases. Add a "
                         "test for it to tests/test_strings.py and run `python -m pytest`.") == [
        "lib/strings.py", "tests/test_strings.py"]
    # A file in backticks is a command's; "(not the test)" spares the tests.
    assert targets(root, "scripts/backup.sh loses files. Run `bash tests/test_backup.sh` to "
                         "see it, then fix scripts/backup.sh (not the test).") == [
        "scripts/backup.sh"]
    # "the file" is the one file the task names.
    assert targets(root, "`python load.py` crashes because data/catalog.json is not valid "
                         "JSON. Fix the file so the script runs.") == ["data/catalog.json"]
    assert targets(root, "In config/app.json: turn on beta and set the timeout to 30.") == [
        "config/app.json"]


def test_files_named_without_a_change_are_not_targets(tmp_path: Path) -> None:
    root = files(tmp_path, "app.py", "settings.json", "tests/test_app.py")
    assert targets(root, "Which port does app.py use? Do not change any file.") == []
    assert targets(root, "Do not change app.py.") == []
    assert targets(root, "Set the port, but not in app.py.") == []
    assert targets(root, "tests/test_app.py fails. Fix it in the code, not in the tests.") == []
    assert targets(root, "Create new.json from the defaults in app.py.") == []  # a source
    assert targets(root, "Create missing.json with the defaults.") == []  # no such file
    # A path that leaves the workspace is no target, nor a file too big to read whole.
    assert targets(root / "tests", "Fix ../app.py.") == []
    (root / "big.py").write_text("x = 1\n" * 60_000)
    assert targets(root, "Fix big.py.") == []


def test_a_named_file_is_written_first_then_checked_then_the_steps_go_on(
        fake_llm, tmp_path: Path) -> None:
    """The 1.5B model, shown the file the task named, read it again at each step."""
    (tmp_path / "strings.py").write_text("def slugify(text):\n    return text.lower()\n")
    (tmp_path / "test_strings.py").write_text("from strings import slugify\n")
    fake_llm.push(
        whole("def slugify(text):\n    return text.lower()\n\n\ndef shout(text):\n"
              "    return text.upper()\n"),
        whole("from strings import shout, slugify\n\n\ndef test_shout():\n"
              "    assert shout('a') == 'A'\n"),
        step(action="answer", text="Added shout and its test."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits",
                           allow=["Bash(python3 -c:*)"], sandbox="off")

    end = asyncio.run(run_turn(session, "Add a function shout(text) to strings.py: it "
                                        "upper-cases. Add a test for it to test_strings.py and "
                                        "run `python3 -c 'import strings; strings.shout'`."))

    assert end.state == "completed", end.message
    assert "def shout(text):" in (tmp_path / "strings.py").read_text()
    assert "def test_shout" in (tmp_path / "test_strings.py").read_text()
    calls = [c.tool for c in of_type(session, ev.ToolCall)]
    assert calls == ["bash", "write_file", "bash", "write_file", "bash"]
    exits = [r.exit_code for r in of_type(session, ev.ToolResult) if r.tool == "bash"]
    assert exits == [1, 0, 0]
    first, second, last = fake_llm.requests
    # Each file is asked for with the sentence that asks for its change.
    assert "1. Add a function shout(text) to strings.py: it upper-cases." in user_text(first)
    assert "Your step: edit strings.py." in user_text(first)
    assert "1. Add a test for it to test_strings.py and run" in user_text(second)
    assert "Done first, as the task asks: edit strings.py" in user_text(last)
    assert last["response_format"] == STEP_FORMAT


def test_a_rewrite_that_comes_back_unchanged_is_sampled_once_more(
        fake_llm, tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def double(x):\n    return x + x + 1\n")
    fake_llm.push(whole("def double(x):\n    return x + x + 1\n"),
                  whole("def double(x):\n    return x + x + 1\n"),
                  step(action="answer", text="I could not change it."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits",
                           temperature=0.0)

    asyncio.run(run_turn(session, "double is wrong: fix calc.py."))

    greedy, sampled, answer = fake_llm.requests
    assert greedy["temperature"] == 0.0
    assert sampled["temperature"] == RESAMPLE_TEMPERATURE
    assert ("Done first, as the task asks: edit calc.py: failed\nWriting calc.py whole failed: "
            "the file came back unchanged.") in user_text(answer)
    assert (tmp_path / "calc.py").read_text() == "def double(x):\n    return x + x + 1\n"


def test_past_the_steps_time_an_unchanged_rewrite_is_not_sampled_again(
        fake_llm, tmp_path: Path, monkeypatch) -> None:
    from vibe_tui.core import step_mode

    monkeypatch.setattr(step_mode, "STEP_TIME_S", 0.0)
    (tmp_path / "calc.py").write_text("def double(x):\n    return x + x + 1\n")
    fake_llm.push(whole("def double(x):\n    return x + x + 1\n"),
                  step(action="answer", text="I could not change it."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits")

    asyncio.run(run_turn(session, "double is wrong: fix calc.py."))

    rewrite, answer = fake_llm.requests
    assert answer["response_format"] == ANSWER_FORMAT


def test_in_a_long_file_the_definition_the_sentence_names_is_written_first(
        fake_llm, tmp_path: Path) -> None:
    filler = "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(60))
    (tmp_path / "billing.py").write_text(
        filler + "def late_fee(days):\n    return min(days * 2, 10)\n\n\n" + filler.replace(
            "def f", "def g"))
    fake_llm.push(whole("def late_fee(days):\n    return days * 2\n"),
                  step(action="answer", text="late_fee is no longer capped."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits")

    asyncio.run(run_turn(session, "The fee is capped. The bug is in late_fee in billing.py, a "
                                  "long file: fix it without rewriting the file."))

    content = (tmp_path / "billing.py").read_text()
    assert "def late_fee(days):\n    return days * 2\n" in content
    assert "def f59():" in content and "def g0():" in content
    [edit] = [c for c in of_type(session, ev.ToolCall) if c.tool == "edit_file"]
    assert edit.args["old_string"] == "def late_fee(days):\n    return min(days * 2, 10)\n"
    assert "Lines 241-242 of billing.py now:" in user_text(fake_llm.requests[0])


def test_a_failing_test_s_code_under_test_is_written_first(fake_llm, tmp_path: Path) -> None:
    """Left to find the bug, the 1.5B model edited the function beside it."""
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n\n\n"
                                      "def half(a):\n    return a / 2\n")
    (tmp_path / "test_calc.py").write_text(
        "from calc import add, half\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_half():\n    assert half(4) == 2\n")
    fake_llm.push(whole("def add(a, b):\n    return a + b\n"),
                  step(action="answer", text="add adds now."))
    command = "python3 -m pytest -q -p no:cacheprovider test_calc.py"
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits",
                           allow=["Bash(python3 -m pytest:*)"], sandbox="off")

    end = asyncio.run(run_turn(session, f"The tests fail: run `{command}` and fix the bug. "
                                        "Do not change the tests."))

    assert end.state == "completed", end.message
    assert (tmp_path / "calc.py").read_text().startswith("def add(a, b):\n    return a + b\n")
    [edit] = [c for c in of_type(session, ev.ToolCall) if c.tool == "edit_file"]
    assert edit.args["old_string"] == "def add(a, b):\n    return a - b\n"
    rewrite, answer = fake_llm.requests
    assert "Lines 1-2 of calc.py now:" in user_text(rewrite)
    # The failed assertion and what it got, beside the code.
    assert "What fails now:\n```\n>       assert add(1, 2) == 3\nE       assert -1 == 3\n" in (
        user_text(rewrite))
    assert f"1. Fix the bug that makes `{command}` fail (its output is above)" in user_text(
        rewrite)
    assert "Ran `python3 -m pytest -q -p no:cacheprovider test_calc.py` (after the change): " \
           "passed" in user_text(answer)


def test_a_stack_frame_in_the_code_points_to_its_definition(tmp_path: Path) -> None:
    import subprocess

    from vibe_tui.core.step_targets import failed_assertions, failure_targets

    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "src" / "lines.js").write_text(
        "function lineTotal(line) {\n  return line.qty * line.price;\n}\n\n"
        "function total(lines) {\n  return lines.reduce((sum, l) => sum + lineTotal(l));\n}\n\n"
        "module.exports = { total };\n")
    (tmp_path / "test" / "lines.test.js").write_text(
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { total } = require('../src/lines.js');\n\n"
        "test('empty', () => {\n  assert.strictEqual(total([]), 0);\n});\n")
    run = subprocess.run(["node", "--test"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode != 0

    [target] = failure_targets(tmp_path, run.stdout + run.stderr, "node --test")

    assert (target.path, target.line, target.whole_file) == ("src/lines.js", 6, False)
    assert failed_assertions(run.stdout) == (
        "not ok 1 - empty\nerror: 'Reduce of empty array with no initial value'")


def test_a_named_file_is_asked_for_again_while_its_command_fails(
        fake_llm, tmp_path: Path) -> None:
    """data with three errors: the 1.5B model fixed the one the parser named."""
    (tmp_path / "data").mkdir()
    broken = '{\n  "a": [1, 2,],\n  "b": 3,\n}\n'
    (tmp_path / "data" / "c.json").write_text(broken)
    (tmp_path / "load.py").write_text("import json\njson.load(open('data/c.json'))\n")
    fake_llm.push(whole('{\n  "a": [1, 2],\n  "b": 3,\n}\n', "json"),
                  whole('{\n  "a": [1, 2],\n  "b": 3\n}\n', "json"),
                  step(action="answer", text="Fixed both commas."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits",
                           allow=["Bash(python3 load.py)"], sandbox="off")

    end = asyncio.run(run_turn(session, "`python3 load.py` crashes because data/c.json is "
                                        "not valid JSON. Fix the file so the script runs."))

    assert end.state == "completed", end.message
    assert (tmp_path / "data" / "c.json").read_text() == '{\n  "a": [1, 2],\n  "b": 3\n}\n'
    exits = [r.exit_code for r in of_type(session, ev.ToolResult) if r.tool == "bash"]
    assert exits == [1, 1, 0]
    first, second, answer = fake_llm.requests
    # Where the parser stopped, beside the file each time.
    assert ('What fails now:\n```\n--- data/c.json line 2, column 14, where the error is\n'
            '  "a": [1, 2,],\n             ^\n```') in user_text(first)
    assert "--- data/c.json line 4, column 1, where the error is" in user_text(second)
    assert "1. Fix the file so the script runs." in user_text(second)
    assert "It passes now." in user_text(answer)


def test_a_named_file_is_asked_for_twice_at_most_and_resampled_only_the_first_time(
        fake_llm, tmp_path: Path) -> None:
    """Three rounds of the test file took add-feature-with-test past five minutes."""
    (tmp_path / "c.json").write_text('{"a": 1,}\n')
    (tmp_path / "load.py").write_text("import json\njson.load(open('c.json'))\n")
    fake_llm.push(whole('{"a": 2,}\n', "json"), whole('{"a": 2,}\n', "json"),
                  step(action="answer", text="I could not fix it."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits",
                           allow=["Bash(python3 load.py)"], sandbox="off")

    end = asyncio.run(run_turn(session, "`python3 load.py` fails: fix c.json."))

    assert end.state == "completed", end.message
    first, second, answer = fake_llm.requests
    assert (tmp_path / "c.json").read_text() == '{"a": 2,}\n'
    assert "Writing c.json whole failed: the file came back unchanged." in user_text(answer)
    assert of_type(session, ev.AssistantMessage)[-1].text == "I could not fix it."
