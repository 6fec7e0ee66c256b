"""The parts of small-model steps: reading a step, streaming an answer, placing an edit,
gathering context from real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vibe_tui.core.step_answers import (
    admits_no_change,
    claims_change,
    echoes,
    files_left_out,
    misplaced_definitions,
)
from vibe_tui.core.step_context import (
    asks_change,
    code_names,
    fit_log,
    gather,
    task_commands,
    task_terms,
    trace_excerpts,
)
from vibe_tui.core.step_edits import NotLocated, locate, rename_plan, rewritable, rewritten
from vibe_tui.core.step_protocol import AnswerStream, Step, hands_off, parse_step


def test_a_step_is_read_from_json_and_checked() -> None:
    assert parse_step('{"action": "run", "command": "ls"}') == Step("run", {"command": "ls"})
    assert parse_step('noise {"action": "read", "path": "a.py", "line": 3} tail') == \
        Step("read", {"path": "a.py", "line": 3})
    assert parse_step('{"action": "edit", "path": "a.py"}') == \
        "the edit step lacks search, replace"
    assert parse_step('{"action": "delete"}').startswith("no known action")
    assert parse_step('{"action": ').startswith("not valid JSON")
    assert parse_step("") == "an empty reply"


def test_plain_words_are_an_answer() -> None:
    assert parse_step("The port is 8080.") == Step("answer", {"text": "The port is 8080."})


def test_the_answer_streams_as_words_whatever_the_chunking() -> None:
    answer = 'It is "8080"\nin app.py \u00e9'
    raw = json.dumps({"action": "answer", "text": answer})
    for size in (1, 2, 3, 7):
        stream = AnswerStream()
        shown = "".join(stream.feed(raw[i:i + size]) for i in range(0, len(raw), size))
        assert shown == answer


def test_other_steps_stream_nothing() -> None:
    stream = AnswerStream()
    assert stream.feed('{"action": "run", "command": "echo hi"}') == ""


def test_an_exact_search_is_used_as_it_is() -> None:
    located = locate("a = 1\nb = 2\n", "b = 2", "b = 3")
    assert (located.old, located.new, located.replace_all) == ("b = 2", "b = 3", False)


def test_a_search_with_the_wrong_indentation_is_placed_and_reindented() -> None:
    content = "def f():\n    if x:\n        return 1\n    return 2\n"
    located = locate(content, "if x:\n    return 1", "if x:\n    return 10")
    assert located.old == "    if x:\n        return 1"
    assert located.new == "    if x:\n        return 10"
    assert located.note


def test_a_search_with_the_other_kind_of_quote_is_placed_on_the_file_s_line() -> None:
    content = 'def initials(name):\n    return "".join(p[0] for p in name.split())\n'
    located = locate(content, "return ''.join(p[0] for p in name.split())",
                     "return ''.join(p[0].upper() for p in name.split())")
    assert located.old == '    return "".join(p[0] for p in name.split())'
    assert located.new == "    return ''.join(p[0].upper() for p in name.split())"


def test_a_one_line_search_found_many_times_replaces_every_one() -> None:
    located = locate("calc_area(1)\ncalc_area(2)\n", "calc_area", "compute_area")
    assert located.replace_all


def test_searches_that_cannot_be_placed_say_why() -> None:
    with pytest.raises(NotLocated, match="not in the file"):
        locate("a = 1\n", "b = 2", "b = 3")
    with pytest.raises(NotLocated, match="occurs 2 times"):
        locate("x\ny\nx\ny\n", "x\ny", "z")
    with pytest.raises(NotLocated, match="empty"):
        locate("a\n", "  \n", "b")


def test_the_commands_a_task_names_are_found() -> None:
    task = "Run `python -m pytest` then `bash tests/t.sh`; see `config.py` and `python -m pytest`."
    assert task_commands(task) == ["python -m pytest", "bash tests/t.sh"]


def test_task_terms_leave_out_common_words() -> None:
    assert task_terms("Which port does the server use in production?") == \
        ["port", "server", "production"]


def test_gather_lists_files_and_shows_what_the_task_points_to(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "prod.toml").write_text("[server]\nport = 8443\n")
    (tmp_path / "app.py").write_text("\n".join(f"x{i} = {i}" for i in range(100)) + "\n")
    (tmp_path / "blob.bin").write_bytes(b"\0port\0")

    gathered = gather(tmp_path, "Which port does the server use in production?")

    assert gathered.files == 3
    assert gathered.text.startswith("All the files of the repository (3): app.py, blob.bin, config/prod.toml")
    assert "--- config/prod.toml (lines 1-2 of 2)\n[server]\nport = 8443" in gathered.text
    assert gathered.shown == ["config/prod.toml"]


def test_a_long_file_is_shown_around_its_matches(tmp_path: Path) -> None:
    lines = [f"line {i}" for i in range(1, 301)]
    lines[149] = "def late_fee(days):"
    (tmp_path / "billing.py").write_text("\n".join(lines) + "\n")

    text = gather(tmp_path, "fix late_fee").text

    assert "--- billing.py (lines 147-153 of 300)" in text
    assert "def late_fee(days):" in text
    assert "line 1\n" not in text


def test_every_line_naming_the_code_the_task_names_is_listed_last(tmp_path: Path) -> None:
    (tmp_path / "relay").mkdir()
    for number in range(5):  # more files than are shown in excerpts
        (tmp_path / "relay" / f"stage{number}.py").write_text(
            f"import os\n\n\ndef setting():\n    return os.environ['STAGE_{number}']\n")
    (tmp_path / "relay" / "retry.py").write_text("from os import getenv\nLIMIT = getenv('N')\n")
    task = ("Find every environment variable the code reads (os.environ or os.getenv) and in "
            "which file.")

    text = gather(tmp_path, task, listing_names=True).text

    assert "Every line" not in gather(tmp_path, task).text  # stale once a file changes
    listing = text.rsplit("\n\n", 1)[-1].splitlines()
    assert listing[0] == "Every line of the repository that names environ or getenv:"
    assert listing[1:] == ["relay/retry.py:1: from os import getenv",
                           "relay/retry.py:2: LIMIT = getenv('N')",
                           *[f"relay/stage{n}.py:5: return os.environ['STAGE_{n}']"
                             for n in range(5)]]


def test_names_that_are_files_or_too_common_to_list_are_left_out(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("\n".join(f"limit_{i} = {i}  # limit" for i in range(40)))

    assert code_names("Create settings.json; read `cache_dir` and fix late_fee() in app.py.",
                      ["app.py"]) == ["cache_dir", "late_fee"]
    assert "Every line" not in gather(tmp_path, "What is the `limit` in app.py?",
                                      listing_names=True).text


def test_a_traceback_points_to_the_code_under_test_first(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "shop" / "cart.py").write_text("def total():\n    return 1 / 0\n")
    (tmp_path / "tests" / "test_cart.py").write_text("from shop.cart import total\n\ntotal()\n")
    output = (f'  File "{tmp_path}/tests/test_cart.py", line 3, in <module>\n'
              '  File "shop/cart.py", line 2, in total\nZeroDivisionError\n'
              "/etc/passwd:1: not ours\n")

    text = trace_excerpts(tmp_path, output)

    assert text.index("--- shop/cart.py") < text.index("--- tests/test_cart.py")
    assert "return 1 / 0" in text
    assert "passwd" not in text


def test_a_failing_test_s_report_shows_the_code_it_imports_two_deep(tmp_path: Path) -> None:
    """pytest names the test's line; the bug is in a helper the tested module imports."""
    for folder in ("invoices", "tests"):
        (tmp_path / folder).mkdir()
    (tmp_path / "invoices" / "__init__.py").write_text("")
    (tmp_path / "invoices" / "dates.py").write_text("def days_between(a, b):\n    return b - a\n")
    (tmp_path / "invoices" / "rental.py").write_text(
        "from .dates import days_between\n\ndef days(a, b):\n    return days_between(a, b)\n")
    (tmp_path / "tests" / "test_rental.py").write_text(
        "import os\nfrom invoices.rental import days\n\ndef test_days():\n"
        "    assert days(1, 2) == 2\n")

    text = trace_excerpts(tmp_path, "tests/test_rental.py:5: AssertionError\n")

    assert "--- invoices/rental.py (lines 1-4 of 4)" in text
    assert "--- invoices/dates.py (lines 1-2 of 2)\ndef days_between(a, b):" in text
    assert text.index("--- invoices/") < text.index("--- tests/test_rental.py")


def test_javascript_requires_and_imports_are_followed(tmp_path: Path) -> None:
    from vibe_tui.core.step_context import imports_of

    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "src" / "lines.js").write_text("module.exports = {};\n")
    (tmp_path / "src" / "util.ts").write_text("export const x = 1;\n")
    (tmp_path / "test" / "lines.test.js").write_text(
        "const { total } = require('../src/lines');\nimport { x } from \"../src/util\";\n"
        "const fs = require('fs');\n")

    assert imports_of(tmp_path, "test/lines.test.js") == ["src/lines.js", "src/util.ts"]


def test_words_from_a_server_without_the_schema_stream_as_they_come() -> None:
    stream = AnswerStream()
    assert [stream.feed(part) for part in ("  Fo", "ur.")] == ["  Fo", "ur."]


@pytest.mark.parametrize(("task", "mode", "expected"), [
    ("Which port? Do not change any file.", "default", True),
    ("Answer without changing anything.", "default", True),
    ("fix it", "plan", True),
    ("Fix the bug. Do not change the tests.", "default", False),
    ("Fix the file; do not change any of the data in it.", "default", False),
    # A question asks for words: offered an edit, the 0.5B model asked to edit README.md
    # when asked which files the repository holds.
    ("What files are in this repository?", "default", True),
    ("Which function applies the discount? Where is it called?", "default", True),
    ("how does the cache expire", "default", False),
    ("Can you add a --verbose flag?", "default", False),
    ("Why does the test fail? Fix it.", "default", False),
    ("Why does the test fail, and how do I fix it?", "default", False),
    ("What files are in this repository? List them.", "default", True),
    ("Explain what main.py does.", "default", True),
    ("Find the slow function and rewrite it.", "default", False),
    ("How do I add a --verbose flag?", "default", False),
])
def test_a_task_that_must_change_nothing_is_recognised(task, mode, expected) -> None:
    assert hands_off(task, mode) is expected


def test_a_long_file_the_task_names_is_shown_where_the_search_found_its_words(tmp_path: Path) -> None:
    (tmp_path / "legacy").mkdir()
    lines = [f"def tariff_{i}(amount):\n    return amount * {i}" for i in range(1500)]
    lines[1200] = "def late_fee(days):\n    return days * 3"
    (tmp_path / "legacy" / "billing.py").write_text("\n".join(lines) + "\n")

    gathered = gather(tmp_path, "The bug is in late_fee in legacy/billing.py: fix it.")

    assert gathered.shown == ["legacy/billing.py"]
    assert "def late_fee(days):" in gathered.text
    assert "tariff_0" not in gathered.text


def test_rewritten_reads_the_fenced_file_and_refuses_what_is_not_one() -> None:
    assert rewritten("Here it is:\n```toml\na = 2\n```\nDone.", "a = 1\n", cut=False) == "a = 2\n"
    assert rewritten("```\na = 2\n```", "a = 1", cut=False) == "a = 2"  # no last newline kept
    # The continuation of the fence the request began, up to its closing line.
    assert rewritten("a = 2\n```\n", "a = 1\n", cut=False) == "a = 2\n"
    for reply, cut, reason in [("```toml\na = 2\n", True, "cut off"),
                               ("a = 2", False, "no fenced code block"),
                               ("```\na = 1\n```", False, "came back unchanged"),
                               ('{\n  "action": "answer",\n  "text": "a is 1"\n}\n```\n', False,
                                "a JSON step, not the file")]:
        with pytest.raises(NotLocated, match=reason):
            rewritten(reply, "a = 1\n", cut=cut)


def test_a_rewrite_cut_at_its_cap_is_kept_only_when_it_holds_the_whole_file() -> None:
    """Adding a test, the 1.5B model wrote the file, then one assertion until the cap."""
    test_file = "def test_a():\n    assert a() == 1\n"
    looped = test_file + "\ndef test_b():\n    assert b(1) == 1\n    assert b(2) == 1\n    as"
    assert rewritten(looped, test_file, cut=True) == (
        test_file + "\ndef test_b():\n    assert b(1) == 1\n    assert b(2) == 1\n")
    # Cut before the file's end: its last lines would be lost.
    with pytest.raises(NotLocated, match="cut off"):
        rewritten("def test_a():\n    assert a() == 2\n    as", test_file, cut=True)
    with pytest.raises(NotLocated, match="cut off"):
        rewritten("x = 1\n" + looped, "y = 2\n", cut=True)  # a line of the file gone


def test_only_a_short_file_without_fences_is_written_whole() -> None:
    assert rewritable("a = 1\n" * 120)
    assert not rewritable("a = 1\n" * 121)
    assert not rewritable("x" * 6001)
    assert not rewritable("# Notes\n```sh\nls\n```\n")  # a fence could not hold it


def test_a_rename_plan_is_whole_words_in_text_files(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("old_name(); old_name_2(); x.old_name\n")
    (tmp_path / "blob.bin").write_bytes(b"old_name\0")
    (tmp_path / "b.py").write_text("nothing\n")
    assert rename_plan(tmp_path, "old_name", "new_name") == [
        ("a.py", "new_name(); old_name_2(); x.new_name\n")]
    with pytest.raises(NotLocated, match="same"):
        rename_plan(tmp_path, "a", "a")
    with pytest.raises(NotLocated, match="two names"):
        rename_plan(tmp_path, "old_name()", "new")


def test_changed_places_counts_changed_lines_not_hunks() -> None:
    from vibe_tui.core.step_answers import changed_places

    diff = ("--- a/p.toml\n+++ b/p.toml\n@@ -1,6 +1,6 @@\n [project]\n-version = 1\n-deps = []\n"
            "+version = 2\n+deps = [x]\n \n-width = 88\n+width = 100\n+extra = 1\n")
    assert changed_places(diff) == 4  # two lines changed, then one changed and one added
    assert changed_places("") == 0



def test_task_rename_reads_a_rename_asked_for_in_words() -> None:
    from vibe_tui.core.step_context import task_rename

    assert task_rename("Rename the function calc_area to compute_area everywhere") == (
        "calc_area", "compute_area")
    assert task_rename("rename `parse()` to `parse_config`") == ("parse", "parse_config")
    assert task_rename("Fix the rename of files in backup.sh") is None


@pytest.mark.parametrize(("answer", "claims"), [
    ("I fixed add in calc.py.", True),
    ("Now, I'll proceed to rename calc_area.", True),
    ("The late_fee function needs to be adjusted so the fee is capped.", True),
    ("We need to change this to use min.", True),
    ("The port is 8080.", False),
    ("It has to do with the tabs.", False),
])
def test_an_answer_that_tells_of_a_change_is_recognised(answer: str, claims: bool) -> None:
    from vibe_tui.core.step_answers import claims_change

    assert claims_change(answer) is claims


def test_a_sentence_of_a_long_task_said_back_is_an_echo() -> None:
    task = ("You are the helper the user's task names: find out what it asks. Below are the "
            "files and lines a search found. The task: find every environment variable the "
            "code reads (os.environ, os.getenv or getenv) and in which file.")

    assert echoes("Find every environment variable the code reads (os.environ, os.getenv "
                  "or getenv) and in which file.", task)
    assert not echoes("RELAY_URL in relay/intake.py", task)
    assert not echoes("8080", "Does it listen on 8080 or 9090 in production?")
    assert not echoes("It listens on 8080 in production.",
                      "Does it listen on 8080 or 9090 in production? Say which.")


def test_the_oldest_results_give_way_first_and_the_last_stays_whole() -> None:
    log = ["Step 1: read a.csv\n" + "1" * 500, "The user added: hurry",
           "Step 2: read b.csv\n" + "2" * 500, "Step 3: read c.csv\n" + "3" * 500]

    assert fit_log(log, 10_000) == (log, 0)
    # Too long, the log is cleared, oldest first, to half the room (or its last entry).
    fitted, cleared = fit_log(log, 1200)
    assert fitted == ["Step 1: read a.csv\n[its output was cleared to make room]",
                      "The user added: hurry",
                      "Step 2: read b.csv\n[its output was cleared to make room]", log[3]]
    assert cleared == 3
    assert fit_log(log, 10)[0][-1] == log[3]


def test_the_start_of_the_log_stays_as_it_was_until_the_room_is_full_again() -> None:
    """What changes in a request is read again by the model: clearing one more entry at
    every step made each step re-read the whole log after it."""
    entries = [f"Step {number}: read part{number}.csv\n" + "9" * 300 for number in range(1, 9)]
    requests, cleared = [], 0
    for count in range(1, len(entries) + 1):
        fitted, cleared = fit_log(entries[:count], 1500, cleared)
        requests.append("\n\n".join(fitted))
    changed = [index for index in range(1, len(requests))
               if not requests[index].startswith(requests[index - 1])]
    # Each request extends the one before but for two: 5 and 8 entries overflow the room
    # (clearing just enough, every request from the fifth on changed its start).
    assert changed == [4, 7]
    assert all(len(request) <= 1500 for request in requests)
def test_a_change_announced_in_the_first_person_plural_is_a_claimed_change() -> None:
    assert claims_change("Now, let's add the `truncate_words` function to strings.py.")
    assert claims_change("We will fix the comma on line 6.")
    assert not claims_change("Let's see: the port is 8080.")


def test_a_task_asks_for_a_change_when_a_sentence_starts_with_one_or_says_fix() -> None:
    assert asks_change("Add a function truncate_words(text, limit) to strings.py.")
    assert asks_change("The tests fail: run `pytest` and fix the bug in the code.")
    assert not asks_change("Which port does the server listen on?")
    assert admits_no_change("I could not find Y.")
    assert not admits_no_change("I added the function.")


def test_a_parse_error_is_placed_only_in_the_one_data_file_the_task_names(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"x": 1,,\n"y": 2}\n')
    (tmp_path / "b.toml").write_text("x = 1\n")
    error = "json.decoder.JSONDecodeError: Expecting value: line 1 column 9 (char 8)"

    assert trace_excerpts(tmp_path, error, ["a.json"]) == (
        '--- a.json line 1, column 9, where the error is\n{"x": 1,,\n        ^')
    assert trace_excerpts(tmp_path, error, ["a.json", "b.toml"]) == ""
    assert trace_excerpts(tmp_path, error, []) == ""
    assert trace_excerpts(tmp_path, "line 40 column 1", ["a.json"]) == ""


@pytest.mark.parametrize(("answer", "expected"), [
    ("In the shop/checkout.py file, the function apply_bulk_discount is defined.",
     {"apply_bulk_discount": "shop/discounts.py"}),
    ("checkout.py defines `apply_bulk_discount`.", {"apply_bulk_discount": "shop/discounts.py"}),
    # Right, with a helper the sentence does not place.
    ("apply_bulk_discount is defined in shop/discounts.py and calls tier_rate.", {}),
    ("`apply_bulk_discount`, defined in discounts.py.", {}),
    # No claim of where it is defined, or no file named.
    ("shop/checkout.py calls apply_bulk_discount.", {}),
    ("apply_bulk_discount is defined in the shop package.", {}),
    # A name defined nowhere, or in two files, is not placed by us.
    ("In shop/checkout.py, make_receipt is defined.", {}),
    ("In shop/checkout.py, tier_rate is defined.", {}),
])
def test_a_definition_an_answer_places_is_checked_against_the_files(tmp_path: Path, answer,
                                                                   expected) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "discounts.py").write_text(
        "from shop.pricing import tier_rate\n\n\ndef apply_bulk_discount(total):\n"
        "    return total * (1 - tier_rate(total))\n")
    (tmp_path / "shop" / "pricing.py").write_text("def tier_rate(total):\n    return 0.1\n")
    (tmp_path / "shop" / "legacy.py").write_text("def tier_rate(total):\n    return 0.2\n")
    (tmp_path / "shop" / "checkout.py").write_text(
        "from shop.discounts import apply_bulk_discount\n")
    files = sorted(f"shop/{path.name}" for path in (tmp_path / "shop").iterdir())
    assert misplaced_definitions(tmp_path, files, answer) == expected


@pytest.mark.parametrize("task, answer, left_out", [
    # Asked for every file: the 1.5B model named the one it had read.
    ("What files are in this repository? List them.", "The file app.py sets PORT = 8080.",
     ["README.md", "run.sh", "tools/check.py"]),
    ("what files are here?", "app.py, README.md, run.sh and tools/check.py", []),
    ("List the files.", "app.py, README.md, run.sh; tools/ holds a check.", []),
    ("Show me all the files.", "README.md and run.sh", ["app.py", "tools/check.py"]),
    ("Which files does this project have?", "app.py", ["README.md", "run.sh", "tools/check.py"]),
    ("What files does this repository contain?", "app.py",
     ["README.md", "run.sh", "tools/check.py"]),
    # Asked about some files, an answer may name some.
    ("Which files import os?", "tools/check.py", None),
    ("List the files that set a port.", "app.py", None),
    ("Which files in this repository set the port?", "app.py", None),
    # Asked about the files, an answer that names none is sent back with them all.
    ("Which files set the port?", "No changes were made.", "none"),
    ("What files are in this repository?", "It holds some code.", "none"),
    # Not asked about the files at all.
    ("What is the port?", "8080", None),
])
def test_an_answer_about_the_files_is_checked_for_those_it_leaves_out(task, answer,
                                                                   left_out) -> None:
    files = ["README.md", "app.py", "run.sh", "tools/check.py"]
    note = files_left_out(files, task, answer)
    if left_out is None:
        assert note is None
    elif left_out == "none":
        assert note.startswith("The task asks about the files, and your answer names none.")
        assert "All the files of the repository (4)" in note
    elif not left_out:
        assert note is None
    else:
        assert f"leaves out {len(left_out)} of the 4: {', '.join(left_out)}." in note


def test_an_answer_need_not_list_every_file_of_a_repository_too_big_to_list() -> None:
    files = [f"part{number}.py" for number in range(25)]
    assert files_left_out(files, "What files are here?", "part1.py and others") is None
