"""Small-model steps through the session: a real fake-model server, real files and
processes; the model's replies are the JSON steps llama.cpp's grammar would hold it to."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from engine_helpers import make_session, of_type, run_turn

from vibe_tui.core import events as ev
from vibe_tui.core.prompts import STEP_PROMPT
from vibe_tui.core.step_answers import still_failing
from vibe_tui.core.step_protocol import ANSWER_FORMAT, LOOK_FORMAT
from vibe_tui.testing.script import text


def step(**fields) -> object:
    return text(json.dumps(fields))


def user_text(request: dict) -> str:
    return [m for m in request["messages"] if m["role"] == "user"][-1]["content"]


def whole(content: str, language: str = "python") -> object:
    """The reply that writes a short file whole, as the harness asks for it."""
    return text(f"```{language}\n{content.rstrip()}\n```\n")


def test_a_question_is_answered_from_the_gathered_files(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("PORT = 8080\n")
    (tmp_path / "README.md").write_text("# Demo\n")
    fake_llm.push(step(action="answer", text="README.md and app.py"))
    session = make_session(fake_llm, tmp_path, small_model=True)

    end = asyncio.run(run_turn(session, "Which port does app.py use?"))

    assert end.state == "completed"
    assert of_type(session, ev.AssistantMessage)[-1].text == "README.md and app.py"
    [request] = fake_llm.requests
    assert "tools" not in request
    assert request["response_format"] == LOOK_FORMAT  # a question is offered no edit
    assert request["messages"][0]["content"].startswith("You are vibe-tui")
    assert "All the files of the repository (2): README.md, app.py" in user_text(request)
    assert "PORT = 8080" in user_text(request)  # the named file, whole
    # The answer streamed as words, not as the JSON around them.
    streamed = "".join(e.text for e in of_type(session, ev.TextDelta))
    assert streamed == "README.md and app.py"


@pytest.mark.parametrize("task, format", [
    ("What files are in this repository? List them.", ANSWER_FORMAT),
    ("what files are here?", ANSWER_FORMAT),
    # Asked what the files hold, the model may read them first.
    ("What files are here, and what does each do?", LOOK_FORMAT),
    ("Which files mention the port?", LOOK_FORMAT),
    # A question about a file shown whole above: the 1.5B model read it again, then ran it.
    ("Which port does app.py listen on?", ANSWER_FORMAT),
    ("Why does app.py crash?", LOOK_FORMAT),  # a run may show why
    ("Which file imports app.py?", LOOK_FORMAT),  # the answer is in another file
])
def test_a_question_the_gathered_files_answer_is_asked_for_its_answer_at_once(
        fake_llm, tmp_path: Path, task, format) -> None:
    """Asked which files there are, the 1.5B model read app.py and named that file alone:
    the file list holds the answer."""
    (tmp_path / "app.py").write_text("PORT = 8080\n")
    (tmp_path / "README.md").write_text("# Demo\n")
    fake_llm.push(step(action="answer", text="README.md and app.py."))
    session = make_session(fake_llm, tmp_path, small_model=True)

    end = asyncio.run(run_turn(session, task))

    assert end.state == "completed"
    [request] = fake_llm.requests
    assert request["response_format"] == format
    assert "All the files of the repository (2): README.md, app.py" in user_text(request)


def test_capable_models_keep_the_free_tool_loop(fake_llm, tmp_path: Path) -> None:
    fake_llm.push(text("hello"))
    session = make_session(fake_llm, tmp_path)

    asyncio.run(run_turn(session, "hi"))

    [request] = fake_llm.requests
    assert "response_format" not in request
    assert request["tools"]


def test_a_short_file_is_written_whole_applied_and_checked_then_answered(
        fake_llm, tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def double(x):\n    return x + x + 1\n")
    (tmp_path / "check.py").write_text(
        "import calc, sys\nsys.exit(0 if calc.double(2) == 4 else 1)\n")
    fake_llm.push(
        step(action="edit", path="calc.py", search="return x + x + 1", replace="return x + x"),
        whole("def double(x):\n    return x + x"),
        step(action="answer", text="Fixed double in calc.py; check.py passes."),
    )
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits",
                           allow=["Bash(python3 check.py)"], sandbox="off")

    end = asyncio.run(run_turn(session, "double in calc.py is wrong. Run `python3 check.py` and fix it."))

    assert end.state == "completed", end.message
    assert (tmp_path / "calc.py").read_text() == "def double(x):\n    return x + x\n"
    assert "small-model steps: changed: calc.py" in [n.text for n in of_type(session, ev.Notice)]
    calls = [(c.tool, c.args.get("command")) for c in of_type(session, ev.ToolCall)]
    assert calls == [("bash", "python3 check.py"), ("write_file", None),
                     ("bash", "python3 check.py")]
    results = of_type(session, ev.ToolResult)
    assert [r.exit_code for r in results if r.tool == "bash"] == [1, 0]
    first, rewrite, last = fake_llm.requests
    assert "Ran `python3 check.py` (the command the task names): failed" in user_text(first)
    assert "--- calc.py" in user_text(first)  # the code the failure points to, or named
    # The file is asked for whole, in words: no step schema, a cap from its size.
    assert "response_format" not in rewrite
    assert rewrite["max_tokens"] == len("def double(x):\n    return x + x + 1\n") // 3 + 256
    assert user_text(rewrite).startswith(user_text(first).rsplit("\n\n", 1)[0])  # cached prefix
    assert "The file calc.py now:\n```python\ndef double(x):\n    return x + x + 1\n```" in (
        user_text(rewrite))
    # The reply is begun with the fence, so the model writes the file, not a JSON step.
    assert rewrite["messages"][-1] == {"role": "assistant", "content": "```python\n"}
    assert "Ran `python3 check.py` (after the change): passed" in user_text(last)
    # The file's text is not streamed to the views as an answer.
    assert "".join(e.text for e in of_type(session, ev.TextDelta)) == (
        "Fixed double in calc.py; check.py passes.")
    # Every step is also an ordinary call in the history: a resumed or switched model
    # reads a valid conversation.
    roles = [m["role"] for m in session.messages]
    assert roles.count("tool") == 3


def test_a_step_that_does_not_apply_goes_back_to_the_model(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("X = 1\n")
    fake_llm.push(
        step(action="edit", path="a.py", search="Y = 2", replace="Y = 3"),
        whole("X = 1\n"),
        whole("X = 1\n"),  # sampled again: unchanged too
        text("{not json"),
        step(action="answer", text="I could not find Y."),
    )
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits")

    end = asyncio.run(run_turn(session, "change Y"))

    assert end.state == "completed"
    assert (tmp_path / "a.py").read_text() == "X = 1\n"
    [edit] = [r for r in of_type(session, ev.ToolResult) if r.tool == "edit_file"]
    assert edit.status == "error"
    assert fake_llm.requests[1].get("temperature") != fake_llm.requests[2]["temperature"]
    second, third = fake_llm.requests[3:]
    assert "Writing a.py whole failed: the file came back unchanged." in user_text(second)
    assert "search is not in the file" in user_text(second)
    notes = [n.text for n in of_type(session, ev.Notice)]
    assert "small-model steps: no file was changed (1 of 1 changes did not apply)" in notes
    assert "Your reply was not a step: not valid JSON" in user_text(third)


def test_the_last_step_must_be_an_answer(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("X = 1\n")
    fake_llm.push(
        step(action="read", path="a.py"),
        step(action="read", path="a.py", line=1),
        step(action="answer", text="X is 1."),
    )
    session = make_session(fake_llm, tmp_path, small_model=True, max_steps=3)

    end = asyncio.run(run_turn(session, "what is X?"))

    assert end.state == "completed"
    formats = [r["response_format"] for r in fake_llm.requests]
    assert formats == [LOOK_FORMAT, LOOK_FORMAT, ANSWER_FORMAT]
    # A question's answer is asked for from what was found, not how it "was checked".
    assert "Now answer the user in words with the answer step, from the files and results " \
        "above." in user_text(fake_llm.requests[-1])
    # An answer asked for is capped shorter than a step: past that the model repeats itself.
    assert [r["max_tokens"] for r in fake_llm.requests] == [1024, 1024, 512]


def test_after_the_steps_time_the_answer_is_asked_for(fake_llm, tmp_path: Path,
                                                      monkeypatch) -> None:
    from vibe_tui.core import step_mode

    (tmp_path / "a.py").write_text("X = 1\n")
    fake_llm.push(step(action="answer", text="X is 1."))
    session = make_session(fake_llm, tmp_path, small_model=True)
    monkeypatch.setattr(step_mode, "STEP_TIME_S", 0.0)

    end = asyncio.run(run_turn(session, "what is X?"))

    assert end.state == "completed"
    [request] = fake_llm.requests
    assert request["response_format"] == ANSWER_FORMAT
    assert "small-model steps: 0 s of steps; asked for the answer (send a message to go on)" in [
        n.text for n in of_type(session, ev.Notice)]


def test_a_repeated_step_is_not_run_again(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("X = 1\n")
    fake_llm.push(
        step(action="read", path="a.py"),
        step(action="read", path="a.py"),
        step(action="answer", text="X is 1."),
    )
    session = make_session(fake_llm, tmp_path, small_model=True)

    asyncio.run(run_turn(session, "what is X?"))

    assert [c.tool for c in of_type(session, ev.ToolCall)] == ["read_file"]
    assert "Step 2 repeats step 1" in user_text(fake_llm.requests[-1])


def test_a_denied_command_is_reported_to_the_model(fake_llm, tmp_path: Path) -> None:
    fake_llm.push(
        step(action="run", command="rm -rf build"),
        step(action="answer", text="I was not allowed to delete build."),
    )
    session = make_session(fake_llm, tmp_path, small_model=True, deny=["Bash(rm:*)"])

    end = asyncio.run(run_turn(session, "clean up"))

    assert end.state == "completed"
    [result] = of_type(session, ev.ToolResult)
    assert result.status == "denied"
    assert "Step 1: ran `rm -rf build`" in user_text(fake_llm.requests[-1])


def test_a_second_turn_sees_the_first_in_brief(fake_llm, tmp_path: Path) -> None:
    fake_llm.push(step(action="answer", text="It is 8080."),
                  step(action="answer", text="In app.py."))
    session = make_session(fake_llm, tmp_path, small_model=True)

    async def two_turns() -> None:
        await run_turn(session, "which port?")
        await run_turn(session, "where is it set?")

    asyncio.run(two_turns())

    second = user_text(fake_llm.requests[-1])
    assert "Earlier in this conversation:\nUser: which port?\nYou: It is 8080." in second
    assert second.startswith("Task: where is it set?")


def test_a_file_shown_whole_can_be_rewritten_without_a_read(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "app.json").write_text('{"debug": false}\n')
    fake_llm.push(
        step(action="write", path="app.json", content='{"debug": true}\n'),
        step(action="answer", text="debug is on."),
    )
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits")

    end = asyncio.run(run_turn(session, "app.json has debug off. Turn it on."))

    assert end.state == "completed"
    assert [c.tool for c in of_type(session, ev.ToolCall)] == ["write_file"]
    assert (tmp_path / "app.json").read_text() == '{"debug": true}\n'


def test_a_repeated_step_is_sampled_again(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("X = 1\n")
    fake_llm.push(step(action="read", path="a.py"), step(action="read", path="a.py"),
                  step(action="answer", text="X is 1."))
    session = make_session(fake_llm, tmp_path, small_model=True, temperature=0.0)

    asyncio.run(run_turn(session, "what is X?"))

    assert [r["temperature"] for r in fake_llm.requests] == [0.0, 0.0, 0.7]


def test_a_question_that_must_change_nothing_is_offered_no_edit_step(fake_llm, tmp_path: Path) -> None:
    fake_llm.push(step(action="answer", text="8443"))
    session = make_session(fake_llm, tmp_path, small_model=True)

    asyncio.run(run_turn(session, "Which port? Do not change any file."))

    schema = fake_llm.requests[0]["response_format"]["json_schema"]["schema"]
    actions = [s["properties"]["action"]["const"] for s in schema["anyOf"]]
    assert actions == ["answer", "read", "run"]


def test_the_local_model_reports_how_far_it_has_read(fake_llm, tmp_path: Path) -> None:
    fake_llm.push(step(action="answer", text="hi"))
    session = make_session(fake_llm, tmp_path, local_model=True)

    asyncio.run(run_turn(session, "hello"))

    [request] = fake_llm.requests
    assert request["return_progress"] is True
    # llama.cpp's progress chunks (the fake server sends three: at the start, halfway, at
    # the end) reach the views, thinned to a few a second, the end always. LiteLLM's
    # wrapper passed on only the first: the later ones carry no text.
    progress = [(p.done, p.total) for p in of_type(session, ev.PromptProgress)]
    total = progress[0][1]
    assert total > 100 and progress[0] == (0, total) and progress[-1] == (total, total)


def test_other_models_are_not_asked_for_progress(fake_llm, tmp_path: Path) -> None:
    fake_llm.push(step(action="answer", text="hi"))
    session = make_session(fake_llm, tmp_path, small_model=True)

    asyncio.run(run_turn(session, "hello"))

    assert "return_progress" not in fake_llm.requests[0]
    assert not of_type(session, ev.PromptProgress)


def test_reading_a_short_file_from_another_line_is_a_repeat(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("X = 1\nY = 2\n")
    fake_llm.push(step(action="read", path="a.py"), step(action="read", path="a.py", line=7),
                  step(action="answer", text="X is 1."))
    session = make_session(fake_llm, tmp_path, small_model=True)

    asyncio.run(run_turn(session, "what is X?"))

    assert [c.tool for c in of_type(session, ev.ToolCall)] == ["read_file"]
    assert "Step 2 repeats step 1" in user_text(fake_llm.requests[-1])


def test_an_answer_cut_at_the_step_limit_is_kept(fake_llm, tmp_path: Path) -> None:
    # A small model held to the schema can run on inside the answer's string.
    fake_llm.push(text('{"action": "answer", "text": "a.py, b.py, a.py, b.py, a.py',
                       finish_reason="length"))
    session = make_session(fake_llm, tmp_path, small_model=True)

    end = asyncio.run(run_turn(session, "which files set the port?"))

    assert end.state == "completed"
    [request] = fake_llm.requests
    assert request["max_tokens"] == 1024
    assert of_type(session, ev.AssistantMessage)[-1].text == "a.py, b.py, a.py, b.py, a.py"
    assert any("reached the 1024-token limit" in n.text for n in of_type(session, ev.Notice))


def test_an_answer_the_schema_cut_at_a_quote_is_finished_without_it(fake_llm,
                                                                    tmp_path: Path) -> None:
    # Held to the schema, the first quote the model writes ends the answer's string.
    fake_llm.push(step(action="answer", text="It reads `os.environ.get("),
                  text('RELAY_URL\\")` in relay/intake.py and `getenv("N")` in retry.py."}'))
    session = make_session(fake_llm, tmp_path, small_model=True)

    end = asyncio.run(run_turn(session, "Which environment variables are read?"))

    assert end.state == "completed"
    whole_answer = ('It reads `os.environ.get("RELAY_URL")` in relay/intake.py and '
                    '`getenv("N")` in retry.py.')
    assert of_type(session, ev.AssistantMessage)[-1].text == whole_answer
    assert "".join(d.text for d in of_type(session, ev.TextDelta)).startswith(
        'It reads `os.environ.get("RELAY_URL")` in relay/intake.py')
    first, second = fake_llm.requests
    assert "response_format" not in second
    assert second["messages"][:-1] == first["messages"]
    assert second["messages"][-1] == {
        "role": "assistant",
        "content": '{"action": "answer", "text": "It reads `os.environ.get(\\"'}


def test_an_answer_that_ends_where_it_should_is_not_continued(fake_llm, tmp_path: Path) -> None:
    fake_llm.push(step(action="answer", text="It reads `RELAY_URL` (in relay/intake.py)."))
    session = make_session(fake_llm, tmp_path, small_model=True)

    asyncio.run(run_turn(session, "Which environment variables are read?"))

    assert len(fake_llm.requests) == 1


def test_a_question_about_named_code_sees_its_lines_again_after_each_step(
        fake_llm, tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("import os\nURL = os.environ['APP_URL']\n")
    (tmp_path / "notes.md").write_text("# Notes\n")
    fake_llm.push(step(action="read", path="notes.md"),
                  step(action="answer", text="APP_URL, in app.py."))
    session = make_session(fake_llm, tmp_path, small_model=True)

    asyncio.run(run_turn(session, "Which variable does os.environ give the app? Do not "
                                  "change any file."))

    second = user_text(fake_llm.requests[1])
    assert second.endswith("Every line of the repository that names environ:\n"
                           "app.py:2: URL = os.environ['APP_URL']\n\n"
                           "Reply with the next step as one JSON object.")
    assert second.index("Steps so far:") < second.rindex("Every line of the repository")


def test_a_file_is_not_paged_through_and_old_results_give_way_to_the_window(
        fake_llm, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "answers.csv").write_text(
        "".join(f"R{n:04},{n % 80},strongly agree,more parking please\n" for n in range(1000)))
    fake_llm.push(step(action="read", path="data/answers.csv"),
                  step(action="read", path="data/answers.csv", line=151),
                  step(action="read", path="data/answers.csv", line=301),
                  step(action="answer", text="I did not free any space."))
    # A window the two reads overfill: 4,000 tokens, 1,024 kept for the reply.
    session = make_session(fake_llm, tmp_path, small_model=True, context_window=4000)

    end = asyncio.run(run_turn(session, "Free up disk space in this project."))

    assert end.state == "completed"
    assert [c.args.get("offset") for c in of_type(session, ev.ToolCall)] == [1, 151]
    last = user_text(fake_llm.requests[-1])
    assert "Step 3 would read data/answers.csv a third time" in last
    assert ("Step 1: read data/answers.csv\n[its output was cleared to make room]") in last
    assert "R0151," in last  # the latest read is whole
    assert len(STEP_PROMPT) + len(last) <= (4000 - 1024) * 2


def test_a_task_that_asks_for_a_change_is_not_done_by_a_passing_check(
        fake_llm, tmp_path: Path) -> None:
    (tmp_path / "strings.py").write_text("def slugify(text):\n    return text.lower()\n")
    fake_llm.push(step(action="answer", text="The tests pass, so all is well."),
                  step(action="answer", text="I could not write the function."))
    session = make_session(fake_llm, tmp_path, small_model=True, allow=["Bash(python -c:*)"],
                           sandbox="off")

    end = asyncio.run(run_turn(session, "strings.py needs a function shout(text). Add it, "
                                        "then run `python -c pass` to check."))

    assert end.state == "completed"
    first, second = fake_llm.requests
    assert "It passes before any change: what the task asks is still to be done." in user_text(first)
    assert "It passes now" not in user_text(first)
    assert ("The task asks for a change, but no file was changed: an answer changes nothing."
            in user_text(second))
    assert session.messages[-1]["content"] == "I could not write the function."


def test_a_parse_error_is_shown_where_it_is_and_the_check_is_not_run_by_the_model(
        fake_llm, tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "c.json").write_text('{\n  "a": [1, 2],\n  "b": 3,\n}\n')
    (tmp_path / "load.py").write_text("import json\njson.load(open('data/c.json'))\n")
    fake_llm.push(step(action="run", command="python load.py"),
                  step(action="answer", text="I could not fix it."))
    session = make_session(fake_llm, tmp_path, small_model=True, allow=["Bash(python load.py)"],
                           sandbox="off")

    asyncio.run(run_turn(session, "`python load.py` crashes because data/c.json is not "
                                  "valid JSON. Fix it."))

    first, second = fake_llm.requests
    assert ("--- data/c.json line 4, column 1, where the error is\n}\n^" in user_text(first))
    assert [c.tool for c in of_type(session, ev.ToolCall)] == ["bash"]
    assert "Step 1 repeats a step taken for you" in user_text(second)


def test_an_answer_given_while_the_tasks_command_still_fails_is_sent_back_once(
        fake_llm, tmp_path: Path) -> None:
    """The 1.5B model's fix left the test failing, and it answered "The test now passes"."""
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (tmp_path / "check.py").write_text("from calc import add\nassert add(2, 3) == 5\n")
    wrong = whole("def add(a, b):\n    return a * b\n")
    fake_llm.push(wrong, wrong,  # asked for calc.py whole, and again while the check fails
                  step(action="answer", text="The check passes now."),
                  step(action="answer", text="The check passes now, really."),
                  step(action="answer", text="Never asked for."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="yolo", sandbox="off")

    end = asyncio.run(run_turn(session, "`python check.py` fails: fix add in calc.py."))

    assert end.state == "completed"
    assert "return a * b" in (tmp_path / "calc.py").read_text()
    assert len(fake_llm.requests) == 4  # sent back once, then taken as it is
    assert ("`python check.py` still fails after your change: its last run is above"
            in user_text(fake_llm.requests[3]))
    assert of_type(session, ev.AssistantMessage)[-1].text == "The check passes now, really."


@pytest.mark.parametrize("answer", [
    "I changed add, but the check still fails.",
    "The test does not pass yet.",
    "I could not make it pass.",
])
def test_an_answer_that_says_the_command_still_fails_is_taken(answer) -> None:
    assert still_failing(answer, "python check.py") is None


def test_an_answer_that_claims_an_unmade_change_is_sent_back_once(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fake_llm.push(step(action="answer", text="I fixed add in calc.py."),
                  step(action="edit", path="calc.py", search="    return a - b",
                       replace="    return a + b"),
                  whole("def add(a, b):\n    return a + b\n"),
                  step(action="answer", text="I fixed add in calc.py."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="yolo")

    end = asyncio.run(run_turn(session, "The function in calc.py subtracts. Make it add."))

    assert end.state == "completed"
    assert "return a + b" in (tmp_path / "calc.py").read_text()
    assert "no file was changed" in user_text(fake_llm.requests[1])
    assert [m.text for m in of_type(session, ev.AssistantMessage) if m.text] == [
        "I fixed add in calc.py."]


def test_a_claimed_change_is_sent_back_only_once(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fake_llm.push(step(action="answer", text="I changed calc.py."),
                  step(action="answer", text="I changed calc.py, really."))
    session = make_session(fake_llm, tmp_path, small_model=True)

    asyncio.run(run_turn(session, "The function in calc.py subtracts. Make it add."))

    assert len(fake_llm.requests) == 2
    assert of_type(session, ev.AssistantMessage)[-1].text == "I changed calc.py, really."


def test_an_answer_that_places_a_definition_in_the_wrong_file_is_sent_back_once(
        fake_llm, tmp_path: Path) -> None:
    """The 1.5B model named the file that calls the function as the one that defines it."""
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "discounts.py").write_text(
        "def apply_bulk_discount(total):\n    return total * 0.9\n")
    (tmp_path / "shop" / "checkout.py").write_text(
        "from shop.discounts import apply_bulk_discount\n\n\ndef pay(total):\n"
        "    return apply_bulk_discount(total)\n")
    wrong = "In shop/checkout.py the function apply_bulk_discount is defined."
    fake_llm.push(step(action="answer", text=wrong),
                  step(action="answer", text=wrong + " Really."),
                  step(action="answer", text="Never asked for."))
    session = make_session(fake_llm, tmp_path, small_model=True)

    asyncio.run(run_turn(session, "Which function applies the discount, and in which file "
                                  "is it defined?"))

    assert len(fake_llm.requests) == 2  # sent back once, then taken as it is
    assert ("Check your answer against the files: apply_bulk_discount is defined in "
            "shop/discounts.py") in user_text(fake_llm.requests[1])
    assert of_type(session, ev.AssistantMessage)[-1].text == wrong + " Really."


@pytest.mark.parametrize("first, note", [
    # The 0.5B model echoed the prompt.
    ("No changes were made and the task was checked.",
     "your answer names none. All the files of the repository (3): README.md, app.py, run.sh"),
    # The 1.5B model read app.py and answered with that file alone.
    ("The repository has app.py, which sets the port.",
     "your answer leaves out 2 of the 3: README.md, run.sh."),
])
def test_asked_for_the_files_an_answer_that_leaves_them_out_is_sent_back_once(
        fake_llm, tmp_path: Path, first, note) -> None:
    (tmp_path / "app.py").write_text("PORT = 8080\n")
    (tmp_path / "README.md").write_text("# Demo\n")
    (tmp_path / "run.sh").write_text("python app.py\n")
    fake_llm.push(step(action="answer", text=first),
                  step(action="answer", text="app.py and README.md."),
                  step(action="answer", text="Never asked for."))
    session = make_session(fake_llm, tmp_path, small_model=True)

    asyncio.run(run_turn(session, "What files are in this repository? List them."))

    assert len(fake_llm.requests) == 2  # sent back once, then taken as it is
    again = fake_llm.requests[1]
    assert note in user_text(again)
    assert again["response_format"] == ANSWER_FORMAT
    assert of_type(session, ev.AssistantMessage)[-1].text == "app.py and README.md."


def test_an_answer_that_only_repeats_the_question_is_sent_back(fake_llm, tmp_path: Path) -> None:
    """The 0.5B model answered "What files are in this repository?" with that question."""
    (tmp_path / "app.py").write_text("PORT = 8080\n")
    fake_llm.push(step(action="answer", text="What files are in this repository? "),
                  step(action="answer", text="There is one file: app.py."))
    session = make_session(fake_llm, tmp_path, small_model=True, temperature=0.0)

    end = asyncio.run(run_turn(session, "What files are in this repository?"))

    assert end.state == "completed"
    assert of_type(session, ev.AssistantMessage)[-1].text == "There is one file: app.py."
    assert "only repeated the question" in user_text(fake_llm.requests[1])
    assert [r["temperature"] for r in fake_llm.requests] == [0.0, 0.7]


def test_an_answer_that_repeats_the_question_twice_is_kept(fake_llm, tmp_path: Path) -> None:
    fake_llm.push(step(action="answer", text="what is X?"), step(action="answer", text="What is X"),
                  step(action="answer", text="what is x"))
    session = make_session(fake_llm, tmp_path, small_model=True)

    end = asyncio.run(run_turn(session, "what is X?"))

    assert end.state == "completed"
    assert len(fake_llm.requests) == 3
    assert of_type(session, ev.AssistantMessage)[-1].text == "what is x"


def test_a_short_answer_in_the_question_s_words_is_an_answer(fake_llm, tmp_path: Path) -> None:
    fake_llm.push(step(action="answer", text="8080"))
    session = make_session(fake_llm, tmp_path, small_model=True)

    asyncio.run(run_turn(session, "Is the port 8080 or 9090?"))

    assert len(fake_llm.requests) == 1
    assert of_type(session, ev.AssistantMessage)[-1].text == "8080"


def test_a_task_s_listed_changes_are_sent_back_when_fewer_were_made(fake_llm,
                                                                    tmp_path: Path) -> None:
    """The 1.5B model set the version of three listed changes and answered it was done."""
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nversion = "1.2.0"\ndependencies = ["requests>=2.31"]\n')
    # The file the task names is asked for whole first; the model makes one change.
    fake_llm.push(whole('[project]\nversion = "1.3.0"\ndependencies = ["requests>=2.31"]\n', "toml"),
                  step(action="answer", text="The version is now 1.3.0."),
                  step(action="edit", path="pyproject.toml",
                       search='dependencies = ["requests>=2.31"]',
                       replace='dependencies = ["requests>=2.31", "httpx>=0.27"]'),
                  whole('[project]\nversion = "1.3.0"\n'
                        'dependencies = ["requests>=2.31", "httpx>=0.27"]\n', "toml"),
                  step(action="answer", text="Both changes are made."),
                  step(action="answer", text="never asked for"))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="yolo")

    end = asyncio.run(run_turn(session, 'In pyproject.toml: set the version to 1.3.0, add the '
                                        'dependency "httpx>=0.27" and set line-length to 100.'))

    assert end.state == "completed"
    assert '"httpx>=0.27"' in (tmp_path / "pyproject.toml").read_text()
    assert "Done first, as the task asks: edit pyproject.toml" in user_text(fake_llm.requests[1])
    sent_back = user_text(fake_llm.requests[2])
    assert ('The task asks for 3 changes:\n1. set the version to 1.3.0\n2. add the dependency '
            '"httpx>=0.27"\n3. set line-length to 100\nSo far 1 change(s) applied') in sent_back
    # Once a turn: the second answer, with two of three made, ends it.
    assert len(fake_llm.requests) == 5
    assert of_type(session, ev.AssistantMessage)[-1].text == "Both changes are made."


def test_once_every_listed_change_is_made_the_model_is_told_to_answer(fake_llm,
                                                                      tmp_path: Path) -> None:
    (tmp_path / "app.toml").write_text('version = "1.2.0"\ndebug = false\nport = 80\n')
    fake_llm.push(whole('version = "1.3.0"\ndebug = true\nport = 8080\n', "toml"),
                  step(action="answer", text="All three are set."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="yolo")

    asyncio.run(run_turn(session, "In app.toml: set the version to 1.3.0, turn on debug "
                                  "and set the port to 8080."))

    assert "The 3 changes the task lists are made: check them above, then answer." in user_text(
        fake_llm.requests[-1])
    assert fake_llm.requests[-1]["response_format"] == LOOK_FORMAT  # no more changes


def test_task_parts_are_the_changes_one_sentence_lists() -> None:
    from vibe_tui.core.step_context import task_parts

    assert task_parts("In a.json: turn on beta, set the timeout to 30, and add fr to the "
                      "locales. Keep the rest.") == [
        "turn on beta", "set the timeout to 30", "add fr to the locales"]
    assert task_parts("Fix the bug in calc.py and run the tests.") == []
    assert task_parts("Add a slugify function and a test for it.") == []
    assert task_parts("What files are in this repository?") == []


def test_a_rewrite_that_drops_lines_falls_back_to_the_search_text(fake_llm,
                                                                  tmp_path: Path) -> None:
    lines = [f"VALUE_{n} = {n}" for n in range(12)]
    (tmp_path / "values.py").write_text("\n".join(lines) + "\n")
    fake_llm.push(step(action="edit", path="values.py", search="VALUE_3 = 3",
                       replace="VALUE_3 = 30"),
                  whole("VALUE_3 = 30\n"),
                  step(action="answer", text="VALUE_3 is 30."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits")

    end = asyncio.run(run_turn(session, "VALUE_3 in values.py is wrong. Set it to 30."))

    assert end.state == "completed"
    lines[3] = "VALUE_3 = 30"
    assert (tmp_path / "values.py").read_text() == "\n".join(lines) + "\n"
    assert [c.tool for c in of_type(session, ev.ToolCall)] == ["edit_file"]


def test_a_rename_changes_the_name_in_every_file_and_nothing_else(fake_llm,
                                                                  tmp_path: Path) -> None:
    (tmp_path / "geo").mkdir()
    (tmp_path / "geo" / "shapes.py").write_text(
        "def calc_area(w, h):\n    return w * h\n\n\ndef calc_area_total(items):\n"
        "    return sum(calc_area(*i) for i in items)\n")
    (tmp_path / "geo" / "cli.py").write_text("from geo.shapes import calc_area\n\n"
                                             "print(calc_area(2, 3))\n")
    (tmp_path / "notes.txt").write_text("nothing here\n")
    fake_llm.push(step(action="rename", old="calc_area", new="compute_area"),
                  step(action="answer", text="Renamed calc_area to compute_area."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits")

    end = asyncio.run(run_turn(session, "calc_area should be called compute_area everywhere."))

    assert end.state == "completed"
    assert (tmp_path / "geo" / "shapes.py").read_text() == (
        "def compute_area(w, h):\n    return w * h\n\n\ndef calc_area_total(items):\n"
        "    return sum(compute_area(*i) for i in items)\n")
    assert "from geo.shapes import compute_area" in (tmp_path / "geo" / "cli.py").read_text()
    assert [(c.tool, c.args["path"]) for c in of_type(session, ev.ToolCall)] == [
        ("write_file", "geo/cli.py"), ("write_file", "geo/shapes.py")]
    assert ("Step 1: rename calc_area to compute_area: changed geo/cli.py, geo/shapes.py"
            in user_text(fake_llm.requests[1]))
    notes = [n.text for n in of_type(session, ev.Notice)]
    assert "small-model steps: changed: geo/cli.py, geo/shapes.py" in notes


def test_a_rename_no_file_allows_goes_back_to_the_model(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    fake_llm.push(step(action="rename", old="missing_name", new="other"),
                  step(action="rename", old="x = 1", new="y"),
                  step(action="answer", text="Nothing to rename."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits")

    asyncio.run(run_turn(session, "rename missing_name to other"))

    assert "no file has the name missing_name" in user_text(fake_llm.requests[1])
    assert "a rename takes two names" in user_text(fake_llm.requests[2])
    assert (tmp_path / "a.py").read_text() == "x = 1\n"
    assert not of_type(session, ev.ToolCall)


def test_a_file_written_whole_counts_each_place_it_changes(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nversion = "1.2.0"\ndependencies = ["requests>=2.31"]\n\n[tool.ruff]\n'
        'line-length = 88\n')
    fake_llm.push(whole('[project]\nversion = "1.3.0"\n'
                        'dependencies = ["requests>=2.31", "httpx>=0.27"]\n\n[tool.ruff]\n'
                        'line-length = 100\n', "toml"),
                  step(action="answer", text="All three are made."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="yolo")

    end = asyncio.run(run_turn(session, 'In pyproject.toml: set the version to 1.3.0, add the '
                                        'dependency "httpx>=0.27" and set line-length to 100.'))

    assert end.state == "completed"
    assert len(fake_llm.requests) == 2  # no list sent back: the one write made all three
    assert ('The task asks for these changes:\n1. set the version to 1.3.0\n2. add the '
            'dependency "httpx>=0.27"\n3. set line-length to 100\n') in user_text(
        fake_llm.requests[0])
    assert "line-length = 100" in (tmp_path / "pyproject.toml").read_text()


def test_a_rename_the_task_asks_for_is_done_before_the_first_step(fake_llm,
                                                                  tmp_path: Path) -> None:
    (tmp_path / "shapes.py").write_text("def calc_area(w, h):\n    return w * h\n")
    (tmp_path / "check.py").write_text("from shapes import compute_area\n"
                                       "assert compute_area(2, 3) == 6\n")
    fake_llm.push(step(action="rename", old="calc_area", new="compute_area"),
                  step(action="answer", text="Renamed; check.py passes."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits",
                           allow=["Bash(python3 check.py)"], sandbox="off")

    end = asyncio.run(run_turn(session, "Rename the function calc_area to compute_area "
                                        "everywhere, then run `python3 check.py`."))

    assert end.state == "completed"
    assert "def compute_area" in (tmp_path / "shapes.py").read_text()
    assert [c.tool for c in of_type(session, ev.ToolCall)] == ["write_file", "bash"]
    request, again = fake_llm.requests
    assert ("Done first, as the task asks: rename calc_area to compute_area: changed shapes.py"
            in user_text(request))
    assert "Ran `python3 check.py` (the command the task names): passed" in user_text(request)
    assert "def compute_area" in user_text(request)  # the context is gathered after it
    assert "Step 1 repeats a step taken for you" in user_text(again)


def test_an_answer_that_announces_a_change_is_sent_back(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    fake_llm.push(step(action="answer", text="Now, I'll proceed to fix add in calc.py."),
                  step(action="answer", text="I could not."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits")

    asyncio.run(run_turn(session, "The function in calc.py subtracts. Make it add."))

    assert "Your answer tells of a change, but no file was changed" in user_text(
        fake_llm.requests[1])


def test_in_a_long_file_the_definition_the_edit_falls_in_is_written_whole(
        fake_llm, tmp_path: Path) -> None:
    fillers = "".join(f"def filler_{n}(x):\n    return x + {n}\n\n\n" for n in range(40))
    fee = ('def late_fee(amount, days):\n    """At most a tenth of the amount."""\n'
           "    return max(amount * days / 200, amount / 10)\n")
    (tmp_path / "billing.py").write_text(fillers + fee + "\n\n" + fillers.replace("filler", "other"))
    fake_llm.push(step(action="edit", path="billing.py", search="late_fee", replace="late_fee"),
                  whole('def late_fee(amount, days):\n    """At most a tenth of the amount."""\n'
                        "    return min(amount * days / 200, amount / 10)\n"),
                  step(action="answer", text="late_fee takes the smaller one now."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="accept-edits")

    end = asyncio.run(run_turn(session, "late_fee in billing.py is wrong: the fee is capped. Fix it."))

    assert end.state == "completed"
    text = (tmp_path / "billing.py").read_text()
    assert "return min(amount * days / 200, amount / 10)" in text
    assert text.count("\n") == (fillers + fee + "\n\n" + fillers).count("\n")
    [edit] = of_type(session, ev.ToolCall)
    assert edit.tool == "edit_file" and edit.args["old_string"] == fee
    assert "Lines 161-163 of billing.py now:\n```python\ndef late_fee" in user_text(
        fake_llm.requests[1])


def test_the_task_s_list_goes_only_with_the_file_it_names(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "app.json").write_text('{"a": 0, "b": 0}\n')
    (tmp_path / "README.md").write_text("# App\n")
    fake_llm.push(step(action="edit", path="README.md", search="# App", replace="# App!"),
                  whole("# App!\n", "markdown"),
                  step(action="edit", path="app.json", search='"a": 0', replace='"a": 1'),
                  whole('{"a": 1, "b": 2}\n', "json"),
                  step(action="answer", text="Both are set."))
    session = make_session(fake_llm, tmp_path, small_model=True, mode="yolo")

    asyncio.run(run_turn(session, "In app.json: set a to 1 and set b to 2."))

    listing = "The task asks for these changes:\n1. set a to 1\n2. set b to 2\n"
    assert listing not in user_text(fake_llm.requests[1])  # README.md
    assert listing in user_text(fake_llm.requests[3])  # app.json


def test_an_answer_going_round_in_circles_ends_where_it_began_again(fake_llm,
                                                                   tmp_path: Path) -> None:
    # The 1.5B model, out of things to say, wrote "I did not ..." sentences to the cap.
    (tmp_path / "app.py").write_text("PORT = 8080\n")
    looping = "The repository has app.py. " + "I did not change it. I did not run it. " * 15
    fake_llm.push(step(action="answer", text=looping))
    session = make_session(fake_llm, tmp_path, small_model=True)

    end = asyncio.run(run_turn(session, "What files are in this repository? List them."))

    assert end.state == "completed"
    [request] = fake_llm.requests
    assert request["response_format"] == ANSWER_FORMAT
    assert of_type(session, ev.AssistantMessage)[-1].text == (
        "The repository has app.py. I did not change it. I did not run it.")
    assert any("began repeating itself" in n.text for n in of_type(session, ev.Notice))
